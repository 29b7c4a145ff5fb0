#!/usr/bin/env python3
"""An arena-protocol bot that reads the files its command names (the league's store and
the files SQLite keeps beside it) at every request, and says on stderr what it found
("read PATH: N bytes" or "denied PATH: ERROR"); it plays the first legal move."""

import sys

paths = [p + side for p in sys.argv[1:] for side in ("", "-wal", "-shm")]


def spy() -> None:
    for path in paths:
        try:
            with open(path, "rb") as fh:
                print(f"read {path}: {len(fh.read())} bytes", file=sys.stderr, flush=True)
        except OSError as exc:
            print(f"denied {path}: {type(exc).__name__}", file=sys.stderr, flush=True)


for line in sys.stdin:
    if line.startswith("arena "):
        spy()
        print("ready", flush=True)
    elif line.startswith("turn "):
        spy()
        print(line.split()[4].split(",")[0], flush=True)
    elif line.startswith("quit"):
        break
