#!/usr/bin/env python3
"""An arena-protocol bot that burns a known amount of CPU a move and says how much.

Its n-th move spins 5, 15 or 25 ms of its own CPU time in turn (halfway between two
10 ms clock ticks), then writes 'spent MS' on stderr: the process's CPU time
(time.process_time, nanoseconds) from reading the request to just before the reply.
The referee's cpu_ms for the move must agree with it.
"""

import sys
import time

moves = 0
for line in sys.stdin:
    if line.startswith("arena "):
        print("ready", flush=True)
    elif line.startswith("turn "):
        start = time.process_time()
        target = (5 + 10 * (moves % 3)) / 1000
        moves += 1
        while time.process_time() - start < target:
            pass
        move = line.split()[4].split(",")[0]
        spent = time.process_time() - start
        sys.stderr.write(f"spent {spent * 1000:.3f}\n")
        sys.stderr.flush()
        print(move, flush=True)
    elif line.startswith("quit"):
        break
