"""One untrusted process of a submission (its build, its wheel's loader) run to its end in
the bwrap sandbox: its output kept within caps, its whole tree killed at its wall time or
when a watch says why; and the error every step of a submission raises."""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.sandbox import Limits, Sandbox, SandboxedProcess, SandboxError

STDERR_TAIL = 4096           #: bytes of a process's stderr kept for a message
WATCH_SECONDS = 0.5          #: how often a watch is asked while a process runs


class SubmissionError(ArenaError):
    """A submission cannot be built, read or validated as given: str() is one line for its
    owner, naming what is wrong and what is allowed."""



class Kept:
    """A stream's bytes up to a cap: its first three quarters and its last quarter, and how
    many were cut between them."""

    def __init__(self, cap: int) -> None:
        self.head_cap = cap - cap // 4
        self.tail_cap = cap // 4
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_cap:
            self.tail += chunk
            del self.tail[:-self.tail_cap]

    @property
    def cut(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self, what: str = "output") -> str:
        """The bytes kept as text, with a line where some were cut."""
        head = self.head.decode(errors="replace")
        if not self.cut:
            return head + self.tail.decode(errors="replace")
        note = (f"\n[{what} cut: {self.total:,} bytes printed, {self.cut:,} left out; kept the "
                f"first {len(self.head):,} and the last {len(self.tail):,}]\n")
        return head + note + self.tail.decode(errors="replace")


@dataclass
class Ended:
    """A sandboxed process run to its end: its output and how it ended."""

    out: Kept
    err: Kept
    timed_out: bool
    returncode: int | None
    description: str
    stopped: str | None = None   #: why the watch stopped it


def run_to_end(proc: SandboxedProcess, seconds: float, out_cap: int, err_cap: int,
         watch: Callable[[], str | None] | None = None) -> Ended:
    """Read a started process's stdout and stderr until both end, killing its whole tree
    after `seconds` of wall time, or when watch (asked every WATCH_SECONDS) says why;
    closes it."""
    out, err = Kept(out_cap), Kept(err_cap)
    deadline = time.monotonic() + seconds
    timed_out = False
    stopped = None
    watched = time.monotonic()
    try:
        proc.close_stdin()
        kept = {proc.stdout_fd: out, proc.stderr_fd: err}
        poller = select.poll()
        for fd in kept:
            poller.register(fd, select.POLLIN)
        while kept:
            now = time.monotonic()
            if watch is not None and now - watched >= WATCH_SECONDS:
                watched = now
                stopped = watch()
                if stopped is not None:
                    proc.kill_tree()
                    break
            left = deadline - now
            if left <= 0:
                timed_out = True
                proc.kill_tree()
                break
            for fd, _event in poller.poll(min(left, WATCH_SECONDS) * 1000):
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if chunk:
                    kept[fd].add(chunk)
                else:   # end of file: in bwrap, once every process of it has gone
                    poller.unregister(fd)
                    del kept[fd]
        if proc.wait(5.0) is None:
            proc.kill_tree()
        proc.wait()
        return Ended(out, err, timed_out, proc.poll(), proc.exit_description(), stopped)
    finally:
        proc.close()


def bwrap_sandbox(limits: Limits, sandbox: Sandbox | None, what: str) -> Sandbox:
    """The bwrap sandbox to run `what` in (the given one, else one with limits); refused in
    any other mode, where an upload could read other bots' files."""
    if sandbox is None:
        try:
            sandbox = Sandbox(limits, mode="bwrap")
        except SandboxError as exc:
            raise SubmissionError(f"{what} runs only in the bwrap sandbox, which is not usable "
                                  f"here: {exc}") from None
    if sandbox.mode != "bwrap":
        raise SubmissionError(f"{what} runs only in the bwrap sandbox, not in mode "
                              f"{sandbox.mode!r} (where it could read other bots' files); "
                              "hint: apt-get install -y bubblewrap")
    return sandbox



__all__ = ["STDERR_TAIL", "WATCH_SECONDS", "Ended", "Kept", "SubmissionError", "bwrap_sandbox",
           "run_to_end"]
