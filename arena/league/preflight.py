"""Before a league plays: start each distinct bot once, under the league's sandbox and
limits, and see it through its start-up, so a bot that cannot start stops the run
at once instead of losing every one of its games as a startup_failure."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from arena.errorline import error_line
from arena.games import SIMULTANEOUS, Game, State
from arena.record import GameRecord, Termination
from arena.referee import BotPool, BotSpec, MatchSettings, dialect_of, play_game
from arena.sandbox import Sandbox, SandboxedProcess

from .executors.base import RunError, cause

#: faults that say a bot cannot start at all (a timeout only counts for a dialect
#: without a handshake, whose start-up is its first move)
CANNOT_START = (Termination.STARTUP_FAILURE, Termination.CRASH, Termination.RESOURCE_LIMIT)
STDERR_CHARS = 300  #: how much of a failing bot's stderr line the one-line message quotes


@dataclass(frozen=True)
class StartProblem:
    """A bot that could not start: its name, what went wrong and its stderr (the message
    quotes the line of it that says why: arena.errorline)."""

    bot: str
    reason: str
    stderr: str

    def __str__(self) -> str:
        said = error_line(self.stderr, STDERR_CHARS)
        return f"bot {self.bot!r} cannot start: {self.reason}" + (f"; its stderr: {said}"
                                                                   if said else "")


class _Tracking:
    """The league's sandbox, keeping the processes it starts so a stop can kill them."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.started: list[SandboxedProcess] = []
        self.stopping = False
        self._lock = threading.Lock()

    def start(self, *args: Any, **kwargs: Any) -> SandboxedProcess:
        proc = self.sandbox.start(*args, **kwargs)
        with self._lock:
            self.started.append(proc)
            if self.stopping:
                proc.kill_tree()
        return proc

    def stop(self) -> None:
        """Kill every bot started (its check then ends, closing it) and any yet to start."""
        with self._lock:
            self.stopping = True
            for proc in self.started:
                proc.kill_tree()


class _Started(Exception):
    """Raised by a stand-in opponent once the bot has shown it is up."""


class _StandIn:
    """The stand-in playing one seat in a preflight game. In a game of turns it raises
    _Started the first time it is asked: the bot, seated to move first, has made its first
    move (or, with a handshake, shaken hands). Where seats move at once a stand-in is asked
    after the bot's reply of that turn was read but is not told whether that reply was a
    fault, so without a handshake it plays the first turn (its first move) and raises on a
    later turn only if the bot is still in; a bot put out by its first reply ends the game
    with its fault (two seats), or leaves the stand-ins to play theirs out (more)."""

    def __init__(self, seat: int, bot_seat: int, handshake: bool) -> None:
        self.seat, self.bot_seat, self.handshake = seat, bot_seat, handshake
        self.asked = 0

    def __call__(self, state: State, last_move: int | None) -> int:
        self.asked += 1
        if state.to_move != SIMULTANEOUS or self.handshake:
            raise _Started()
        if self.asked > 1 and self.bot_seat in state.movers():
            raise _Started()
        return state.moves_of(self.seat)[0]


def check_start(game: Game, spec: BotSpec, sandbox: Sandbox, settings: MatchSettings,
                seed: int = 0) -> StartProblem | None:
    """Start one bot as a game would and take it through its handshake (for a dialect
    without one, through its first move); None when it is up, else why not."""
    handshake = dialect_of(spec.dialect, settings.dialects).expects_ready
    stand_in = BotSpec(name="preflight" if spec.name != "preflight" else "preflight-", argv=())
    # with a handshake the bot sits in seat 1, so the stand-in, to move first, ends the
    # game as soon as the handshake is done; without one the bot must make a move
    seats, bot_seat = ((stand_in, spec), 1) if handshake else ((spec, stand_in), 0)
    more = [stand_in] * (game.seats - 2)    # a game of more seats: stand-ins fill the rest
    # a bot that came up is kept by the pool rather than given time to quit: closing the
    # pool kills it at once, and the league's first games wait for no goodbye
    pool = BotPool(dialects=settings.dialects)
    try:
        record = play_game(game, [*seats, *more], seed, sandbox, settings, pool=pool,
                           local={seat: _StandIn(seat, bot_seat, handshake)
                                  for seat in range(game.seats) if seat != bot_seat})
    except _Started:
        return None
    finally:
        pool.close()
    return _problem(record, bot_seat, handshake)


def _problem(record: GameRecord, seat: int, handshake: bool) -> StartProblem | None:
    """Why the bot in seat could not start, from the preflight game's record: a fault that
    ended the game, or put it out of a game of more seats, before any move of its own."""
    out = next((o for o in record.out if o.seat == seat), None)
    if record.faulted == seat:
        termination, reason = record.termination, record.reason
    elif out is not None:
        termination, reason = out.termination, out.reason
    else:
        return None
    if any(move.seat == seat for move in record.moves):
        return None     # it made a move: it is up, and what it did later is a game's to judge
    late = termination is Termination.TIMEOUT and not handshake
    if termination not in CANNOT_START and not late:
        return None
    return StartProblem(record.bots[seat].name, reason.split(": ", 1)[-1],
                        record.stderr_tails[seat])


def start_all(game: Game, specs: list[BotSpec], sandbox: Sandbox, settings: MatchSettings,
              seed: int, keep_going: bool) -> list[StartProblem]:
    """The preflight as a run (a league's, a match's) takes it: RunError when the host
    cannot start bots (no bot's fault), or, unless keep_going, when a bot cannot start;
    else the problems to warn of (--keep-going plays anyway)."""
    try:
        problems = preflight(game, specs, sandbox, settings, seed)
    except Exception as exc:
        raise RunError(f"cannot start bots: {cause(exc)}") from exc
    if problems and not keep_going:
        others = [p.bot for p in problems[1:]]
        also = f" (also: {', '.join(others)})" if others else ""
        raise RunError(f"{problems[0]}{also}; nothing was played (--keep-going plays anyway, "
                       "the bot losing its games)")
    return problems


def preflight(game: Game, specs: list[BotSpec], sandbox: Sandbox, settings: MatchSettings,
              seed: int = 0) -> list[StartProblem]:
    """check_start for every distinct bot (two names for one command count once), all
    at the same time; the problems in the order of specs."""
    distinct: dict[tuple, BotSpec] = {}
    for spec in specs:
        distinct.setdefault((spec.argv, spec.dialect, spec.readable,
                             tuple(sorted(spec.env.items()))), spec)
    found: dict[str, StartProblem | BaseException | None] = {}
    tracking = _Tracking(sandbox)
    # an Event per check, not Thread.join: a join that Ctrl-C interrupted may later
    # return at once while the thread still runs (CPython 3.11)
    ended = {spec.name: threading.Event() for spec in distinct.values()}

    def check(spec: BotSpec) -> None:
        try:
            found[spec.name] = check_start(game, spec, tracking, settings, seed)  # type: ignore[arg-type]
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
            found[spec.name] = exc
        finally:
            ended[spec.name].set()

    threads = {spec.name: threading.Thread(target=check, args=(spec,), daemon=True,
                                           name=f"preflight {spec.name}")
               for spec in distinct.values()}
    try:
        for thread in threads.values():
            thread.start()
        for name in threads:
            ended[name].wait()
    except BaseException:      # Ctrl-C: kill the bots, so each check ends now, and wait for that
        tracking.stop()
        for name, thread in threads.items():
            if thread.ident is not None:    # it was started
                ended[name].wait()
        raise
    problems = []
    for spec in distinct.values():
        outcome = found.get(spec.name)
        if isinstance(outcome, BaseException):
            raise outcome
        if outcome is not None:
            problems.append(outcome)
    return problems


__all__ = ["CANNOT_START", "StartProblem", "check_start", "preflight", "start_all"]
