"""`arena serve LADDER.yaml`: the web app (uvicorn, in this process), the ladder (`arena run`
on the roster, a child process) and the submission worker (a child process), started
together and stopped together.

The ladder plays the roster: the organiser's config with every accepted submission added
and its stop conditions left out (a server plays on until it is stopped). It resumes
from the store, as `arena run` does; the worker takes again what a stopped run left half-way.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import signal
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

STOP_SECONDS = 30.0   #: a child still running this long after SIGTERM is killed
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
    would remove the first's uploads in flight and take its submissions again. Waits a
    little for a killed server's children to end; ServeError if it is still held."""
    server.data.mkdir(parents=True, exist_ok=True)
    fd = os.open(server.data / "serve.lock", os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + LOCK_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise ServeError(f"{server.data}: another arena serve is running on this data; stop it "
                                 "first") from None
            time.sleep(0.2)


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
          plugins: Plugins | None = None, out: TextIO | None = None) -> int:
    """Run the server until Ctrl-C or SIGTERM; the exit code (130 when stopped so, as
    `arena run`; 1 when the ladder stopped on its own or the port could not be had)."""
    import uvicorn

    from .app import make_app
    from .sandboxed import roster_path
    out = out or sys.stderr
    server = load_server(config_path, plugins)
    require_bwrap(server)
    lock = hold_data(server)
    prepare(server, out)
    roster = roster_path(server.path)
    app = make_app(server, secure_cookies)
    web = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                        lifespan="on"))
    children: list[subprocess.Popen[bytes]] = []
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
            print(f"arena serve: {server.league.name} on http://{host}:{port}/ (the ladder plays until "
                  f"stopped: the config's stop conditions are left out; Ctrl-C stops it); "
                  f"data in {server.data}", file=out, flush=True)
            web.run()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        _stop(children)
        os.close(lock)
    if not web.started:
        print(f"arena serve: error: cannot listen on {host}:{port} (in use, or not an address of this "
              "machine)", file=out)
        return 1
    if failed:
        print(f"arena serve: error: {failed[0]}", file=out)
        return 1
    return 130 if interrupted else 0


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


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each child, wait for them, kill one that outlives STOP_SECONDS."""
    for child in children:
        if child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGTERM)
    for child in children:
        try:
            child.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


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


__all__ = ["ServeError", "load_server", "prepare", "require_bwrap", "serve"]
