#!/usr/bin/env python3
"""A bot for the test referees: answers every line it is given with "ok WORD", WORD its first
word (a line that starts with a number N: N lines), or misbehaves as argv[1] says at its answer
number argv[2]: hang, slow (half a second), crash, extra (one line too many), bytes (a line that
is not UTF-8)."""
import os
import sys
import time

how = sys.argv[1] if len(sys.argv) > 1 else ""
when = int(sys.argv[2]) if len(sys.argv) > 2 else 1
answers = 0
for line in sys.stdin:
    answers += 1
    if answers == when and how in ("hang", "slow"):
        time.sleep(3600 if how == "hang" else 0.5)
    if answers == when and how == "crash":
        sys.exit("the bot gives up")
    if answers == when and how == "bytes":
        os.write(1, b"\xff\xfe not utf-8\n")
        continue
    word = (line.split() or [""])[0]
    lines = [f"ok {word}"] * (int(word) if word.isdigit() else 1)
    if answers == when and how == "extra":   # in the same write as the answer: no race with the game's end
        lines.append("one line too many")
    # one os.write: print() writes its text and its end apart when PYTHONUNBUFFERED is set,
    # and the extra line's newline could then come after the referee's ###End
    os.write(1, ("\n".join(lines) + "\n").encode())
