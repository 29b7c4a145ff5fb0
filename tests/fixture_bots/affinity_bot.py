#!/usr/bin/env python3
"""An arena-protocol bot that says on stderr, at every turn, the CPUs it may run on
("cpus 0,1"), then plays the first legal move."""

import os
import sys

for line in sys.stdin:
    if line.startswith("arena "):
        print("ready", flush=True)
    elif line.startswith("turn "):
        cpus = ",".join(str(cpu) for cpu in sorted(os.sched_getaffinity(0)))
        print(f"cpus {cpus}", file=sys.stderr, flush=True)
        print(line.split()[4].split(",")[0], flush=True)
    elif line.startswith("quit"):
        break
