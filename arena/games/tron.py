"""Tron (light cycles): 2 to 4 cycles on a grid, each leaving a wall, by one of two rule sets.

The 2010 Google AI Challenge's (`ruleset=aichallenge2010`, the default): every turn each
cycle still in moves one cell up, down, left or right, all at once. A cycle that moves
into the border or into any cell already taken (a wall, a trail, a head, its own trail)
goes out, and so do cycles whose heads move into the same free cell. A cycle that goes
out does not enter the cell it moved to, and its trail stays on the board. Two cycles
swapping cells head-on each move into a cell the other holds, so both go out. The game
ends when at most one cycle is in: it is first, and the others rank by how long they
lasted, cycles going out on the same turn tying. A map (the `map` option) adds walls and
fixes the grid and the two starts.

CodinGame's Tron Battle (`ruleset=codingame`): a 30x20 grid by default, starts drawn
from the game's seed, and the cycles move one at a time in seat order, each seeing the
moves made before it; a cycle that goes out leaves the board, its trail with it. Nothing
ties: the others rank by the move they went out on.

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
    FromFile,
    Game,
    GameError,
    GameInfo,
    GameOptionError,
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
#: the rule sets: the 2010 Google AI Challenge's (the default) and CodinGame's Tron Battle
AICHALLENGE2010, CODINGAME = "aichallenge2010", "codingame"
RULESETS = (AICHALLENGE2010, CODINGAME)
#: CodinGame's grid, columns by rows
CODINGAME_SIZE = (30, 20)
WALL = "#"
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
    border: int                     #: bits of the border cells, and of the walls
    starts: tuple[int, ...]         #: bordered index of each seat's first cell (fixed starts)
    #: CodinGame's rules: one cycle moves at a time, in seat order; a cycle going out leaves
    #: no trail; the starts are drawn from the game's seed
    sequential: bool = False
    walls: int = 0                  #: bits of the walls inside the grid (a map's)

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
def board_of(width: int, height: int, players: int, ruleset: str = AICHALLENGE2010, layout: str = "") -> Board:
    """The Board of these rule options (made once and shared by every state); layout: a
    map as the `map` option holds it (rows of '#', '.', '1', '2' joined by '/'), or ""."""
    stride = width + 2
    border = 0
    for row in range(height + 2):
        for column in range(stride):
            if row in (0, height + 1) or column in (0, stride - 1):
                border |= 1 << (row * stride + column)
    cells = start_cells(width, height, players)
    walls = 0
    if layout:
        lines = layout.split("/")
        found = {mark: (y, x) for y, line in enumerate(lines) for x, mark in enumerate(line) if mark in "12"}
        cells = (found["1"], found["2"])
        for y, line in enumerate(lines):
            for x, mark in enumerate(line):
                if mark == WALL:
                    walls |= 1 << ((y + 1) * stride + x + 1)
    starts = tuple((r + 1) * stride + c + 1 for r, c in cells)
    return Board(width, height, players, stride, (-stride, stride, -1, 1), border | walls, starts,
                 ruleset == CODINGAME, walls)


class TronState(State):
    """A Tron position: the taken cells, each seat's trail and head, who is out and when;
    by CodinGame's rules also whose move it is and where each cycle started."""

    __slots__ = ("board", "taken", "trails", "heads", "out", "turn", "seats", "to_move", "starts", "_live")

    def __init__(self, board: Board, taken: int, trails: tuple[int, ...], heads: tuple[int, ...],
                 out: tuple[int, ...], turn: int, to_move: int = SIMULTANEOUS,
                 starts: tuple[int, ...] | None = None) -> None:
        self.board = board
        self.taken = taken      # every taken cell, the border and walls, as bits of the bordered board
        self.trails = trails    # per seat: bits of its cells, head included (none once out, by CodinGame's rules)
        self.heads = heads      # per seat: bordered index of its head (its last cell once out)
        self.out = out          # per seat: the turn it went out on, IN while in
        self.turn = turn        # turns played: by CodinGame's rules, whole rounds of moves
        self.seats = board.players
        # SIMULTANEOUS, or by CodinGame's rules the seat that moves next (once the game is
        # over: the one left in)
        self.to_move = to_move
        self.starts = board.starts if starts is None else starts   # per seat: its first cell
        live = tuple(s for s in range(board.players) if out[s] == IN)
        self._live = (live if to_move == SIMULTANEOUS else (to_move,)) if len(live) > 1 else ()

    def movers(self) -> tuple[int, ...]:
        return self._live

    def moves_of(self, seat: int) -> tuple[int, ...]:
        return ALL_MOVES if seat in self._live else ()

    def legal_moves(self) -> tuple[int, ...]:
        """Moves some seat may play now (every seat moving may play any of the four)."""
        return ALL_MOVES if self._live else ()

    def play(self, move: int) -> TronState:
        if self.to_move == SIMULTANEOUS:
            raise IllegalMoveError(f"move {move!r}: in tron the cycles move at once; play one move per "
                                   f"seat moving {list(self._live)} with play_joint")
        return self._step(move, False)

    def play_joint(self, moves: Sequence[int]) -> TronState:
        if self.to_move != SIMULTANEOUS:
            if not isinstance(moves, (list, tuple)) or len(moves) != 1:
                raise IllegalMoveError(f"expected a list of one move for the seat moving now "
                                       f"{list(self._live)}, got {moves!r}"[:200])
            return self._step(moves[0], False)
        return self._advance(moves, ())

    def play_without(self, moves: Sequence[int], out: Sequence[int]) -> TronState:
        """The joint move with the cycles of `out` going out where they stand this turn, as
        a cycle that crashes does (their trails stay; by CodinGame's rules they go)."""
        gone = set(out)
        if self.to_move != SIMULTANEOUS:
            if gone != {self.to_move}:
                raise IllegalMoveError(f"seats {sorted(gone)} cannot go out now: seat {self.to_move} moves")
            return self._step(0, True)
        return self._advance([0 if seat in gone else m for seat, m in zip(self._live, moves)], gone)

    def _step(self, move: int, faulted: bool) -> TronState:
        """By CodinGame's rules: the seat to move moves (or, faulted, goes out where it stands);
        a cycle going out takes its trail off the board, and the next seat still in moves."""
        seat = self.to_move
        if not self._live:
            raise IllegalMoveError(f"move {move!r}: the game is over")
        if type(move) is not int or not 0 <= move < 4:
            raise IllegalMoveError(f"move {move!r} is not legal here: expected one of 0..3"[:200])
        taken, trails, heads, out = self.taken, list(self.trails), list(self.heads), list(self.out)
        cell = self.heads[seat] + self.board.steps[move]
        if faulted or taken >> cell & 1:
            out[seat] = self.turn + 1
            taken &= ~trails[seat]
            trails[seat], heads[seat] = 0, self.starts[seat]   # nothing of it is left on the board
        else:
            heads[seat] = cell
            trails[seat] |= 1 << cell
            taken |= 1 << cell
        players, turn = self.board.players, self.turn
        after = next((s for s in range(seat + 1, players) if out[s] == IN), None)
        if after is None:       # the round is over: the next starts with the first seat still in
            turn += 1
            after = next((s for s in range(players) if out[s] == IN), seat)
        return TronState(self.board, taken, tuple(trails), tuple(heads), tuple(out), turn, after, self.starts)

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
        return TronState(self.board, taken, tuple(trails), tuple(heads), tuple(out), turn, SIMULTANEOUS,
                         self.starts)

    def is_terminal(self) -> bool:
        return not self._live

    def seats_in(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.seats) if self.out[s] == IN) if self._live else ()

    def ranking(self) -> tuple[int, ...]:
        if self._live:
            raise GameError("the game is not over: no result yet")
        return self.standing()

    def standing(self) -> tuple[int, ...]:
        """Rank per seat as the game stands: the cycles still in tie first, the others below
        them as ranking() ranks them."""
        # a cycle still in lasted longest; the others by the turn they went out on, and by
        # CodinGame's rules, where the seats of a turn move in order, by their seat within it
        last = self.turn + 2
        lasted = [(last, 0) if t == IN else (t, s if self.board.sequential else 0) for s, t in enumerate(self.out)]
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
        """'.' for a free cell, '#' for a wall, else the letter of the seat holding it (a
        capital for a head)."""
        bit = 1 << index
        if not self.taken & bit:
            return "."
        if self.board.walls & bit:
            return WALL
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
        """The rows joined by '/', the turn, and per seat '-' or the turn it went out on; by
        CodinGame's rules then the seat to move and each seat's first cell (row * width +
        column), comma-separated."""
        status = ",".join("-" if t == IN else str(t) for t in self.out)
        text = f"{'/'.join(self.rows())} {self.turn} {status}"
        if not self.board.sequential:
            return text
        b = self.board
        firsts = ",".join(str((cell // b.stride - 1) * b.width + cell % b.stride - 1) for cell in self.starts)
        return f"{text} {self.to_move} {firsts}"

    def render(self) -> str:
        lines = self.rows()
        seats = [f"{HEAD[s]} {'in' if t == IN else f'out on turn {t}'}" for s, t in enumerate(self.out)]
        moving = f", {HEAD[self.to_move]} to move" if self.board.sequential and self._live else ""
        lines.append(f"turn {self.turn}{moving}: " + ", ".join(seats))
        if not self._live:
            lines.append("ranking: " + " ".join(f"{HEAD[s]}={r + 1}" for s, r in enumerate(self.ranking())))
        return "\n".join(lines)

    def _key(self) -> tuple:
        return (self.board, self.taken, self.trails, self.heads, self.out, self.turn, self.to_move, self.starts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TronState) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"TronState({self.encode()!r})"


_RULES_2010 = (
    "Each cycle (seat 0 'A', 1 'B', 2 'C', 3 'D') starts on its own cell of a width x height "
    "grid; every turn all cycles still in move at once, one cell up, down, left or right "
    "(moves u, d, l, r; up, down, left, right also read), leaving a wall. A cycle moving into "
    "the border, any trail or head (its own too) goes out, and so do cycles moving into the "
    "same free cell; two cycles swapping cells head-on both go out. A cycle going out stays "
    "where it was and its trail stays. The last cycle in is first; the others rank by the "
    "turn they went out, those going out together tying (with two players: a draw).")
_MAP_2010 = (" A map (option map) adds its walls ('#') and fixes the grid's size and the two starts.")
_RULES_CODINGAME = (
    "CodinGame's Tron Battle: each cycle (seat 0 'A', 1 'B', 2 'C', 3 'D') starts on a cell of "
    "the grid (30x20 unless width and height say otherwise) drawn from the game's seed, the same "
    "for every game of that seed; every turn the cycles still in move one after another in seat "
    "order, one cell up, down, left or right, leaving a wall, each seeing the moves made before "
    "it. A cycle moving into the border or any trail or head (its own too) goes out, and its "
    "trail leaves the board. The last cycle in is first; the others rank by when they went out, "
    "later first: nothing ties.")


def read_map(text: str) -> str:
    """A map in the 2010 Google AI Challenge's format (its first line "WIDTH HEIGHT", then
    HEIGHT rows of WIDTH characters: '#' a wall, ' ' free, '1' and '2' the two starts) as the
    `map` option holds it: the rows joined by '/', free cells '.'. GameOptionError saying
    what is wrong, and on which line, otherwise."""
    lines = text.replace("\r\n", "\n").split("\n")
    size = lines[0].split()
    if len(size) != 2 or not all(part.isascii() and part.isdigit() for part in size):
        raise GameOptionError(f"the first line must be 'WIDTH HEIGHT', two whole numbers, not {lines[0][:40]!r}", 1)
    width, height = int(size[0]), int(size[1])
    if width not in SIZES or height not in SIZES:
        raise GameOptionError(f"a map of {width}x{height}: width and height must each be "
                              f"{SIZES.start}..{SIZES.stop - 1}", 1)
    rows = lines[1:1 + height]
    if len(rows) < height:
        raise GameOptionError(f"the map has {len(rows)} rows after its first line, not the {height} it gives",
                              len(lines))
    for number, row in enumerate(rows, 2):
        if len(row) != width:
            raise GameOptionError(f"a row of {len(row)} cells, not {width}", number)
        bad = set(row) - set("# 12")
        if bad:
            raise GameOptionError(f"{sorted(bad)[0]!r} is not a cell: '#' a wall, ' ' free, '1' and '2' the "
                                  "starts", number)
    if any(line.strip() for line in lines[1 + height:]):
        raise GameOptionError(f"more than the {height} rows the first line gives", 2 + height)
    joined = "".join(rows)
    for start in "12":
        if joined.count(start) != 1:
            raise GameOptionError(f"the map has {joined.count(start)} cells '{start}', not one: "
                                  f"'1' and '2' mark the two starts")
    return "/".join(row.replace(" ", ".") for row in rows)


def _valid_map(value: str) -> bool:
    """Whether value is a map as the `map` option holds it (read_map's result)."""
    rows = value.split("/")
    joined = "".join(rows)
    return (len(rows) in SIZES and len({len(row) for row in rows}) == 1 and len(rows[0]) in SIZES
            and not set(joined) - set("#.12") and joined.count("1") == 1 and joined.count("2") == 1)


MAPS = FromFile("map file in the 2010 Google AI Challenge's format", read_map, _valid_map)


class Tron(Game):
    """Light cycles for 2 to 4 players, by the 2010 Google AI Challenge's rules (moving at
    once) or by CodinGame's Tron Battle's (moving in turn)."""

    info = GameInfo(
        name="tron",
        summary="Tron light cycles, 2-4 players moving at once: the last cycle in wins.",
        rules=_RULES_2010,
        max_length=max(SIZES) ** 2,
        move_count=4,
        options=(
            RuleOption("width", SIZES, 16, "columns of the grid (by CodinGame's rules 30 unless given)"),
            RuleOption("height", SIZES, 16, "rows of the grid (by CodinGame's rules 20 unless given)"),
            RuleOption("players", PLAYERS, 2, "number of cycles (seats)"),
            RuleOption("ruleset", RULESETS, AICHALLENGE2010,
                       "whose rules: the 2010 Google AI Challenge's, or CodinGame's Tron Battle's",
                       stated=False),
            RuleOption("map", MAPS, "", "by the 2010 rules, the walls and two starts of a map file in "
                       "the challenge's format (its size the grid's; players 2)", stated=False),
        ),
        simultaneous=True,
        seat_names=tuple(HEAD),
        rulesets=((AICHALLENGE2010, _RULES_2010 + _MAP_2010), (CODINGAME, _RULES_CODINGAME)),
    )

    @classmethod
    def option_defaults(cls, given: dict[str, object]) -> dict[str, object]:
        """By CodinGame's rules the grid is 30x20 unless width and height are given."""
        defaults = super().option_defaults(given)
        if given.get("ruleset") == CODINGAME:
            defaults["width"], defaults["height"] = CODINGAME_SIZE
        layout = given.get("map")
        if isinstance(layout, str) and layout:
            rows = layout.split("/")
            defaults["width"], defaults["height"] = len(rows[0]), len(rows)
        return defaults

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        ruleset, layout = self.options.get("ruleset", AICHALLENGE2010), self.options.get("map", "")
        width, height, players = self.options["width"], self.options["height"], self.options["players"]
        if layout:
            rows = layout.split("/")
            if ruleset != AICHALLENGE2010 or players != 2 or (width, height) != (len(rows[0]), len(rows)):
                raise GameOptionError(f"game 'tron': a map is of the 2010 rules, for 2 players, its grid its "
                                      f"own {len(rows[0])}x{len(rows)} (ruleset={ruleset}, players={players}, "
                                      f"width={width}, height={height} given)")
        self.board = board_of(width, height, players, ruleset, layout)
        if ruleset == CODINGAME:
            self.info = self.info._replace(
                summary="Tron light cycles, 2-4 players moving in turn (CodinGame's Tron Battle): "
                        "the last cycle in wins.",
                rules=_RULES_CODINGAME, simultaneous=False, rounds=True)

    def initial_state(self) -> TronState:
        """The start: by CodinGame's rules, the one of seed 0 (start(seed) draws it)."""
        if self.board.sequential:
            return self.start(0)
        return self._start(self.board.starts, SIMULTANEOUS)

    def start(self, seed: int) -> TronState:
        """By CodinGame's rules each seat's first cell drawn from the seed (distinct cells,
        uniformly), so the games of one seed start alike; else the fixed starts."""
        b = self.board
        if not b.sequential:
            return self.initial_state()
        cells = random.Random(seed).sample(range(b.width * b.height), b.players)
        return self._start(tuple(b.cell(*divmod(cell, b.width)) for cell in cells), 0)

    def _start(self, starts: tuple[int, ...], to_move: int) -> TronState:
        b = self.board
        trails = tuple(1 << cell for cell in starts)
        taken = b.border
        for trail in trails:
            taken |= trail
        return TronState(b, taken, trails, starts, (IN,) * b.players, 0, to_move, starts)

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
                f"{b.width} cells ('.', {TRAIL[:b.players]!r} trails, {HEAD[:b.players]!r} heads"
                f"{', ' + repr(WALL) + ' walls' if b.walls else ''}) joined by '/', "
                "the turn, and per seat '-' (in) or the turn it went out, comma-separated")
        if b.sequential:
            what += ("; then the seat to move, and each seat's first cell (row * width + column), "
                     "comma-separated")
        parts = text.split(" ")
        if len(parts) != (5 if b.sequential else 3) or not parts[1].isascii() or not parts[1].isdigit():
            raise InvalidStateError(f"{text[:60]!r} is not {what}")
        rows, turn, status = parts[0].split("/"), int(parts[1]), parts[2].split(",")
        last = turn + 1 if b.sequential else turn     # by CodinGame's rules a seat goes out within a turn
        allowed = set("." + TRAIL[:b.players] + HEAD[:b.players] + (WALL if b.walls else ""))
        if len(rows) != b.height or any(len(r) != b.width or set(r) - allowed for r in rows) \
                or len(status) != b.players \
                or not all(s == "-" or (s.isascii() and s.isdigit() and 0 < int(s) <= last) for s in status):
            raise InvalidStateError(f"{text[:60]!r} is not {what}")
        out = tuple(IN if s == "-" else int(s) for s in status)
        to_move, starts = SIMULTANEOUS, b.starts
        if b.sequential:
            to_move, starts = self._mover_and_starts(parts[3], parts[4], out, text, what)
        trails, heads = [0] * b.players, [-1] * b.players
        taken = b.border
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                index = b.cell(r, c)
                if (ch == WALL) != bool(b.walls >> index & 1):
                    raise InvalidStateError(f"{text[:60]!r}: the walls are not the map's")
                if ch in ".#":
                    continue
                seat = (TRAIL + HEAD).index(ch) % 4
                trails[seat] |= 1 << index
                taken |= 1 << index
                if ch in HEAD:
                    if heads[seat] >= 0:
                        raise InvalidStateError(f"{text[:60]!r}: cycle {HEAD[seat]} has two heads")
                    heads[seat] = index
        for seat in range(b.players):
            cells = bin(trails[seat]).count("1")
            if b.sequential and out[seat] != IN:      # its trail left the board with it
                if cells:
                    raise InvalidStateError(f"{text[:60]!r}: cycle {HEAD[seat]} is out but holds {cells} cells")
                heads[seat] = starts[seat]
                continue
            if heads[seat] < 0:
                raise InvalidStateError(f"{text[:60]!r}: cycle {HEAD[seat]} has no head")
            # a cycle holds its first cell and one more for each turn it survived (by
            # CodinGame's rules: each move it made, this turn's if its seat moved already)
            expected = turn + 1 if out[seat] == IN else out[seat]
            if b.sequential:
                expected += seat < to_move
                if not trails[seat] >> starts[seat] & 1:
                    raise InvalidStateError(f"{text[:60]!r}: cycle {HEAD[seat]} does not hold its first cell")
            if cells != expected:
                raise InvalidStateError(f"{text[:60]!r}: cycle {HEAD[seat]} holds {cells} cells, "
                                        f"not the {expected} of a cycle {'in' if out[seat] == IN else 'out'} "
                                        f"after {turn} turns")
        if not b.sequential:
            ended = max(t for t in out if t != IN) if sum(t == IN for t in out) < 2 else turn
            if ended != turn:
                raise InvalidStateError(f"{text[:60]!r}: the game ended on turn {ended}, not {turn}")
        return TronState(b, taken, tuple(trails), tuple(heads), out, turn, to_move, starts)

    def _mover_and_starts(self, mover: str, firsts: str, out: tuple[int, ...], text: str,
                          what: str) -> tuple[int, tuple[int, ...]]:
        """A CodinGame state's seat to move (one still in) and first cells (distinct cells)."""
        b = self.board
        cells = firsts.split(",")
        if not (mover.isascii() and mover.isdigit() and int(mover) < b.players and out[int(mover)] == IN) \
                or len(cells) != b.players \
                or not all(c.isascii() and c.isdigit() and int(c) < b.width * b.height for c in cells) \
                or len(set(cells)) != len(cells):
            raise InvalidStateError(f"{text[:60]!r} is not {what}")
        return int(mover), tuple(b.cell(*divmod(int(c), b.width)) for c in cells)

    def random_playout(self, state: TronState, rng: random.Random) -> TronState:
        """The end of a game from state with every move uniformly random: the same game,
        drawing from rng alike, as random_turns through play_joint, without the states between."""
        if not state.movers():
            return state
        if state.board.sequential:
            while state.movers():
                state = state.play(int(rng.random() * 4))
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
        return TronState(state.board, taken, tuple(trails), tuple(heads), tuple(out), turn, SIMULTANEOUS,
                         state.starts)
