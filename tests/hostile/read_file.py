#!/usr/bin/env python3
"""Tries to read a file the bot was not given."""
import sys

try:
    with open(sys.argv[1]) as file:
        print("read " + file.read().strip(), flush=True)
except OSError as exc:
    print(f"denied {type(exc).__name__}", flush=True)
