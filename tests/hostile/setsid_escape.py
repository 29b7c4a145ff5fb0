#!/usr/bin/env python3
"""Leaves a grandchild in a session of its own whose parent has exited, then waits."""
import json
import os
import time

read_end, write_end = os.pipe()
child = os.fork()
if child == 0:
    os.setsid()  # leave the bot's session and process group
    grandchild = os.fork()
    if grandchild == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        while True:
            time.sleep(1)
    os.write(write_end, str(grandchild).encode())
    os._exit(0)  # orphan the grandchild
os.waitpid(child, 0)
escapee = int(os.read(read_end, 100))
pidns = os.readlink("/proc/self/ns/pid")
print(json.dumps({"bot": os.getpid(), "escapee": escapee, "pidns": pidns}), flush=True)
while True:
    time.sleep(1)
