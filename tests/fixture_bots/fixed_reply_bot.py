#!/usr/bin/env python3
"""A bot of any built-in dialect that answers its first turn with a fixed reply:
fixed_reply_bot.py DIALECT REPLY. It reads a turn as its dialect sends it (arena: after
the handshake, one 'turn' line; codingame: the last move, a count and that many lines;
theaigames/riddles: up to 'action move'), then prints REPLY."""

import sys

dialect, reply = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    words = line.split()
    if dialect == "arena" and words[:1] == ["arena"]:
        print("ready", flush=True)
        continue
    if dialect == "codingame":
        for _ in range(int(sys.stdin.readline())):
            sys.stdin.readline()
    elif dialect == "arena" and words[:1] != ["turn"]:
        continue
    elif dialect in ("theaigames", "riddles") and words[:2] != ["action", "move"]:
        continue
    print(reply, flush=True)
