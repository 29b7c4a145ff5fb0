#!/usr/bin/env python3
"""An arena-protocol bot that spins the CPU before each move: spin_bot.py MS [PROCS].

It burns MS milliseconds of CPU time per move (measured with process_time, so a busy
machine makes it take longer, never less), in PROCS forked processes at once if given
(the bot itself then sleeps until they are done). Then it plays the first legal move.
"""

import os
import sys
import time

ms = float(sys.argv[1]) / 1000
procs = int(sys.argv[2]) if len(sys.argv) > 2 else 0


def spin():
    start = time.process_time()
    while time.process_time() - start < ms:
        pass


for line in sys.stdin:
    if line.startswith("arena "):
        print("ready", flush=True)
    elif line.startswith("turn "):
        if procs:
            children = []
            for _ in range(procs):
                pid = os.fork()
                if pid == 0:
                    spin()
                    os._exit(0)
                children.append(pid)
            for pid in children:
                os.waitpid(pid, 0)
        else:
            spin()
        print(line.split()[4].split(",")[0], flush=True)
    elif line.startswith("quit"):
        break
