"""Plays one game between two sandboxed bots. The only place time is enforced;
every fault a bot commits becomes the game's termination, never an exception."""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from arena.games import SIMULTANEOUS, Game, GameError, IllegalMoveError, InvalidMoveError, State
from arena.protocol import Dialect, ProtocolError, TurnInfo
from arena.record import BotEntry, GameRecord, MoveRecord, Result, SeatOut, Termination
from arena.sandbox import HostError, Sandbox, SandboxError
from arena.sandbox.procfs import CpuMark, own_wait_seconds

from .botpool import BotPool
from .botspec import BotSpec, dialect_of
from .channel import BotChannel, BotFault, Multiplexer, OutputLimits, Wait, spin_seconds
from .timecontrol import Clock, MoveMeter, TimeControl, TimeoutPolicy

QUIT_GRACE_S = 0.05  # how long a bot gets to exit by itself after 'quit'


@dataclass(frozen=True)
class MatchSettings:
    """Everything about how games are run that is not the game or the bots."""

    time: TimeControl = TimeControl()
    timeout_policy: TimeoutPolicy = TimeoutPolicy()
    output: OutputLimits = OutputLimits()
    #: the dialects bots speak, as the run's registry resolved them (a league's make_job),
    #: so a worker needs no registry of its own; a name not here: the loaded plugins'
    dialects: Mapping[str, Dialect] = field(default_factory=dict, compare=False)


def bot_seed(game_seed: int, seat: int, name: str) -> int:
    """The seed a bot is handed for a game: fixed by the game seed, its seat and its name.

    The name matters for self-play: two copies of one agent under two names, in the
    seat-swapped pair of games that share a game seed, must not replay one game twice.
    """
    text = f"{game_seed}|{seat}|{name}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


class _Seat:
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


#: a player in the referee's own process (a person at the terminal): gets the state
#: and the opponent's last move, returns a move. Never used for rated games.
LocalPlayer = Callable[[State, "int | None"], int]


def play_game(game: Game, bots: Sequence[BotSpec], seed: int, sandbox: Sandbox,
              settings: MatchSettings = MatchSettings(),
              local: Mapping[int, LocalPlayer] | None = None, pool: BotPool | None = None,
              opening: Sequence[int] = ()) -> GameRecord:
    """Play one game, bots[0] moving first (bots[i] in seat i); the record says how it
    ended and why. Where seats move at once every mover is asked at once (_joint_turn).

    Seats in `local` are played by the given function instead of a process. With a
    pool, bot processes are taken from it and handed back after a clean game. The
    opening's moves are played first, by the referee, and recorded as the opening;
    it must be legal and leave the game open (arena.openings checks both)."""
    local = local or {}
    seats_of_game = game.initial_state().seats
    if len(bots) != seats_of_game:
        raise GameError(f"game {game.name!r} with rules {dict(game.options)} has {seats_of_game} seats, "
                        f"not the {len(bots)} of the bots given")
    started = time.monotonic()
    record = GameRecord(
        game=game.name, rule_options=dict(game.options), seed=seed,
        bots=[BotEntry(name=b.name, spec=b.spec, options=dict(b.options)) for b in bots],
        started_at=datetime.now(UTC).isoformat(timespec="milliseconds"), stderr_tails=[""] * len(bots))
    seats = [_Seat(i, spec, settings.time, dialect_of(spec.dialect, settings.dialects))
             for i, spec in enumerate(bots)]
    mux: Multiplexer | None = None
    pending: list[Callable[[], None]] = []   # readings of replies left for later (_one_move)
    state = _play_opening(game, opening, record, seed)
    try:
        for s in seats:
            why = s.dialect.supports(game) or (_refuses_opening(s.dialect) if opening else None)
            if why:
                raise _Faulted(s.seat, BotFault(Termination.STARTUP_FAILURE, why))
        for s in seats:
            if s.seat in local:
                continue
            if pool is not None and s.dialect.reusable:
                s.channel = pool.take(s.spec)
                if s.channel is not None:
                    s.channel.new_game()
                    continue
            try:
                argv, runtime = s.dialect.runtime(s.spec.argv)   # e.g. CodinGame's JavaScript globals
                proc = sandbox.start(list(argv), readable=[*s.spec.readable, *runtime], env=s.spec.env)
            except HostError:
                raise        # the machine's, not the bot's: no game is charged for it
            except SandboxError as exc:
                raise _Faulted(s.seat, BotFault(Termination.STARTUP_FAILURE, f"could not start: {exc}")) from exc
            s.channel = BotChannel(proc, settings.output, s.spec.name)
        if pool is not None:
            pool.end_retired()   # the last game's bots, while this game's start
        mux = Multiplexer([s.channel for s in seats if s.channel is not None], spin_seconds())
        mine = os.sched_getaffinity(0)
        for s in seats:
            if s.channel is not None and not _kept_to_my_cpu(s.channel.proc.pid, mine):
                s.mark = s.channel.proc.cpu_mark
        _handshake(game, seats, seed, settings, mux)
        record.startup_ms = round((time.monotonic() - started) * 1000, 3)
        rng = random.Random(seed)
        last_move: int | None = opening[-1] if opening else None
        last_turn: tuple[int | None, ...] | None = None   # the last joint move, per seat
        turns = 0
        mover: int | None = None
        rounds = game.info.rounds    # seats move in rounds: each move records its round as its turn
        while not state.is_terminal():
            if state.to_move == SIMULTANEOUS:
                state, last_turn = _joint_turn(game, seats, state, turns, last_turn, settings, mux, rng, record,
                                               local)
                turns += 1
                continue
            s = seats[state.to_move]
            if mover is None or mover in local:
                _check_idle(seats, mux)   # no wait has read the bots' output since the last poll
            else:
                _raise_faults(seats)      # the last move's wait read every bot's output
            if s.seat in local or s.seat == mover:
                _settle(pending)    # a seat's clock is charged before its next move is timed
            if rounds and mover is not None and s.seat <= mover:
                turns += 1
            if s.seat in local:
                move, state = _local_move(game, s, state, last_move, local[s.seat], record)
            else:
                try:
                    move, state = _one_move(game, s, state, last_move, settings, mux, rng, record, pending)
                except _Faulted as faulted:
                    after = _put_out(game, seats, state, faulted, turns, record)
                    if after is None:
                        raise
                    state, mover = after, s.seat
                    continue
            if rounds:
                record.moves[-1].turn = turns
            last_move, mover = move, s.seat
        _settle(pending)
        _check_idle(seats, mux)  # an unasked line with the last move is a fault all the same
        record.termination = Termination.NORMAL
        if len(seats) == 2:
            record.winner = state.winner
            record.reason = "draw" if state.winner is None else f"{game.info.seat_names[state.winner]} wins"
            record.ranking = record.rank_of()
        else:
            _rank(record, seats, state)
    except _Faulted as faulted:
        record.termination = faulted.fault.termination
        record.faulted = faulted.seat
        record.reason = f"{bots[faulted.seat].name} (seat {faulted.seat}): {faulted.fault.reason}"
        if len(seats) == 2:
            record.winner = 1 - faulted.seat
            record.ranking = record.rank_of()
        else:   # the rules could not go on without it
            _rank(record, seats, state, faulted.seat)
    except KeyboardInterrupt:
        record.termination = Termination.ABORTED
        record.reason = "interrupted"
        raise
    finally:
        _settle(pending)
        if record.startup_ms:
            record.play_ms = round((time.monotonic() - started) * 1000 - record.startup_ms, 3)
        _finish(seats, record, mux, pool)
        record.duration_ms = round((time.monotonic() - started) * 1000, 3)
    return record


def _kept_to_my_cpu(pid: int, mine: set[int]) -> bool:
    """True if the bot was started kept to the referee's only CPU (a pinned league worker's
    bot). A move's clock then takes its first reading before the request, with no mark
    (MoveMeter): the bot cannot wake on another CPU meanwhile, so reading after the request
    would save no time, and marking costs some."""
    if len(mine) != 1:
        return False
    try:
        return os.sched_getaffinity(pid) == mine
    except OSError:
        return False


def _play_opening(game: Game, opening: Sequence[int], record: GameRecord, seed: int) -> State:
    """The game's start for its seed, and the opening played from it, its moves recorded (no
    time: the referee played them)."""
    state = game.start(seed)
    for move in opening:
        record.moves.append(MoveRecord(seat=state.to_move, move=game.move_text(move), wall_ms=0.0))
        state = state.play(move)
    if state.is_terminal():
        raise IllegalMoveError("the opening ends the game; an opening must leave moves to play")
    record.opening = len(opening)
    return state


def _refuses_opening(dialect: Dialect) -> str | None:
    """Why a dialect's bots cannot start from an opening, or None."""
    if dialect.plays_openings:
        return None
    return (f"the {dialect.name} dialect cannot start from an opening: its bots see only the "
            "opponent's last move, so they would not know the opening's earlier moves "
            "(docs/protocol.md); play it with openings: none")


class _Faulted(Exception):
    def __init__(self, seat: int, fault: BotFault) -> None:
        super().__init__(fault.reason)
        self.seat = seat
        self.fault = fault


def _handshake(game: Game, seats: list[_Seat], seed: int, settings: MatchSettings,
               mux: Multiplexer) -> None:
    control = settings.time
    deadline = time.monotonic() + (control.startup_ms + control.overhead_ms) / 1000
    for s in seats:
        if s.channel is None:
            continue
        lines = s.dialect.start_lines(game, s.seat, bot_seed(seed, s.seat, s.spec.name), control.move_ms,
                                      s.clock.bank_ms)
        s.channel.request(lines, expects_reply=s.dialect.expects_ready)
    for s in seats:
        if s.channel is None or not s.dialect.expects_ready:
            continue
        try:
            line = mux.wait_line(s.channel, deadline, f"while starting up (handshake, {control.startup_ms} ms allowed)",
                                 moment="while starting up")
            s.dialect.check_ready(line)
        except BotFault as fault:
            raise _Faulted(s.seat, BotFault(Termination.STARTUP_FAILURE, fault.reason)) from fault
        except ProtocolError as exc:
            raise _Faulted(s.seat, BotFault(Termination.STARTUP_FAILURE, str(exc))) from exc


def _check_idle(seats: list[_Seat], mux: Multiplexer) -> None:
    mux.poll_others()
    _raise_faults(seats)


def _raise_faults(seats: list[_Seat]) -> None:
    for s in seats:
        if s.channel is not None and s.channel.fault is not None and not s.put_out:
            raise _Faulted(s.seat, s.channel.fault)


def _local_move(game: Game, s: _Seat, state: State, last_move: int | None, player: LocalPlayer,
                record: GameRecord) -> tuple[int, State]:
    sent = time.monotonic()
    move = player(state, last_move)
    after = state.play(move)  # a local player must hand back a legal move
    record.moves.append(MoveRecord(seat=s.seat, move=game.move_text(move),
                                   wall_ms=round((time.monotonic() - sent) * 1000, 3)))
    return move, after


def _one_move(game: Game, s: _Seat, state, last_move, settings: MatchSettings, mux: Multiplexer,
              rng: random.Random, record: GameRecord, pending: list[Callable[[], None]]) -> tuple[int, State]:
    """Ask the seat's bot for a move and play it. A reply too quick to cost anything
    (MoveMeter.free) is not measured. One that is surely in time leaves its readings
    (CPU, waits, the clock's charge) in `pending`: the next move takes them once its
    request is written, while that bot thinks, not between the two (the loop takes them
    first when the same seat moves again: its clock must be charged)."""
    control = settings.time
    allowed = s.clock.allowed_ms()
    legal = state.legal_moves()
    ply = len(record.moves)
    startup_extra = 0
    if s.first_turn and not s.dialect.expects_ready:
        startup_extra = control.startup_ms  # no handshake: start-up happens on the first turn
    s.first_turn = False
    # the bot is told its own time (move and bank), not the start-up allowance
    turn = TurnInfo(state=state, last_move=last_move, legal=legal, move_ms=control.move_ms,
                    bank_ms=s.clock.bank_ms, ply=ply, seat=s.seat)
    ch = s.channel
    assert ch is not None  # a seat played by a process
    budget_ms = allowed + startup_extra + control.overhead_ms
    meter = MoveMeter(budget_ms / 1000, control.load_grace, ch.proc.usage, own_wait_seconds, s.mark)
    lines = s.dialect.turn_lines(game, turn)
    meter.start()      # the clock starts before the bot can see its request (MoveMeter)
    ch.request(lines)
    meter.sent()       # this move's first reading, if start() only marked, while the bot wakes up
    _settle(pending)   # and the readings the last reply left for later
    when = f"to move {ply + 1} within {allowed + startup_extra} ms"
    strikes_left = settings.timeout_policy.mode == "strikes" and \
        s.strikes < settings.timeout_policy.strikes

    def charge(wall_ms: float) -> None:
        # a reply read before the referee found the bot late is in time: the wall time
        # now may hold delays of the referee's that no counter shows (another thread
        # holding the interpreter lock), so it is charged at most the budget
        used_ms = min(meter.used_s(wall_ms / 1000) * 1000, budget_ms)
        s.clock.charge(max(0.0, used_ms - control.overhead_ms - startup_extra))

    try:
        line = mux.wait_line(ch, meter.started + budget_ms / 1000, when,
                             kill_on_timeout=not strikes_left, judge=meter.judge, moment=f"to move {ply + 1}")
        replied = time.monotonic()
        wall_ms = (replied - meter.started) * 1000
        free = meter.free(replied, (control.overhead_ms + startup_extra) / 1000)
        later = not free and meter.surely_in_time(replied)
        if not free and not later:
            meter.look()
            if meter.cpu_s * 1000 >= budget_ms:
                if not strikes_left:
                    ch.proc.kill_tree()
                raise BotFault(Termination.TIMEOUT, f"replied too late {when}: it used "
                                                    f"{meter.cpu_s * 1000:.0f} ms of CPU")
            charge(wall_ms)
    except BotFault as fault:
        if fault.termination is Termination.TIMEOUT and strikes_left:
            s.strikes += 1
            s.clock.bank_ms = 0
            move = legal[int(rng.random() * len(legal))]
            record.moves.append(MoveRecord(
                seat=s.seat, move=game.move_text(move), wall_ms=round((time.monotonic() - meter.started) * 1000, 3),
                cpu_ms=None, substituted=f"timeout strike {s.strikes} of {settings.timeout_policy.strikes}"))
            return move, state.play(move)
        if startup_extra and fault.termination in (Termination.CRASH, Termination.RESOURCE_LIMIT):
            # no handshake: dying before the first reply is failing to start
            fault = BotFault(Termination.STARTUP_FAILURE, fault.reason)
        raise _Faulted(s.seat, fault) from None   # the fault travels as the payload
    entry = MoveRecord(seat=s.seat, move=line.strip()[:32], wall_ms=round(wall_ms, 3))
    record.moves.append(entry)

    def readings() -> None:
        if later:
            meter.read_late(replied)
            charge(wall_ms)
        entry.cpu_ms = round(meter.cpu_s * 1000, 3)
        entry.wait_ms = round(meter.wait_s * 1000, 3)

    if free:
        s.clock.charge(0.0)    # no readings: nothing they could say is charged
    elif later:
        pending.append(readings)
    else:
        readings()
    try:
        move = s.dialect.parse_move(game, turn, line)
        after = state.play(move)
    except InvalidMoveError as exc:
        raise _Faulted(s.seat, BotFault(Termination.MALFORMED, f"move {ply + 1}: {exc}")) from exc
    except IllegalMoveError as exc:
        raise _Faulted(s.seat, BotFault(Termination.ILLEGAL_MOVE, f"move {ply + 1}: {exc}")) from exc
    entry.move = game.move_text(move)
    return move, after


def _put_out(game: Game, seats: list[_Seat], state: State, faulted: _Faulted, turn: int,
             record: GameRecord) -> State | None:
    """The state with the seat whose move faulted out, where the rules let the others play on
    (more than two seats; play_without), its process killed and its going out recorded; None
    where the fault ends the game."""
    after = state.play_without([0], [faulted.seat]) if len(seats) > 2 else None
    if after is None:
        return None
    s = seats[faulted.seat]
    s.put_out = True
    if s.channel is not None:
        s.channel.proc.kill_tree()    # out: nothing it does now counts
    record.out.append(SeatOut(faulted.seat, turn, faulted.fault.termination,
                              f"{s.spec.name} (seat {faulted.seat}): {faulted.fault.reason}"))
    return after


def _result(record: GameRecord, seat: int) -> Result:
    """What a seat is told at the end: as the outcome says with two seats (aborted: a
    draw); with more, a win for first place alone, a draw for a shared first, else a loss."""
    if len(record.bots) == 2 or record.ranking is None:
        return record.outcome.result(seat) or Result.DRAW
    if record.ranking[seat] != 0:
        return Result.LOSS
    return Result.WIN if record.ranking.count(0) == 1 else Result.DRAW


def _rank(record: GameRecord, seats: list[_Seat], state: State, ended_by: int | None = None) -> None:
    """The final ranking of a game of more than two seats, by the one rule (docs/protocol.md,
    "Faults and the ranking"): as the rules rank the seats, those put out for a fault while
    the game went on included (each out at its fault's moment, as the rules put a seat out);
    the seat whose fault ended the game (ended_by) below every seat still in then (after the
    end, a fault found at the last look: below every seat) and above those out already. The
    winner is the first alone."""
    standing = state.standing()
    still = set(state.seats_in()) if not state.is_terminal() else set(range(len(seats)))

    def ahead(b: int, a: int) -> bool:      # b finished ahead of a
        if a == ended_by:
            return b in still
        if b == ended_by:
            return a not in still
        return standing[b] < standing[a]

    ranking = [sum(ahead(b, a) for b in range(len(seats)) if b != a) for a in range(len(seats))]
    record.ranking = ranking
    record.winner = ranking.index(0) if ranking.count(0) == 1 else None
    if record.termination is Termination.NORMAL:
        names = [s.spec.name for s in seats]
        record.reason = "ranking: " + ", ".join(f"{names[seat]} {ranking[seat] + 1}"
                                                for seat in sorted(range(len(seats)), key=ranking.__getitem__))


class _Ask:
    """One bot asked for its part of a joint move: its clock started when its own request
    was written; take() judges the reply or the fault that came instead (as _one_move does)."""

    def __init__(self, game: Game, s: _Seat, state: State, turn: int, last_turn: tuple[int | None, ...] | None,
                 settings: MatchSettings) -> None:
        control = settings.time
        self.s, self.settings = s, settings
        self.allowed = s.clock.allowed_ms()
        self.startup_extra = control.startup_ms if s.first_turn and not s.dialect.expects_ready else 0
        s.first_turn = False
        self.info = TurnInfo(state=state, last_move=None, legal=state.moves_of(s.seat), move_ms=control.move_ms,
                             bank_ms=s.clock.bank_ms, ply=turn, seat=s.seat, last_turn=last_turn)
        ch = s.channel
        assert ch is not None   # a seat played by a process
        self.budget_ms = self.allowed + self.startup_extra + control.overhead_ms
        self.meter = MoveMeter(self.budget_ms / 1000, control.load_grace, ch.proc.usage, own_wait_seconds, s.mark)
        lines = s.dialect.turn_lines(game, self.info)
        self.when = f"to move on turn {turn + 1} within {self.allowed + self.startup_extra} ms"
        self.strikes_left = settings.timeout_policy.mode == "strikes" and s.strikes < settings.timeout_policy.strikes
        self.meter.start()     # this bot's clock starts before it can see its own request
        ch.request(lines)
        self.meter.sent()
        self.wait = Wait(ch, self.meter.started + self.budget_ms / 1000, self.when,
                         kill_on_timeout=not self.strikes_left, judge=self.meter.judge,
                         moment=f"to move on turn {turn + 1}")

    def take(self, game: Game, got: str | BotFault, rng: random.Random) -> tuple[int, MoveRecord]:
        """The seat's move and its record, from its reply; BotFault if it faulted."""
        s, meter, control = self.s, self.meter, self.settings.time
        replied = time.monotonic()
        wall_ms = (replied - meter.started) * 1000
        try:
            if isinstance(got, BotFault):
                raise got
            if not meter.free(replied, (control.overhead_ms + self.startup_extra) / 1000):
                if meter.surely_in_time(replied):
                    meter.read_late(replied)   # read after other bots' replies: no more than it could use by then
                else:
                    meter.look()
                if meter.cpu_s * 1000 >= self.budget_ms:
                    if not self.strikes_left:
                        s.channel.proc.kill_tree()    # type: ignore[union-attr]
                    raise BotFault(Termination.TIMEOUT, f"replied too late {self.when}: it used "
                                                        f"{meter.cpu_s * 1000:.0f} ms of CPU")
                used_ms = min(meter.used_s(wall_ms / 1000) * 1000, self.budget_ms)
                s.clock.charge(max(0.0, used_ms - control.overhead_ms - self.startup_extra))
            else:
                s.clock.charge(0.0)
        except BotFault as fault:
            if fault.termination is Termination.TIMEOUT and self.strikes_left:
                s.strikes += 1
                s.clock.bank_ms = 0
                legal = self.info.legal
                move = legal[int(rng.random() * len(legal))]
                return move, MoveRecord(seat=s.seat, move=game.move_text(move), wall_ms=round(wall_ms, 3),
                                        substituted=f"timeout strike {s.strikes} of "
                                                    f"{self.settings.timeout_policy.strikes}", turn=self.info.ply)
            if self.startup_extra and fault.termination in (Termination.CRASH, Termination.RESOURCE_LIMIT):
                fault = BotFault(Termination.STARTUP_FAILURE, fault.reason)   # no handshake: failing to start
            raise fault from None
        line = got
        try:
            move = s.dialect.parse_move(game, self.info, line)
        except InvalidMoveError as exc:
            raise BotFault(Termination.MALFORMED, f"turn {self.info.ply + 1}: {exc}") from exc
        if move not in self.info.legal:
            raise BotFault(Termination.ILLEGAL_MOVE, f"turn {self.info.ply + 1}: {game.move_text(move)!r} is not "
                           f"one of its moves {[game.move_text(m) for m in self.info.legal]}")
        return move, MoveRecord(seat=s.seat, move=game.move_text(move), wall_ms=round(wall_ms, 3),
                                cpu_ms=round(meter.cpu_s * 1000, 3), wait_ms=round(meter.wait_s * 1000, 3),
                                turn=self.info.ply)


def _joint_turn(game: Game, seats: list[_Seat], state: State, turn: int, last_turn: tuple[int | None, ...] | None,
                settings: MatchSettings, mux: Multiplexer, rng: random.Random, record: GameRecord,
                local: Mapping[int, LocalPlayer]) -> tuple[State, tuple[int | None, ...]]:
    """One turn where several seats move at once: every mover's request is written before
    any reply is read, each bot's clock starting as its own is written; the replies are
    judged as they come, and no bot is told another's move of the turn before the next
    turn's request, which goes out once every move is in. A seat that faults is out where
    the rules let the others play on (more than two seats); else the fault ends the game."""
    movers = state.movers()
    mux.poll_others()       # what the bots said since the last turn: an unasked line is a fault
    faults: list[tuple[int, BotFault]] = []
    for seat in movers:
        channel = seats[seat].channel
        if channel is not None and channel.fault is not None:
            faults.append((seat, channel.fault))
    asks = {seat: _Ask(game, seats[seat], state, turn, last_turn, settings)
            for seat in movers if seat not in local and seat not in dict(faults)}
    moves: dict[int, int] = {}
    entries: dict[int, MoveRecord] = {}
    waits = {ask.wait.channel: ask for ask in asks.values()}
    pending = [ask.wait for ask in asks.values()]
    while pending:
        wait, got = mux.wait_first(pending)
        pending.remove(wait)
        ask = waits[wait.channel]
        try:
            moves[ask.s.seat], entries[ask.s.seat] = ask.take(game, got, rng)
        except BotFault as fault:
            faults.append((ask.s.seat, fault))
    for seat in movers:
        if seat in local:        # after the bots: a person does not hold up their clocks
            sent = time.monotonic()
            moves[seat] = local[seat](state, None)
            entries[seat] = MoveRecord(seat=seat, move=game.move_text(moves[seat]),
                                       wall_ms=round((time.monotonic() - sent) * 1000, 3), turn=turn)
    joint = [moves.get(seat, 0) for seat in movers]
    after: State | None
    if not faults:
        after = state.play_joint(joint)
    else:
        after = state.play_without(joint, [seat for seat, _ in faults]) if len(seats) > 2 else None
    if after is None:     # the turn is not played: its moves are not recorded
        raise _Faulted(*faults[0])
    record.moves.extend(entries[seat] for seat in movers if seat in entries)
    for seat, why in faults:
        s = seats[seat]
        s.put_out = True
        if s.channel is not None:
            s.channel.proc.kill_tree()    # out: nothing it does now counts
        record.out.append(SeatOut(seat, turn, why.termination, f"{s.spec.name} (seat {seat}): {why.reason}"))
    return after, tuple(moves.get(seat) for seat in range(len(seats)))


def _settle(pending: list[Callable[[], None]]) -> None:
    """Take the readings of replies left for later (see _one_move)."""
    while pending:
        pending.pop()()


def _finish(seats: list[_Seat], record: GameRecord, mux: Multiplexer | None,
            pool: BotPool | None) -> None:
    """Tell live bots the result; keep clean reusable ones in the pool. The others end: a
    live bot without a fault whose dialect can tell it to quit gets QUIT_GRACE_S to exit;
    any other is killed at once (it has nothing left to say: a CodinGame bot is never told
    the game is over). With a pool their exits are the pool's to wait for, while the
    worker starts its next game's bots."""
    ending: list[tuple[_Seat, BotChannel, bool]] = []
    for s in seats:
        ch = s.channel
        if ch is None:
            continue
        keep = (pool is not None and s.dialect.reusable and record.faulted != s.seat
                and not s.put_out and record.termination is not Termination.ABORTED and ch.healthy)
        live = ch.fault is None and not ch.stdout_closed and ch.proc.poll() is None
        quit_lines = [] if keep else s.dialect.quit_lines()
        if live:
            result = _result(record, s.seat)
            ch.request(s.dialect.over_lines(result.value, record.termination.value) + quit_lines,
                       expects_reply=False)
        if keep and pool is not None:   # keep implies a pool; the check says so to mypy
            if mux is not None:
                mux.poll_others()
            record.stderr_tails[s.seat] = ch.stderr_tail()
            pool.give(s.spec, ch)
            continue
        polite = live and bool(quit_lines)
        if not polite:
            ch.proc.kill_tree()
        ending.append((s, ch, polite))
    kill_at = time.monotonic() + QUIT_GRACE_S
    if pool is not None:
        for s, ch, polite in ending:
            ch.drain_stderr()   # what it wrote in the game; on its way out nothing counts
            record.stderr_tails[s.seat] = ch.stderr_tail()
            pool.retire(ch.proc, kill_at if polite else 0.0)
        pool.end_retired()
    else:
        for _, ch, polite in ending:
            while polite and ch.proc.poll() is None and time.monotonic() < kill_at:
                time.sleep(0.001)
        for s, ch, _ in ending:
            ch.proc.kill_tree()
            ch.drain_stderr()
            ch.proc.close()
            record.stderr_tails[s.seat] = ch.stderr_tail()
    if mux is not None:
        mux.close()
