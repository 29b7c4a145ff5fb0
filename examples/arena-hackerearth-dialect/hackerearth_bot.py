#!/usr/bin/env python3
"""A bot for HackerEarth's Tic Tac Toe: win if it can, else block, else take the centre,
a corner, any square. HackerEarth ran it once per move; here it reads turns until its
input ends, which is all a contest bot needs to change to play a whole game."""

import sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def next_move(board: list[int], me: int) -> int:
    """The square (0-8, row by row) to play on board (0 empty, 1 / 2 the players)."""
    empty = [square for square in range(9) if board[square] == 0]
    for player in (me, 3 - me):          # complete a line of our own, else block theirs
        for line in LINES:
            marks = [board[square] for square in line]
            if marks.count(player) == 2 and marks.count(0) == 1:
                return line[marks.index(0)]
    for square in (4, 0, 2, 6, 8):
        if square in empty:
            return square
    return empty[0]


def main() -> None:
    while True:
        rows = [sys.stdin.readline() for _ in range(3)]
        me = sys.stdin.readline()
        if not me:
            return
        board = [int(value) for row in rows for value in row.split()]
        square = next_move(board, int(me))
        print(square % 3, square // 3, flush=True)     # x (column), y (row)


if __name__ == "__main__":
    main()
