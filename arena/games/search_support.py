"""Raw-int helpers for searching the 9x9 games fast: tables indexed by a board's 18-bit int.

A searcher keeps the nine board ints in a mutable list and makes and unmakes
moves on it, asking these tables instead of building BigBoardState objects.
A board int holds x's squares in bits 0..8 and o's in bits 9..17, as in
bigboard.py; only the 3**9 ints where no square is set twice are meaningful,
the other entries of each table are never read.
"""

from __future__ import annotations

from .bigboard import BigBoardState
from .grid import FULL, HAS_LINE, SQUARES

#: Number of entries of a table indexed by a board int.
BOARD_SPACE = 1 << 18

#: Board status codes in STATUS.
OPEN, X_LINE, O_LINE, FULL_NO_LINE = 0, 1, 2, 3

#: BIT[seat][square]: the bit a mark of seat on square sets in its board's int.
BIT = (tuple(1 << s for s in range(9)), tuple(1 << (s + 9) for s in range(9)))


def _valid_boards() -> list[int]:
    """Every board int with no square held by both players (3**9 of them): each x mask
    with each o mask on the squares x leaves free."""
    return [x | o << 9 for x in range(512) for o in _SUBSETS[FULL & ~x]]


def _submasks(m: int) -> tuple[int, ...]:
    """Every mask inside mask m, ascending: stepping (s - 1) & m down from m visits just
    those (3**9 steps over all m, where testing all 512 masks for each m takes 512**2,
    which every 9x9 bot process paid at start-up: 9 ms of its 35)."""
    found, s = [m], m
    while s:
        s = (s - 1) & m
        found.append(s)
    return tuple(reversed(found))


#: _SUBSETS[m]: every mask inside mask m, ascending
_SUBSETS = tuple(_submasks(m) for m in range(512))


#: Every meaningful board int, in no particular order.
VALID_BOARDS: tuple[int, ...] = tuple(_valid_boards())


def _status_table() -> list[int]:
    table = [OPEN] * BOARD_SPACE
    for v in VALID_BOARDS:
        if HAS_LINE[v & FULL]:
            table[v] = X_LINE
        elif HAS_LINE[v >> 9]:
            table[v] = O_LINE
        elif (v | v >> 9) & FULL == FULL:
            table[v] = FULL_NO_LINE
    return table


#: STATUS[v]: OPEN, X_LINE, O_LINE or FULL_NO_LINE (a board whose last square was filled without a line).
STATUS: list[int] = _status_table()

def _free_table() -> list[tuple[int, ...]]:
    table: list[tuple[int, ...]] = [()] * BOARD_SPACE
    for v in VALID_BOARDS:
        table[v] = SQUARES[FULL & ~(v | v >> 9)]
    return table


#: FREE[v]: the empty squares of board v, ascending (SQUARES of its free mask).
FREE: list[tuple[int, ...]] = _free_table()


def raw_position(state: BigBoardState) -> tuple[list[int], int, int, int, int, int]:
    """(boards as a new list, xwon, owon, closed, target, to_move) of a 9x9 state."""
    return list(state.boards), state.xwon, state.owon, state.closed, state.target, state.to_move


__all__ = ["BIT", "BOARD_SPACE", "FREE", "FULL_NO_LINE", "OPEN", "O_LINE", "STATUS", "VALID_BOARDS",
           "X_LINE", "raw_position"]
