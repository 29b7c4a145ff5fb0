#!/usr/bin/env python3
"""A gate for tests: an arena-protocol bot playing random legal moves (seeded by its
handshake) that, after the first FREE games of its process (argument, default 2), waits
at each game's first move until a directory named `open` appears next to this script (a
directory: a bot's version fingerprints its files, and the gate must not change it).

A league with it cannot finish before the test opens the gate, however fast or loaded
the machine, and each worker has stored at least FREE games before it waits."""
import os
import random
import sys
import time

free = int(sys.argv[1]) if len(sys.argv) > 1 else 2
gate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "open")
games, waiting, rng = 0, False, random.Random(0)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "arena":
        games += 1
        waiting = games > free
        rng = random.Random(int(words[4]))
        print("ready", flush=True)
    elif words[0] == "turn":
        while waiting and not os.path.exists(gate):
            time.sleep(0.02)
        waiting = False
        print(rng.choice(words[4].split(",")), flush=True)
    elif words[0] == "quit":
        break
