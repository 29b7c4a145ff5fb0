"""`arena serve` as a test starts it: a subprocess on a free loopback port, waited for by
polling /api/health, stopped with SIGTERM."""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import ssl
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from . import ARENA, ROOT

READY_SECONDS = 60.0
#: the SSL context the tests' HTTP clients share: httpx builds one for every Client (and every
#: httpx.get) it is not given one, loading the CA bundle each time (17 ms here), though the
#: server is plain HTTP on loopback
LOOPBACK_SSL = ssl.create_default_context()


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bwrap_or_skip() -> None:
    """Skip the test where bwrap does not work: arena serve refuses to start without it."""
    from arena.sandbox.detect import detect
    from arena.sandbox.errors import SandboxError
    try:
        detect("bwrap")
    except SandboxError as exc:
        pytest.skip(f"arena serve needs bwrap: {exc}")


class Serving:
    """A running `arena serve CONFIG [OPTIONS]`: its URL, its output files, stop() or kill()."""

    def __init__(self, config: Path, *options: str) -> None:
        bwrap_or_skip()
        self.config = config
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.err_path = config.parent / f"serve-{self.port}.err"
        self.out_path = config.parent / f"serve-{self.port}.out"
        with self.err_path.open("wb") as err, self.out_path.open("wb") as out:
            self.proc = subprocess.Popen([*ARENA, "serve", str(config), "--port", str(self.port), *options],
                                         cwd=ROOT, stdout=out, stderr=err)
        deadline = time.monotonic() + READY_SECONDS
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"arena serve exited {self.proc.returncode}: {self.stderr()}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=2, verify=LOOPBACK_SSL).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"arena serve did not answer in {READY_SECONDS} s: {self.stderr()}")
            time.sleep(0.1)

    def stderr(self) -> str:
        """What the server (and its ladder and worker) wrote on stderr so far."""
        return self.err_path.read_text(errors="replace")

    def stop(self) -> int:
        """SIGTERM, as a service manager stops it; its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(120)

    def kill(self) -> None:
        """kill -9 of the server's own process (its children get SIGTERM from the kernel)."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(60)


def wait_for_store_release(store: Path, seconds: float = 60.0) -> None:
    """Until no ladder holds the store (its flock): a killed server's ladder is stopping."""
    deadline = time.monotonic() + seconds
    while True:
        fd = os.open(store, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise AssertionError(f"{store} is still held after {seconds} s") from None
            time.sleep(0.1)
        finally:
            os.close(fd)


def poll(fn, what: str, seconds: float = 120.0, every: float = 0.3):
    """fn() until it returns something true; that value (AssertionError naming what, past seconds)."""
    deadline = time.monotonic() + seconds
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s for {what}")
        time.sleep(every)
