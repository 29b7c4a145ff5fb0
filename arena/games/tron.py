"""Tron (light cycles): 2 to 4 cycles on a grid, all moving at once, each leaving a wall.

Every turn each cycle still in moves one cell up, down, left or right. A cycle that
moves into the border or into any cell already taken (a trail, a head, its own trail)
goes out, and so do cycles whose heads move into the same free cell. A cycle that
goes out does not enter the cell it moved to, and its trail stays on the board. Two
cycles swapping cells head-on each move into a cell the other holds, so both go out.
The game ends when at most one cycle is in: it is first, and the others rank by how
long they lasted, cycles going out on the same turn tying.

Cells are kept in a board with a one-cell border, index (row + 1) * (width + 2) +
column + 1, so a step is one addition and a crash one bit test of an int holding
every taken cell, border included.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import NamedTuple

from .base import (
    SIMULTANEOUS,
    Game,
    GameError,
    GameInfo,
    Grid,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    RuleOption,
    State,
    scores_from_ranking,
)

#: moves 0..3 and their canonical text
UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
MOVE_TEXT = ("u", "d", "l", "r")
_MOVE_WORDS = {"u": UP, "up": UP, "d": DOWN, "down": DOWN, "l": LEFT, "left": LEFT, "r": RIGHT, "right": RIGHT}
ALL_MOVES = (UP, DOWN, LEFT, RIGHT)
SIZES = range(3, 65)
PLAYERS = (2, 3, 4)
#: trail letters per seat; a cycle's head is its letter in capitals
TRAIL = "abcd"
HEAD = "ABCD"
IN = -1   # out_turn of a cycle still in


class Board(NamedTuple):
    """The fixed facts of a width x height board with players cycles."""

    width: int
    height: int
    players: int
    stride: int                     #: width + 2: a row of the bordered board
    steps: tuple[int, int, int, int]  #: index change of up, down, left, right
    border: int                     #: bits of the border cells
    starts: tuple[int, ...]         #: bordered index of each seat's first cell

    def cell(self, row: int, column: int) -> int:
        """Bordered index of a cell."""
        return (row + 1) * self.stride + column + 1


def start_cells(width: int, height: int, players: int) -> tuple[tuple[int, int], ...]:
    """(row, column) of each seat's first cell. Two cycles face each other across the
    vertical mirror line; four sit at the quarter points, symmetric under both mirrors;
    three sit at the two upper quarter points and the bottom centre (mirror-symmetric
    when the width is odd)."""
    top, bottom = height // 4, height - 1 - height // 4
    left, right = width // 4, width - 1 - width // 4
    if players == 2:
        return ((height // 2, left), (height // 2, right))
    if players == 3:
        return ((top, left), (top, right), (bottom, width // 2))
    return ((top, left), (top, right), (bottom, right), (bottom, left))


@functools.lru_cache(maxsize=64)
def board_of(width: int, height: int, players: int) -> Board:
    """The Board of these rule options (made once and shared by every state)."""
    stride = width + 2
    border = 0
    for row in range(height + 2):
        for column in range(stride):
            if row in (0, height + 1) or column in (0, stride - 1):
                border |= 1 << (row * stride + column)
    starts = tuple((r + 1) * stride + c + 1 for r, c in start_cells(width, height, players))
    return Board(width, height, players, stride, (-stride, stride, -1, 1), border, starts)


class TronState(State):
    """A Tron position: the taken cells, each seat's trail and head, who is out and when."""

    __slots__ = ("board", "taken", "trails", "heads", "out", "turn", "seats", "to_move", "_live")

    def __init__(self, board: Board, taken: int, trails: tuple[int, ...], heads: tuple[int, ...],
                 out: tuple[int, ...], turn: int) -> None:
        self.board = board
        self.taken = taken      # every taken cell and the border, as bits of the bordered board
        self.trails = trails    # per seat: bits of its cells, head included
        self.heads = heads      # per seat: bordered index of its head (its last cell once out)
        self.out = out          # per seat: the turn it went out on, IN while in
        self.turn = turn        # turns played
        self.seats = board.players
        self.to_move = SIMULTANEOUS
        live = tuple(s for s in range(board.players) if out[s] == IN)
        self._live = live if len(live) > 1 else ()

    def movers(self) -> tuple[int, ...]:
        return self._live

    def moves_of(self, seat: int) -> tuple[int, ...]:
        return ALL_MOVES if seat in self._live else ()

    def legal_moves(self) -> tuple[int, ...]:
        """Moves some seat may play now (every seat still in may play any of the four)."""
        return ALL_MOVES if self._live else ()

    def play(self, move: int) -> TronState:
        raise IllegalMoveError(f"move {move!r}: in tron the cycles move at once; play one move per "
                               f"seat moving {list(self._live)} with play_joint")

    def play_joint(self, moves: Sequence[int]) -> TronState:
        return self._advance(moves, ())

    def play_without(self, moves: Sequence[int], out: Sequence[int]) -> TronState:
        """The joint move with the cycles of `out` going out where they stand this turn, as
        a cycle that crashes does (their trails stay)."""
        gone = set(out)
        return self._advance([0 if seat in gone else m for seat, m in zip(self._live, moves)], gone)

    def _advance(self, moves: Sequence[int], gone: Sequence[int] | set[int]) -> TronState:
        """play_joint, the seats in gone going out instead of moving."""
        live = self._live
        if not isinstance(moves, (list, tuple)) or len(moves) != len(live) \
                or not all(type(m) is int and 0 <= m < 4 for m in moves):
            raise IllegalMoveError(
                f"joint move {moves!r} is not legal here: expected one of 0..3 for each seat moving "
                f"{list(live)}"[:200] if live else f"joint move {moves!r}: the game is over"[:200])
        steps, taken = self.board.steps, self.taken
        # a cycle going out for a fault moves nowhere: its target is no cell
        targets = [-1 if seat in gone else self.heads[seat] + steps[move] for seat, move in zip(live, moves)]
        heads, trails, out = list(self.heads), list(self.trails), list(self.out)
        turn = self.turn + 1
        for i, seat in enumerate(live):
            cell = targets[i]
            if cell < 0 or taken >> cell & 1 or targets.count(cell) > 1:
                out[seat] = turn
            else:
                heads[seat] = cell
                trails[seat] |= 1 << cell
        for seat in live:
            if out[seat] == IN:
                taken |= 1 << heads[seat]
        return TronState(self.board, taken, tuple(trails), tuple(heads), tuple(out), turn)

    def is_terminal(self) -> bool:
        return not self._live

    def ranking(self) -> tuple[int, ...]:
        if self._live:
            raise GameError("the game is not over: no result yet")
        # a cycle still in lasted longest; the others by the turn they went out on
        lasted = [self.turn + 1 if t == IN else t for t in self.out]
        return tuple(sum(other > mine for other in lasted) for mine in lasted)

    def returns(self) -> tuple[float, ...]:
        return scores_from_ranking(self.ranking())

    @property
    def winner(self) -> int | None:
        """The seat ranked first alone, once the game is over; None otherwise."""
        if self._live:
            return None
        ranking = self.ranking()
        return ranking.index(0) if ranking.count(0) == 1 else None

    def cell_char(self, index: int) -> str:
        """'.' for a free cell, else the letter of the seat holding it (a capital for a head)."""
        bit = 1 << index
        if not self.taken & bit:
            return "."
        for seat, trail in enumerate(self.trails):
            if trail & bit:
                return HEAD[seat] if self.heads[seat] == index else TRAIL[seat]
        return "."

    def rows(self) -> list[str]:
        """The board, one string of cell letters per row."""
        b = self.board
        return ["".join(self.cell_char(b.cell(r, c)) for c in range(b.width)) for r in range(b.height)]

    def grid(self) -> Grid:
        """The board as rows() letters it: what the site's replay viewer draws."""
        return Grid(self.board.height, self.board.width, "".join(self.rows()))

    def encode(self) -> str:
        status = ",".join("-" if t == IN else str(t) for t in self.out)
        return f"{'/'.join(self.rows())} {self.turn} {status}"

    def render(self) -> str:
        lines = self.rows()
        seats = [f"{HEAD[s]} {'in' if t == IN else f'out on turn {t}'}" for s, t in enumerate(self.out)]
        lines.append(f"turn {self.turn}: " + ", ".join(seats))
        if not self._live:
            lines.append("ranking: " + " ".join(f"{HEAD[s]}={r + 1}" for s, r in enumerate(self.ranking())))
        return "\n".join(lines)

    def _key(self) -> tuple:
        return (self.board, self.taken, self.trails, self.heads, self.out, self.turn)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TronState) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"TronState({self.encode()!r})"


class Tron(Game):
    """Light cycles for 2 to 4 players moving at once."""

    info = GameInfo(
        name="tron",
        summary="Tron light cycles, 2-4 players moving at once: the last cycle in wins.",
        rules=("Each cycle (seat 0 'A', 1 'B', 2 'C', 3 'D') starts on its own cell of a width x height "
               "grid; every turn all cycles still in move at once, one cell up, down, left or right "
               "(moves u, d, l, r; up, down, left, right also read), leaving a wall. A cycle moving into "
               "the border, any trail or head (its own too) goes out, and so do cycles moving into the "
               "same free cell; two cycles swapping cells head-on both go out. A cycle going out stays "
               "where it was and its trail stays. The last cycle in is first; the others rank by the "
               "turn they went out, those going out together tying (with two players: a draw)."),
        max_length=max(SIZES) ** 2,
        move_count=4,
        options=(
            RuleOption("width", SIZES, 16, "columns of the grid"),
            RuleOption("height", SIZES, 16, "rows of the grid"),
            RuleOption("players", PLAYERS, 2, "number of cycles (seats)"),
        ),
        simultaneous=True,
    )

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.board = board_of(self.options["width"], self.options["height"], self.options["players"])

    def initial_state(self) -> TronState:
        b = self.board
        trails = tuple(1 << cell for cell in b.starts)
        taken = b.border
        for trail in trails:
            taken |= trail
        return TronState(b, taken, trails, b.starts, (IN,) * b.players, 0)

    def move_text(self, move: int) -> str:
        """u, d, l or r."""
        return MOVE_TEXT[move]

    def parse_move(self, text: str) -> int:
        move = _MOVE_WORDS.get(text.strip().lower())
        if move is None:
            raise InvalidMoveError(f"{text[:40]!r} is not a tron move: expected u, d, l or r "
                                   "(or up, down, left, right)")
        return move

    def parse_state(self, text: str) -> TronState:
        b = self.board
        what = (f"a tron state of {b.width}x{b.height} with {b.players} players: expected {b.height} rows of "
                f"{b.width} cells ('.', {TRAIL[:b.players]!r} trails, {HEAD[:b.players]!r} heads) joined by '/', "
                "the turn, and per seat '-' (in) or the turn it went out, comma-separated")
        parts = text.split(" ")
        if len(parts) != 3 or not parts[1].isascii() or not parts[1].isdigit():
            raise InvalidStateError(f"{text[:60]!r} is not {what}")
        rows, turn, status = parts[0].split("/"), int(parts[1]), parts[2].split(",")
        allowed = set("." + TRAIL[:b.players] + HEAD[:b.players])
        if len(rows) != b.height or any(len(r) != b.width or set(r) - allowed for r in rows) \
                or len(status) != b.players \
                or not all(s == "-" or (s.isascii() and s.isdigit() and 0 < int(s) <= turn) for s in status):
            raise InvalidStateError(f"{text[:60]!r} is not {what}")
        out = tuple(IN if s == "-" else int(s) for s in status)
        trails, heads = [0] * b.players, [-1] * b.players
        taken = b.border
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch == ".":
                    continue
                seat, index = (TRAIL + HEAD).index(ch) % 4, b.cell(r, c)
                trails[seat] |= 1 << index
                taken |= 1 << index
                if ch in HEAD:
                    if heads[seat] >= 0:
                        raise InvalidStateError(f"{text[:60]!r}: cycle {HEAD[seat]} has two heads")
                    heads[seat] = index
        for seat in range(b.players):
            if heads[seat] < 0:
                raise InvalidStateError(f"{text[:60]!r}: cycle {HEAD[seat]} has no head")
            # a cycle holds its first cell and one more for each turn it survived
            cells = bin(trails[seat]).count("1")
            expected = turn + 1 if out[seat] == IN else out[seat]
            if cells != expected:
                raise InvalidStateError(f"{text[:60]!r}: cycle {HEAD[seat]} holds {cells} cells, "
                                        f"not the {expected} of a cycle {'in' if out[seat] == IN else 'out'} "
                                        f"after {turn} turns")
        ended = max(t for t in out if t != IN) if sum(t == IN for t in out) < 2 else turn
        if ended != turn:
            raise InvalidStateError(f"{text[:60]!r}: the game ended on turn {ended}, not {turn}")
        return TronState(b, taken, tuple(trails), tuple(heads), out, turn)

    def random_playout(self, state: TronState, rng: random.Random) -> TronState:
        """The end of a game from state with every move uniformly random: the same game,
        drawing from rng alike, as random_turns through play_joint, without the states between."""
        if not state.movers():
            return state
        steps = state.board.steps
        taken, trails, heads, out = state.taken, list(state.trails), list(state.heads), list(state.out)
        turn = state.turn
        live = list(state.movers())
        draw = rng.random
        while len(live) > 1:
            turn += 1
            targets = [heads[seat] + steps[int(draw() * 4)] for seat in live]
            survivors = []
            for seat, cell in zip(live, targets):
                if taken >> cell & 1 or targets.count(cell) > 1:
                    out[seat] = turn
                else:
                    survivors.append((seat, cell))
            for seat, cell in survivors:
                heads[seat] = cell
                trails[seat] |= 1 << cell
                taken |= 1 << cell
            live = [seat for seat, _cell in survivors]
        return TronState(state.board, taken, tuple(trails), tuple(heads), tuple(out), turn)
