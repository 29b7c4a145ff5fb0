#!/usr/bin/env python3
"""An arena-protocol bot that plays a script: script_bot.py MOVE,MOVE,... answers 'ready' to
the handshake and each turn with the script's next move, and echoes every line it is sent to
stderr (the record keeps its tail), until 'quit'."""
import sys

script = iter(sys.argv[1].split(","))
for line in sys.stdin:
    sys.stderr.write(line)
    sys.stderr.flush()
    if line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("turn"):
        print(next(script), flush=True)
    elif line.startswith("quit"):
        break
