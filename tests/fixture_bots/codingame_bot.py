#!/usr/bin/env python3
"""A bot written for CodinGame's Ultimate Tic-Tac-Toe protocol, as a contestant
would: it reads the opponent's move and the valid actions, keeps its own board,
and answers "row col" (with a message). It plays a seeded-random valid action."""

import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
board = {}
while True:
    line = sys.stdin.readline()
    if not line:
        break
    opp_row, opp_col = map(int, line.split())
    if opp_row >= 0:
        board[(opp_row, opp_col)] = "o"
    count = int(sys.stdin.readline())
    actions = [tuple(map(int, sys.stdin.readline().split())) for _ in range(count)]
    row, col = rng.choice(actions)
    board[(row, col)] = "x"
    print(f"{row} {col} gl hf ({len(board)} marks seen)", flush=True)
    print(f"codingame bot: {count} valid actions", file=sys.stderr)
