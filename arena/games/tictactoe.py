"""Tic-tac-toe on one 3x3 grid (seeds 002 and 004)."""

from __future__ import annotations

from .base import Game, GameInfo, Grid, IllegalMoveError, InvalidStateError, State
from .grid import FULL, HAS_LINE, POPCOUNT, SQUARES

_MARKS = ".xo"


class TicTacToeState(State):
    """A tic-tac-toe position: one 9-bit mask per player."""

    __slots__ = ("masks", "to_move", "_winner", "_over")

    def __init__(self, x: int = 0, o: int = 0, to_move: int = 0) -> None:
        self.masks = (x, o)
        self.to_move = to_move
        self._winner = 0 if HAS_LINE[x] else 1 if HAS_LINE[o] else None
        self._over = self._winner is not None or (x | o) == FULL

    def legal_moves(self) -> tuple[int, ...]:
        if self._over:
            return ()
        x, o = self.masks
        return SQUARES[FULL & ~(x | o)]

    def play(self, move: int) -> TicTacToeState:
        x, o = self.masks
        if self._over or type(move) is not int or not 0 <= move < 9 or (x | o) >> move & 1:
            raise IllegalMoveError(f"move {move!r} is not legal here "
                                   f"(legal: {' '.join(map(str, self.legal_moves())) or 'none, the game is over'})")
        if self.to_move == 0:
            return TicTacToeState(x | 1 << move, o, 1)
        return TicTacToeState(x, o | 1 << move, 0)

    def is_terminal(self) -> bool:
        return self._over

    @property
    def winner(self) -> int | None:
        return self._winner

    def cell(self, square: int) -> int:
        """Who holds square: 0 (x), 1 (o) or -1 (empty)."""
        x, o = self.masks
        return 0 if x >> square & 1 else 1 if o >> square & 1 else -1

    def grid(self) -> Grid:
        return Grid(3, 3, "".join(_MARKS[self.cell(s) + 1] for s in range(9)))

    def encode(self) -> str:
        return "".join(_MARKS[self.cell(s) + 1] for s in range(9)) + " " + "xo"[self.to_move]

    def render(self) -> str:
        rows = []
        for r in range(3):
            marks = [_MARKS[self.cell(3 * r + c) + 1] if self.cell(3 * r + c) >= 0 else str(3 * r + c)
                     for c in range(3)]
            rows.append(" " + " | ".join(marks))
        return "\n---+---+---\n".join(rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TicTacToeState) and (self.masks, self.to_move) == (other.masks, other.to_move)

    def __hash__(self) -> int:
        return hash((self.masks, self.to_move))

    def __repr__(self) -> str:
        return f"TicTacToeState({self.encode()!r})"


class TicTacToe(Game):
    """Tic-tac-toe: three in a row wins, a full board with no line is a draw."""

    info = GameInfo(
        name="tictactoe",
        summary="3x3 tic-tac-toe: three in a row wins; a full board is a draw.",
        rules=("Players x (seat 0, first) and o alternate placing a mark on an empty cell "
               "0..8 (row-major). Three in a row, column or diagonal wins; a full board "
               "with no line is a draw."),
        max_length=9,
        move_count=9,
    )

    def initial_state(self) -> TicTacToeState:
        return TicTacToeState()

    def parse_state(self, text: str) -> TicTacToeState:
        parts = text.split()
        if len(parts) != 2 or len(parts[0]) != 9 or parts[1] not in ("x", "o") \
                or set(parts[0]) - set(_MARKS):
            raise InvalidStateError(f"{text[:60]!r} is not a tic-tac-toe state: expected 9 cells "
                                    "of '.', 'x', 'o', a space and the mark to move ('x' or 'o')")
        x = sum(1 << s for s, c in enumerate(parts[0]) if c == "x")
        o = sum(1 << s for s, c in enumerate(parts[0]) if c == "o")
        to_move = "xo".index(parts[1])
        if POPCOUNT[x] - POPCOUNT[o] != to_move:
            raise InvalidStateError(f"{text!r}: {POPCOUNT[x]} x and {POPCOUNT[o]} o cannot have "
                                    f"{parts[1]} to move")
        if HAS_LINE[x] and HAS_LINE[o]:
            raise InvalidStateError(f"{text!r}: both players have a line")
        return TicTacToeState(x, o, to_move)
