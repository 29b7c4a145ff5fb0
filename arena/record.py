"""The record of one played game: what the referee produces and the store keeps.

Why a game ended (Termination) is kept apart from who won (winner), and a fault
names the seat that caused it, so a bot's misbehaviour is data, not an exception.
A record's Outcome (who won, how, and what each side scored) is derived from those
three fields, which every record version stores: it is what results are counted from.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.errors import ArenaError
from arena.games.base import SIMULTANEOUS, Game, GameError, State, scores_from_ranking

#: 2 added `opening`; a version 1 record reads as a game without one. 3 added the final
#: `ranking`, the turn of each move of a game whose seats move at once (MoveRecord.turn) and
#: the seats that went out for a fault while the others played on (`out`); records of
#: versions 1 and 2 read without them (a game of two seats ranks from its outcome)
RECORD_VERSION = 3


class Termination(str, enum.Enum):
    """Why a game ended."""

    NORMAL = "normal"                  #: the rules ended it (line, full board, ...)
    TIMEOUT = "timeout"                #: a bot did not answer within its time
    CRASH = "crash"                    #: a bot's process exited or died by a signal
    ILLEGAL_MOVE = "illegal_move"      #: a well-formed move that is not legal here
    MALFORMED = "malformed"            #: output that is not a move at all
    OUTPUT_CAP = "output_cap"          #: a line or the total output over its cap
    STARTUP_FAILURE = "startup_failure"  #: the bot did not start or finish its handshake
    RESOURCE_LIMIT = "resource_limit"  #: killed for memory, CPU seconds, processes or files
    ABORTED = "aborted"                #: the referee itself stopped the game (e.g. Ctrl-C)

    @property
    def is_fault(self) -> bool:
        """True when a bot, not the rules, ended the game."""
        return self not in (Termination.NORMAL, Termination.ABORTED)

    @property
    def label(self) -> str:
        """How people read it: "illegal move", "start-up failure"."""
        return _LABELS[self.value]


_LABELS = {
    "normal": "normal", "timeout": "timeout", "crash": "crash", "illegal_move": "illegal move",
    "malformed": "malformed output", "output_cap": "output over its cap",
    "startup_failure": "start-up failure", "resource_limit": "resource limit",
    "aborted": "aborted",
}


class Result(str, enum.Enum):
    """A game's result for one side."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    @property
    def points(self) -> float:
        """What it scores: win 1, draw 1/2, loss 0."""
        return 1.0 if self is Result.WIN else 0.5 if self is Result.DRAW else 0.0


@dataclass(frozen=True)
class Outcome:
    """How a game ended: who won (None: nobody), why, and the seat whose fault ended it."""

    winner: int | None = None
    termination: Termination = Termination.NORMAL
    faulted: int | None = None

    def result(self, seat: int, faults_count_as_losses: bool = True) -> Result | None:
        """The seat's result as the standings count it, or None for a game left out: an
        aborted game, or a bot's fault when faults do not count as losses. A fault is a
        loss for the seat that faulted, whatever else the record says."""
        if self.termination is Termination.ABORTED:
            return None
        if self.termination.is_fault and self.faulted is not None:
            if not faults_count_as_losses:
                return None
            return Result.LOSS if seat == self.faulted else Result.WIN
        if self.winner is None:
            return Result.DRAW
        return Result.WIN if seat == self.winner else Result.LOSS

    def points(self, faults_count_as_losses: bool = True) -> tuple[float, float] | None:
        """Points per seat (win 1, draw 1/2) the game counts for, or None if it is left out."""
        first = self.result(0, faults_count_as_losses)
        second = self.result(1, faults_count_as_losses)
        if first is None or second is None:
            return None
        return (first.points, second.points)

    def text(self, names: Sequence[str]) -> str:
        """Who won, for people: "b faulted (crash); a wins", "aborted", "draw", "a wins"."""
        if self.termination.is_fault and self.faulted in (0, 1):
            return (f"{names[self.faulted]} faulted ({self.termination.label}); "
                    f"{names[1 - self.faulted]} wins")
        if self.termination is Termination.ABORTED:
            return "aborted"
        if self.winner is None:
            return "draw"
        return f"{names[self.winner]} wins"


@dataclass
class MoveRecord:
    """One move as played: who, what, and how long it took."""

    seat: int
    move: str
    wall_ms: float
    cpu_ms: float | None = None
    #: why the referee played this move for the bot (e.g. a timeout strike), else None
    substituted: str | None = None
    #: time the bot or referee waited for a CPU during the move: host load, not charged
    wait_ms: float | None = None
    #: in a game whose seats move at once, the turn (0 first) whose joint move this is
    #: one seat's part of; None in a game of turns, where each move is a turn
    turn: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data; `turn` only where there is one (records of games of turns
        stay as version 2 wrote them)."""
        data = {"seat": self.seat, "move": self.move, "wall_ms": self.wall_ms, "cpu_ms": self.cpu_ms,
                "substituted": self.substituted, "wait_ms": self.wait_ms}
        if self.turn is not None:
            data["turn"] = self.turn
        return data


@dataclass
class SeatOut:
    """A seat that went out for a fault while the others played on (games of more than two
    seats whose rules let them): when, and why."""

    seat: int
    turn: int            #: turns played when it went out
    termination: Termination
    reason: str


@dataclass
class BotEntry:
    """A bot as it sat at the table."""

    name: str
    spec: str = ""        #: how it was started: registered name or DIALECT:COMMAND
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class GameRecord:
    """Everything needed to replay and judge one game."""

    game: str
    rule_options: dict[str, Any]
    seed: int
    bots: list[BotEntry]
    moves: list[MoveRecord] = field(default_factory=list)
    winner: int | None = None
    termination: Termination = Termination.NORMAL
    faulted: int | None = None
    reason: str = ""
    stderr_tails: list[str] = field(default_factory=lambda: ["", ""])   #: one per seat
    started_at: str = ""        #: ISO 8601 UTC
    duration_ms: float = 0.0    #: start of the first process to the last one's end
    startup_ms: float = 0.0     #: starting both bots and their handshakes
    play_ms: float = 0.0        #: the moves, after start-up, before shutdown
    #: how many of the first moves are the opening the referee played, not the bots
    opening: int = 0
    #: rank per seat at the end (0 first, ties share a rank: 0, 1, 1, 3); None in records
    #: of versions 1 and 2 and in an aborted game (see rank_of)
    ranking: list[int] | None = None
    #: seats that went out for a fault while the game went on, in the order they went out
    out: list[SeatOut] = field(default_factory=list)
    version: int = RECORD_VERSION

    @property
    def outcome(self) -> Outcome:
        """Who won and how the game ended."""
        return Outcome(self.winner, self.termination, self.faulted)

    @property
    def scores(self) -> tuple[float, ...]:
        """Points per seat, faults counted as losses; an aborted game's are 1/2 each. More
        than two seats: the share of the others each finished ahead of (the ranking's)."""
        if len(self.bots) > 2:
            if self.ranking is None:
                return (0.5,) * len(self.bots)
            return tuple(scores_from_ranking(self.ranking))
        return self.outcome.points() or (0.5, 0.5)

    def faults(self) -> list[SeatOut]:
        """Every seat's fault, in the order they came: the seats put out while the others
        played on (out), then the fault that ended the game (faulted), if one did."""
        ended = ([SeatOut(self.faulted, len(self.turns()), self.termination, self.reason)]
                 if self.termination.is_fault and self.faulted is not None
                 and all(gone.seat != self.faulted for gone in self.out) else [])
        return [*self.out, *ended]

    def rank_of(self) -> list[int] | None:
        """The final ranking: as recorded, or for an older record of two seats read from its
        outcome (a fault loses); None for an aborted game."""
        if self.ranking is not None:
            return list(self.ranking)
        points = self.outcome.points()
        if points is None:
            return None
        return [sum(other > mine for other in points) for mine in points]

    def turns(self) -> list[list[MoveRecord]]:
        """The moves grouped by turn: a joint move's parts together where seats move at once,
        one move a turn otherwise (the opening's included)."""
        grouped: list[list[MoveRecord]] = []
        for move in self.moves:
            if move.turn is not None and grouped and grouped[-1][0].turn == move.turn:
                grouped[-1].append(move)
            else:
                grouped.append([move])
        return grouped

    def seat_of(self, bot: str) -> int:
        """The seat the bot sat in; ValueError if it did not play this game."""
        for seat, entry in enumerate(self.bots):
            if entry.name == bot:
                return seat
        raise ValueError(f"{bot!r} did not play this game")

    def result(self, bot: str, faults_count_as_losses: bool = True) -> Result | None:
        """The bot's result, as Outcome.result counts it."""
        return self.outcome.result(self.seat_of(bot), faults_count_as_losses)

    def summary(self, at_once: bool | None = None, seat_names: Sequence[str] = ("x", "o")) -> str:
        """The game in one line: "a (x) vs b (o): a wins, normal, 9 moves, seed 7", or for a
        fault "a (x) vs b (o): a faulted (crash); b wins, exited ... (exit code 3), 4 moves, ...",
        the seats called by the game's names for them (GameInfo.seat_names). A game of more
        than two seats, or whose moves go by turns, names every seat's bot and its place
        instead (see _summary_by_seat). at_once: the game's moves go by turns (its
        GameInfo.by_turn); None judges by the moves, which a game ended before its first turn
        (a bot that did not start) has none of."""
        names = [b.name for b in self.bots]
        at_once = self.moves_at_once if at_once is None else at_once
        if len(names) > 2 or at_once:
            return self._summary_by_seat(names, at_once)
        result = self.outcome.text(names)
        how = self.termination.value
        if self.faulted is not None:   # the reason without the "NAME (seat N): " the result says
            how = self.reason.removeprefix(f"{names[self.faulted]} (seat {self.faulted}): ")
        said = result if how == result else f"{result}, {how}"     # "aborted" once
        moves = f"{len(self.moves)} move{'s' * (len(self.moves) != 1)}"
        return f"{names[0]} ({seat_names[0]}) vs {names[1]} ({seat_names[1]}): {said}, {moves}, seed {self.seed}"

    @property
    def moves_at_once(self) -> bool:
        """True for a game whose seats moved at once (its moves carry their turn)."""
        return any(move.turn is not None for move in self.moves)

    def _summary_by_seat(self, names: list[str], at_once: bool) -> str:
        """summary() of a game of more than two seats or of seats moving at once: "a, b, c by
        seat: b 1st, a 2nd, c 3rd, normal (c out on turn 3 (timeout)), 9 turns, 25 moves,
        seed 7"; a fault that ended the game is said with its reason, as two seats' is."""
        ranking = self.rank_of()
        if ranking is None:
            said = "aborted"
        else:
            order = sorted(range(len(names)), key=lambda seat: ranking[seat])
            said = ", ".join(f"{names[seat]} {_ordinal(ranking[seat] + 1)}" for seat in order)
            how = self.termination.value
            if self.termination.is_fault and self.faulted is not None:
                why = self.reason.removeprefix(f"{names[self.faulted]} (seat {self.faulted}): ")
                how = f"{names[self.faulted]} faulted ({self.termination.label}): {why}"
            gone = "; ".join(f"{names[o.seat]} out on turn {o.turn + 1} ({o.termination.label})"
                             for o in self.out)
            said += f", {how}" + (f" ({gone})" if gone else "")
        count = len(self.turns())
        turns = f"{count} turn{'' if count == 1 else 's'}, " if at_once else ""
        moves = f"{len(self.moves)} move{'s' * (len(self.moves) != 1)}"
        return f"{', '.join(names)} by seat: {said}, {turns}{moves}, seed {self.seed}"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (built by hand: dataclasses.asdict deep-copies and is slow).
        What version 3 added is written only where it is set, so an older record read and
        written again is what it was."""
        data = {
            "game": self.game, "rule_options": dict(self.rule_options), "seed": self.seed,
            "bots": [{"name": b.name, "spec": b.spec, "options": dict(b.options)} for b in self.bots],
            "moves": [m.to_dict() for m in self.moves],
            "winner": self.winner, "termination": self.termination.value, "faulted": self.faulted,
            "reason": self.reason, "scores": list(self.scores), "stderr_tails": list(self.stderr_tails),
            "started_at": self.started_at, "duration_ms": self.duration_ms,
            "startup_ms": self.startup_ms, "play_ms": self.play_ms, "opening": self.opening,
            "version": self.version,
        }
        if self.ranking is not None:
            data["ranking"] = list(self.ranking)
        if self.out:
            data["out"] = [{"seat": o.seat, "turn": o.turn, "termination": o.termination.value,
                            "reason": o.reason} for o in self.out]
        return data

    def opening_moves(self) -> list[str]:
        """The moves of the opening (played by the referee before the bots took over)."""
        return [m.move for m in self.moves[:self.opening]]

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """The record that data (a record's JSON, parsed) holds; RecordError, saying what is
        wrong in one line, for anything that is no record: a key missing or unknown, a
        value of the wrong type, a seat number that is no seat of its bots (the winner, a
        faulted seat, a move's seat), a ranking of another length."""
        if not isinstance(data, dict):
            raise RecordError(f"a record is a JSON object, not {_json_kind(data)}")
        unknown = sorted(set(data) - _RECORD_KEYS, key=str)
        if unknown:
            raise RecordError(f"unknown key {unknown[0]!r}")
        for key in ("game", "rule_options", "seed", "bots", "termination"):
            if key not in data:
                raise RecordError(f"no {key!r}")
        data = dict(data)
        data.pop("scores", None)   # written for readers of the format; derived from the outcome
        _typed(data, "game", str)
        _typed(data, "rule_options", dict)
        _typed(data, "seed", int)
        for key, kind in _OPTIONAL_TYPES.items():
            if key in data:
                _typed(data, key, kind)
        bots = _typed(data, "bots", list)
        if not bots:
            raise RecordError("'bots' is empty")
        data["bots"] = [_bot_entry(b, i) for i, b in enumerate(bots)]
        seats = len(bots)
        data["moves"] = _move_records(data.get("moves", []), seats)
        data["termination"] = _termination(data["termination"], "'termination'")
        for key in ("winner", "faulted"):
            if data.get(key) is not None:
                _seat(data[key], f"{key!r}", seats)
        ranking = data.get("ranking")
        if ranking is not None:
            if len(ranking) != seats:
                raise RecordError(f"'ranking' has {len(ranking)} places for {seats} seats")
            for place in ranking:
                _seat(place, "a place in 'ranking'", seats)
        opening = data.get("opening", 0)
        if not 0 <= opening <= len(data["moves"]):
            raise RecordError(f"'opening' is {opening} moves of {len(data['moves'])}")
        tails = data.get("stderr_tails", [])
        if len(tails) > seats or not all(isinstance(tail, str) for tail in tails):
            raise RecordError(f"'stderr_tails' is not a text for each of its {seats} seats")
        data["out"] = [_seat_out(o, seats) for o in data.get("out", [])]
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """The record of its JSON text; RecordError for text that is no record."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise RecordError(f"not JSON ({exc})") from None
        return cls.from_dict(data)


class RecordError(ArenaError, ValueError):
    """Data that is no game record (GameRecord.from_dict); str() says what is wrong."""


_RECORD_KEYS = {"game", "rule_options", "seed", "bots", "moves", "winner", "termination", "faulted",
                "reason", "scores", "stderr_tails", "started_at", "duration_ms", "startup_ms",
                "play_ms", "opening", "ranking", "out", "version"}
#: the record's keys a reader may find absent (an older version's), and their types
_OPTIONAL_TYPES: dict[str, type | tuple[type, ...]] = {
    "moves": list, "winner": (int, type(None)), "faulted": (int, type(None)), "reason": str,
    "stderr_tails": list, "started_at": str, "duration_ms": (int, float), "startup_ms": (int, float),
    "play_ms": (int, float), "opening": int, "ranking": (list, type(None)), "out": list, "version": int}
_MOVE_KEYS = {"seat", "move", "wall_ms", "cpu_ms", "substituted", "wait_ms", "turn"}
_NUMBERS = {int, float}
_MAYBE_NUMBERS = {int, float, type(None)}
_MAYBE_TEXT = {str, type(None)}
_MAYBE_INT = {int, type(None)}


def _json_kind(value: Any) -> str:
    """What a JSON value is, as its text reads: null, true or false, a number, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    kinds: dict[type, str] = {str: "text", list: "a list", dict: "an object"}
    return kinds.get(type(value), type(value).__name__)


def _typed(data: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """data[key], which must be of kind (true and false are no numbers); RecordError else."""
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise RecordError(f"{key!r} is {_json_kind(value)}")
    return value


def _seat(value: Any, what: str, seats: int) -> int:
    """A seat number (or a place) of a game of that many seats; RecordError else."""
    if type(value) is not int or not 0 <= value < seats:
        shown = value if type(value) is int else _json_kind(value)
        raise RecordError(f"{what} is {shown}, not a seat of its {seats} (0 to {seats - 1})")
    return value


def _termination(value: Any, what: str) -> Termination:
    try:
        return Termination(value)
    except ValueError:
        shown = repr(value) if isinstance(value, str) else _json_kind(value)
        raise RecordError(f"{what} is {shown}, not one of "
                          f"{', '.join(t.value for t in Termination)}") from None


def _bot_entry(data: Any, seat: int) -> BotEntry:
    if not isinstance(data, dict) or set(data) - {"name", "spec", "options"} \
            or not isinstance(data.get("name"), str) or not isinstance(data.get("spec", ""), str) \
            or not isinstance(data.get("options", {}), dict):
        raise RecordError(f"bots[{seat}] is not a bot's name, spec and options")
    return BotEntry(**data)


def _move_records(moves: list[Any], seats: int) -> list[MoveRecord]:
    """The moves of a record, checked as from_dict says: checked together (a game holds
    hundreds of moves, a store millions), and the first bad one found again to name it."""
    try:
        made = [MoveRecord(**m) for m in moves]
    except TypeError:   # not an object, or a key missing or unknown
        made = []
    if len(made) == len(moves) and {type(m.seat) for m in made} <= {int} \
            and {m.seat for m in made} <= set(range(seats)) and {type(m.move) for m in made} <= {str} \
            and {type(m.wall_ms) for m in made} <= _NUMBERS \
            and {type(m.cpu_ms) for m in made} | {type(m.wait_ms) for m in made} <= _MAYBE_NUMBERS \
            and {type(m.substituted) for m in made} <= _MAYBE_TEXT \
            and {type(m.turn) for m in made} <= _MAYBE_INT:
        return made
    for ply, data in enumerate(moves, 1):
        if not isinstance(data, dict) or set(data) - _MOVE_KEYS or not {"seat", "move", "wall_ms"} <= set(data) \
                or type(data["move"]) is not str or type(data["wall_ms"]) not in _NUMBERS \
                or type(data.get("cpu_ms")) not in _MAYBE_NUMBERS or type(data.get("wait_ms")) not in _MAYBE_NUMBERS \
                or type(data.get("substituted")) not in _MAYBE_TEXT or type(data.get("turn")) not in _MAYBE_INT:
            raise RecordError(f"move {ply} is not a seat, move, times and notes")
        _seat(data["seat"], f"the seat of move {ply}", seats)
    raise RecordError("a move is not a seat, move, times and notes")   # the loop names it


def _seat_out(data: Any, seats: int) -> SeatOut:
    if not isinstance(data, dict) or set(data) != {"seat", "turn", "termination", "reason"} \
            or type(data["turn"]) is not int or not isinstance(data["reason"], str):
        raise RecordError("an entry of 'out' is not a seat, turn, termination and reason")
    return SeatOut(_seat(data["seat"], "a seat in 'out'", seats), data["turn"],
                   _termination(data["termination"], "a termination in 'out'"), data["reason"])


def play_turn(game: Game, state: State, moves: Sequence[MoveRecord], gone: Sequence[int]) -> State | None:
    """The state after one of a record's turns (GameRecord.turns()): its moves, and the seats
    put out for a fault on it (gone, from GameRecord.out). Where the seats move at once, the
    joint move, those put out going out with it (State.play_without); in rounds, each move
    in turn, a seat put out going out where its move comes. None where the turn cannot be
    played (the rules cannot go on without a seat put out; a seat moving at once that left
    no move: its fault ended the game); GameError for a move the rules refuse."""
    if state.to_move == SIMULTANEOUS:
        by_seat = {m.seat: game.parse_move(m.move) for m in moves}
        if not set(state.movers()) - set(gone) <= set(by_seat):
            return None
        joint = [by_seat.get(seat, 0) for seat in state.movers()]
        return state.play_without(joint, gone) if gone else state.play_joint(joint)
    left = set(gone)
    after: State | None = state
    for move in [*moves, None]:
        while after is not None and after.movers() and after.to_move in left:
            left.discard(after.to_move)
            after = after.play_without([0], [after.to_move])
        if after is None or move is None:
            break
        if move.seat != after.to_move:
            raise GameError(f"a move of seat {move.seat} where seat {after.to_move} moves")
        after = after.play(game.parse_move(move.move))
    return after


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..."""
    return f"{n}{'tsnrhtdd'[(n // 10 % 10 != 1) * (n % 10 < 4) * n % 10::4]}"

