"""Time control: what a bot is allowed per move, and what happens when it is late."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.bounds import DAY_MS, bounded, check_fields
from arena.sandbox.procfs import CpuMark, TreeUsage, cpu_since

#: what a late move costs: the game, or a strike (and a random move) while strikes last
TIMEOUT_MODES = ("forfeit", "strikes")
MIN_LOOK_S = 0.005  #: shortest pause between two looks at a bot past its deadline
QUICK_S = 0.001  #: a reply this soon after its request, costing nothing, is not measured
CPUS = os.cpu_count() or 1  #: read once: os.cpu_count() reads /sys every call


@dataclass(frozen=True)
class TimeControl:
    """Per-move limit, optional bank with increment, start-up limit, transport allowance (ms).

    A move may use move_ms plus whatever is in the bank; time over move_ms is
    taken from the bank, and increment_ms is added to the bank after every move.
    overhead_ms is slack for pipes and scheduling: a move's budget is the allowed
    time plus overhead_ms, and the overhead is never charged to the bot.
    A move uses the larger of two measures, from the request to the reply: the CPU
    time of the bot's whole process tree (all threads and processes), and the wall
    time net of waiting for a CPU. That waiting (run-queue delay of the bot's
    threads, the longest of them, plus the referee's own; /proc/PID/schedstat) is
    host load, not the bot's, up to load_grace times the budget. Time the bot spends
    running is never waiting: a bot that has used its budget either way is late.
    """

    move_ms: int = bounded(1000, min=1, max=DAY_MS)
    startup_ms: int = bounded(5000, min=1, max=DAY_MS)
    bank_ms: int = bounded(0, min=0, max=DAY_MS)
    increment_ms: int = bounded(0, min=0, max=DAY_MS)
    overhead_ms: int = bounded(50, min=0, max=DAY_MS)
    load_grace: float = bounded(10.0, min=0, max=1000)
    #: the time for a bot's first move, its start-up included where its dialect has no
    #: handshake (CodinGame's shape: 1000 ms first, move_ms after); None: move_ms, and
    #: startup_ms more where there is no handshake
    first_move_ms: int | None = bounded(None, min=1, max=DAY_MS)

    def __post_init__(self) -> None:
        check_fields(self, "time control")


@dataclass(frozen=True)
class TimeoutPolicy:
    """forfeit: a late move loses the game. strikes: up to `strikes` late moves are
    replaced by a random legal move (recorded as substituted); the next one loses."""

    mode: str = bounded("forfeit", choices=TIMEOUT_MODES)
    strikes: int = bounded(3, min=1, max=1000)

    def __post_init__(self) -> None:
        check_fields(self, "timeout policy")


class Clock:
    """One seat's time: the bank as it is drawn down and topped up."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank_ms = control.bank_ms

    def allowed_ms(self) -> int:
        """Time the bot may use for its next move."""
        return self.control.move_ms + self.bank_ms

    def charge(self, used_ms: float) -> bool:
        """Account for a move that took used_ms (overhead already deducted); False if too late."""
        over = used_ms - self.control.move_ms
        if over > self.bank_ms:
            self.bank_ms = 0
            return False
        if over > 0:
            self.bank_ms -= int(over + 0.999)
        self.bank_ms += self.control.increment_ms
        return True


class MoveMeter:
    """Measures one move of a bot and says when it is late (see TimeControl).

    sample(states) reads the bot's process tree; own_wait() the referee's run-queue
    wait so far; mark(), if given, notes its processes' CPU clocks cheaply (a
    procfs.CpuMark, or None). Create it, call start() just before the request is
    written and sent() just after: the wall time starts before the bot can see the
    request, as must the CPU time (a bot sharing the referee's CPU may run as soon as
    the request is written, for a scheduler time slice of milliseconds, before the
    referee runs again). start() takes only the cheap mark, so the reading, tens of
    microseconds, is taken in sent(), while the bot wakes, and counts what the marked
    tree ran since the mark; without a mark, start() reads the tree itself.
    """

    # what a meter starts from (class attributes: one is made for every move)
    cpu_s = 0.0         #: CPU time of the bot's tree since the request
    bot_wait_s = 0.0    #: the longest run-queue wait of one of its threads
    own_wait_s = 0.0    #: the referee's run-queue wait
    runnable = False
    _base = TreeUsage(0.0, {})   # shared by every meter until its first reading: never mutated
    _marked: CpuMark | None = None
    _early_s = 0.0      #: CPU time between start() and the first reading
    _own_base = 0.0
    _cpus = CPUS

    def __init__(self, budget_s: float, load_grace: float, sample: Callable[[bool], TreeUsage],
                 own_wait: Callable[[], float], mark: Callable[[], CpuMark | None] | None = None) -> None:
        self.budget_s = budget_s
        self.load_grace = load_grace
        self.cap_s = load_grace * budget_s
        self._sample = sample
        self._own_wait = own_wait
        self._mark = mark
        self.started = self.sampled = time.monotonic()

    def start(self) -> None:
        """The request is about to be written: the move's wall time starts now (sampled:
        no CPU time before it counts); the mark, or else the first reading."""
        self.started = self.sampled = time.monotonic()
        self._marked = self._mark() if self._mark is not None else None
        if self._marked is None:
            self._base = self._sample(False)
            self._own_base = self._own_wait()

    def sent(self) -> None:
        """The request has been written: the first reading, if start() only marked, with
        the CPU time the tree used since the mark (at most what cpus could in that time)."""
        if self._marked is None:
            return
        self._base = self._sample(False)
        early = cpu_since(self._marked)   # just after the reading: it ends at its clocks, finds those born since
        # the waits count from here, not from the mark: a wait between the two is not
        # forgiven, which can only make the move's net wall time longer, never shorter
        self._own_base = self._own_wait()
        # the wall time since start() bounds it, and stands for it where it is not known
        bound = (time.monotonic() - self.sampled) * self._cpus
        self._early_s = bound if early is None else min(early, bound)
        self._marked = None

    @property
    def wait_s(self) -> float:
        """Waiting for a CPU measured so far (bot and referee), uncapped."""
        return self.bot_wait_s + self.own_wait_s

    def look(self, states: bool = False) -> float:
        """Read the bot's tree and the referee's wait now; the wall time so far (s)."""
        wall = time.monotonic() - self.started
        self._read(states)
        return wall

    def _read(self, states: bool) -> None:
        usage = self._sample(states)
        self.cpu_s = max(self.cpu_s, usage.cpu_seconds - self._base.cpu_seconds + self._early_s)
        before = self._base.waits
        waited = max((w - before.get(tid, 0.0) for tid, w in usage.waits.items()), default=0.0)
        self.bot_wait_s = max(self.bot_wait_s, waited)
        self.own_wait_s = max(self.own_wait_s, self._own_wait() - self._own_base)
        self.runnable = usage.runnable

    def surely_in_time(self, now: float) -> bool:
        """True if a reply read at `now` is in time whatever the tree's readings say: the
        tree cannot have used the budget in CPU time since the clock started (CPU time
        grows at most cpus times as fast as wall time), nor in wall time."""
        return (now - self.sampled) * self._cpus < self.budget_s

    def free(self, now: float, slack_s: float) -> bool:
        """True if a reply read at `now` costs the bot nothing whatever the readings would
        say, so none are taken: it came within QUICK_S of the request, and neither its
        wall time nor its bound on CPU time (cpus times the time since the clock started)
        is past slack_s, the part of the budget that is never charged."""
        wall = now - self.started
        return wall <= min(QUICK_S, slack_s) and (now - self.sampled) * self._cpus <= slack_s

    def read_late(self, replied: float) -> None:
        """The readings for a reply read at `replied` (surely in time), taken later: the CPU
        time counted is at most what the tree could have used up to `replied` (cpus times
        the wall time since the clock started), so reading late charges nothing more."""
        self._read(False)
        self.cpu_s = min(self.cpu_s, (replied - self.sampled) * self._cpus)

    def used_s(self, wall_s: float) -> float:
        """What the move has used of its budget after wall_s: CPU or net wall time."""
        return max(self.cpu_s, wall_s - min(self.wait_s, self.cap_s))

    def judge(self) -> float | str:
        """At or past the deadline: why the bot is late, or seconds until the next look."""
        wall = self.look(states=True)
        if self.cpu_s >= self.budget_s:
            return f"it used {self.cpu_s * 1000:.0f} ms of CPU"
        net = self.used_s(wall)
        # a runnable thread may be waiting for a CPU without the kernel having counted
        # it yet; if it is running instead, its CPU time above catches it
        if net >= self.budget_s and not self.runnable:
            return f"{net * 1000:.0f} ms net of {self.wait_s * 1000:.0f} ms waiting for a CPU"
        if wall >= self.budget_s + self.cap_s:
            return f"{wall * 1000:.0f} ms: more waiting than load_grace {self.load_grace:g} allows"
        # CPU time grows at most cpus times as fast as wall time
        return max(MIN_LOOK_S, (self.budget_s - max(self.cpu_s, net)) / self._cpus)
