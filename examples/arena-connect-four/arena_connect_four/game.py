"""Connect Four rules: 7 columns, 6 rows; drop a disc, four in a line wins."""

from __future__ import annotations

from arena.games import Game, GameInfo, Grid, IllegalMoveError, InvalidStateError, State

COLUMNS, ROWS = 7, 6
_MARKS = ".xo"

#: every line of four squares (row-major square numbers, row 0 at the top)
LINES = tuple(
    tuple((r + i * dr) * COLUMNS + c + i * dc for i in range(4))
    for r in range(ROWS) for c in range(COLUMNS)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
    if 0 <= r + 3 * dr < ROWS and 0 <= c + 3 * dc < COLUMNS
)
#: LINES_THROUGH[square]: the lines a disc on square can complete
LINES_THROUGH = tuple(tuple(line for line in LINES if s in line) for s in range(ROWS * COLUMNS))


class ConnectFourState(State):
    """A position: the 42 squares row-major from the top ('.', 'x', 'o') and who moves."""

    __slots__ = ("_over", "_winner", "board", "to_move")

    def __init__(self, board: str = "." * ROWS * COLUMNS, to_move: int = 0,
                 winner: int | None = None) -> None:
        self.board = board
        self.to_move = to_move
        self._winner = winner
        self._over = winner is not None or "." not in board[:COLUMNS]

    def legal_moves(self) -> tuple[int, ...]:
        if self._over:
            return ()
        return tuple(c for c in range(COLUMNS) if self.board[c] == ".")

    def landing(self, column: int) -> int:
        """The square a disc dropped in column comes to rest on, -1 if the column is full."""
        for row in range(ROWS - 1, -1, -1):
            if self.board[row * COLUMNS + column] == ".":
                return row * COLUMNS + column
        return -1

    def play(self, move: int) -> ConnectFourState:
        if self._over or type(move) is not int or not 0 <= move < COLUMNS or self.board[move] != ".":
            legal = " ".join(map(str, self.legal_moves())) or "none, the game is over"
            raise IllegalMoveError(f"move {move!r} is not legal here (legal columns: {legal})")
        square = self.landing(move)
        mark = "xo"[self.to_move]
        board = self.board[:square] + mark + self.board[square + 1:]
        won = any(all(board[s] == mark for s in line) for line in LINES_THROUGH[square])
        return ConnectFourState(board, 1 - self.to_move, self.to_move if won else None)

    def is_terminal(self) -> bool:
        return self._over

    @property
    def winner(self) -> int | None:
        return self._winner

    def grid(self) -> Grid:
        return Grid(ROWS, COLUMNS, self.board)

    def encode(self) -> str:
        return f"{self.board} {'xo'[self.to_move]}"

    def render(self) -> str:
        rows = [" ".join(self.board[r * COLUMNS:(r + 1) * COLUMNS]) for r in range(ROWS)]
        return "\n".join(rows + [" ".join(str(c) for c in range(COLUMNS))])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConnectFourState) and (self.board, self.to_move) == (other.board, other.to_move)

    def __hash__(self) -> int:
        return hash((self.board, self.to_move))

    def __repr__(self) -> str:
        return f"ConnectFourState({self.encode()!r})"


class ConnectFour(Game):
    """Connect Four on the standard 7x6 board."""

    info = GameInfo(
        name="connect-four",
        summary="Connect Four, 7 columns by 6 rows: four in a row wins; a full board is a draw.",
        rules=("Players x (seat 0, first) and o alternate dropping a disc into a column 0..6; "
               "it falls to the lowest empty square. Four discs in a row, column or diagonal "
               "win; a full board with no four is a draw."),
        max_length=ROWS * COLUMNS,
        move_count=COLUMNS,
    )

    def initial_state(self) -> ConnectFourState:
        return ConnectFourState()

    def parse_state(self, text: str) -> ConnectFourState:
        parts = text.split()
        if (len(parts) != 2 or len(parts[0]) != ROWS * COLUMNS or set(parts[0]) - set(_MARKS)
                or parts[1] not in ("x", "o")):
            raise InvalidStateError(f"{text[:60]!r} is not a Connect Four state: expected 42 of "
                                    "'.xo' (row-major from the top) and 'x' or 'o' to move")
        board, to_move = parts[0], "xo".index(parts[1])
        for s, mark in enumerate(board):
            if mark != "." and s + COLUMNS < len(board) and board[s + COLUMNS] == ".":
                raise InvalidStateError(f"square {s} holds a disc above an empty square")
        if board.count("x") - board.count("o") != to_move:
            raise InvalidStateError("the disc counts do not match the side to move")
        winner = next((("xo".index(board[line[0]])) for line in LINES
                       if board[line[0]] != "." and all(board[s] == board[line[0]] for s in line)), None)
        return ConnectFourState(board, to_move, winner)
