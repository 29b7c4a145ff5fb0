"""The web app (Starlette): every page has a JSON twin under /api built from the same
data, who may reach a route is declared with it (ROUTES) and checked in one place (guard),
and every POST from a browser session carries the session's CSRF token.

Who is asking: `Authorization: Bearer TOKEN` (the JSON API, `arena submit`), or the
session cookie a login with the token made (the pages). Public pages and JSON show the
standings, bots and games without any bot's stderr; a participant's own page shows their
submissions, build logs and the stderr of their faulted games; the admin page, users and
bots.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.publish import templates

from .accounts import Accounts, TokenChecksSpent, csrf_matches
from .config import ServerConfig
from .db import ServerDB, ServerDBError, Submission, User
from .forms import FormRefused, read_form
from .intake import Incoming, UploadForm
from .public import PublicView
from .ratelimit import RateLimiter
from .roster import BOT_ACTIONS, StoreUnavailable, UnknownBot, change_bot, retired_bots
from .shown import without_server_paths
from .uploads import UploadRefused, valid_name

SESSION_COOKIE = "arena_session"
#: scripts from this server only, never inline; styles from this server and in style
#: attributes (the published site's tables colour their cells with them); no framing
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
FAILED_TOKENS_PER_SECOND, FAILED_TOKENS_BURST = 0.2, 10   #: wrong tokens an address may try
#: the pages' scripts and styles: every page load asks for them, so they do not count
#: toward a user's requests a second (a burst of page loads would be refused its styles)
ASSETS = ("/static/", "/site/assets/")
#: the largest number a route's path may carry (SQLite's integers): a larger one names nothing
MAX_NUMBER = 2**63 - 1


# --- who is asking, and what they may do ---------------------------------------------------

@dataclass(frozen=True)
class Who:
    """The user a request comes from (None: nobody logged in), and how it came."""

    user: User | None
    via: str | None = None       #: "token" (Authorization: Bearer) or "session" (the cookie)
    csrf: str | None = None      #: the session's CSRF token

    @property
    def admin(self) -> bool:
        return self.user is not None and self.user.admin


class Refused(Exception):
    """A request answered with an error: status and one line."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.headers = status, headers or {}


Handler = Callable[[Request, Who], Awaitable[Response]]


@dataclass(frozen=True)
class Access:
    """Who may reach a route: 'public', 'user' (any participant) or 'admin'."""

    level: str
    api: bool          #: JSON answers (401 without a user) rather than a page (to /login)


# --- the app ----------------------------------------------------------------------------------

class Server:
    """What the routes share: the config, the database, the accounts, the public view."""

    def __init__(self, config: ServerConfig, secure_cookies: bool = False) -> None:
        self.config = config
        self.db = ServerDB(config.database)
        self.accounts = Accounts(self.db)
        self.public = PublicView(config.league.store, config.league.name)
        self.limiter = RateLimiter(config.rates.requests_per_second, config.rates.burst)
        self.failures = RateLimiter(FAILED_TOKENS_PER_SECOND, FAILED_TOKENS_BURST)
        self.checks = RateLimiter(config.rates.token_checks_per_second, config.rates.token_checks_burst)
        self.secure_cookies = secure_cookies
        self.templates = _environment()
        self.reserved = set(config.league.bot_names)   # the organiser's bots

    def close(self) -> None:
        self.public.close()
        self.db.close()

    async def authenticate(self, request: Request, token: str) -> User | None:
        """The user of a token, or None. Checking a new one costs a scrypt hash: an address
        whose tokens keep failing waits (429), and so does everyone once the server has made
        rates.token_checks_per_second checks a second (however many addresses send them)."""
        key = f"failed:{_address(request)}"
        wait = self.failures.blocked(key)
        if wait > 0:
            raise Refused(429, "too many wrong tokens from this address: wait",
                          {"Retry-After": str(max(1, math.ceil(wait)))})

        def may_check() -> bool:
            return self.checks.wait("scrypt") == 0
        try:
            user = await run_in_threadpool(self.accounts.authenticate, token, may_check)
        except TokenChecksSpent:
            raise Refused(429, "too many tokens to check right now: wait", {
                "Retry-After": str(max(1, math.ceil(self.checks.blocked("scrypt"))))}) from None
        if user is None:
            self.failures.wait(key)
        return user

    def render(self, name: str, request: Request, who: Who, status: int = 200, **context: Any) -> HTMLResponse:
        """A page from its template, with who is logged in and the CSRF token for its forms."""
        return HTMLResponse(self.render_text(name, who, **context), status_code=status)

    def render_text(self, name: str, who: Who, **context: Any) -> str:
        """A template's text, with who is logged in and the CSRF token for its forms."""
        return self.templates.get_template(name).render(
            title=self.config.league.name, user=who.user, csrf=who.csrf or "", **context)

    async def who(self, request: Request) -> Who:
        """The user a request comes from: its bearer token, else its session cookie."""
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Refused(401, "Authorization: give 'Bearer TOKEN'")
            user = await self.authenticate(request, token.strip())
            if user is None:
                raise Refused(401, "the token is not valid (revoked, or mistyped)")
            return Who(user, "token")
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie:
            found = self.accounts.session(cookie)
            if found is not None:
                return Who(found[0], "session", found[1])
        return Who(None)


def guard(server: Server, access: Access, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """The route's endpoint: the rate limit, who is asking, whether they may, the CSRF token
    of a session's POST, then the handler; a refusal is one line (JSON for the API)."""

    async def endpoint(request: Request) -> Response:
        who = Who(None)
        try:
            who = await server.who(request)
            key = f"user:{who.user.id}" if who.user else f"addr:{_address(request)}"
            wait = 0.0 if request.url.path.startswith(ASSETS) else server.limiter.wait(key)
            if wait > 0:
                raise Refused(429, "too many requests: slow down",
                              {"Retry-After": str(max(1, math.ceil(wait)))})
            if access.level != "public" and who.user is None:
                if access.api or request.method != "GET":
                    raise Refused(401, "log in first: Authorization: Bearer TOKEN (arena users ... add)")
                return RedirectResponse(f"/login?next={request.url.path}", status_code=303)
            if access.level == "admin" and not who.admin:
                raise Refused(403, "only an admin may do this")
            if request.method == "POST" and who.via == "session":
                await _check_csrf(request, who, server)
            if any(isinstance(value, int) and value > MAX_NUMBER for value in request.path_params.values()):
                raise Refused(404, "not found: no number that large names anything here")
            return await handler(request, who)
        except Refused as refused:
            return _refusal(server, request, access, refused, who)

    return endpoint


async def _check_csrf(request: Request, who: Who, server: Server) -> None:
    """A form posted from a session carries its CSRF token (the header for scripts, else the
    form's csrf field, read here only for forms without a file; a submission's form is read
    by its handler, which checks the field it streams)."""
    given = request.headers.get("x-csrf-token")
    if given is None and request.url.path != "/submit":
        form = await _small_form(request, server)
        request.state.form = form
        given = form.fields.get("csrf")
    if request.url.path == "/submit" and given is None:
        request.state.csrf_expected = who.csrf
        return
    if who.csrf is None or not csrf_matches(who.csrf, given):
        raise Refused(403, "the form's CSRF token is missing or wrong: reload the page and try again")


async def _small_form(request: Request, server: Server) -> Any:
    """A request's form without a file, refused over the form size cap (read once: the CSRF
    check may have read it already)."""
    if getattr(request.state, "form", None) is not None:
        return request.state.form
    cap = server.config.rates.form_bytes
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > cap:
        raise Refused(413, f"the request is larger than {cap} bytes")
    try:
        return await read_form(request.headers.get("content-type", "application/x-www-form-urlencoded"),
                               request.stream(), cap)
    except FormRefused as exc:
        raise Refused(exc.status, str(exc)) from None


async def _no_such_page(request: Request, who: Who) -> Response:
    raise Refused(404, "no such page")


def _refusal(server: Server, request: Request, access: Access, refused: Refused, who: Who) -> Response:
    """The refusal as JSON (the API) or a page, whose menu is the one of who is asking."""
    if access.api or request.url.path.startswith("/api/"):
        return JSONResponse({"error": str(refused)}, status_code=refused.status, headers=refused.headers)
    page = server.render("error.html", request, who, status=refused.status, message=str(refused),
                         status_code=refused.status)
    page.headers.update(refused.headers)
    return page


# --- the routes -----------------------------------------------------------------------------

def make_app(config: ServerConfig, secure_cookies: bool = False) -> Starlette:
    """The server's Starlette app for a ladder config."""
    server = Server(config, secure_cookies)
    handlers = Handlers(server)
    routes = []
    for path, methods, level, handler in handlers.table():
        access = Access(level, api=path.startswith("/api/"))
        routes.append(Route(path, guard(server, access, handler), methods=methods, name=path))
    # any other page: the 404 page with the asker's menu, as every refusal (JSON under /api/)
    routes.append(Route("/{unknown:path}", guard(server, Access("public", api=False), _no_such_page),
                        methods=["GET"], name="unknown"))
    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        server.public.start()   # the first reading of the store starts now
        yield
        server.close()

    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(SecurityHeaders)])
    app.state.server = server
    return app


class SecurityHeaders:
    """Every response's security headers: the CSP (no inline script), no sniffing, no framing,
    no caching of a participant's own pages."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        private = path.startswith(("/me", "/api/me", "/admin", "/api/admin", "/api/submissions", "/submit",
                                   "/login"))

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", CSP)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "same-origin")
                headers.setdefault("X-Frame-Options", "DENY")
                if private:
                    headers.setdefault("Cache-Control", "no-store")
            await send(message)

        await self.app(scope, receive, with_headers)


class Handlers:
    """Every route's handler; table() says which path, methods and access each has."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.db = server.db

    def table(self) -> list[tuple[str, list[str], str, Handler]]:
        """(path, methods, access level, handler) of every route."""
        return [
            ("/", ["GET"], "public", self.leaderboard_page),
            ("/api/leaderboard", ["GET"], "public", self.leaderboard_json),
            ("/leaderboard/table", ["GET"], "public", self.leaderboard_table),
            ("/api/health", ["GET"], "public", self.health),
            ("/bots/{name}", ["GET"], "public", self.bot_page),
            ("/api/bots/{name}", ["GET"], "public", self.bot_json),
            ("/games/{no:int}", ["GET"], "public", self.game_page),
            ("/api/games/{no:int}", ["GET"], "public", self.game_json),
            ("/site/{path:path}", ["GET"], "public", self.site_file),
            ("/static/{name}", ["GET"], "public", self.static_file),
            ("/favicon.ico", ["GET"], "public", self.favicon),
            ("/login", ["GET"], "public", self.login_page),
            ("/login", ["POST"], "public", self.login),
            ("/logout", ["POST"], "user", self.logout),
            ("/me", ["GET"], "user", self.me_page),
            ("/api/me", ["GET"], "user", self.me_json),
            ("/submit", ["GET"], "user", self.submit_page),
            ("/submit", ["POST"], "user", self.submit_form),
            ("/api/submissions", ["POST"], "user", self.submit_api),
            ("/api/submissions/{id:int}", ["GET"], "user", self.submission_json),
            ("/admin", ["GET"], "admin", self.admin_page),
            ("/api/admin", ["GET"], "admin", self.admin_json),
            ("/admin/bots/{name}/{action}", ["POST"], "admin", self.bot_action),
            ("/api/admin/bots/{name}/{action}", ["POST"], "admin", self.bot_action),
            ("/admin/users/{name}/revoke", ["POST"], "admin", self.revoke_user),
            ("/api/admin/users/{name}/revoke", ["POST"], "admin", self.revoke_user),
        ]

    # --- public ---

    async def leaderboard_page(self, request: Request, who: Who) -> Response:
        board = await run_in_threadpool(self.server.public.leaderboard)
        return self.server.render("leaderboard.html", request, who, board=board, owners=self._owners(played=True),
                                  table=Markup(self.server.public.table()))

    async def leaderboard_table(self, request: Request, who: Who) -> Response:
        """The standings table alone (the site's partial), for the live page to put in place."""
        return HTMLResponse(self.server.public.table(), headers={"Cache-Control": "no-cache"})

    async def leaderboard_json(self, request: Request, who: Who) -> Response:
        board = await run_in_threadpool(self.server.public.leaderboard)
        return JSONResponse({**board, "owners": self._owners(played=True)})

    async def health(self, request: Request, who: Who) -> Response:
        return JSONResponse({"ok": True})

    def _owners(self, played: bool = False) -> dict[str, str]:
        """Each participant's bot and its owner's name (played: only bots accepted once, which
        have a page; a bot only ever rejected has none)."""
        names = {user.id: user.name for user in self.db.users()}
        return {bot: names.get(owner, "?") for bot, owner in self.db.bots(played).items()}

    async def _bot(self, name: str) -> tuple[dict[str, Any], str]:
        """A bot's JSON and its page's body. A participant's bot accepted but not yet in the
        standings (the ladder takes it, then the reader reads it) is there from its
        acceptance: joining, without games or a body."""
        view = await run_in_threadpool(self.server.public.bot, name)
        if view is not None:
            # name may be the site's SLUG.html
            return {**view.data, "owner": self._owners().get(view.data["bot"])}, view.body
        if self.db.submissions(bot=name, status="accepted"):
            return {"bot": name, "owner": self._owners().get(name), "joining": True, "row": None, "games": 0,
                    "versions": [], "history": [], "recent": [], "faults": 0}, ""
        raise Refused(404, f"no bot {name[:40]!r} in the standings")

    async def bot_page(self, request: Request, who: Who) -> Response:
        bot, body = await self._bot(request.path_params["name"])
        return self.server.render("bot.html", request, who, bot=bot, body=Markup(body))

    async def bot_json(self, request: Request, who: Who) -> Response:
        return JSONResponse((await self._bot(request.path_params["name"]))[0])

    async def game_page(self, request: Request, who: Who) -> Response:
        no = request.path_params["no"]
        if await run_in_threadpool(self.server.public.game, no) is None:
            raise Refused(404, f"no game {no}")
        return RedirectResponse(f"/site/replay.html#g={no}", status_code=303)

    async def game_json(self, request: Request, who: Who) -> Response:
        no = request.path_params["no"]
        game = await run_in_threadpool(self.server.public.game, no)
        if game is None:
            raise Refused(404, f"no game {no}")
        return JSONResponse(game)

    async def site_file(self, request: Request, who: Who) -> Response:
        path = request.path_params["path"] or "index.html"
        found = await run_in_threadpool(self.server.public.site_file, path)
        if found is None:
            raise Refused(404, "no such page")
        text, kind = found
        if kind == "text/html":
            text = _with_server_menu(text, self.server.render_text("header.html", who))
        cache = {"Cache-Control": "public, max-age=300"} if path.startswith("assets/") else {}
        return Response(text, media_type=kind, headers=cache)

    async def static_file(self, request: Request, who: Who) -> Response:
        name = request.path_params["name"]
        kind = {"js": "text/javascript", "css": "text/css", "svg": "image/svg+xml"}.get(name.rpartition(".")[2])
        asset = resources.files("arena.server").joinpath("static").joinpath(name)
        if kind is None or "/" in name or name.startswith(".") or not asset.is_file():
            raise Refused(404, "no such file")
        return Response(asset.read_text("utf-8"), media_type=kind,
                        headers={"Cache-Control": "public, max-age=300"})

    async def favicon(self, request: Request, who: Who) -> Response:
        """The icon a browser asks for by itself for a page without one (a JSON answer, an
        image): without it each such visit logs a 404 on the browser's console."""
        icon = resources.files("arena.server").joinpath("static").joinpath("favicon.svg")
        return Response(icon.read_text("utf-8"), media_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=86400"})

    # --- logging in and out ---

    async def login_page(self, request: Request, who: Who) -> Response:
        return self.server.render("login.html", request, who, next=_local(request.query_params.get("next")))

    async def login(self, request: Request, who: Who) -> Response:
        form = await _small_form(request, self.server)
        user = await self.server.authenticate(request, form.get("token"))
        if user is None:
            return self.server.render("login.html", request, Who(None), status=401,
                                      message="That token is not valid (revoked, or mistyped).",
                                      next=_local(form.get("next")))
        cookie, _csrf = self.server.accounts.open_session(user, self.server.config.rates.session_hours)
        response = RedirectResponse(_local(form.get("next")) or "/me", status_code=303)
        response.set_cookie(SESSION_COOKIE, cookie, max_age=int(self.server.config.rates.session_hours * 3600),
                            httponly=True, samesite="strict", path="/",
                            secure=self.server.secure_cookies or request.url.scheme == "https")
        return response

    async def logout(self, request: Request, who: Who) -> Response:
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie:
            self.server.accounts.close_session(cookie)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    # --- a participant's own ---

    async def _me(self, who: Who) -> dict[str, Any]:
        assert who.user is not None
        submissions = self.db.submissions(owner=who.user.id, limit=200)
        bots = sorted(bot for bot, owner in self.db.bots(played=True).items() if owner == who.user.id)
        faults = [{**fault, "stderr": self._shown(fault["stderr"])}
                  for fault in self.server.public.own_faults(bots)]
        return {"user": who.user.name, "admin": who.user.admin, "bots": bots,
                "submissions": [self._own(s) for s in submissions], "faults": faults}

    def _shown(self, text: str) -> str:
        """A text of the server's as a participant sees it: without its paths (shown.py)."""
        return without_server_paths(text, self.server.config.submissions)

    def _own(self, submission: Submission) -> dict[str, Any]:
        """What a submission's owner sees of it: its texts without the server's paths."""
        private = submission.private()
        return {**private, **{key: self._shown(private[key])
                              for key in ("message", "build_log", "stderr_tail", "command")}}

    async def me_page(self, request: Request, who: Who) -> Response:
        return self.server.render("me.html", request, who, me=await self._me(who))

    async def me_json(self, request: Request, who: Who) -> Response:
        return JSONResponse(await self._me(who))

    async def submission_json(self, request: Request, who: Who) -> Response:
        submission = self.db.submission(request.path_params["id"])
        assert who.user is not None
        if submission is None or (submission.owner != who.user.id and not who.admin):
            raise Refused(404, "no such submission of yours")
        return JSONResponse(self._own(submission))

    # --- submitting ---

    async def submit_page(self, request: Request, who: Who) -> Response:
        return self.server.render("submit.html", request, who, dialects=self._dialects())

    def _dialects(self) -> list[str]:
        return self.server.config.plugins.dialects.names()

    async def submit_form(self, request: Request, who: Who) -> Response:
        submission = await self._receive(request, who, form_csrf=True)
        return RedirectResponse(f"/me#submission-{submission.id}", status_code=303)

    async def submit_api(self, request: Request, who: Who) -> Response:
        submission = await self._receive(request, who, form_csrf=False)
        return JSONResponse(self._own(submission), status_code=201)

    async def _receive(self, request: Request, who: Who, form_csrf: bool) -> Submission:
        """Stream an upload in and register it (UploadRefused and the like: a 4xx, nothing kept)."""
        assert who.user is not None
        config = self.server.config
        self._check_rate(who.user)
        length = request.headers.get("content-length")
        most = config.uploads.upload_bytes + config.rates.form_bytes
        if length is not None and length.isdigit() and int(length) > most:
            raise Refused(413, f"the upload is larger than {config.uploads.upload_bytes} bytes, the cap on an upload")
        incoming = Incoming(config.submissions, config.uploads)
        try:
            try:
                form = await read_form(request.headers.get("content-type", ""), _capped(request, most),
                                       config.rates.form_bytes, incoming.open_sink)
            except FormRefused as exc:
                raise Refused(exc.status, str(exc)) from None
            if form_csrf and who.via == "session":
                expected = getattr(request.state, "csrf_expected", None) or who.csrf
                if expected is None or not csrf_matches(expected, form.fields.get("csrf")):
                    raise Refused(403, "the form's CSRF token is missing or wrong: reload the page and try again")
            upload = self._request(form.fields, who.user)
            wheel = form.get("kind") == "wheel" or (incoming.filename or "").endswith(".whl")
            return await run_in_threadpool(incoming.register, self.db, who.user.id, upload, wheel)
        except (UploadRefused, ServerDBError) as exc:
            status = getattr(exc, "status", 409)
            raise Refused(status, str(exc)) from None
        finally:
            incoming.discard()

    def _check_rate(self, user: User) -> None:
        hour = self.server.config.rates.submissions_per_hour
        since = (datetime.now(UTC) - timedelta(hours=1)).isoformat(timespec="seconds")
        made = self.db.submitted_since(user.id, since)
        if len(made) >= hour:
            oldest = datetime.fromisoformat(made[0])
            wait = max(1, math.ceil((oldest + timedelta(hours=1) - datetime.now(UTC)).total_seconds()))
            raise Refused(429, f"{hour} submissions an hour at most: the next in {wait} s",
                          {"Retry-After": str(wait)})

    def _request(self, fields: dict[str, str], user: User) -> UploadForm:
        """The upload's fields checked: the bot's name (yours, or new and not the organiser's),
        its command, dialect and build."""
        name = fields.get("name", "").strip()
        problem = valid_name(name)
        if problem is not None:
            raise Refused(400, f"name: {problem}")
        if name in self.server.reserved:
            raise Refused(409, f"bot {name!r} is one of the organiser's: choose another name")
        owner = self.db.bot_owner(name)
        if owner is not None and owner != user.id:
            raise Refused(409, f"bot {name!r} belongs to another participant: choose another name")
        dialect = fields.get("dialect", "").strip()
        if dialect and dialect not in self._dialects():
            raise Refused(400, f"dialect: {dialect[:40]!r} is not one of {', '.join(self._dialects())}")
        command, build = fields.get("command", "").strip(), fields.get("build", "").strip()
        for what, text in (("command", command), ("build", build)):
            if len(text) > 1000 or "\n" in text or "\x00" in text:
                raise Refused(400, f"{what}: one line of at most 1000 characters")
        return UploadForm(bot=name, command=command, dialect=dialect, build=build)

    # --- the admin's ---

    async def _admin(self) -> dict[str, Any]:
        owners = self._owners()
        users = [{"name": u.name, "admin": u.admin, "created": u.created, "active": u.active,
                  "bots": sorted(b for b, o in owners.items() if o == u.name)} for u in self.db.users()]
        board = await run_in_threadpool(self.server.public.leaderboard)
        bots = [{"bot": row["bot"], "owner": owners.get(row["bot"]), "games": row["games"],
                 "version": row.get("version"), "marks": row.get("marks", [])} for row in board["rows"]]
        retired = await run_in_threadpool(retired_bots, self.server.config.league.store)
        return {"users": users, "bots": bots, "retired": sorted(retired),
                "submissions": [s.public() | {"owner": owners.get(s.bot), "message": s.message}
                                for s in self.db.submissions(limit=100)]}

    async def admin_page(self, request: Request, who: Who) -> Response:
        return self.server.render("admin.html", request, who, admin=await self._admin())

    async def admin_json(self, request: Request, who: Who) -> Response:
        return JSONResponse(await self._admin())

    async def bot_action(self, request: Request, who: Who) -> Response:
        name, action = request.path_params["name"], request.path_params["action"]
        if action not in BOT_ACTIONS:
            raise Refused(404, f"no action {action[:20]!r}: {', '.join(BOT_ACTIONS)}")
        if action == "suspend" and self.db.bot_owner(name) is None:
            raise Refused(409, f"{name!r} is the organiser's bot: retire it, or take it out of the config")
        said = await run_in_threadpool(_bot_action, self.server, name, action)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"bot": name, "action": action, "message": said})
        return RedirectResponse("/admin", status_code=303)

    async def revoke_user(self, request: Request, who: Who) -> Response:
        name = request.path_params["name"]
        if not self.server.accounts.revoke(name):
            raise Refused(404, f"no user {name[:40]!r}")
        if request.url.path.startswith("/api/"):
            return JSONResponse({"user": name, "revoked": True})
        return RedirectResponse("/admin", status_code=303)


# --- helpers --------------------------------------------------------------------------------

def _environment() -> jinja2.Environment:
    """The published site's template environment (its escaping, strict about undefined
    names) with the server's own templates first."""
    site = templates.environment()
    loaders: list[jinja2.BaseLoader] = [jinja2.PackageLoader("arena.server", "templates")]
    if site.loader is not None:
        loaders.append(site.loader)
    environment = site.overlay(loader=jinja2.ChoiceLoader(loaders))
    environment.filters["when"] = _when
    return environment


def _when(stamp: str) -> str:
    """A stored time (ISO 8601, UTC) as pages show it: 2026-05-01 14:03:09 UTC."""
    return stamp.replace("T", " ").replace("+00:00", " UTC")


def _address(request: Request) -> str:
    """The client's address: the connection's, or with `arena serve --behind-proxy` the
    X-Forwarded-For that the proxy on 127.0.0.1 sent (uvicorn's proxy headers)."""
    return request.client.host if request.client else "-"


#: what of a published site's page the server replaces: its menu, and its own CSP (the
#: server's header says it, allowing the menu's Log out form, which the site's forbids)
_SITE_HEADER = re.compile(r'<header class="site">.*?</header>\n?', re.S)
_SITE_CSP = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n?')


def _with_server_menu(page: str, header: str) -> str:
    """A live site's page with the server's menu (Submit, the user's page, Log out) in place
    of the published site's, so that a replay keeps the menu of the pages it came from."""
    page = _SITE_CSP.sub("", page, count=1)
    page = _SITE_HEADER.sub(lambda _match: header, page, count=1)
    return page.replace("</head>", '<link rel="icon" href="data:,">\n<link rel="stylesheet" href="/static/server.css">'
                                   "\n</head>", 1)


def _local(target: str | None) -> str:
    """A redirect target on this server only (/me, not //evil or https://evil)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return ""
    return target


async def _capped(request: Request, most: int) -> Any:
    """The request's body, refused (413) past most bytes whatever its Content-Length said."""
    seen = 0
    async for chunk in request.stream():
        if seen + len(chunk) > most:
            # up to one byte past most first: when the file is what is too big, its sink (whose
            # cap is the smaller) refuses it in its own words, however the body was chunked
            yield chunk[: most - seen + 1]
            raise FormRefused(413, f"the request is larger than {most} bytes")
        seen += len(chunk)
        yield chunk


def _bot_action(server: Server, name: str, action: str) -> str:
    """An admin's change to who plays, made by the roster; refused as HTTP says it."""
    try:
        return change_bot(server.config.league.store, server.db, name, action)
    except UnknownBot as exc:
        raise Refused(404, str(exc)) from None
    except StoreUnavailable as exc:
        raise Refused(503, str(exc)) from None
