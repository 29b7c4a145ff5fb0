"""A move: one request to one seat's bot and the reply it owes, judged by the seat's clock.

Every kind of turn is the same few steps over a Move: send() starts the clock and writes
the request; the reply or the fault that comes instead is waited for (alone:
Multiplexer.wait_reply; several seats asked at once: Multiplexer.wait_first on their
waits); judge() judges its time; the turn parses the reply and records the move
(record(), with its readings: keep_readings() or take_readings()). The request is any
lines and the reply any number of lines, so a turn that relays lines between a referee
process and a seat is one more such turn."""

from __future__ import annotations

import time
from collections.abc import Callable

from arena.protocol import Dialect
from arena.record import MoveRecord, Termination
from arena.sandbox.procfs import CpuMark, own_wait_seconds

from .botspec import BotSpec
from .channel import BotChannel, BotFault, Wait
from .settings import MatchSettings
from .timecontrol import Clock, MoveMeter, TimeControl

#: when a reply's readings are taken (Move.judge): none (too quick to cost anything),
#: already (read to judge it), or left for later (surely in time)
FREE, TAKEN, LATER = "free", "taken", "later"


class Seat:
    """One seat of a game: its bot, the dialect it speaks, its clock, and its channel once
    its process runs (None for a seat played in the referee's process)."""

    def __init__(self, seat: int, spec: BotSpec, control: TimeControl, dialect: Dialect) -> None:
        self.seat = seat
        self.spec = spec
        self.dialect = dialect
        self.clock = Clock(control)
        self.channel: BotChannel | None = None
        self.strikes = 0
        self.first_turn = True
        self.mark: Callable[[], CpuMark | None] | None = None   #: see MoveMeter
        self.put_out = False    #: out for a fault while the others played on


class Move:
    """One request to a seat's bot, `lines`, and its reply of `replies` lines (one for a
    move of a built-in game), named in a fault by `doing` ("move 5", "move on turn 3").

    The bot may use its clock's allowed time, and on its first request the start-up
    allowance too where its dialect has no handshake (start-up happens then); it is told
    only its own time (the request's lines say so). The budget adds the overhead, never
    charged."""

    # one is made for every move: slots make it and its attributes cheaper
    __slots__ = ("seat", "control", "lines", "doing", "replies", "allowed_ms", "startup_ms", "slack_ms", "budget_ms",
                 "policy", "strikes", "strikes_left", "meter", "wait", "taken", "replied", "wall_ms", "entry")
    meter: MoveMeter
    wait: Wait
    strikes: int        #: strikes a seat may take (0: a timeout forfeits), read by send()
    strikes_left: bool
    taken: str
    replied: float      #: when the reply was read (judge)
    wall_ms: float      #: from the request to the reply, or to the fault (judge, struck)
    entry: MoveRecord

    def __init__(self, seat: Seat, settings: MatchSettings, lines: list[str], doing: str,
                 replies: int = 1) -> None:
        control = self.control = settings.time
        self.seat = seat
        self.lines = lines
        self.doing = doing
        self.replies = replies
        self.allowed_ms = seat.clock.allowed_ms()
        self.startup_ms = control.startup_ms if seat.first_turn and not seat.dialect.expects_ready else 0
        seat.first_turn = False
        self.slack_ms = control.overhead_ms + self.startup_ms     # never charged
        self.budget_ms = self.allowed_ms + self.slack_ms
        self.policy = settings.timeout_policy

    def send(self) -> Wait:
        """Start the clock and write the request; the wait for the reply. The clock starts
        before the bot can see its request (MoveMeter)."""
        ch = self.seat.channel
        assert ch is not None   # a seat played by a process
        meter = self.meter = MoveMeter(self.budget_ms / 1000, self.control.load_grace, ch.proc.usage,
                                       own_wait_seconds, self.seat.mark)
        meter.start()
        ch.request(self.lines, replies=self.replies)
        meter.sent()     # this move's first reading, if start() only marked, while the bot wakes up
        policy = self.policy       # what the request does not wait for, after it
        self.strikes = policy.strikes if policy.mode == "strikes" else 0
        self.strikes_left = self.seat.strikes < self.strikes
        moment = "to " + self.doing
        # by position: made for every move, and keywords cost more
        self.wait = Wait(ch, meter.started + self.budget_ms / 1000,
                         f"{moment} within {self.allowed_ms + self.startup_ms} ms",   # when
                         not self.strikes_left, meter.judge, moment, self.replies)
        return self.wait

    def judge(self, got: str | BotFault) -> str:
        """The reply, its time judged, or the BotFault that came instead (raised). A reply
        too quick to cost anything (MoveMeter.free) is charged nothing and not measured
        (taken: FREE). One surely in time leaves its readings (CPU, waits, the clock's
        charge) for take_readings() (LATER); any other is read now (TAKEN) and is late
        (BotFault, timeout) if the bot's tree used the budget in CPU time."""
        replied = self.replied = time.monotonic()
        meter = self.meter
        self.wall_ms = (replied - meter.started) * 1000
        if isinstance(got, BotFault):
            raise got
        if meter.free(replied, self.slack_ms / 1000):
            self.seat.clock.charge(0.0)
            self.taken = FREE
        elif meter.surely_in_time(replied):
            self.taken = LATER
        else:
            meter.look()
            if meter.cpu_s * 1000 >= self.budget_ms:
                if not self.strikes_left:
                    self.wait.channel.proc.kill_tree()
                raise BotFault(Termination.TIMEOUT, f"replied too late {self.wait.when}: it used "
                                                    f"{meter.cpu_s * 1000:.0f} ms of CPU")
            self._charge()
            self.taken = TAKEN
        return got

    def _charge(self) -> None:
        # a reply read before the referee found the bot late is in time: the wall time
        # now may hold delays of the referee's that no counter shows (another thread
        # holding the interpreter lock), so it is charged at most the budget
        used_ms = min(self.meter.used_s(self.wall_ms / 1000) * 1000, self.budget_ms)
        self.seat.clock.charge(max(0.0, used_ms - self.slack_ms))

    def record(self, move: str, turn: int | None = None) -> MoveRecord:
        """The move's record, as `move`, without its readings yet."""
        entry = self.entry = MoveRecord(self.seat.seat, move, round(self.wall_ms, 3))   # seat, move, wall_ms
        if turn is not None:
            entry.turn = turn
        return entry

    def take_readings(self) -> None:
        """Put the readings in the move's record, reading them now if they were left for
        later: no more CPU time than the bot could have used by its reply is counted
        (MoveMeter.read_late), so reading late charges nothing more. A reply too quick to
        measure reads zero."""
        meter = self.meter
        if self.taken is LATER:
            meter.read_late(self.replied)
            self._charge()
        self.entry.cpu_ms = round(meter.cpu_s * 1000, 3)
        self.entry.wait_ms = round(meter.wait_s * 1000, 3)

    def keep_readings(self, later: list[Callable[[], None]]) -> None:
        """Put the readings in the record now if they were read to judge the reply, or
        leave them in `later` if it was surely in time (to be taken once the next request
        is written, while that bot thinks); a reply too quick to measure has none."""
        if self.taken is TAKEN:
            self.take_readings()
        elif self.taken is LATER:
            later.append(self.take_readings)

    def struck(self, fault: BotFault) -> str | None:
        """Where `fault` is a timeout and the seat has strikes left: take one (its bank is
        emptied) and say why a move is played for it; else None."""
        self.wall_ms = (time.monotonic() - self.meter.started) * 1000
        if fault.termination is not Termination.TIMEOUT or not self.strikes_left:
            return None
        seat = self.seat
        seat.strikes += 1
        seat.clock.bank_ms = 0
        self.wait.channel.give_up()    # its late reply is not the next move's
        return f"timeout strike {seat.strikes} of {self.strikes}"

    def seat_fault(self, fault: BotFault) -> BotFault:
        """The fault as charged to the seat: without a handshake, dying before the first
        reply is failing to start."""
        if self.startup_ms and fault.termination in (Termination.CRASH, Termination.RESOURCE_LIMIT):
            return BotFault(Termination.STARTUP_FAILURE, fault.reason)
        return fault

