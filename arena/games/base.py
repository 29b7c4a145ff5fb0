"""What every game offers: the Game and State interfaces and the errors of rules.

A game of two seats taking turns implements to_move, legal_moves(), play() and winner;
the rest of the API (movers, moves_of, play_joint, ranking, seats) follows from those
by default. A game where several seats move at once, or of more than two seats,
overrides those methods: its states have to_move == SIMULTANEOUS and take a joint move,
one move per seat moving, in play_joint().
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any, NamedTuple

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
    """An unknown rule option or a value it does not allow; line: where in a file read for
    an option (FromFile) the problem is, if it can say."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


#: Scores per player at the end of a game: win, draw, loss.
WIN, DRAW, LOSS = 1.0, 0.5, 0.0

#: State.to_move of a position where several seats move at once (see State.movers())
SIMULTANEOUS = -1


def scores_from_ranking(ranking: Sequence[int]) -> tuple[float, ...]:
    """Each seat's score from a ranking (0 is first): the share of the other seats it
    finished ahead of, a tie counting half. Two seats: 1 win, 0.5 draw, 0 loss."""
    others = len(ranking) - 1
    return tuple((sum(mine < r for r in ranking) + 0.5 * (sum(mine == r for r in ranking) - 1)) / others
                 for mine in ranking)


def ranking_from_scores(scores: Sequence[float]) -> tuple[int, ...]:
    """Each seat's rank from its score, higher first: the number of seats that scored
    more (ties share a rank, as 0, 1, 1, 3)."""
    return tuple(sum(other > mine for other in scores) for mine in scores)


class FromFile:
    """The choices of a rule option whose value the user gives as a file (tron's map): the
    config and --rule read the file (arena.userfiles) and turn its text into the value with
    read(text), which raises GameOptionError (with .line where it can say) when the text is
    not such a file; a value so read is `in` the choices, as is the default, ""."""

    def __init__(self, what: str, read: Any, valid: Any) -> None:
        self.what, self.read, self.valid = what, read, valid

    def __contains__(self, value: object) -> bool:
        return value == "" or (isinstance(value, str) and self.valid(value))

    def __iter__(self) -> Any:
        yield f"a {self.what}"


# NamedTuple, not dataclass: every bot process imports this, and dataclasses pulls in
# inspect (about 15 ms of each bot's start-up)
class RuleOption(NamedTuple):
    """One rule option a game accepts: its allowed values and default."""

    name: str
    choices: Sequence[Any] | FromFile   #: a tuple, a range for whole numbers, or a file's (FromFile)
    default: Any
    help: str
    #: False for an option a game gained later: left at its default it is not written where
    #: the game's options are told (Game.options: the arena handshake, a game's record), so
    #: games played as before read as before (Game.complete_options)
    stated: bool = True

    def allowed(self) -> str:
        """The choices in words: '3..64' for a range, else each one quoted: "'none', 'boards'"."""
        if isinstance(self.choices, range) and self.choices.step == 1:
            return f"{self.choices.start}..{self.choices.stop - 1}"
        return ", ".join(repr(c) for c in self.choices)


class GameInfo(NamedTuple):
    """Static facts about a game, declared once."""

    name: str
    summary: str
    rules: str
    max_length: int
    move_count: int
    options: tuple[RuleOption, ...] = ()
    #: seats can move at once (states then have to_move == SIMULTANEOUS); max_length
    #: then bounds the turns, each one joint move
    simultaneous: bool = False
    #: seats move one at a time in rounds, each seat still in once a round in seat order
    #: (tron by CodinGame's rules): records keep each move's round as its turn and replays
    #: show the game turn by turn, as where seats move at once
    rounds: bool = False
    #: what the seats are called, seat 0 first: a two-seat game's result line and reason
    #: ("x wins") name them so
    seat_names: tuple[str, ...] = ("x", "o")
    #: a game with rule sets (a rule option choosing among whole sets of rules): each
    #: set's name and its rules in words, as `arena games -v` prints them
    rulesets: tuple[tuple[str, str], ...] = ()

    @property
    def by_turn(self) -> bool:
        """Moves are grouped in turns (seats moving at once, or in rounds): records, replays
        and result lines count turns."""
        return self.simultaneous or self.rounds


class Grid(NamedTuple):
    """A position drawn as a rows x columns board: what the site's replay viewer and the
    dialects that send a board need, without knowing the game. Optional: a State
    offers it by overriding State.grid()."""

    rows: int
    columns: int
    #: one letter per square, row-major: 'x' (seat 0), 'o' (seat 1), '.' empty; a game
    #: whose seats move at once its own letters (tron: a trail 'a'-'d' by seat, its head
    #: in capitals)
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

    to_move: int  #: seat to move, 0 (x, first) or 1 (o); SIMULTANEOUS where several move at once
    #: number of seats of the game; a game of more than two overrides it (a class or
    #: instance attribute)
    seats: int = 2

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

    def returns(self) -> tuple[float, ...]:
        """Score per seat at the end: 1 win, 0.5 draw, 0 loss (for more than two seats,
        as scores_from_ranking says)."""
        if not self.is_terminal():
            raise GameError("the game is not over: no result yet")
        w = self.winner
        if w is None:
            return (DRAW, DRAW)
        return (WIN, LOSS) if w == 0 else (LOSS, WIN)

    def ranking(self) -> tuple[int, ...]:
        """Rank per seat at the end, 0 first; seats that tie share a rank (0, 1, 1, 3).
        By default read from returns(); a game that ranks its seats overrides this and
        returns() (scores_from_ranking)."""
        return ranking_from_scores(self.returns())

    def movers(self) -> tuple[int, ...]:
        """The seats that move now, ascending: (to_move,) in a game of turns, several in a
        simultaneous one; () when the game is over."""
        return () if self.is_terminal() else (self.to_move,)

    def moves_of(self, seat: int) -> tuple[int, ...]:
        """The moves legal for seat now, ascending; () when seat does not move now."""
        return self.legal_moves() if seat == self.to_move and not self.is_terminal() else ()

    def play_joint(self, moves: Sequence[int]) -> State:
        """The state after every mover's move at once: moves[i] is movers()[i]'s.
        Raises IllegalMoveError when one is not legal or the count is wrong."""
        movers = self.movers()
        if not isinstance(moves, (list, tuple)) or len(moves) != len(movers) or len(movers) != 1:
            raise IllegalMoveError(f"expected a list of one move for each of the seats moving now "
                                   f"{list(movers)}, got {moves!r}"[:200])
        return self.play(moves[0])

    def seats_in(self) -> tuple[int, ...]:
        """The seats still in the game, ascending: by default every seat until the game is
        over; a game whose rules put seats out (tron) leaves those out."""
        return () if self.is_terminal() else tuple(range(self.seats))

    def standing(self) -> tuple[int, ...]:
        """Rank per seat as the game stands (0 first, ties sharing a rank): its ranking()
        once over; before, the seats still in tie first and the others tie below them (a game
        that ranks the seats it put out overrides this)."""
        if self.is_terminal():
            return self.ranking()
        ins = self.seats_in()
        return tuple(0 if seat in ins else len(ins) for seat in range(self.seats))

    def play_without(self, moves: Sequence[int], out: Sequence[int]) -> State | None:
        """The state after a joint move in which the seats in `out` (movers whose bots
        faulted) go out instead of moving, the others playing moves (moves[i] is movers()[i]'s;
        an out seat's entry is ignored); None where the rules cannot go on without them (the
        default: the fault ends the game). A seat put out so is out as the rules put seats
        out, at that moment, and ranks as they rank it (docs/protocol.md, "Faults and the
        ranking")."""
        return None


class Game(abc.ABC):
    """A game with its rule options fixed: makes and reads states and moves."""

    #: the game's facts, declared on the class; an instance whose rule options change them
    #: (tron's rule set) has its own
    info: GameInfo

    def __init__(self, **options: Any) -> None:
        self.options = self._check_options(options)

    @classmethod
    def option_defaults(cls, given: dict[str, Any]) -> dict[str, Any]:
        """Each option's value where it is not given, knowing the options given (checked
        already): by default the declared defaults; a game where one option's default
        depends on another's value (tron's grid size on its rule set) overrides this."""
        return {opt.name: opt.default for opt in cls.info.options}

    @classmethod
    def _check_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        known = {opt.name: opt for opt in cls.info.options}
        for key, value in given.items():
            if key not in known:
                allowed = ", ".join(known) or "none"
                raise GameOptionError(
                    f"game {cls.info.name!r} has no rule option {key!r} (options: {allowed})")
            choices = known[key].choices
            if value not in choices or isinstance(value, bool):
                # given as text (--rule width=10, the bots' handshake): the choice written so
                as_text = [c for c in choices if isinstance(value, str) and str(c) == value]
                if not as_text:
                    raise GameOptionError(f"game {cls.info.name!r}: option {key!r} cannot be {value!r} "
                                          f"(allowed: {known[key].allowed()})")
                given = {**given, key: as_text[0]}
        return cls.complete_options(given)

    @classmethod
    def complete_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        """Every option's value from those given (checked already), the others' defaults
        (option_defaults) filled in; an option declared not stated is left out where it is
        at its declared default (RuleOption.stated), so a game's options, told in its
        handshake and kept in its records, read as before the game gained it."""
        defaults = cls.option_defaults(given)
        values = {opt.name: (given[opt.name] if opt.name in given else defaults[opt.name], opt)
                  for opt in cls.info.options}
        return {name: value for name, (value, opt) in values.items() if opt.stated or value != opt.default}

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def seats(self) -> int:
        """Number of seats in a game with these rule options."""
        return self.initial_state().seats

    @abc.abstractmethod
    def initial_state(self) -> State:
        """The position before the first move."""

    def start(self, seed: int) -> State:
        """The position a game with this seed starts from: initial_state() where every game
        starts alike; a game whose starts are drawn (tron's by CodinGame's rules) draws them
        from the seed, so two games of one seed (a seat-swapped pair) start alike."""
        return self.initial_state()

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

    def replay_joint(self, turns: Sequence[Sequence[int]]) -> State:
        """The state after playing joint moves (one per mover, each turn) from the start."""
        state = self.initial_state()
        for moves in turns:
            state = state.play_joint(moves)
        return state
