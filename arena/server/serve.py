"""`arena serve LADDER.yaml`: the web app (uvicorn, in this process), the ladder (`arena run`
on the roster, a child process) and the submission worker (a child process), started
together and stopped together.

The ladder plays the roster: the organiser's config with every accepted submission added
and its stop conditions left out (a server plays on until it is stopped). It resumes
from the store, as `arena run` does; the worker takes again what a stopped run left half-way.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any, TextIO

from arena.errors import ArenaError
from arena.league.executors.local import die_with_parent
from arena.plugins import Plugins
from arena.sandbox.detect import detect
from arena.sandbox.errors import SandboxError

from .config import ServerConfig, load_server
from .db import ServerDB
from .intake import sweep

#: a child still running this long after SIGTERM is killed (the ladder's games in play are
#: lost either way; the worker puts its submission back before it ends, and a kill leaves
#: that to the next start)
STOP_SECONDS = 5.0
#: how long the web server waits for requests in flight once stopped, before it cancels them
WEB_STOP_SECONDS = 2
#: the ladder (its workers and bots) and the worker yield the CPU to the web process, whose
#: pages then answer at once however busy the games keep the machine (the referee's clocks
#: forgive a bot the time it waits for a CPU: load_grace, docs/config.md)
CHILD_NICE = 5
LOCK_SECONDS = 5.0   #: how long a start waits for the last run's processes to end


class ServeError(ArenaError):
    """The server cannot start: one line saying why."""


def require_bwrap(server: ServerConfig) -> None:
    """ServeError unless the ladder's bots run in the bwrap sandbox: in the other modes a
    bot could read the other participants' files."""
    mode = server.league.sandbox_mode
    if mode not in ("auto", "bwrap"):
        raise ServeError(f"{server.path}: sandbox.mode is {mode!r}; arena serve runs participants' code "
                         "only in the bwrap sandbox (give mode: bwrap or leave it out)")
    try:
        detect("bwrap")
    except SandboxError as exc:
        raise ServeError(f"arena serve needs the bwrap sandbox, so that no bot can read another's "
                         f"files: {exc}") from None


def hold_data(server: ServerConfig) -> int:
    """An flock on the data directory for this server and its children (their copies of the
    descriptor hold it until the last of them ends): a second `arena serve` of the same data
    would remove the first's uploads in flight and take its submissions again. The lock file
    names the server holding it: while that server runs, a start is refused at once; after
    it was killed, a start waits a little for its children to end. ServeError if it is
    still held."""
    server.data.mkdir(parents=True, exist_ok=True)
    fd = os.open(server.data / "serve.lock", os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + LOCK_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            if holder is not None or time.monotonic() > deadline:
                os.close(fd)
                who = f" (pid {holder})" if holder is not None else " (or its processes)"
                raise ServeError(f"{server.data}: another arena serve{who} is running on this data; stop it "
                                 "first") from None
            time.sleep(0.2)
            continue
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return fd


def _holder(fd: int) -> int | None:
    """The pid of the arena serve the lock file names, if it is still running."""
    try:
        pid = int(os.pread(fd, 32, 0).decode().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            running = b"serve" in cmdline.read()
    except (ValueError, OSError):
        return None
    return pid if running else None


def prepare(server: ServerConfig, out: TextIO) -> None:
    """Before anything runs: remove what a crash left of uploads, take submissions left
    half-way again, write the roster the ladder starts from."""
    from .worker import Worker
    with ServerDB(server.database) as db:
        for path in sweep(server.submissions, db):
            print(f"arena serve: removed {path.name}, an upload a stopped server left unfinished", file=out)
        worker = Worker(server, db)
        worker.sync_roster()


def serve(config_path: str, host: str = "127.0.0.1", port: int = 8000, secure_cookies: bool = False,
          plugins: Plugins | None = None, out: TextIO | None = None, behind_proxy: bool = False) -> int:
    """Run the server until Ctrl-C or SIGTERM; the exit code (130 when stopped so, as
    `arena run`; 1 when the port could not be had, before anything started, or when the
    ladder stopped on its own). behind_proxy: take each client's address and scheme from
    X-Forwarded-For and X-Forwarded-Proto, as a reverse proxy on this machine (127.0.0.1)
    sends them; without it they are ignored, so no client chooses the address its limits count."""
    import uvicorn

    from .app import make_app
    from .roster import roster_path
    out = out or sys.stderr
    server = load_server(config_path, plugins)
    require_bwrap(server)
    try:
        check_port(host, port)
    except OSError as exc:
        print(f"arena serve: error: cannot listen on {host}:{port}: {_why(exc)}", file=out)
        return 1
    lock = hold_data(server)
    prepare(server, out)
    roster = roster_path(server.path)
    app = make_app(server, secure_cookies)
    children: list[subprocess.Popen[bytes]] = []
    web = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                        lifespan="on",
                                        proxy_headers=behind_proxy, forwarded_allow_ips="127.0.0.1",
                                        timeout_graceful_shutdown=WEB_STOP_SECONDS))
    failed: list[str] = []
    interrupted = False
    try:
        with _sigterm_as_interrupt():
            start = functools.partial(_child, os.getpid())
            ladder = subprocess.Popen([sys.executable, "-m", "arena", "run", str(roster), "--standings", "0"],
                                      preexec_fn=start, pass_fds=(lock,))
            children.append(ladder)
            children.append(subprocess.Popen([sys.executable, "-m", "arena.server.worker", str(server.path)],
                                             preexec_fn=start, pass_fds=(lock,)))
            threading.Thread(target=_watch, args=(ladder, web, failed), daemon=True).start()
            threading.Thread(target=_stop_with, args=(web, children), daemon=True).start()
            print(f"arena serve: {server.league.name} on http://{host}:{port}/ (the ladder plays until "
                  f"stopped: the config's stop conditions are left out; Ctrl-C stops it); "
                  f"data in {server.data}", file=out, flush=True)
            web.run()
    except KeyboardInterrupt:
        interrupted = True
    except SystemExit:   # uvicorn's own, when it could not start (the port taken since the check)
        pass
    finally:
        _stop(children, out)
        os.close(lock)
    if not web.started and not interrupted:
        print(f"arena serve: error: cannot listen on {host}:{port} (in use, or not an address of this "
              "machine)", file=out)
        return 1
    if failed:
        print(f"arena serve: error: {failed[0]}", file=out)
        return 1
    return 130 if interrupted else 0


def check_port(host: str, port: int) -> None:
    """OSError when the web server could not listen on host:port (the port in use, or no
    address of this machine): checked before anything else starts. (The socket is let go
    again: uvicorn binds its own, whose connections answer at once; one handed to it was
    answered about 40 ms late.)"""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as uvicorn binds its own
        sock.bind((host, port))


def _why(exc: OSError) -> str:
    """Why a socket could not be bound, in words."""
    if exc.errno == errno.EADDRINUSE:
        return "the port is in use (another server?); give another with --port"
    if exc.errno == errno.EADDRNOTAVAIL:
        return "not an address of this machine (--host)"
    if exc.errno == errno.EACCES:
        return "permission denied (a port below 1024 needs root)"
    return exc.strerror or str(exc)


def _child(parent: int) -> None:
    """In a child, before it runs: it dies with the server, and yields the CPU to it."""
    die_with_parent(parent)
    os.nice(CHILD_NICE)


def _watch(ladder: subprocess.Popen[bytes], web: Any, failed: list[str]) -> None:
    """Stop the web server when the ladder stops on its own (its error is on stderr above)."""
    code = ladder.wait()
    if not web.should_exit:
        failed.append(f"the ladder stopped (exit code {code}); see its message above")
        web.should_exit = True


def _stop_with(web: Any, children: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM the children as soon as the web server is told to stop (uvicorn takes the
    signal): they stop while it finishes its requests, not after."""
    while not web.should_exit:
        time.sleep(0.1)
    _terminate(children)


def _terminate(children: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to each child still running."""
    for child in children:
        if child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGTERM)


def _stop(children: list[subprocess.Popen[bytes]], out: TextIO) -> None:
    """SIGTERM the children, wait for them, kill any still there STOP_SECONDS after (and say so)."""
    _terminate(children)
    deadline = time.monotonic() + STOP_SECONDS
    for child in children:
        try:
            child.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            print(f"arena serve: {_name(child)} was still running {STOP_SECONDS:g} s after it was told "
                  "to stop: killed", file=out)


def _name(child: subprocess.Popen[bytes]) -> str:
    """A child as the organiser knows it: the ladder or the worker."""
    return "the submission worker" if "arena.server.worker" in str(child.args) else "the ladder"


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the server as Ctrl-C does (uvicorn raises the signal again once it has
    shut down: it lands here as a KeyboardInterrupt)."""
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


__all__ = ["ServeError", "check_port", "load_server", "prepare", "require_bwrap", "serve"]
