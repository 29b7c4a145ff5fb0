#!/usr/bin/env python3
"""A bot (arena dialect, any game) for the timeout-strike tests: late once, by a gate and
not by the machine's speed. It answers the first legal move at once and logs each answer
on stderr ('> 4'). ROLE says what it does on its request number K (counted from 0):

  late:K     waits at the FIFO GO, which the other bot opens only when it is asked its next
             move (so after the referee gave up on this one), then answers the LAST legal
             move of this request, late (logged 'late > 8'), and writes 'sent' to the FIFO
             SENT: the late answer is in the referee's pipe before the other bot answers
  opener:K   opens GO and writes 'go', waits for 'sent' on SENT, then answers

    python3 late_once_bot.py ROLE GO SENT

(Sandboxed bots cannot write files; a FIFO bound read-only still carries the gate.)
"""
import sys

role, go, sent = sys.argv[1], sys.argv[2], sys.argv[3]
kind, at = role.split(":")
asked = 0


def answer(move: str, note: str = "") -> None:
    print(move, flush=True)
    print(f"{note}> {move}", file=sys.stderr, flush=True)


for line in sys.stdin:
    if line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("turn"):
        legal = line.split(" ", 5)[4].split(",")
        if asked == int(at) and kind == "late":
            with open(go) as gate:
                gate.readline()
            answer(legal[-1], "late ")
            with open(sent, "w") as done:
                done.write("sent\n")
        elif asked == int(at) and kind == "opener":
            with open(go, "w") as gate:
                gate.write("go\n")
            with open(sent) as done:
                done.readline()
            answer(legal[0])
        else:
            answer(legal[0])
        asked += 1
    elif line.startswith("quit"):
        break
