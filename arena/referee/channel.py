"""Line I/O with sandboxed bots: send requests, wait for a reply by a deadline,
keep stderr as a capped tail. Nothing a bot prints can grow the referee's memory
past the caps, and nothing it does (or fails to do) can block the referee."""

from __future__ import annotations

import errno
import os
import selectors
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from arena.protocol import LineBuffer, LineTooLongError
from arena.record import Termination
from arena.sandbox import SandboxedProcess

READ_CHUNK = 1 << 16
EXIT_GRACE_S = 0.2  # after stdout closes, how long to wait for the exit status
#: how long a wait for a reply polls before it sleeps, where the referee has a CPU to spare
SPIN_S = 0.0002


def spin_seconds() -> float:
    """SPIN_S where this process may run on more than one CPU, else 0: a sleeping CPU
    takes tens of microseconds to wake on a virtual machine, more than most replies
    take to come, but polling on the one CPU the bots also run on only delays them."""
    return SPIN_S if len(os.sched_getaffinity(0)) > 1 else 0.0


class BotFault(Exception):
    """A bot broke a rule; the referee turns this into the game's result."""

    def __init__(self, termination: Termination, reason: str) -> None:
        super().__init__(reason)
        self.termination = termination
        self.reason = reason


@dataclass(frozen=True)
class OutputLimits:
    """Caps on what a bot may print during one game (bytes)."""

    max_line_bytes: int = 64 * 1024
    max_stdout_bytes: int = 16 * 1024 * 1024
    max_stderr_bytes: int = 16 * 1024 * 1024
    stderr_tail_bytes: int = 4096


_MEMORY_SIGNS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory",
                 "JavaScript heap out of memory", "OutOfMemoryError")
_PROCESS_SIGNS = ("Resource temporarily unavailable", "BlockingIOError", "fork failed",
                  "can't start new thread")


class BotChannel:
    """One bot process's pipes, seen as requests and reply lines."""

    def __init__(self, proc: SandboxedProcess, limits: OutputLimits, label: str) -> None:
        self.proc = proc
        self.limits = limits
        self.label = label
        self.lines: deque[str] = deque()
        self.outstanding = 0          # lines of replies asked for that have not come yet
        self.reply_lines = 1          # lines of the last request's reply still wanted (see give_up);
        #                               lines owed beyond them are late, dropped as they come
        self.fault: BotFault | None = None
        self.stdout_closed = False
        self.stderr_closed = False
        self.not_utf8 = 0             #: lines read that were not UTF-8 (read with U+FFFD)
        self._stdout = LineBuffer(limits.max_line_bytes)
        self._stdout_total = 0
        self._stderr_total = 0
        self._tail = bytearray()
        self._out = bytearray()

    def new_game(self) -> None:
        """Start counting output afresh for the next game on this process."""
        self._stdout_total = 0
        self._stderr_total = 0
        self._tail.clear()

    @property
    def healthy(self) -> bool:
        """Alive, in step (no reply pending, nothing unread) and without a fault."""
        return (self.fault is None and not self.stdout_closed and self.outstanding == 0
                and not self.lines and self._stdout.pending == 0 and self.proc.poll() is None)

    # -- writing -------------------------------------------------------------
    def request(self, lines: list[str], expects_reply: bool = True, replies: int = 1) -> None:
        """Queue lines for the bot; expects_reply counts them as one request, whose reply
        is `replies` lines."""
        if lines:
            self._out += ("\n".join(lines) + "\n").encode()
        if expects_reply:
            self.outstanding += replies
            self.reply_lines = replies
        self.flush()

    def give_up(self) -> None:
        """The referee gave up on the reply to the last request (a timeout strike): the bot
        still owes it, and its lines, those in already and those to come, are dropped; the
        next request's reply is the first line after them (a bot answers in order)."""
        self.lines.clear()
        self.reply_lines = 0

    def flush(self) -> None:
        """Write what the pipe takes now; a closed pipe is noted, not raised."""
        while self._out:
            try:
                written = os.write(self.proc.stdin_fd, self._out)
            except BlockingIOError:
                return
            except (BrokenPipeError, OSError):
                self._out.clear()
                self.stdout_closed = self.stdout_closed or self.proc.poll() is not None
                return
            del self._out[:written]

    @property
    def wants_write(self) -> bool:
        return bool(self._out)

    # -- reading -------------------------------------------------------------
    def read_stdout(self) -> None:
        """Take what stdout has; sort complete lines into replies, stale or unsolicited."""
        for raw in self._stdout_lines():
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = raw.decode("utf-8", "replace")
                self.not_utf8 += 1
            if self.outstanding == 0:
                self._set_fault(Termination.MALFORMED,
                                f"printed {line[:80]!r} when nothing was asked")
                return
            if self.outstanding <= self.reply_lines:
                self.lines.append(line)
            # else: the late answer to a request already given up on (timeout strike)
            self.outstanding -= 1

    def _stdout_lines(self) -> list[bytes]:
        """The complete lines stdout has now (none: it closed, or broke a cap, a fault)."""
        try:
            data = os.read(self.proc.stdout_fd, READ_CHUNK)
        except BlockingIOError:
            return []
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            data = b""
        if not data:
            self.stdout_closed = True
            return []
        self._stdout_total += len(data)
        if self._stdout_total > self.limits.max_stdout_bytes:
            self._set_fault(Termination.OUTPUT_CAP,
                            f"printed more than {self.limits.max_stdout_bytes} bytes on stdout")
            return []
        try:
            return self._stdout.feed(data)
        except LineTooLongError:
            self._set_fault(Termination.OUTPUT_CAP,
                            f"printed a line longer than {self.limits.max_line_bytes} bytes")
            return []

    def read_stderr(self) -> None:
        """Keep the last stderr_tail_bytes of stderr; past max_stderr_bytes it is a fault."""
        try:
            data = os.read(self.proc.stderr_fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.stderr_closed = True
            return
        self._take_stderr(data)

    def _take_stderr(self, data: bytes) -> None:
        """Keep what stderr gave in the tail; past its cap, a fault."""
        self._stderr_total += len(data)
        keep = self.limits.stderr_tail_bytes
        self._tail += data[-keep:]
        if len(self._tail) > keep:
            del self._tail[:-keep]
        if self._stderr_total > self.limits.max_stderr_bytes:
            self._set_fault(Termination.OUTPUT_CAP,
                            f"printed more than {self.limits.max_stderr_bytes} bytes on stderr")

    def _set_fault(self, termination: Termination, reason: str) -> None:
        if self.fault is None:
            self.fault = BotFault(termination, reason)
            self.proc.kill_tree()

    def stderr_tail(self) -> str:
        """The last bytes the bot wrote to stderr, as text."""
        return self._tail.decode("utf-8", "replace")

    def partial_line(self) -> int:
        """Bytes of a reply started but not ended by a newline."""
        return self._stdout.pending

    # -- judging an exit -----------------------------------------------------
    def exit_fault(self, when: str) -> BotFault:
        """The fault for a bot whose stdout closed: why it exited, or that it closed stdout.
        `when` is a Wait's moment: "while starting up" or "to move N", without the time
        allowed (an exit is no matter of time: "within 300 ms" read as a timeout)."""
        if when.startswith("to "):
            when = "before replying " + when
        deadline = time.monotonic() + EXIT_GRACE_S
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        if self.proc.poll() is None:
            self.proc.kill_tree()
            return BotFault(Termination.CRASH, f"closed its standard output {when} (still running)")
        self.drain_stderr()
        how = self.proc.exit_description()
        limit = self.proc.resource_limit_hit()
        tail = self.stderr_tail()
        if limit is None and any(sign in tail for sign in _MEMORY_SIGNS):
            limit = "memory limit"
        if limit is None and any(sign in tail for sign in _PROCESS_SIGNS):
            limit = "process limit"
        if limit is not None:
            return BotFault(Termination.RESOURCE_LIMIT, f"hit its {limit} ({how}) {when}")
        return BotFault(Termination.CRASH, f"exited ({how}) {when}")

    def drain_stderr(self) -> None:
        """Read whatever stderr still holds (after an exit)."""
        for _ in range(64):
            if self.stderr_closed:
                return
            before = self._stderr_total
            self.read_stderr()
            if self._stderr_total == before and not self.stderr_closed:
                return


@dataclass(slots=True)
class Wait:
    """One bot's reply being waited for: by when, how the wait is named in a fault,
    (see Multiplexer.wait_line) whether a timeout kills it and who judges it at the
    deadline, and how many lines the reply is."""

    channel: BotChannel
    deadline: float
    when: str              #: for a timeout, with the time allowed: "to move 5 within 300 ms"
    kill_on_timeout: bool = True
    judge: Callable[[], float | str] | None = None
    moment: str = ""       #: for an exit, without it: "to move 5" ("": when)
    replies: int = 1       #: lines in the reply


class Multiplexer:
    """Waits on every bot's pipes at once, so an idle bot's output is drained too. A wait
    polls for spin_s before it sleeps (see spin_seconds)."""

    def __init__(self, channels: list[BotChannel], spin_s: float = 0.0) -> None:
        self.channels = channels
        self.spin_s = spin_s
        self.selector = selectors.DefaultSelector()
        for ch in channels:
            self.selector.register(ch.proc.stdout_fd, selectors.EVENT_READ, (ch, "out"))
            self.selector.register(ch.proc.stderr_fd, selectors.EVENT_READ, (ch, "err"))

    def add(self, channel: BotChannel) -> None:
        """Wait on one more channel's pipes (a referee process's, beside its seats')."""
        self.channels.append(channel)
        self.selector.register(channel.proc.stdout_fd, selectors.EVENT_READ, (channel, "out"))
        self.selector.register(channel.proc.stderr_fd, selectors.EVENT_READ, (channel, "err"))

    def close(self) -> None:
        self.selector.close()

    def _unregister_closed(self, ch: BotChannel) -> None:
        for fd, closed in ((ch.proc.stdout_fd, ch.stdout_closed), (ch.proc.stderr_fd, ch.stderr_closed)):
            if closed:
                try:
                    self.selector.unregister(fd)
                except (KeyError, ValueError):
                    pass

    def wait_line(self, active: BotChannel, deadline: float, when: str,
                  kill_on_timeout: bool = True, judge: Callable[[], float | str] | None = None,
                  moment: str = "") -> str:
        """The active bot's reply line, or BotFault: timeout at the deadline, exit, caps.

        At the deadline, judge() (if given) says whether the bot is late after all: a
        text saying why it is, or the seconds until it should be asked again."""
        return self.wait_reply(Wait(active, deadline, when, kill_on_timeout, judge, moment))

    def wait_reply(self, wait: Wait) -> str:
        """The reply a wait is for (its lines joined by newlines), or BotFault, as
        wait_line says."""
        active = wait.channel
        spun = not self.spin_s
        while True:
            line = self._reply(wait)
            if line is not None:
                return line
            remaining = wait.deadline - time.monotonic()
            if not spun:
                spun = True
                self._spin(min(wait.deadline, time.monotonic() + self.spin_s))
                continue
            self._read_ready(remaining if not active.wants_write else min(remaining, 0.005))

    def wait_first(self, waits: list[Wait]) -> tuple[Wait, str | BotFault]:
        """The first of several bots asked at once to reply or fault, as it comes: its wait
        and its line, or the BotFault (timeout at its own deadline, exit, caps) that ends
        its move; each wait is judged as wait_line judges one. The others wait on."""
        spun = not self.spin_s
        while True:
            for wait in waits:
                try:
                    line = self._reply(wait)
                except BotFault as fault:
                    return wait, fault
                if line is not None:
                    return wait, line
            soonest = min(wait.deadline for wait in waits)
            if not spun:
                spun = True
                self._spin(min(soonest, time.monotonic() + self.spin_s))
                continue
            remaining = max(0.0, soonest - time.monotonic())
            writing = any(wait.channel.wants_write for wait in waits)
            self._read_ready(remaining if not writing else min(remaining, 0.005))

    def _reply(self, wait: Wait) -> str | None:
        """The waiting bot's reply if it is in; BotFault if it faulted, exited or is judged
        late at its deadline; None to wait on (a judge may have moved the deadline)."""
        active = wait.channel
        lines = active.lines
        if lines:
            # a reply before a fault (an extra line in the same write) is played first;
            # the fault ends the game at the referee's next look
            if wait.replies == 1:
                return lines.popleft()
            if len(lines) >= wait.replies:
                return "\n".join([lines.popleft() for _ in range(wait.replies)])
        if active.fault is not None:
            raise active.fault
        if active.stdout_closed:
            raise active.exit_fault(wait.moment or wait.when)
        if active.wants_write:
            active.flush()
        if wait.deadline - time.monotonic() > 0:
            return None
        self._read_ready(0)  # a reply already there is judged as a reply, not missed
        if len(active.lines) >= wait.replies or active.fault is not None or active.stdout_closed:
            return self._reply(wait)
        verdict = wait.judge() if wait.judge is not None else ""
        if isinstance(verdict, str):
            if active.proc.stdout_held() is False:
                raise active.exit_fault(wait.moment or wait.when)
            pending = active.partial_line()
            if wait.kill_on_timeout:
                active.proc.kill_tree()
            extra = f"; it had printed {pending} bytes with no newline" if pending else ""
            if active.lines:
                extra = f"; it had printed {len(active.lines)} of its {wait.replies} lines" + extra
            why = f" ({verdict})" if verdict else ""
            raise BotFault(Termination.TIMEOUT, f"no reply {wait.when}{why}{extra}")
        wait.deadline = time.monotonic() + verdict
        return None

    def _spin(self, until: float) -> None:
        """Poll, never sleeping, until some bot has output or until `until`."""
        select = self.selector.select
        while time.monotonic() < until:
            if select(0):
                return

    def _read_ready(self, timeout: float) -> None:
        """Wait up to timeout for output of any bot, and take what is there."""
        for key, _ in self.selector.select(timeout):
            ch, stream = key.data
            if stream == "out":
                ch.read_stdout()
            else:
                ch.read_stderr()
            self._unregister_closed(ch)

    def poll_others(self) -> None:
        """Drain pending output of every bot without waiting."""
        self._read_ready(0)
