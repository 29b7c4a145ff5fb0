"""Feature extractors of the seeds, on 9x9 states, plus the per-board tables the searchers add up.

Every feature used here is a sum over the nine small boards of something that
depends on that board's 18-bit int alone, plus a term of the won-board masks,
plus (seed 001 only) a term of the board the next move is sent to. So a
searcher keeps one running sum and updates it from a table when a board
changes. The readable per-state functions below (`simple_features`,
`advanced_features`, `meta_basis`, `nineboard_twos`) define the features; the
tables are built from the same per-board helpers and tests check they agree.

Seed 001: Singhal and Nambikrishnan, "Playing Ultimate Tic-Tac-Toe with TD
Learning and Monte Carlo Tree Search", section 2.3. Seed 000: Weger,
"meta-tic-tac-toe", section "The Utility Function". Seed 004: Wlody,
"Building an AI for 9-board Tic-Tac-Toe", section 2.4.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from arena.games.grid import CENTRE, FULL, LINES, POPCOUNT
from arena.games.search_support import BOARD_SPACE, OPEN, STATUS, VALID_BOARDS

CORNER_MASK = sum(1 << s for s in (0, 2, 6, 8))
SIDE_MASK = sum(1 << s for s in (1, 3, 5, 7))


def _neighbours(square: int) -> int:
    r, c = divmod(square, 3)
    mask = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr or dc) and 0 <= r + dr < 3 and 0 <= c + dc < 3:
                mask |= 1 << (3 * (r + dr) + c + dc)
    return mask


#: NEIGHBOURS[s]: squares touching s in a 3x3 grid, across a side or a corner.
NEIGHBOURS = tuple(_neighbours(s) for s in range(9))

#: ADJACENT[mask]: how many squares of mask touch at least one other square of mask.
ADJACENT = tuple(sum(1 for s in range(9) if mask >> s & 1 and mask & NEIGHBOURS[s]) for mask in range(512))

#: ADJACENT_PAIRS[mask]: neighbouring pairs within mask, each counted from both ends (seed 001's published
#: code counts "adjacent pieces" so; the paper's text counts squares with a neighbour, ADJACENT).
ADJACENT_PAIRS = tuple(sum(POPCOUNT[mask & NEIGHBOURS[s]] for s in range(9) if mask >> s & 1) for mask in range(512))


def twos(mine: int, theirs: int) -> int:
    """Lines of a 3x3 grid holding two of `mine` and an empty third square."""
    return sum(1 for line in LINES if POPCOUNT[mine & line] == 2 and not theirs & line)


def blocks(mine: int, theirs: int) -> int:
    """Full lines where `mine` holds one square and `theirs` the other two (seed 000's blocking)."""
    return sum(1 for line in LINES if POPCOUNT[mine & line] == 1 and POPCOUNT[theirs & line] == 2)


# ---------------------------------------------------------------- seed 001 (ultimate)

#: The Perceptron Agent's weights, seed 001 section 2.3.1 ("chosen arbitrarily").
SIMPLE_WEIGHTS: dict[str, float] = {
    "wins": 5.0, "centerPieces": 0.2, "cornerPieces": 0.1, "adjacentPieces": 0.4,
}

#: The weights learned by TD learning, seed 001 section 2.3.2, verbatim.
ADVANCED_WEIGHTS: dict[str, float] = {
    "numCornerPieces": 0.811020200948285, "numOtherCenterPieces": 0.0809559760347321,
    "relativeWins": 1.0153244869861855, "numAdjacentWonGrids": 0.969296961952278,
    "numOtherAdjacentWonGrids": -0.6814807021505367, "advantageOfNextGrid": 0.5395673542865317,
    "numOtherCornerPieces": 0.7058793287408335, "gridsDifference": 1.6507776641028122,
    "numAdjacentPieces": 0.7130969880480094, "numWins": 0.5323490704404454,
    "numCenterPieces": 0.021778991208712777, "otherWins": -0.48297541654574627,
    "numOtherAdjacentPieces": -1.2963960051123138,
}


def _marks(v: int, seat: int) -> int:
    return v >> 9 * seat & FULL


def simple_features(state, seat: int, pairs: bool = False) -> dict[str, int]:
    """Seed 001's Simple Feature Extractor for `seat`: wins, centre, corner and adjacent pieces
    (pairs=True: adjacent pairs, as the authors' code counts them)."""
    won = state.xwon if seat == 0 else state.owon
    mine = [_marks(v, seat) for v in state.boards]
    adjacent = ADJACENT_PAIRS if pairs else ADJACENT
    return {
        "wins": POPCOUNT[won],
        "centerPieces": sum(m >> CENTRE & 1 for m in mine),
        "cornerPieces": sum(POPCOUNT[m & CORNER_MASK] for m in mine),
        "adjacentPieces": sum(adjacent[m] for m in mine),
    }


def advanced_features(state, seat: int, pairs: bool = False) -> dict[str, int]:
    """Seed 001's Advanced Feature Extractor from the point of view of `seat` (the agent); pairs=True
    counts adjacent pieces as neighbouring pairs, as the authors' code does."""
    won, other_won = (state.xwon, state.owon) if seat == 0 else (state.owon, state.xwon)
    adjacent = ADJACENT_PAIRS if pairs else ADJACENT
    mine = [_marks(v, seat) for v in state.boards]
    theirs = [_marks(v, 1 - seat) for v in state.boards]
    adj_grids, other_adj_grids = ADJACENT[won], ADJACENT[other_won]
    next_grid = 0
    if state.target >= 0 and not state.is_terminal():
        next_grid = adjacent[mine[state.target]] * (1 if state.to_move == seat else -1)
    return {
        "numWins": POPCOUNT[won],
        "otherWins": POPCOUNT[other_won],
        "relativeWins": POPCOUNT[won] - POPCOUNT[other_won],
        "numCenterPieces": sum(m >> CENTRE & 1 for m in mine),
        "numOtherCenterPieces": sum(m >> CENTRE & 1 for m in theirs),
        "numCornerPieces": sum(POPCOUNT[m & CORNER_MASK] for m in mine),
        "numOtherCornerPieces": sum(POPCOUNT[m & CORNER_MASK] for m in theirs),
        "numAdjacentPieces": sum(adjacent[m] for m in mine),
        "numOtherAdjacentPieces": sum(adjacent[m] for m in theirs),
        "numAdjacentWonGrids": adj_grids,
        "numOtherAdjacentWonGrids": other_adj_grids,
        "gridsDifference": adj_grids - other_adj_grids,
        "advantageOfNextGrid": next_grid,
    }


def dot(features: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """Sum of feature times weight, in the weights' key order."""
    return sum(features[k] * w for k, w in weights.items())


# ---------------------------------------------------------------- seed 000 (meta)

#: Seed 000's default constants c1..c6 ("the default values in this application").
META_CONSTANTS: dict[str, float] = {"c1": 3.0, "c2": 2.0, "c3": 0.5, "c4": 0.5, "c5": 0.5, "c6": 0.5}


def _meta_board_terms(v: int) -> tuple[int, int, int, int, int]:
    """f2..f6 of one board for x minus o: centre, corner, side, blocking, potential."""
    x, o = v & FULL, v >> 9
    if STATUS[v] == OPEN:
        centre = (x >> CENTRE & 1) - (o >> CENTRE & 1)
        corner = POPCOUNT[x & CORNER_MASK] - POPCOUNT[o & CORNER_MASK]
        side = POPCOUNT[x & SIDE_MASK] - POPCOUNT[o & SIDE_MASK]
        potential = twos(x, o) - twos(o, x)
    else:  # a won or full board: its pieces and lines no longer matter, only its blocks
        centre = corner = side = potential = 0
    return centre, corner, side, blocks(x, o) - blocks(o, x), potential


def meta_basis(state, seat: int) -> list[int]:
    """Seed 000's six basis functions f1..f6 for MAX = seat (each is MAX's count minus MIN's)."""
    sums = [0] * 5
    for v in state.boards:
        for i, t in enumerate(_meta_board_terms(v)):
            sums[i] += t
    f = [POPCOUNT[state.xwon] - POPCOUNT[state.owon]] + sums
    return f if seat == 0 else [-t for t in f]


# ---------------------------------------------------------------- seed 004 (nine-board)

def nineboard_twos(state) -> tuple[int, int]:
    """Seed 004's heuristic counts: two-in-a-rows (third square empty) of x and of o, all boards."""
    return (sum(twos(v & FULL, v >> 9) for v in state.boards),
            sum(twos(v >> 9, v & FULL) for v in state.boards))


# ---------------------------------------------------------------- tables for the searchers

SCALE = 1_000_000  #: fractional weights are applied as integers in millionths, so equal positions tie exactly


def scaled(weight: float) -> int:
    """A weight as an integer number of millionths."""
    return round(weight * SCALE)


class BoardEval:
    """An evaluation as tables, from the point of view of one seat (the agent), in integer units.

    value(position) = sum(board[v] for the nine boards) + xwon_table[xwon] + owon_table[owon]
                      + (next_table[boards[target]] if the agent is to move else -next_table[...])
    where the last term applies only when the next move is sent to one board (target >= 0).
    """

    __slots__ = ("board", "xwon_table", "owon_table", "next_table", "win", "depth_bonus")

    def __init__(self, board: list[int], xwon_table: list[int], owon_table: list[int],
                 next_table: list[int] | None, win: int, depth_bonus: bool) -> None:
        self.board = board
        self.xwon_table = xwon_table
        self.owon_table = owon_table
        self.next_table = next_table
        self.win = win                  #: value of a won game (a lost one is -win, a draw 0)
        self.depth_bonus = depth_bonus  #: add the plies left to a win so quicker wins score higher

    def static(self, boards, xwon: int, owon: int, target: int, agent_to_move: bool) -> int:
        """The value of a position that is not over, from scratch."""
        value = sum(self.board[v] for v in boards) + self.xwon_table[xwon] + self.owon_table[owon]
        if self.next_table is not None and target >= 0:
            t = self.next_table[boards[target]]
            value += t if agent_to_move else -t
        return value


def _board_table(fn) -> list[int]:
    table = [0] * BOARD_SPACE
    for v in VALID_BOARDS:
        table[v] = fn(v)
    return table


@cache
def advanced_eval(seat: int, weights: tuple[tuple[str, float], ...] = tuple(ADVANCED_WEIGHTS.items()),
                  pairs: bool = False) -> BoardEval:
    """Seed 001's learned linear evaluation for agent `seat`, as tables; a win is worth 100.
    pairs=True counts adjacent pieces as the authors' code does (advanced_features)."""
    w = {k: scaled(x) for k, x in weights}
    other = 1 - seat
    adjacent = ADJACENT_PAIRS if pairs else ADJACENT

    def board(v: int) -> int:
        m, t = _marks(v, seat), _marks(v, other)
        return (w["numCenterPieces"] * (m >> CENTRE & 1) + w["numOtherCenterPieces"] * (t >> CENTRE & 1)
                + w["numCornerPieces"] * POPCOUNT[m & CORNER_MASK]
                + w["numOtherCornerPieces"] * POPCOUNT[t & CORNER_MASK]
                + w["numAdjacentPieces"] * adjacent[m] + w["numOtherAdjacentPieces"] * adjacent[t])

    mine = [w["numWins"] * POPCOUNT[k] + w["relativeWins"] * POPCOUNT[k]
            + (w["numAdjacentWonGrids"] + w["gridsDifference"]) * ADJACENT[k] for k in range(512)]
    theirs = [w["otherWins"] * POPCOUNT[k] - w["relativeWins"] * POPCOUNT[k]
              + (w["numOtherAdjacentWonGrids"] - w["gridsDifference"]) * ADJACENT[k] for k in range(512)]
    nxt = _board_table(lambda v: w["advantageOfNextGrid"] * adjacent[_marks(v, seat)])
    xt, ot = (mine, theirs) if seat == 0 else (theirs, mine)
    return BoardEval(_board_table(board), xt, ot, nxt, win=100 * SCALE, depth_bonus=False)


@cache
def meta_eval(seat: int, constants: tuple[float, ...]) -> BoardEval:
    """Seed 000's utility c1*f1 + ... + c6*f6 for MAX = `seat`, as tables; a won game beats any heuristic."""
    c = [scaled(x) for x in constants]
    sign = 1 if seat == 0 else -1

    def board(v: int) -> int:
        centre, corner, side, block, potential = _meta_board_terms(v)
        return sign * (c[1] * centre + c[2] * corner + c[3] * side + c[4] * block + c[5] * potential)

    xt = [sign * c[0] * POPCOUNT[k] for k in range(512)]
    ot = [-sign * c[0] * POPCOUNT[k] for k in range(512)]
    bound = sum(abs(x) for x in c) * 100  # larger than any heuristic value
    return BoardEval(_board_table(board), xt, ot, None, win=max(bound, SCALE), depth_bonus=True)


@cache
def nineboard_eval(seat: int, per_two: int = 5, win: int = 100) -> BoardEval:
    """Seed 004's heuristic for `seat`: +per_two per own two-in-a-row, -per_two per opponent's."""
    sign = 1 if seat == 0 else -1
    zeros = [0] * 512
    board = _board_table(lambda v: sign * per_two * (twos(v & FULL, v >> 9) - twos(v >> 9, v & FULL)))
    return BoardEval(board, zeros, zeros, None, win=win, depth_bonus=True)


__all__ = ["ADJACENT", "ADJACENT_PAIRS", "ADVANCED_WEIGHTS", "BoardEval", "CORNER_MASK", "META_CONSTANTS", "NEIGHBOURS",
           "SCALE", "SIDE_MASK", "SIMPLE_WEIGHTS", "advanced_eval", "advanced_features", "blocks",
           "dot", "meta_basis", "meta_eval", "nineboard_eval", "nineboard_twos", "scaled",
           "simple_features", "twos"]
