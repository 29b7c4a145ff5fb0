"""A game played by a referee process (docs/referees.md): the referee plays the rules and the
arena relays lines between it and the seats, keeping the rest its own: the sandbox (the
referee's too), each seat's clock, faults as data, the record. Every answer a seat owes is a
Move (move.py), as every move of a built-in game is: the lines the referee gave the seat are
its request, the lines it owes the reply.

How a game goes, in cg-brutaltester's protocol (arena.protocol.brutaltester): the referee is
told `###Seed` (where it takes one) and `###Start N`; each `###Input K` block is kept until
`###Output K M` asks seat K for M lines, and only then written, the seat's clock starting (as
CodinGame does: a seat given its input early would think on another's time, and be charged
for it); the reply goes back to the referee; `###End` ranks the seats. A bot's fault ends the
game (no referee can be told of one): the faulted seat ranks last, the others tie above it. A
referee's fault (it crashed, hung, broke the protocol or a cap) makes the game void: recorded,
counted for no one."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

from arena.errors import ArenaError
from arena.games.external import ExternalGame
from arena.protocol import LineBuffer, LineTooLongError
from arena.protocol.brutaltester import (
    End,
    Error,
    Input,
    RefereeProtocolError,
    command,
    error_of,
    is_command,
    ranking,
    referee_seed,
    start_lines,
)
from arena.protocol.dialects import RELAYED
from arena.record import REFEREE_RECORD_VERSION, GameRecord, Termination
from arena.sandbox import HostError, Limits, Sandbox, SandboxedProcess, SandboxError

from .botpool import BotPool
from .botspec import BotSpec
from .channel import BotChannel, BotFault, OutputLimits, Wait
from .move import Move
from .referee import _Faulted, _Referee
from .settings import MatchSettings
from .timecontrol import TimeoutPolicy

#: what a referee may write: lines of 1 MiB, and much more in all than a bot (its log, too)
REFEREE_OUTPUT = OutputLimits(max_line_bytes=1 << 20, max_stdout_bytes=256 << 20,
                              max_stderr_bytes=64 << 20, stderr_tail_bytes=4096)
#: the transcript a record keeps: the seats' input and replies up to this many characters
#: (past it, moves keep no input and their replies' first REPLY_CUT characters)
TRANSCRIPT_CHARS = 1 << 20
REPLY_CHARS = 4096   #: of one reply, kept in the record
REPLY_CUT = 200
MAX_ERRORS = 100     #: ###Error lines a record keeps
ERROR_CHARS = 300    #: of each
#: the referee runs in its own directory: a shell changes to it and runs the command there
IN_DIR = ("/bin/sh", "-c", 'cd "$1" && shift && exec "$@"', "sh")


class RefereeFault(ArenaError):
    """The referee process failed: the game is void. str(): why, in one line."""


class RefereeChannel(BotChannel):
    """A referee process's pipes: every stdout line kept in order (each must be UTF-8), and
    the `###Error` lines of its stderr picked out beside its tail."""

    def __init__(self, proc: SandboxedProcess, players: int) -> None:
        super().__init__(proc, REFEREE_OUTPUT, "referee")
        self.players = players
        self.errors: list[Error] = []     #: from stderr, taken by the relay as they come
        self._stderr_lines = LineBuffer(REFEREE_OUTPUT.max_line_bytes)

    def read_stdout(self) -> None:
        for raw in self._stdout_lines():
            try:
                self.lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                self._set_fault(Termination.MALFORMED, f"printed a line that is not UTF-8: {raw[:60]!r}")
                return

    def _take_stderr(self, data: bytes) -> None:
        super()._take_stderr(data)
        try:
            lines = self._stderr_lines.feed(data)
        except LineTooLongError:      # a log line past the cap is no error line
            self._stderr_lines = LineBuffer(REFEREE_OUTPUT.max_line_bytes)
            return
        for raw in lines:
            error = error_of(raw.decode("utf-8", "replace"), self.players)
            if error is not None and len(self.errors) < MAX_ERRORS:
                self.errors.append(error)


class _Probed(Exception):
    """A preflight's seat answered its first turn: it is up."""


def play_relayed(game: ExternalGame, bots: Sequence[BotSpec], seed: int, sandbox: Sandbox,
                 settings: MatchSettings, pool: BotPool | None = None) -> GameRecord:
    """One game of a referee process's, bots[i] in seat i (play_game calls this for an
    ExternalGame); the record says how it ended, a referee's fault as a void game."""
    return _Relay(game, bots, seed, settings).play(sandbox, pool, ())


def probe_bot(game: ExternalGame, spec: BotSpec, sandbox: Sandbox, settings: MatchSettings,
              seed: int = 0) -> GameRecord:
    """A preflight game: the bot in every seat, played until seat 0 has answered once (the
    record then ends aborted), a fault or the end; a referee's fault is a void record."""
    relay = _Relay(game, [spec] * game.spec.players, seed, settings)
    relay.probe = True
    return relay.play(sandbox, None, ())


class _Relay(_Referee):
    """One game as the relay plays it: the referee's process and channel beside the seats."""

    referee: RefereeChannel | None = None
    probe = False

    def __init__(self, game: ExternalGame, bots: Sequence[BotSpec], seed: int, settings: MatchSettings) -> None:
        spec = game.spec
        if len(bots) != spec.players:
            raise RefereeFault(f"{spec.name} seats {spec.players} players, not the {len(bots)} bots given")
        # no move can be played for a late bot (the referee's rules are its own): a timeout forfeits
        super().__init__(game, bots, seed, dataclasses.replace(settings, timeout_policy=TimeoutPolicy()), {})
        self.spec = spec
        for s in self.seats:
            s.dialect = RELAYED
        self.told = referee_seed(seed) if spec.seed else None
        self.record.referee = spec.record_entry(self.told)
        self.record.version = REFEREE_RECORD_VERSION
        self.record.stderr_tails = [""] * spec.players
        self.answers = [0] * spec.players    # turns each seat answered
        self.kept = 0                        # transcript characters kept so far
        self._kept_input: list[str] | None = None   # the last answer's input, as kept
        self.game_end = 0.0

    def _play(self, sandbox: Sandbox, pool: BotPool | None, opening: Sequence[int]) -> None:
        """The referee and the bots started, then the game relayed (_Referee.play ends it);
        a referee's fault makes it void, a preflight stops once seat 0 has answered."""
        record = self.record
        try:
            self.referee = self._start_referee(sandbox)
            self._start_bots(sandbox, pool, False)
            self.mux.add(self.referee)
            self.game_end = time.monotonic() + self.spec.game_ms / 1000
            record.startup_ms = round((time.monotonic() - self.started) * 1000, 3)
            self._relay()
        except RefereeFault as fault:
            self._void(str(fault))
        except _Probed:
            record.termination = Termination.ABORTED
            record.reason = "preflight: seat 0 answered its first turn"

    # -- the referee's process ----------------------------------------------------------

    def _start_referee(self, sandbox: Sandbox) -> RefereeChannel:
        """The referee started in its directory, in the sandbox under its own limits."""
        spec = self.spec
        try:
            proc = sandbox.with_limits(Limits(**dict(spec.limits))).start(
                [*IN_DIR, spec.dir, *spec.argv], readable=[spec.dir, *spec.readable])
        except HostError:
            raise        # the machine's, not the referee's: no game is played
        except SandboxError as exc:
            raise RefereeFault(f"could not start: {exc}") from exc
        return RefereeChannel(proc, spec.players)

    def _close(self) -> None:
        """The referee's whole tree killed (referees do not exit after ###End, or exit with a
        trace: nothing it does then counts), its last stderr and ###Error lines recorded."""
        ref = self.referee
        if ref is None:
            return
        ref.proc.kill_tree()
        ref.drain_stderr()
        self._take_errors()
        ref.proc.close()
        assert self.record.referee is not None
        self.record.referee["stderr"] = ref.stderr_tail()

    def _next(self, first: bool = False) -> str:
        """The referee's next stdout line, within startup_ms of its start (first) or step_ms
        of the last reply, and the game's game_ms; RefereeFault if none comes. A bot's fault
        found while waiting (an unasked line) ends the game first."""
        spec, ref = self.spec, self.referee
        assert ref is not None
        limit_ms, key = (spec.startup_ms, "startup_ms") if first else (spec.step_ms, "step_ms")
        deadline = min(time.monotonic() + limit_ms / 1000, self.game_end)
        try:
            line = self.mux.wait_reply(Wait(ref, deadline, "", True, None, "before ###End"))
        except BotFault as fault:
            if fault.termination is not Termination.TIMEOUT:
                raise RefereeFault(fault.reason) from None
            if deadline >= self.game_end:
                raise RefereeFault(f"the game went past its game_ms ({spec.game_ms} ms)") from None
            raise RefereeFault(f"wrote no command for {limit_ms} ms ({key})") from None
        finally:
            self._take_errors()
        self._raise_faults()
        return line

    def _take_errors(self, errors: Sequence[Error] = ()) -> None:
        """Record the ###Error lines given and those the referee's stderr held."""
        ref, entry = self.referee, self.record.referee
        assert entry is not None
        for error in [*errors, *(ref.errors if ref is not None else ())]:
            if len(entry["errors"]) < MAX_ERRORS:
                entry["errors"].append({"move": len(self.record.moves), "seat": error.seat,
                                        "message": error.message[:ERROR_CHARS]})
        if ref is not None:
            ref.errors.clear()

    # -- the game -----------------------------------------------------------------------

    def _relay(self) -> None:
        """The game from ###Start to ###End: input kept per seat until its ###Output."""
        ref, players = self.referee, self.spec.players
        assert ref is not None
        ref.request(start_lines(players, self.told), expects_reply=False)
        pending: dict[int, list[str]] = {}
        line = self._next(first=True)
        while True:
            try:
                said = command(line, players)
            except RefereeProtocolError as exc:
                raise RefereeFault(str(exc)) from None
            if isinstance(said, Input):
                line = self._block(pending.setdefault(said.seat, []))
                continue
            if isinstance(said, Error):
                self._take_errors([said])
            elif isinstance(said, End):
                try:
                    ranks = ranking(said, players)
                except RefereeProtocolError as exc:
                    raise RefereeFault(str(exc)) from None
                self._end_ranked(ranks)
                return
            else:
                reply = self._answer(said.seat, pending.pop(said.seat, []), said.lines)
                ref.request(reply.split("\n"), expects_reply=False)
                self._settle()     # the readings of the reply, while the referee thinks
                if self.probe and said.seat == 0:
                    raise _Probed()
            line = self._next()

    def _block(self, block: list[str]) -> str:
        """An `###Input` block's lines added to block: those already read taken as they are
        (no wait, no clock: they came), then the next ones waited for; the command that
        ends it."""
        ref = self.referee
        assert ref is not None
        read = ref.lines
        while True:
            while read:
                line = read.popleft()
                if is_command(line):
                    return line
                block.append(line)
            line = self._next()
            if is_command(line):
                return line
            block.append(line)

    def _answer(self, seat: int, lines: list[str], count: int) -> str:
        """Seat's answer to the lines the referee gave it: `count` lines, joined by newlines,
        timed by its clock from the moment they are written; _Faulted if it faulted."""
        s = self.seats[seat]
        self.answers[seat] += 1
        asked = Move(s, self.settings, lines, f"turn {self.answers[seat]}", replies=count)
        wait = asked.send()
        try:
            reply = asked.judge(self.mux.wait_reply(wait))
        except BotFault as fault:
            raise _Faulted(seat, asked.seat_fault(fault)) from None
        entry = asked.record(self._kept(reply, lines))
        entry.input = self._kept_input
        self.record.moves.append(entry)
        asked.keep_readings(self.later)
        assert s.channel is not None
        if s.channel.not_utf8:
            raise _Faulted(seat, BotFault(Termination.MALFORMED, f"turn {self.answers[seat]}: its answer "
                                                                 "is not UTF-8"))
        return reply

    def _kept(self, reply: str, lines: list[str]) -> str:
        """The reply as the record keeps it (its input set aside in _kept_input): whole, while
        the transcript is within TRANSCRIPT_CHARS; then cut, and no more input."""
        entry = self.record.referee
        assert entry is not None
        size = len(reply) + sum(len(line) + 1 for line in lines)
        if entry.get("cut") is None and self.kept + size <= TRANSCRIPT_CHARS:
            self.kept += size
            self._kept_input = list(lines)
            return reply if len(reply) <= REPLY_CHARS else reply[:REPLY_CHARS] + "..."
        entry.setdefault("cut", len(self.record.moves))
        self._kept_input = None
        return reply if len(reply) <= REPLY_CUT else reply[:REPLY_CUT] + "..."

    # -- the ending -----------------------------------------------------------------------

    def _end_ranked(self, ranks: list[int]) -> None:
        """The referee ended the game (###End): its ranking, once the bots' last words are read."""
        self._settle()
        self._check_idle()   # an unasked line with the last answer is a fault all the same
        record, names = self.record, [s.spec.name for s in self.seats]
        record.termination = Termination.NORMAL
        record.ranking = ranks
        if len(ranks) == 2:
            record.winner = None if ranks[0] == ranks[1] else ranks.index(0)
            record.reason = "draw" if record.winner is None else f"seat {record.winner} wins"
        else:
            record.winner = ranks.index(0) if ranks.count(0) == 1 else None
            order = sorted(range(len(ranks)), key=ranks.__getitem__)
            record.reason = "ranking: " + ", ".join(f"{names[seat]} {ranks[seat] + 1}" for seat in order)

    def _end_by(self, faulted: _Faulted) -> None:
        """A seat's fault ended the game: it ranks last, the others tie above it."""
        record = self.record
        record.termination = faulted.fault.termination
        record.faulted = faulted.seat
        record.reason = f"{self.seats[faulted.seat].spec.name} (seat {faulted.seat}): {faulted.fault.reason}"
        players = len(self.seats)
        record.ranking = [players - 1 if seat == faulted.seat else 0 for seat in range(players)]
        record.winner = 1 - faulted.seat if players == 2 else None

    def _void(self, why: str) -> None:
        """The referee failed: the game is void, charged to no one."""
        record = self.record
        record.termination = Termination.REFEREE_FAULT
        record.reason = f"referee {self.spec.name}: {why}"
        record.winner = record.faulted = record.ranking = None


__all__ = ["REFEREE_OUTPUT", "TRANSCRIPT_CHARS", "RefereeChannel", "RefereeFault", "play_relayed",
           "probe_bot"]
