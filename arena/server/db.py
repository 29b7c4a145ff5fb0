"""The server's own SQLite file (server.sqlite in its data directory): participants, their
sessions, the bots they own and their submissions. The league's games stay in the league's
store; nothing here is read by the ladder.

WAL with a busy timeout, so `arena users` works beside a running server and the web
process, the worker and the CLI each open their own connection. Every change is one
transaction (BEGIN IMMEDIATE ... COMMIT).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from arena.errors import ArenaError

BUSY_TIMEOUT_S = 30.0
SCHEMA_VERSION = 1

#: a submission's life: received (stored whole, waiting for the worker) -> building ->
#: validating -> accepted (in the ladder) | rejected; an accepted one becomes replaced
#: when a later version of its bot is accepted
STATUSES = ("received", "building", "validating", "accepted", "rejected", "replaced")
KINDS = ("file", "zip", "tar", "wheel")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    admin INTEGER NOT NULL DEFAULT 0,
    lookup TEXT NOT NULL UNIQUE,      -- the token's public part: finds the one row to check
    salt BLOB NOT NULL,
    hash BLOB NOT NULL,               -- scrypt of the token's secret part
    created TEXT NOT NULL,
    revoked TEXT                      -- when the token was revoked: no login, no API
);
CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY,             -- sha256 of the cookie's value, never the value
    user INTEGER NOT NULL REFERENCES users(id),
    csrf TEXT NOT NULL,
    created TEXT NOT NULL,
    expires TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    owner INTEGER NOT NULL REFERENCES users(id)
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    owner INTEGER NOT NULL REFERENCES users(id),
    bot TEXT NOT NULL,
    number INTEGER NOT NULL,          -- the bot's n-th submission: its directory submissions/BOT/N
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '',
    build_log TEXT NOT NULL DEFAULT '',
    stderr_tail TEXT NOT NULL DEFAULT '',
    command TEXT NOT NULL DEFAULT '',
    dialect TEXT NOT NULL DEFAULT '',
    build TEXT NOT NULL DEFAULT '',
    dir TEXT NOT NULL,
    entry TEXT NOT NULL DEFAULT '',   -- the roster entry (JSON) once accepted
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    UNIQUE (bot, number)
);
CREATE INDEX IF NOT EXISTS submissions_by_status ON submissions (status, id);
CREATE INDEX IF NOT EXISTS submissions_by_owner ON submissions (owner, id);
"""


class ServerDBError(ArenaError):
    """The server's database cannot be used, or a change it refuses (a taken name)."""


@dataclass(frozen=True)
class User:
    """A participant (or an admin)."""

    id: int
    name: str
    admin: bool
    created: str
    revoked: str | None

    @property
    def active(self) -> bool:
        """May log in and use the API."""
        return self.revoked is None


@dataclass(frozen=True)
class Submission:
    """One upload of one bot, and what became of it."""

    id: int
    owner: int
    bot: str
    number: int
    kind: str
    status: str
    message: str
    build_log: str
    stderr_tail: str
    command: str
    dialect: str
    build: str
    dir: str
    entry: str
    created: str
    updated: str

    def public(self) -> dict[str, Any]:
        """What anyone may see of it: no logs, no stderr, no command, no files."""
        return {"id": self.id, "bot": self.bot, "number": self.number, "kind": self.kind,
                "status": self.status, "created": self.created, "updated": self.updated}

    def private(self) -> dict[str, Any]:
        """What its owner (and an admin) sees: everything but its directory on the server."""
        return {**self.public(), "message": self.message, "build_log": self.build_log,
                "stderr_tail": self.stderr_tail, "command": self.command, "dialect": self.dialect,
                "build": self.build}


_SUBMISSION_COLUMNS = ("id, owner, bot, number, kind, status, message, build_log, stderr_tail, command, "
                       "dialect, build, dir, entry, created, updated")
_USER_COLUMNS = "id, name, admin, created, revoked"
T = TypeVar("T")


def now() -> str:
    """The time as stored: UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


class ServerDB:
    """server.sqlite, opened for reading and writing; safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute("PRAGMA foreign_keys = ON")
            with self.transaction():
                for statement in _SCHEMA.split(";"):
                    self._db.execute(statement)
                row = self._db.execute("SELECT version FROM schema_version").fetchone()
                if row is None:
                    self._db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
                elif row[0] != SCHEMA_VERSION:
                    raise ServerDBError(f"{self.path}: server database version {row[0]}, this arena "
                                        f"reads version {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise ServerDBError(f"{self.path}: not a usable server database ({exc})") from None
        except OSError as exc:
            raise ServerDBError(f"{self.path}: cannot make its directory ({exc.strerror})") from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on any error), holding the lock."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise ServerDBError(f"{self.path}: cannot write ({exc})") from None
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            return fn(self._db)

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> ServerDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- users ---

    def add_user(self, name: str, admin: bool, lookup: str, salt: bytes, digest: bytes) -> User:
        """A new participant; ServerDBError if the name is taken."""
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM users WHERE name = ?", (name,)).fetchone():
                raise ServerDBError(f"user {name!r} exists (arena users ... revoke {name}, then add "
                                    "again for a new token)")
            db.execute("INSERT INTO users (name, admin, lookup, salt, hash, created) VALUES (?, ?, ?, ?, ?, ?)",
                       (name, int(admin), lookup, salt, digest, now()))
            row = db.execute(f"SELECT {_USER_COLUMNS} FROM users WHERE name = ?", (name,)).fetchone()
        return _user(row)

    def replace_token(self, name: str, lookup: str, salt: bytes, digest: bytes) -> User:
        """Give a (revoked or not) user a new token: the old one stops working, their bots stay."""
        with self.transaction() as db:
            changed = db.execute("UPDATE users SET lookup = ?, salt = ?, hash = ?, revoked = NULL WHERE name = ?",
                                 (lookup, salt, digest, name)).rowcount
            if not changed:
                raise ServerDBError(f"no user {name!r}")
            db.execute("DELETE FROM sessions WHERE user = (SELECT id FROM users WHERE name = ?)", (name,))
            row = db.execute(f"SELECT {_USER_COLUMNS} FROM users WHERE name = ?", (name,)).fetchone()
        return _user(row)

    def users(self) -> list[User]:
        """Every user, in the order they were added."""
        rows = self._read(lambda db: db.execute(f"SELECT {_USER_COLUMNS} FROM users ORDER BY id").fetchall())
        return [_user(row) for row in rows]

    def user(self, name: str) -> User | None:
        """The user called name, or None."""
        row = self._read(lambda db: db.execute(f"SELECT {_USER_COLUMNS} FROM users WHERE name = ?",
                                               (name,)).fetchone())
        return None if row is None else _user(row)

    def user_by_id(self, user_id: int) -> User | None:
        """The user with that id, or None."""
        row = self._read(lambda db: db.execute(f"SELECT {_USER_COLUMNS} FROM users WHERE id = ?",
                                               (user_id,)).fetchone())
        return None if row is None else _user(row)

    def credentials(self, lookup: str) -> tuple[User, bytes, bytes] | None:
        """(user, salt, hash) of the token whose public part is lookup, or None."""
        row = self._read(lambda db: db.execute(f"SELECT {_USER_COLUMNS}, salt, hash FROM users WHERE lookup = ?",
                                               (lookup,)).fetchone())
        return None if row is None else (_user(row[:5]), bytes(row[5]), bytes(row[6]))

    def revoke(self, name: str) -> bool:
        """Revoke a user's token and end their sessions; False if there is no such user."""
        with self.transaction() as db:
            changed = db.execute("UPDATE users SET revoked = ? WHERE name = ? AND revoked IS NULL",
                                 (now(), name)).rowcount
            db.execute("DELETE FROM sessions WHERE user = (SELECT id FROM users WHERE name = ?)", (name,))
            exists = db.execute("SELECT 1 FROM users WHERE name = ?", (name,)).fetchone() is not None
        return bool(changed) or exists

    # --- sessions ---

    def add_session(self, key: str, user: int, csrf: str, expires: str) -> None:
        """A session for user, found by key (a hash of the cookie)."""
        with self.transaction() as db:
            db.execute("DELETE FROM sessions WHERE expires < ?", (now(),))
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?)", (key, user, csrf, now(), expires))

    def session(self, key: str) -> tuple[User, str] | None:
        """(user, CSRF token) of a live session of an active user, or None."""
        row = self._read(lambda db: db.execute(
            f"SELECT {', '.join('u.' + c.strip() for c in _USER_COLUMNS.split(','))}, s.csrf FROM sessions s "
            "JOIN users u ON u.id = s.user WHERE s.key = ? AND s.expires > ? AND u.revoked IS NULL",
            (key, now())).fetchone())
        return None if row is None else (_user(row[:5]), row[5])

    def end_session(self, key: str) -> None:
        """Forget a session (log out)."""
        with self.transaction() as db:
            db.execute("DELETE FROM sessions WHERE key = ?", (key,))

    # --- bots and submissions ---

    def bot_owner(self, bot: str) -> int | None:
        """The id of the user who owns bot, or None if nobody has submitted it."""
        row = self._read(lambda db: db.execute("SELECT owner FROM bots WHERE name = ?", (bot,)).fetchone())
        return None if row is None else int(row[0])

    def bots(self, played: bool = False) -> dict[str, int]:
        """Every submitted bot and its owner's id; played: only those with a submission that
        was accepted once (in the ladder now, or until a newer version or a suspension), which
        have a page: a bot never accepted has none."""
        query = ("SELECT name, owner FROM bots WHERE name IN (SELECT bot FROM submissions WHERE entry != '')"
                 " ORDER BY name" if played else "SELECT name, owner FROM bots ORDER BY name")
        return dict(self._read(lambda db: db.execute(query).fetchall()))

    def register(self, owner: int, bot: str, kind: str, place: Callable[[int], Path],
                 command: str = "", dialect: str = "", build: str = "") -> Submission:
        """Register a new submission of bot by owner, numbered after the bot's last one:
        place(number) puts its files where they belong (an os.rename) and returns the path,
        inside the transaction, so a crash leaves a directory no row names (removed on the
        next start), never a row without its files. ServerDBError if another owns the bot."""
        with self.transaction() as db:
            row = db.execute("SELECT owner FROM bots WHERE name = ?", (bot,)).fetchone()
            if row is not None and row[0] != owner:
                raise ServerDBError(f"bot {bot!r} belongs to another participant")
            if row is None:
                db.execute("INSERT INTO bots VALUES (?, ?)", (bot, owner))
            number = 1 + db.execute("SELECT coalesce(max(number), 0) FROM submissions WHERE bot = ?",
                                    (bot,)).fetchone()[0]
            directory = place(number)
            stamp = now()
            cursor = db.execute(
                "INSERT INTO submissions (owner, bot, number, kind, status, command, dialect, build, dir, "
                "created, updated) VALUES (?, ?, ?, ?, 'received', ?, ?, ?, ?, ?, ?)",
                (owner, bot, number, kind, command, dialect, build, str(directory), stamp, stamp))
            new = db.execute(f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE id = ?",
                             (cursor.lastrowid,)).fetchone()
        return Submission(*new)

    def submission(self, submission_id: int) -> Submission | None:
        """One submission, or None."""
        row = self._read(lambda db: db.execute(f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE id = ?",
                                               (submission_id,)).fetchone())
        return None if row is None else Submission(*row)

    def submissions(self, owner: int | None = None, bot: str | None = None,
                    status: str | None = None, limit: int = 1000) -> list[Submission]:
        """Submissions, the latest first; of one owner, bot or status if given."""
        where, params = [], []
        for column, value in (("owner", owner), ("bot", bot), ("status", status)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self._read(lambda db: db.execute(
            f"SELECT {_SUBMISSION_COLUMNS} FROM submissions{clause} ORDER BY id DESC LIMIT ?",
            (*params, limit)).fetchall())
        return [Submission(*row) for row in rows]

    def next_received(self) -> Submission | None:
        """The oldest submission waiting for the worker, or None."""
        row = self._read(lambda db: db.execute(
            f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE status = 'received' ORDER BY id LIMIT 1"
        ).fetchone())
        return None if row is None else Submission(*row)

    def set_status(self, submission_id: int, status: str, **fields: str) -> None:
        """Move a submission on (message, build_log, stderr_tail, command, dialect, entry may change too)."""
        assert status in STATUSES, status
        allowed = {"message", "build_log", "stderr_tail", "command", "dialect", "entry"}
        assert set(fields) <= allowed, fields
        sets = "".join(f", {name} = ?" for name in fields)
        with self.transaction() as db:
            db.execute(f"UPDATE submissions SET status = ?, updated = ?{sets} WHERE id = ?",
                       (status, now(), *fields.values(), submission_id))

    def accept(self, submission_id: int, entry: str, message: str, build_log: str) -> None:
        """Mark a submission accepted with its roster entry, and its bot's earlier accepted one replaced."""
        with self.transaction() as db:
            stamp = now()
            db.execute("UPDATE submissions SET status = 'replaced', updated = ? WHERE status = 'accepted' "
                       "AND bot = (SELECT bot FROM submissions WHERE id = ?) AND id != ?",
                       (stamp, submission_id, submission_id))
            db.execute("UPDATE submissions SET status = 'accepted', updated = ?, entry = ?, message = ?, "
                       "build_log = ? WHERE id = ?", (stamp, entry, message, build_log, submission_id))

    def accepted(self) -> list[Submission]:
        """Each bot's accepted submission (the version in the ladder), by bot name."""
        rows = self._read(lambda db: db.execute(
            f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE status = 'accepted' ORDER BY bot").fetchall())
        return [Submission(*row) for row in rows]

    def requeue_unfinished(self) -> int:
        """Submissions left building or validating by a stopped worker go back to received."""
        with self.transaction() as db:
            return int(db.execute("UPDATE submissions SET status = 'received', updated = ? "
                                  "WHERE status IN ('building', 'validating')", (now(),)).rowcount)

    def submitted_since(self, owner: int, since: str) -> list[str]:
        """When owner's submissions since that time were made, the oldest first."""
        return [row[0] for row in self._read(lambda db: db.execute(
            "SELECT created FROM submissions WHERE owner = ? AND created >= ? ORDER BY created",
            (owner, since)).fetchall())]

    def directories(self) -> set[str]:
        """Every registered submission's directory."""
        return {row[0] for row in self._read(lambda db: db.execute("SELECT dir FROM submissions").fetchall())}


def _user(row: Any) -> User:
    return User(id=row[0], name=row[1], admin=bool(row[2]), created=row[3], revoked=row[4])
