#!/usr/bin/env python3
"""A bot for CodinGame's Tron Battle, as one is written there: each turn it reads "N P" and
N lines "X0 Y0 X1 Y1", keeps every cell a head has been on, and prints the first of UP,
DOWN, LEFT, RIGHT into a free cell. It echoes each turn's first line to stderr.

    python3 tron_codingame_bot.py WIDTH HEIGHT
"""
import sys

width, height = int(sys.argv[1]), int(sys.argv[2])
taken: set[tuple[int, int]] = set()
while True:
    first = sys.stdin.readline()
    if not first:
        break
    players, me = map(int, first.split())
    heads = []
    for _ in range(players):
        x0, y0, x1, y1 = map(int, sys.stdin.readline().split())
        if x1 >= 0:
            taken.update(((x0, y0), (x1, y1)))
        heads.append((x1, y1))
    print(first.strip(), file=sys.stderr, flush=True)
    x, y = heads[me]
    move = "UP"
    for word, (dx, dy) in (("UP", (0, -1)), ("DOWN", (0, 1)), ("LEFT", (-1, 0)), ("RIGHT", (1, 0))):
        cell = (x + dx, y + dy)
        if 0 <= cell[0] < width and 0 <= cell[1] < height and cell not in taken:
            move = word
            break
    print(move, flush=True)
