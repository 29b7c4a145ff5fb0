"""The 9x9 games: nine 3x3 boards where the square you play picks the board your
opponent plays in next. Ultimate (seed 001), meta (seed 000) and nine-board
(seed 004) differ only in the rules captured by BigBoardRules.

A cell is numbered board*9 + square, both row-major 0..8. A position keeps, per
board, one 18-bit int (x's squares in bits 0..8, o's in bits 9..17), so a move
touches one int and every rule question is a table lookup from grid.py.
"""

from __future__ import annotations

import functools
import operator
import random
from collections.abc import Callable, Sequence
from typing import ClassVar, NamedTuple

from .base import Game, GameError, GameInfo, Grid, IllegalMoveError, InvalidStateError, RuleOption, State
from .grid import FULL, HAS_LINE, HAS_LINE_NO_258, POPCOUNT, SQUARES

#: CELLS[b][free] lists the cells of board b whose squares are set in free.
CELLS = tuple(tuple(tuple(9 * b + s for s in SQUARES[free]) for free in range(512))
              for b in range(9))
#: MARK[seat][cell]: the bit a seat's mark on cell sets in its board's int.
MARK = tuple(tuple(1 << (cell % 9 + 9 * seat) for cell in range(81)) for seat in (0, 1))
BOARD_OF = tuple(cell // 9 for cell in range(81))
SQUARE_OF = tuple(cell % 9 for cell in range(81))

ONGOING, DRAWN = -1, 2  # outcome codes besides the winning seat 0 or 1


class BigBoardRules(NamedTuple):
    """The clauses in which the 9x9 variants differ."""

    first_board: int          #: board the first move must be in, -1 for any
    small_win_ends: bool      #: the first line on any small board wins the game
    full_target_draws: bool   #: being sent to a full board ends the game drawn
    macro_line_wins: bool     #: three won boards in a row win the game
    most_boards_wins: bool    #: a game ending without a macro line goes to the player with more boards
    column258_wins: bool = True  #: the 2-5-8 column of boards is a winning line (False: seed 001's code)


def macro_line_table(rules: BigBoardRules) -> tuple[bool, ...]:
    """[won-boards mask] -> whether it holds a winning line of boards under these rules."""
    return HAS_LINE if rules.column258_wins else HAS_LINE_NO_258


def _outcome_when_all_closed(rules: BigBoardRules, xwon: int, owon: int) -> int:
    if rules.most_boards_wins:
        nx, no = POPCOUNT[xwon], POPCOUNT[owon]
        if nx != no:
            return 0 if nx > no else 1
    return DRAWN


class BigBoardState(State):
    """A 9x9 position; immutable."""

    __slots__ = ("rules", "boards", "xwon", "owon", "closed", "target", "to_move",
                 "outcome", "_moves")

    rules: BigBoardRules
    boards: tuple[int, ...]   # per board: x squares | o squares << 9
    xwon: int                 # boards won by x, 9-bit mask
    owon: int
    closed: int               # boards nobody may play in (won or full)
    target: int               # board the next move must be in, -1 for any open board
    outcome: int              # ONGOING, 0 or 1 (winner), DRAWN
    _moves: tuple[int, ...] | None   # legal_moves(), computed on first use

    def legal_moves(self) -> tuple[int, ...]:
        moves = self._moves
        if moves is None:
            boards = self.boards
            if self.outcome != ONGOING:
                moves = ()
            elif self.target >= 0:
                v = boards[self.target]
                moves = CELLS[self.target][FULL & ~(v | v >> 9)]
            else:
                moves = tuple(c for b in SQUARES[FULL & ~self.closed]
                              for c in CELLS[b][FULL & ~(boards[b] | boards[b] >> 9)])
            self._moves = moves
        return moves

    def play(self, move: int) -> BigBoardState:
        try:
            b = BOARD_OF[move] if move >= 0 else 99
        except (IndexError, TypeError):
            b = 99
        if b == 99 or self.outcome != ONGOING or not (
                self.target == b or (self.target < 0 and not self.closed >> b & 1)) \
                or (self.boards[b] | self.boards[b] >> 9) >> SQUARE_OF[move] & 1:
            raise IllegalMoveError(self._why_illegal(move))
        rules = self.rules
        seat = self.to_move
        v = self.boards[b] | MARK[seat][move]
        boards = self.boards[:b] + (v,) + self.boards[b + 1:]
        xwon, owon, closed, outcome = self.xwon, self.owon, self.closed, ONGOING
        if HAS_LINE[v >> 9 * seat & FULL]:
            if rules.small_win_ends:
                outcome = seat
            elif seat == 0:
                xwon |= 1 << b
                if rules.macro_line_wins and macro_line_table(rules)[xwon]:
                    outcome = 0
            else:
                owon |= 1 << b
                if rules.macro_line_wins and macro_line_table(rules)[owon]:
                    outcome = 1
            closed |= 1 << b
        elif (v | v >> 9) & FULL == FULL:
            closed |= 1 << b
        target = SQUARE_OF[move]
        if closed >> target & 1:
            if rules.full_target_draws and outcome == ONGOING:
                outcome = DRAWN
            else:
                target = -1
        if outcome == ONGOING and closed == FULL:
            outcome = _outcome_when_all_closed(rules, xwon, owon)
        return _make(rules, boards, xwon, owon, closed, target, seat ^ 1, outcome)

    def _why_illegal(self, move: object) -> str:
        if self.outcome != ONGOING:
            return f"move {move!r} is not legal: the game is over"
        if type(move) is not int or not 0 <= move < 81:
            return f"move {move!r} is not legal: cells are numbered 0..80"
        b, s = divmod(move, 9)
        if self.target >= 0 and b != self.target:
            return f"move {move} (board {b}, square {s}) is not legal: the move must be in board {self.target}"
        if self.closed >> b & 1:
            return f"move {move} (board {b}, square {s}) is not legal: board {b} is closed"
        return f"move {move} (board {b}, square {s}) is not legal: the cell is taken"

    def is_terminal(self) -> bool:
        return self.outcome != ONGOING

    @property
    def winner(self) -> int | None:
        return self.outcome if self.outcome in (0, 1) else None

    def cell(self, cell: int) -> int:
        """Who holds cell: 0 (x), 1 (o) or -1 (empty)."""
        v = self.boards[cell // 9] >> (cell % 9)
        return 0 if v & 1 else 1 if v >> 9 & 1 else -1

    def grid(self) -> Grid:
        """The 9x9 board row-major, with each small board's status and the target board."""
        cells = "".join([_board_text(v) for v in self.boards])
        return Grid(9, 9, "".join(_ROW_MAJOR(cells)), _regions(self.xwon, self.owon, self.closed),
                    self.target)

    def boards_won(self) -> tuple[int, int]:
        """How many small boards each seat has won."""
        return POPCOUNT[self.xwon], POPCOUNT[self.owon]

    def encode(self) -> str:
        cells = "".join(map(_board_text, self.boards))
        target = "*" if self.target < 0 else str(self.target)
        return f"{cells} {'xo'[self.to_move]} {target}"

    def render(self) -> str:
        lines = []
        for band in range(3):
            if band:
                lines.append("-------+-------+-------")
            for row in range(3):
                parts = []
                for col in range(3):
                    b = 3 * band + col
                    parts.append(" ".join(".xo"[self.cell(9 * b + 3 * row + c) + 1] for c in range(3)))
                lines.append(" " + " | ".join(parts))
        won = lambda mask: " ".join(str(b) for b in SQUARES[mask]) or "-"  # noqa: E731
        lines.append(f"boards won: x {won(self.xwon)}; o {won(self.owon)}")
        if self.outcome == ONGOING:
            where = "any open board" if self.target < 0 else f"board {self.target}"
            lines.append(f"{'xo'[self.to_move]} to move in {where}")
        else:
            lines.append("game over: " + ("draw" if self.outcome == DRAWN else f"{'xo'[self.outcome]} wins"))
        return "\n".join(lines)

    def _key(self) -> tuple:
        return (self.rules, self.boards, self.target, self.to_move)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BigBoardState) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"BigBoardState({self.encode()!r})"


_BOARD_TEXT: dict[int, str] = {}


#: the cells in row-major order over the whole 9x9 board
_ROW_MAJOR = operator.itemgetter(*[9 * (3 * (r // 3) + c // 3) + 3 * (r % 3) + c % 3
                                   for r in range(9) for c in range(9)])


@functools.lru_cache(maxsize=4096)
def _regions(xwon: int, owon: int, closed: int) -> str:
    """One letter per small board: 'x' / 'o' won, '-' full, '.' open."""
    return "".join("x" if xwon >> b & 1 else "o" if owon >> b & 1 else "-" if closed >> b & 1
                   else "." for b in range(9))


def _board_text(v: int) -> str:
    """The 9 cells of one board as text; cached, since a board takes at most 3^9 values."""
    text = _BOARD_TEXT.get(v)
    if text is None:
        text = _BOARD_TEXT[v] = "".join("x" if v >> s & 1 else "o" if v >> (s + 9) & 1 else "."
                                        for s in range(9))
    return text


_BOARD_VALUE: dict[str, int] = {}


def _board_value(text: str) -> int:
    """The 18-bit int of one board's 9 cells of text; cached like _board_text."""
    value = 0
    for s, c in enumerate(text):
        if c == "x":
            value |= 1 << s
        elif c == "o":
            value |= 1 << (s + 9)
    _BOARD_VALUE[text] = value
    return value


def _make(rules: BigBoardRules, boards: tuple[int, ...], xwon: int, owon: int, closed: int,
          target: int, to_move: int, outcome: int) -> BigBoardState:
    state = object.__new__(BigBoardState)
    state.rules = rules
    state.boards = boards
    state.xwon = xwon
    state.owon = owon
    state.closed = closed
    state.target = target
    state.to_move = to_move
    state.outcome = outcome
    state._moves = None
    return state


def random_playout(state: BigBoardState, rand: Callable[[], float]) -> BigBoardState:
    """Play uniformly random moves to the end; the same game as picking
    legal_moves()[int(rand() * len(moves))] through play(), only faster."""
    if state.outcome != ONGOING:
        return state
    rules = state.rules
    small_win_ends, full_target_draws = rules.small_win_ends, rules.full_target_draws
    macro_line_wins = rules.macro_line_wins
    macro_line = macro_line_table(rules)
    boards = list(state.boards)
    won = [state.xwon, state.owon]
    closed, target, seat = state.closed, state.target, state.to_move
    outcome = ONGOING
    moves: Sequence[int]
    while outcome == ONGOING:
        if target >= 0:
            v = boards[target]
            moves = CELLS[target][FULL & ~(v | v >> 9)]
        else:
            moves = [c for b in SQUARES[FULL & ~closed]
                     for c in CELLS[b][FULL & ~(boards[b] | boards[b] >> 9)]]
        move = moves[int(rand() * len(moves))]
        b = BOARD_OF[move]
        boards[b] = v = boards[b] | MARK[seat][move]
        if HAS_LINE[v >> 9 * seat & FULL]:
            if small_win_ends:
                outcome = seat
            else:
                won[seat] |= 1 << b
                if macro_line_wins and macro_line[won[seat]]:
                    outcome = seat
            closed |= 1 << b
        elif (v | v >> 9) & FULL == FULL:
            closed |= 1 << b
        target = SQUARE_OF[move]
        if closed >> target & 1:
            if full_target_draws and outcome == ONGOING:
                outcome = DRAWN
            else:
                target = -1
        if outcome == ONGOING and closed == FULL:
            outcome = _outcome_when_all_closed(rules, won[0], won[1])
        seat ^= 1
    return _make(rules, tuple(boards), won[0], won[1], closed, target, seat, outcome)


class BigBoardGame(Game):
    """A 9x9 game; subclasses fix the rules."""

    RULES: ClassVar[BigBoardRules]

    def rules(self) -> BigBoardRules:
        """The rule clauses this game plays by, given its options."""
        return self.RULES

    def initial_state(self) -> BigBoardState:
        return _make(self.rules(), (0,) * 9, 0, 0, 0, self.rules().first_board, 0, ONGOING)

    def random_playout(self, state: BigBoardState, rng: random.Random) -> BigBoardState:
        """Random moves to the end of the game (for Monte Carlo agents)."""
        return random_playout(state, rng.random)

    def parse_state(self, text: str) -> BigBoardState:
        parts = text.split()
        if len(parts) != 3 or len(parts[0]) != 81 or set(parts[0]) - set(".xo") \
                or parts[1] not in ("x", "o") or parts[2] not in ("*",) + tuple("012345678"):
            raise InvalidStateError(
                f"{text[:100]!r} is not a {self.name} state: expected 81 cells of '.', 'x', 'o', "
                "the mark to move ('x' or 'o') and the board to play in (0..8, or * for any)")
        cells, to_move = parts[0], "xo".index(parts[1])
        target = -1 if parts[2] == "*" else int(parts[2])
        boards = tuple(_BOARD_VALUE[cells[9 * b:9 * b + 9]] if cells[9 * b:9 * b + 9] in _BOARD_VALUE
                       else _board_value(cells[9 * b:9 * b + 9]) for b in range(9))
        nx, no = cells.count("x"), cells.count("o")
        if nx - no != to_move:
            raise InvalidStateError(f"{self.name} state: {nx} x and {no} o cannot have "
                                    f"{parts[1]} to move")
        return self._derive(boards, target, to_move, text)

    def _derive(self, boards: tuple[int, ...], target: int, to_move: int, text: str) -> BigBoardState:
        rules = self.rules()
        xwon = sum(1 << b for b in range(9) if HAS_LINE[boards[b] & FULL])
        owon = sum(1 << b for b in range(9) if HAS_LINE[boards[b] >> 9])
        if xwon & owon:
            raise InvalidStateError(f"{text[:100]!r}: a board has lines of both players")
        full = sum(1 << b for b in range(9) if (boards[b] | boards[b] >> 9) & FULL == FULL)
        closed = xwon | owon | full
        outcome = ONGOING
        if rules.small_win_ends:
            if xwon | owon:
                if POPCOUNT[xwon | owon] > 1:
                    raise InvalidStateError(f"{text[:100]!r}: more than one board has a line")
                outcome = 0 if xwon else 1
            elif target >= 0 and full >> target & 1:
                outcome = DRAWN
        elif rules.macro_line_wins and (macro_line_table(rules)[xwon] or macro_line_table(rules)[owon]):
            line = macro_line_table(rules)
            if line[xwon] and line[owon]:
                raise InvalidStateError(f"{text[:100]!r}: both players have three boards in a row")
            outcome = 0 if line[xwon] else 1
        elif closed == FULL:
            outcome = _outcome_when_all_closed(rules, xwon, owon)
        if outcome == ONGOING and target >= 0 and closed >> target & 1:
            raise InvalidStateError(f"{text[:100]!r}: board {target} is closed, so it cannot be "
                                    "the board to play in (use *)")
        if outcome == ONGOING and not any(boards) and target != rules.first_board:
            raise InvalidStateError(f"{text[:100]!r}: the first move of {self.name} must be in "
                                    + ("any board (*)" if rules.first_board < 0
                                       else f"board {rules.first_board}"))
        if rules.small_win_ends and outcome != ONGOING:
            xwon = owon = 0  # the game ended on that line; no board is "won" for points
        return _make(rules, boards, xwon, owon, closed, target, to_move, outcome)


class Ultimate(BigBoardGame):
    """Ultimate tic-tac-toe as in seed 001, with an optional boards-won tie-break."""

    info = GameInfo(
        name="ultimate",
        summary=("ultimate tic-tac-toe (seed 001): win three boards in a row; "
                 "sent to a closed board, play any open one."),
        rules=("Nine 3x3 boards in a 3x3 grid; cell = board*9 + square. The first move may be "
               "anywhere; after that you must play in the board whose position matches the square "
               "just played. A board is won by three in a row and is then closed, as is a full "
               "board. Sent to a closed board, you may play in any open board. Three won boards in "
               "a row win; when no move is left the game is a draw (with tiebreak=boards, the "
               "player who won more boards wins instead). With column258=ignored the right column "
               "of boards (2, 5, 8) does not win, as in seed 001's published simulator."),
        max_length=81,
        move_count=81,
        options=(RuleOption("tiebreak", ("none", "boards"), "none",
                            "how a game with no line of boards ends: 'none' draw, "
                            "'boards' more boards won wins"),
                 RuleOption("column258", ("counts", "ignored"), "counts",
                            "'ignored': three boards won in the right column (2, 5, 8) do not win, "
                            "a defect of seed 001's published code, for reproducing its Table 1")),
    )

    RULES = BigBoardRules(first_board=-1, small_win_ends=False, full_target_draws=False,
                          macro_line_wins=True, most_boards_wins=False)

    def rules(self) -> BigBoardRules:
        return self.RULES._replace(most_boards_wins=self.options["tiebreak"] == "boards",
                                   column258_wins=self.options["column258"] == "counts")


class Meta(BigBoardGame):
    """Meta tic-tac-toe as in seed 000: a points game over all nine boards."""

    RULES = BigBoardRules(first_board=4, small_win_ends=False, full_target_draws=False,
                          macro_line_wins=False, most_boards_wins=True)

    info = GameInfo(
        name="meta",
        summary="meta tic-tac-toe (seed 000): first move in the centre board; most boards won wins.",
        rules=("Nine 3x3 boards; cell = board*9 + square. The first move must be in the centre "
               "board (4). You must play in the board matching the square just played; a won or "
               "full board is closed, and sent there you choose any open board. Play goes on until "
               "every board is won or full; the player who won more boards wins, equal is a draw."),
        max_length=81,
        move_count=81,
    )



class NineBoard(BigBoardGame):
    """Nine-board tic-tac-toe as in seed 004: the first small line wins."""

    RULES = BigBoardRules(first_board=-1, small_win_ends=True, full_target_draws=True,
                          macro_line_wins=False, most_boards_wins=False)

    info = GameInfo(
        name="nineboard",
        summary="nine-board tic-tac-toe (seed 004): the first three in a row on any board wins.",
        rules=("Nine 3x3 boards; cell = board*9 + square. The first move may be anywhere; after "
               "that you must play in the board matching the square just played. The first three "
               "in a row on any small board wins the game. Sent to a full board, the game is a tie."),
        max_length=81,
        move_count=81,
    )



__all__ = ["BigBoardGame", "BigBoardRules", "BigBoardState", "GameError", "Meta", "NineBoard",
           "Ultimate", "macro_line_table", "random_playout"]
