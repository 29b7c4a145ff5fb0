"""Participants' tokens and sessions.

A token is LOOKUP.SECRET: the lookup finds the one user row to check, the secret is
kept only as a salted scrypt hash and compared in constant time. A token is shown once,
when it is made. A web session is a random cookie value whose SHA-256 alone is stored,
with its own CSRF token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from .db import ServerDB, ServerDBError, User
from .uploads import valid_name

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1   #: about 16 MiB and some tens of ms a check
LOOKUP_BYTES = 6
SECRET_BYTES = 32


class TokenChecksSpent(Exception):
    """No scrypt check of a token may be made now (the caller's budget of them is spent)."""


def _hash(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)


def _new_token() -> tuple[str, str, bytes, bytes]:
    """(token, lookup, salt, hash) of a fresh token."""
    lookup = secrets.token_hex(LOOKUP_BYTES)
    secret = secrets.token_urlsafe(SECRET_BYTES)
    salt = secrets.token_bytes(16)
    return f"{lookup}.{secret}", lookup, salt, _hash(secret, salt)


class Accounts:
    """Users, their tokens and their web sessions, over the server's database."""

    def __init__(self, db: ServerDB) -> None:
        self.db = db
        # tokens already checked this process: the scrypt hash is paid once per token, not
        # once per request (the row is still read each time, so a revoke takes effect at once)
        self._checked: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def add(self, name: str, admin: bool = False) -> tuple[User, str]:
        """A new user and their token (shown once; only its hash is kept)."""
        problem = valid_name(name)
        if problem is not None:
            raise ServerDBError(problem)
        token, lookup, salt, digest = _new_token()
        return self.db.add_user(name, admin, lookup, salt, digest), token

    def new_token(self, name: str) -> tuple[User, str]:
        """A new token for an existing user; the old one stops working."""
        token, lookup, salt, digest = _new_token()
        return self.db.replace_token(name, lookup, salt, digest), token

    def revoke(self, name: str) -> bool:
        """Revoke a user's token and end their sessions; False if there is no such user."""
        return self.db.revoke(name)

    def authenticate(self, token: str, may_check: Callable[[], bool] | None = None) -> User | None:
        """The active user whose token this is, or None. A token not checked before costs a
        scrypt hash: may_check, when given, is asked first, and TokenChecksSpent raised when
        it says no (a token known already, or a lookup no user has, costs none)."""
        lookup, dot, secret = token.strip().partition(".")
        if not dot or not lookup or not secret or len(token) > 200:
            return None
        found = self.db.credentials(lookup)
        if found is None:
            return None
        user, salt, digest = found
        if not user.active:
            return None
        fast = hashlib.sha256(salt + token.encode()).digest()
        with self._lock:
            known = self._checked.get(lookup)
        if known is not None and hmac.compare_digest(known, fast):
            return user
        if may_check is not None and not may_check():
            raise TokenChecksSpent
        if not hmac.compare_digest(_hash(secret, salt), digest):
            return None
        with self._lock:
            self._checked[lookup] = fast
        return user

    # --- web sessions ---

    def open_session(self, user: User, hours: float) -> tuple[str, str]:
        """(cookie value, CSRF token) of a new session of user."""
        cookie = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(24)
        expires = (datetime.now(UTC) + timedelta(hours=hours)).isoformat(timespec="seconds")
        self.db.add_session(_session_key(cookie), user.id, csrf, expires)
        return cookie, csrf

    def session(self, cookie: str) -> tuple[User, str] | None:
        """(user, CSRF token) of a live session, or None."""
        if not cookie or len(cookie) > 100:
            return None
        return self.db.session(_session_key(cookie))

    def close_session(self, cookie: str) -> None:
        """Log a session out."""
        self.db.end_session(_session_key(cookie))


def _session_key(cookie: str) -> str:
    return hashlib.sha256(cookie.encode()).hexdigest()


def csrf_matches(expected: str, given: str | None) -> bool:
    """The form's CSRF token is the session's (compared in constant time)."""
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())
