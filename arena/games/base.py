"""What every game offers: the Game and State interfaces and the errors of rules."""

from __future__ import annotations

import abc
from typing import Any, ClassVar, NamedTuple

from arena.errors import ArenaError


class GameError(ArenaError, ValueError):
    """A request the rules cannot honour."""


class InvalidMoveError(GameError):
    """Move text that is not a move of this game at all (syntax)."""

    @classmethod
    def expected(cls, text: str, expected: str) -> InvalidMoveError:
        """The one wording of this fault, whatever was wrong with the text (its shape, a
        number out of range): "'TEXT' is not a move: expected EXPECTED"."""
        return cls(f"{text.strip()[:80]!r} is not a move: expected {expected}")


class IllegalMoveError(GameError):
    """A move that is well formed but not legal in this position."""


class InvalidStateError(GameError):
    """State text that does not describe a reachable-looking position."""


class GameOptionError(GameError):
    """An unknown rule option or a value it does not allow."""


#: Scores per player at the end of a game: win, draw, loss.
WIN, DRAW, LOSS = 1.0, 0.5, 0.0


# NamedTuple, not dataclass: every bot process imports this, and dataclasses pulls in
# inspect (about 15 ms of each bot's start-up)
class RuleOption(NamedTuple):
    """One rule option a game accepts: its allowed values and default."""

    name: str
    choices: tuple[Any, ...]
    default: Any
    help: str


class GameInfo(NamedTuple):
    """Static facts about a game, declared once."""

    name: str
    summary: str
    rules: str
    max_length: int
    move_count: int
    options: tuple[RuleOption, ...] = ()


class Grid(NamedTuple):
    """A position drawn as a rows x columns board: what the site's replay viewer and the
    dialects that send a board need, without knowing the game. Optional: a State
    offers it by overriding State.grid()."""

    rows: int
    columns: int
    #: one letter per square, row-major: 'x' (seat 0), 'o' (seat 1), '.' empty
    marks: str
    #: for a board made of 3x3 sub-boards of 3x3 squares (the nine-board games), one
    #: letter per sub-board, row-major: '.' open, 'x' / 'o' won, '-' full; else ""
    regions: str = ""
    #: the sub-board the next move must be played in, -1 for any (or no sub-boards)
    target: int = -1

    def mark(self, row: int, column: int) -> str:
        """The letter of one square."""
        return self.marks[row * self.columns + column]


class State(abc.ABC):
    """A position. Immutable: play() returns a new state."""

    __slots__ = ()

    to_move: int  #: seat to move, 0 (x, first) or 1 (o)

    @abc.abstractmethod
    def legal_moves(self) -> tuple[int, ...]:
        """Moves legal here, ascending; empty exactly when the game is over."""

    @abc.abstractmethod
    def play(self, move: int) -> State:
        """The state after move; raises IllegalMoveError if it is not legal."""

    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """True when the game is over."""

    @property
    @abc.abstractmethod
    def winner(self) -> int | None:
        """Seat that won, or None for a draw or a game still going."""

    @abc.abstractmethod
    def encode(self) -> str:
        """One-line text that the game's parse_state() turns back into this state."""

    @abc.abstractmethod
    def render(self) -> str:
        """A board drawing for people."""

    def grid(self) -> Grid | None:
        """The position as a board of marks, or None for a game that has no grid: its
        replays then show the move list only."""
        return None

    def returns(self) -> tuple[float, float]:
        """Score per seat at the end: 1 win, 0.5 draw, 0 loss."""
        if not self.is_terminal():
            raise GameError("the game is not over: no result yet")
        w = self.winner
        if w is None:
            return (DRAW, DRAW)
        return (WIN, LOSS) if w == 0 else (LOSS, WIN)


class Game(abc.ABC):
    """A game with its rule options fixed: makes and reads states and moves."""

    info: ClassVar[GameInfo]

    def __init__(self, **options: Any) -> None:
        self.options = self._check_options(options)

    @classmethod
    def _check_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        known = {opt.name: opt for opt in cls.info.options}
        for key, value in given.items():
            if key not in known:
                allowed = ", ".join(known) or "none"
                raise GameOptionError(
                    f"game {cls.info.name!r} has no rule option {key!r} (options: {allowed})")
            if value not in known[key].choices:
                choices = ", ".join(repr(c) for c in known[key].choices)
                raise GameOptionError(
                    f"game {cls.info.name!r}: option {key!r} cannot be {value!r} (allowed: {choices})")
        return {name: given.get(name, opt.default) for name, opt in known.items()}

    @property
    def name(self) -> str:
        return self.info.name

    @abc.abstractmethod
    def initial_state(self) -> State:
        """The position before the first move."""

    @abc.abstractmethod
    def parse_state(self, text: str) -> State:
        """The state a State.encode() text describes; raises InvalidStateError."""

    def move_text(self, move: int) -> str:
        """Canonical move text: the cell index in decimal."""
        return str(move)

    def parse_move(self, text: str) -> int:
        """The move a canonical move text names; raises InvalidMoveError."""
        text = text.strip()
        if not text.isascii() or not text.isdigit() or int(text) >= self.info.move_count:
            raise InvalidMoveError.expected(text, f"a cell number 0..{self.info.move_count - 1}")
        return int(text)

    def replay(self, moves: list[int]) -> State:
        """The state after playing moves from the start."""
        state = self.initial_state()
        for move in moves:
            state = state.play(move)
        return state
