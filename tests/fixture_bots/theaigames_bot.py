#!/usr/bin/env python3
"""A bot written for the theaigames.com / riddles.io ultimate tic-tac-toe engine, as a
contestant would: it reads settings and updates, works out its legal moves from the
field and the macroboard itself, and answers "place_move X Y" (or "place_disc X Y"
with the riddles flavour). It plays a seeded-random legal move."""

import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
verb = sys.argv[2] if len(sys.argv) > 2 else "place_move"
chat = " " + sys.argv[3] if len(sys.argv) > 3 else ""  # words after the move, e.g. "gl-hf"
field, macro = [], []
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    if parts[0] == "settings":
        print(f"setting {parts[1]} = {parts[2]}", file=sys.stderr)
    elif parts[:3] == ["update", "game", "field"]:
        field = parts[3].split(",")
    elif parts[:3] == ["update", "game", "macroboard"]:
        macro = parts[3].split(",")
    elif parts[:2] == ["action", "move"]:
        print(f"asked {parts[2]}", file=sys.stderr)
        empty = "." if "." in field or "." in macro else "0"
        moves = []
        for row in range(9):
            for col in range(9):
                board = (row // 3) * 3 + col // 3
                if macro[board] == "-1" and field[row * 9 + col] == empty:
                    moves.append((col, row))
        x, y = rng.choice(moves)
        print(f"{verb} {x} {y}{chat}", flush=True)
