#!/usr/bin/env python3
"""A bot for CodinGame's Tron Battle that logs its input: each turn it reads "N P" and N
lines "X0 Y0 X1 Y1", writes them to stderr joined by '|' (one line a turn), and moves into
a free cell as CodinGame's rules leave the board: it keeps every cell a head has been on,
and forgets a player's cells once its line reads -1 -1 -1 -1 (its trail is gone). It tries
ORDER's words in turn (default DOWN,LEFT,UP,RIGHT) and prints the first into a free cell.
With TURNS it exits (code 3) on reading its turn TURNS + 1, having moved TURNS times.

    python3 tron_codingame_log_bot.py WIDTH HEIGHT [ORDER [TURNS]]
"""
import sys

width, height = int(sys.argv[1]), int(sys.argv[2])
order = (sys.argv[3] if len(sys.argv) > 3 else "DOWN,LEFT,UP,RIGHT").split(",")
turns = int(sys.argv[4]) if len(sys.argv) > 4 else -1
steps = {"UP": (0, -1), "DOWN": (0, 1), "LEFT": (-1, 0), "RIGHT": (1, 0)}
cells: dict[int, set[tuple[int, int]]] = {}
while True:
    first = sys.stdin.readline()
    if not first:
        break
    players, me = map(int, first.split())
    lines = [sys.stdin.readline().strip() for _ in range(players)]
    print("|".join([first.strip(), *lines]), file=sys.stderr, flush=True)
    if turns == 0:
        sys.exit(3)
    turns -= 1
    for player, line in enumerate(lines):
        x0, y0, x1, y1 = map(int, line.split())
        if x0 < 0:
            cells.pop(player, None)
        else:
            cells.setdefault(player, set()).update(((x0, y0), (x1, y1)))
    taken = set().union(*cells.values())
    x, y = (int(v) for v in lines[me].split()[2:])
    move = order[0]
    for word in order:
        cell = (x + steps[word][0], y + steps[word][1])
        if 0 <= cell[0] < width and 0 <= cell[1] < height and cell not in taken:
            move = word
            break
    print(move, flush=True)
