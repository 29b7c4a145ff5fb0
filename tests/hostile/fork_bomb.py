#!/usr/bin/env python3
"""Fork bomb: every process forks until the process limit stops it, then all sleep.

Capped for safety (each process forks at most 4 children, 6 levels deep; the
first one keeps going up to 4096) so a missing limit cannot take the machine down.
"""
import os
import time

first = os.getpid()
depth, made = 0, 0
while True:
    if os.getpid() != first and (made >= 4 or depth >= 6):
        break
    if os.getpid() == first and made >= 4096:
        break
    try:
        pid = os.fork()
    except OSError:
        break  # the limit
    if pid == 0:
        depth, made = depth + 1, 0
        continue
    made += 1
if os.getpid() == first:
    print(f"limit {os.getuid()} {os.readlink('/proc/self/ns/pid')} {made}", flush=True)
while True:
    time.sleep(1)
