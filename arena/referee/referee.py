"""Plays one game between sandboxed bots. The only place time is enforced; every fault a
bot commits becomes the game's termination, never an exception.

A game goes through its steps (_Referee): the bots start, the handshake, the turns, the
ending. Every request to a bot in a turn is a Move (move.py), judged by its seat's clock:
one seat's move (_one_move), or the moves of seats that move at once (_joint_turn)."""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime

from arena.games import SIMULTANEOUS, Game, GameError, IllegalMoveError, InvalidMoveError, State
from arena.protocol import Dialect, ProtocolError, TurnInfo
from arena.record import BotEntry, GameRecord, MoveRecord, Result, SeatOut, Termination
from arena.sandbox import HostError, Sandbox, SandboxError

from .botpool import BotPool
from .botspec import BotSpec, dialect_of
from .channel import BotChannel, BotFault, Multiplexer, spin_seconds
from .move import Move, Seat
from .settings import MatchSettings

__all__ = ["LocalPlayer", "MatchSettings", "bot_seed", "play_game"]

QUIT_GRACE_S = 0.05  # how long a bot gets to exit by itself after 'quit'
_DEFAULT_SETTINGS = MatchSettings()


def bot_seed(game_seed: int, seat: int, name: str) -> int:
    """The seed a bot is handed for a game: fixed by the game seed, its seat and its name.

    The name matters for self-play: two copies of one agent under two names, in the
    seat-swapped pair of games that share a game seed, must not replay one game twice.
    """
    text = f"{game_seed}|{seat}|{name}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


#: a player in the referee's own process (a person at the terminal): gets the state
#: and the opponent's last move, returns a move. Never used for rated games.
LocalPlayer = Callable[[State, "int | None"], int]


def play_game(game: Game, bots: Sequence[BotSpec], seed: int, sandbox: Sandbox,
              settings: MatchSettings = _DEFAULT_SETTINGS, *,
              local: Mapping[int, LocalPlayer] | None = None, pool: BotPool | None = None,
              opening: Sequence[int] = ()) -> GameRecord:
    """Play one game, bots[0] moving first (bots[i] in seat i); the record says how it
    ended and why. Where seats move at once every mover is asked at once (_joint_turn).

    Seats in `local` are played by the given function instead of a process. With a
    pool, bot processes are taken from it and handed back after a clean game. The
    opening's moves are played first, by the referee, and recorded as the opening;
    it must be legal and leave the game open (arena.openings checks both)."""
    seats_of_game = game.initial_state().seats
    if len(bots) != seats_of_game:
        raise GameError(f"game {game.name!r} with rules {dict(game.options)} has {seats_of_game} seats, "
                        f"not the {len(bots)} of the bots given")
    return _Referee(game, bots, seed, settings, local or {}).play(sandbox, pool, opening)


class _Faulted(Exception):
    def __init__(self, seat: int, fault: BotFault) -> None:
        super().__init__(fault.reason)
        self.seat = seat
        self.fault = fault


class _Referee:
    """One game as it is played: the rules and the state, the seats, the record, and what
    waits on the bots (the multiplexer, and the readings of replies left for later)."""

    state: State
    mux: Multiplexer

    def __init__(self, game: Game, bots: Sequence[BotSpec], seed: int, settings: MatchSettings,
                 local: Mapping[int, LocalPlayer]) -> None:
        self.game, self.seed, self.settings, self.local = game, seed, settings, local
        self.started = time.monotonic()
        self.record = GameRecord(
            game=game.name, rule_options=dict(game.options), seed=seed,
            bots=[BotEntry(name=b.name, spec=b.spec, options=dict(b.options)) for b in bots],
            started_at=datetime.now(UTC).isoformat(timespec="milliseconds"), stderr_tails=[""] * len(bots))
        self.seats = [Seat(i, spec, settings.time, dialect_of(spec.dialect, settings.dialects))
                      for i, spec in enumerate(bots)]
        self.later: list[Callable[[], None]] = []   # readings left for later (Move.keep_readings)
        self.rng = random.Random(seed)
        self.last_turn: tuple[int | None, ...] | None = None   # the last joint move, per seat

    def play(self, sandbox: Sandbox, pool: BotPool | None, opening: Sequence[int]) -> GameRecord:
        """The game from its opening to its end, and its bots ended (kept in the pool where
        they may play on)."""
        record = self.record
        self.state = _play_opening(self.game, opening, record, self.seed)
        try:
            self._start_bots(sandbox, pool, bool(opening))
            self._handshake()
            record.startup_ms = round((time.monotonic() - self.started) * 1000, 3)
            self._play_turns(opening[-1] if opening else None)
            self._end()
        except _Faulted as faulted:
            self._end_by(faulted)
        except KeyboardInterrupt:
            record.termination = Termination.ABORTED
            record.reason = "interrupted"
            raise
        finally:
            self._settle()
            if record.startup_ms:
                record.play_ms = round((time.monotonic() - self.started) * 1000 - record.startup_ms, 3)
            _finish(self.seats, record, getattr(self, "mux", None), pool)   # no mux: a bot failed to start
            record.duration_ms = round((time.monotonic() - self.started) * 1000, 3)
        return record

    # -- the start --------------------------------------------------------------------

    def _start_bots(self, sandbox: Sandbox, pool: BotPool | None, opened: bool) -> None:
        """Every bot's process, once every dialect can play this game (and its opening):
        taken from the pool where it has one, else started; a bot that cannot start has
        failed to."""
        for s in self.seats:
            why = s.dialect.supports(self.game) or (_refuses_opening(s.dialect) if opened else None)
            if why:
                raise _Faulted(s.seat, BotFault(Termination.STARTUP_FAILURE, why))
        for s in self.seats:
            if s.seat not in self.local:
                s.channel = self._channel(s, sandbox, pool)
        if pool is not None:
            pool.end_retired()   # the last game's bots, while this game's start
        self.mux = Multiplexer([s.channel for s in self.seats if s.channel is not None], spin_seconds())
        mine = os.sched_getaffinity(0)
        for s in self.seats:
            if s.channel is not None and not _kept_to_my_cpu(s.channel.proc.pid, mine):
                s.mark = s.channel.proc.cpu_mark

    def _channel(self, s: Seat, sandbox: Sandbox, pool: BotPool | None) -> BotChannel:
        if pool is not None and s.dialect.reusable:
            channel = pool.take(s.spec)
            if channel is not None:
                channel.new_game()
                return channel
        try:
            argv, runtime = s.dialect.runtime(s.spec.argv)   # e.g. CodinGame's JavaScript globals
            proc = sandbox.start(list(argv), readable=[*s.spec.readable, *runtime], env=s.spec.env)
        except HostError:
            raise        # the machine's, not the bot's: no game is charged for it
        except SandboxError as exc:
            raise _Faulted(s.seat, BotFault(Termination.STARTUP_FAILURE, f"could not start: {exc}")) from exc
        return BotChannel(proc, self.settings.output, s.spec.name)

    def _handshake(self) -> None:
        control = self.settings.time
        deadline = time.monotonic() + (control.startup_ms + control.overhead_ms) / 1000
        bots = [(s, s.channel) for s in self.seats if s.channel is not None]
        for s, channel in bots:
            lines = s.dialect.start_lines(self.game, s.seat, bot_seed(self.seed, s.seat, s.spec.name),
                                          control.move_ms, s.clock.bank_ms)
            channel.request(lines, expects_reply=s.dialect.expects_ready)
        for s, channel in bots:
            if not s.dialect.expects_ready:
                continue
            try:
                line = self.mux.wait_line(channel, deadline,
                                          f"while starting up (handshake, {control.startup_ms} ms allowed)",
                                          moment="while starting up")
                s.dialect.check_ready(line)
            except BotFault as fault:
                raise _Faulted(s.seat, BotFault(Termination.STARTUP_FAILURE, fault.reason)) from fault
            except ProtocolError as exc:
                raise _Faulted(s.seat, BotFault(Termination.STARTUP_FAILURE, str(exc))) from exc

    # -- the turns --------------------------------------------------------------------

    def _play_turns(self, last_move: int | None) -> None:
        """Turns until the game is over: every mover at once, or one seat at a time (in
        rounds, each move records its round as its turn). A seat whose move faults is out
        where the rules let the others play on."""
        turns = 0
        mover: int | None = None
        rounds = self.game.info.rounds
        while not self.state.is_terminal():
            if self.state.to_move == SIMULTANEOUS:
                self._joint_turn(turns)
                turns += 1
                continue
            s = self.seats[self.state.to_move]
            if mover is None or mover in self.local:
                self._check_idle()   # no wait has read the bots' output since the last poll
            else:
                self._raise_faults()      # the last move's wait read every bot's output
            if s.seat in self.local or s.seat == mover:
                self._settle()    # a seat's clock is charged before its next move is timed
            if rounds and mover is not None and s.seat <= mover:
                turns += 1
            try:
                last_move = self._one_move(s, last_move)
            except _Faulted as faulted:
                after = self.state.play_without([0], [faulted.seat]) if len(self.seats) > 2 else None
                if after is None:
                    raise
                self._put_out(faulted.seat, faulted.fault, turns)
                self.state = after
            else:
                if rounds:
                    self.record.moves[-1].turn = turns
            mover = s.seat

    def _one_move(self, s: Seat, last_move: int | None) -> int:
        """Ask the seat for its move and play it: a person in the referee's process, or
        its bot by a Move. Readings the move leaves for later are taken once the next
        move's request is written, while that bot thinks, not between the two."""
        state = self.state
        if s.seat in self.local:
            move, entry = self._ask_person(s.seat, last_move)
            self.state = state.play(move)  # a local player must hand back a legal move
            self.record.moves.append(entry)
            return move
        ply = len(self.record.moves)
        # the bot is told its own time (move and bank), not the start-up allowance; by
        # position: made between a reply and the next request, and keywords cost more
        turn = TurnInfo(state, last_move, state.legal_moves(), self.settings.time.move_ms, s.clock.bank_ms, ply, s.seat)
        asked = Move(s, self.settings, s.dialect.turn_lines(self.game, turn), f"move {ply + 1}")
        wait = asked.send()
        self._settle()   # the readings the last reply left for later
        try:
            line = asked.judge(self.mux.wait_reply(wait))
        except BotFault as fault:
            return self._play_struck(asked, fault, turn)
        entry = asked.record(line.strip()[:32])   # as it came, until it is parsed
        self.record.moves.append(entry)
        asked.keep_readings(self.later)
        try:
            move = s.dialect.parse_move(self.game, turn, line)
            self.state = state.play(move)
        except InvalidMoveError as exc:
            raise _Faulted(s.seat, BotFault(Termination.MALFORMED, f"move {ply + 1}: {exc}")) from exc
        except IllegalMoveError as exc:
            raise _Faulted(s.seat, BotFault(Termination.ILLEGAL_MOVE, f"move {ply + 1}: {exc}")) from exc
        entry.move = self.game.move_text(move)
        return move

    def _play_struck(self, asked: Move, fault: BotFault, turn: TurnInfo) -> int:
        """A random legal move played for a seat whose move timed out, while its strikes
        last; else the fault is the seat's."""
        why = asked.struck(fault)
        if why is None:
            raise _Faulted(asked.seat.seat, asked.seat_fault(fault)) from None   # the fault travels as the payload
        move = self._random(turn.legal)
        entry = asked.record(self.game.move_text(move))
        entry.substituted = why
        self.record.moves.append(entry)
        self.state = self.state.play(move)
        return move

    def _random(self, legal: Sequence[int]) -> int:
        return legal[int(self.rng.random() * len(legal))]

    def _ask_person(self, seat: int, last_move: int | None, turn: int | None = None) -> tuple[int, MoveRecord]:
        sent = time.monotonic()
        move = self.local[seat](self.state, last_move)
        return move, MoveRecord(seat=seat, move=self.game.move_text(move),
                                wall_ms=round((time.monotonic() - sent) * 1000, 3), turn=turn)

    def _joint_turn(self, turn: int) -> None:
        """One turn where several seats move at once: every mover's request is written before
        any reply is read, each bot's clock starting as its own is written; the replies are
        judged as they come, and no bot is told another's move of the turn before the next
        turn's request, which goes out once every move is in. A seat that faults is out where
        the rules let the others play on (more than two seats); else the fault ends the game."""
        state = self.state
        movers = state.movers()
        self.mux.poll_others()   # what the bots said since the last turn: an unasked line is a fault
        faults = [(seat, ch.fault) for seat in movers
                  if (ch := self.seats[seat].channel) is not None and ch.fault is not None]
        asked = {seat: self._ask_joint(seat, turn) for seat in movers
                 if seat not in self.local and seat not in dict(faults)}
        moves, entries = self._joint_replies(asked, faults)
        for seat in movers:
            if seat in self.local:   # after the bots: a person does not hold up their clocks
                moves[seat], entries[seat] = self._ask_person(seat, None, turn)
        joint = [moves.get(seat, 0) for seat in movers]
        after: State | None
        if not faults:
            after = state.play_joint(joint)
        else:
            after = state.play_without(joint, [seat for seat, _ in faults]) if len(self.seats) > 2 else None
        if after is None:     # the turn is not played: its moves are not recorded
            raise _Faulted(*faults[0])
        self.record.moves.extend(entries[seat] for seat in movers if seat in entries)
        for seat, fault in faults:
            self._put_out(seat, fault, turn)
        self.state = after
        self.last_turn = tuple(moves.get(seat) for seat in range(len(self.seats)))

    def _ask_joint(self, seat: int, turn: int) -> tuple[Move, TurnInfo]:
        """A mover's request of a joint turn, written (its clock started)."""
        s, state = self.seats[seat], self.state
        info = TurnInfo(state=state, last_move=None, legal=state.moves_of(seat), move_ms=self.settings.time.move_ms,
                        bank_ms=s.clock.bank_ms, ply=turn, seat=seat, last_turn=self.last_turn)
        asked = Move(s, self.settings, s.dialect.turn_lines(self.game, info), f"move on turn {turn + 1}")
        asked.send()
        return asked, info

    def _joint_replies(self, asked: Mapping[int, tuple[Move, TurnInfo]], faults: list[tuple[int, BotFault]],
                       ) -> tuple[dict[int, int], dict[int, MoveRecord]]:
        """The asked movers' moves and their records, each taken as its reply comes; a
        seat whose reply faulted is added to `faults`."""
        moves: dict[int, int] = {}
        entries: dict[int, MoveRecord] = {}
        by_channel = {move.wait.channel: (seat, move, info) for seat, (move, info) in asked.items()}
        waiting = [move.wait for move, _ in asked.values()]
        while waiting:
            wait, got = self.mux.wait_first(waiting)
            waiting.remove(wait)
            seat, move, info = by_channel[wait.channel]
            try:
                moves[seat], entries[seat] = self._joint_move(move, info, got)
            except BotFault as fault:
                faults.append((seat, fault))
        return moves, entries

    def _joint_move(self, asked: Move, info: TurnInfo, got: str | BotFault) -> tuple[int, MoveRecord]:
        """The seat's part of the joint move and its record, from its reply (readings
        taken at once); BotFault if it faulted."""
        game = self.game
        try:
            line = asked.judge(got)
        except BotFault as fault:
            why = asked.struck(fault)
            if why is None:
                raise asked.seat_fault(fault) from None
            move = self._random(info.legal)
            entry = asked.record(game.move_text(move), turn=info.ply)
            entry.substituted = why
            return move, entry
        try:
            move = asked.seat.dialect.parse_move(game, info, line)
        except InvalidMoveError as exc:
            raise BotFault(Termination.MALFORMED, f"turn {info.ply + 1}: {exc}") from exc
        if move not in info.legal:
            raise BotFault(Termination.ILLEGAL_MOVE, f"turn {info.ply + 1}: {game.move_text(move)!r} is not "
                           f"one of its moves {[game.move_text(m) for m in info.legal]}")
        entry = asked.record(game.move_text(move), turn=info.ply)
        asked.take_readings()
        return move, entry

    def _put_out(self, seat: int, fault: BotFault, turn: int) -> None:
        """A seat out for its fault while the others play on (the rules let them: more
        than two seats, play_without): its process killed, its going out recorded."""
        s = self.seats[seat]
        s.put_out = True
        if s.channel is not None:
            s.channel.proc.kill_tree()    # out: nothing it does now counts
        self.record.out.append(SeatOut(seat, turn, fault.termination, f"{s.spec.name} (seat {seat}): {fault.reason}"))

    def _settle(self) -> None:
        """Take the readings of replies left for later (Move.keep_readings)."""
        later = self.later
        while later:
            later.pop()()

    def _check_idle(self) -> None:
        self.mux.poll_others()
        self._raise_faults()

    def _raise_faults(self) -> None:
        for s in self.seats:
            if s.channel is not None and s.channel.fault is not None and not s.put_out:
                raise _Faulted(s.seat, s.channel.fault)

    # -- the ending -------------------------------------------------------------------

    def _end(self) -> None:
        """The rules ended the game: its result, once the bots' last words are read."""
        self._settle()
        self._check_idle()  # an unasked line with the last move is a fault all the same
        record, state = self.record, self.state
        record.termination = Termination.NORMAL
        if len(self.seats) == 2:
            record.winner = state.winner
            record.reason = "draw" if state.winner is None else f"{self.game.info.seat_names[state.winner]} wins"
            record.ranking = record.rank_of()
        else:
            _rank(record, self.seats, state)

    def _end_by(self, faulted: _Faulted) -> None:
        """A seat's fault ended the game: its result."""
        record = self.record
        record.termination = faulted.fault.termination
        record.faulted = faulted.seat
        record.reason = f"{self.seats[faulted.seat].spec.name} (seat {faulted.seat}): {faulted.fault.reason}"
        if len(self.seats) == 2:
            record.winner = 1 - faulted.seat
            record.ranking = record.rank_of()
        else:   # the rules could not go on without it
            _rank(record, self.seats, self.state, faulted.seat)


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


def _result(record: GameRecord, seat: int) -> Result:
    """What a seat is told at the end: as the outcome says with two seats (aborted: a
    draw); with more, a win for first place alone, a draw for a shared first, else a loss."""
    if len(record.bots) == 2 or record.ranking is None:
        return record.outcome.result(seat) or Result.DRAW
    if record.ranking[seat] != 0:
        return Result.LOSS
    return Result.WIN if record.ranking.count(0) == 1 else Result.DRAW


def _rank(record: GameRecord, seats: list[Seat], state: State, ended_by: int | None = None) -> None:
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


def _finish(seats: list[Seat], record: GameRecord, mux: Multiplexer | None,
            pool: BotPool | None) -> None:
    """Tell live bots the result; keep clean reusable ones in the pool. The others end: a
    live bot without a fault whose dialect can tell it to quit gets QUIT_GRACE_S to exit;
    any other is killed at once (it has nothing left to say: a CodinGame bot is never told
    the game is over). With a pool their exits are the pool's to wait for, while the
    worker starts its next game's bots."""
    ending: list[tuple[Seat, BotChannel, bool]] = []
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
    _end_processes(ending, record, pool)
    if mux is not None:
        mux.close()


def _end_processes(ending: list[tuple[Seat, BotChannel, bool]], record: GameRecord, pool: BotPool | None) -> None:
    """End the bots' processes not kept (those told to quit, polite, after QUIT_GRACE_S),
    their stderr tails recorded: by the pool where there is one, else here."""
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
