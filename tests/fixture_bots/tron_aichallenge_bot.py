#!/usr/bin/env python3
"""A bot for the 2010 Google AI Challenge's Tron, written to its protocol: each turn it
reads "WIDTH HEIGHT" and HEIGHT rows of the map ('#' wall, ' ' free, '1' itself, '2' the
other), writes the rows to stderr joined by '|' (one line a turn), and answers a direction
1 (north) 2 (east) 3 (south) or 4 (west): SCRIPT's next one while it lasts, then the first
of 1-4 into a free cell.

    python3 tron_aichallenge_bot.py [SCRIPT]      (SCRIPT: e.g. 2,3,3)
"""
import sys

script = [word for word in (sys.argv[1] if len(sys.argv) > 1 else "").split(",") if word]
steps = {"1": (0, -1), "2": (1, 0), "3": (0, 1), "4": (-1, 0)}
while True:
    first = sys.stdin.readline()
    if not first:
        break
    width, height = map(int, first.split())
    rows = [sys.stdin.readline().rstrip("\n") for _ in range(height)]
    print("|".join(rows), file=sys.stderr, flush=True)
    y = next(r for r, row in enumerate(rows) if "1" in row)
    x = rows[y].index("1")
    if script:
        print(script.pop(0), flush=True)
        continue
    move = "1"
    for word, (dx, dy) in steps.items():
        cx, cy = x + dx, y + dy
        if 0 <= cx < width and 0 <= cy < height and rows[cy][cx] == " ":
            move = word
            break
    print(move, flush=True)
