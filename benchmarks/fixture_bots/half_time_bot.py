"""An arena-protocol bot that computes (spins the CPU) for half of its move time, then
plays the first legal move: the bot a fair referee must never forfeit for time."""
import sys
import time

out = sys.stdout
for line in sys.stdin:
    if line.startswith("turn"):
        words = line.split(" ", 5)
        budget = int(words[1]) / 2000  # half the move time, in seconds
        start = time.monotonic()
        while time.monotonic() - start < budget:
            pass
        legal = words[4]
        out.write(legal.split(",", 1)[0] + "\n")
        out.flush()
    elif line.startswith("arena"):
        out.write("ready\n")
        out.flush()
    elif line.startswith("quit"):
        break
