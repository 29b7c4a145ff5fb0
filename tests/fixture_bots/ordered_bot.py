#!/usr/bin/env python3
"""A deterministic arena-protocol bot: always the first legal move, or with argument
"last" always the last one. Two of them replay one game forever unless openings vary it."""
import sys

pick = -1 if sys.argv[1:] == ["last"] else 0
for line in sys.stdin:
    if line.startswith("turn"):
        legal = line.split(" ", 5)[4].split(",")
        print(legal[pick], flush=True)
    elif line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("quit"):
        break
