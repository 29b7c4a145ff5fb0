#!/usr/bin/env python3
"""A bot that speaks the arena protocol but misbehaves as told: hostile.py BEHAVIOUR [ARG].

It plays legal moves (the first legal one) until move 3 ("mid-game"), then
misbehaves; the "*_start" behaviours misbehave before the handshake. Stdlib only.
"""

import array
import fcntl
import os
import signal
import socket
import subprocess
import sys
import termios
import time

behaviour = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else ""
# the test finds every process this bot started by this marker in its environment
os.environ["ARENA_TEST_MARKER"] = sys.argv[3] if len(sys.argv) > 3 else "none"


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def misbehave():
    if behaviour in ("hang_start", "hang_mid"):
        time.sleep(3600)
    elif behaviour in ("crash_start", "crash_mid"):
        print("about to crash", file=sys.stderr)
        sys.exit(3)
    elif behaviour == "signal":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif behaviour == "garbage":
        say("hello referee")
    elif behaviour == "illegal":
        say("9999" if arg == "range" else "-1" if arg == "neg" else ILLEGAL)
    elif behaviour == "huge_line":
        chunk = "7" * (1 << 20)
        for _ in range(100):
            sys.stdout.write(chunk)
        say("")
    elif behaviour == "no_newline":
        sys.stdout.write(LEGAL[0])
        sys.stdout.flush()
        time.sleep(3600)
    elif behaviour == "flood_stderr":
        line = "x" * 1023 + "\n"
        while True:
            sys.stderr.write(line)
    elif behaviour == "memory":
        hog = []
        for _ in range(64):
            hog.append(bytearray(64 << 20))  # 4 GiB in total, touched
        say(LEGAL[0])
    elif behaviour == "fork":
        children = []
        for _ in range(500):
            children.append(subprocess.Popen(["sleep", "3600"]))
        print(f"started {len(children)} children", file=sys.stderr)
        time.sleep(3600)
    elif behaviour == "escape":
        code = "import os, time; os.setsid() if os.getsid(0) != os.getpid() else None; time.sleep(3600)"
        child = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
        print(f"escaped child {child.pid}", file=sys.stderr)
        sys.exit(4)
    elif behaviour == "network":
        with socket.create_connection(("127.0.0.1", int(arg)), timeout=2) as sock:
            sock.sendall(b"stolen\n")
        say(LEGAL[0])
    elif behaviour == "read_store":
        with open(arg, "rb") as fh:
            print("read the store:", fh.read(16), file=sys.stderr)
        say(LEGAL[0])
    elif behaviour == "close_stdout":
        os.close(1)
        time.sleep(3600)
    elif behaviour == "spin":
        while True:
            pass
    elif behaviour == "two_lines":
        sys.stdout.write(LEGAL[0] + "\n" + LEGAL[-1] + "\n")  # one write, one line too many
        sys.stdout.flush()
        time.sleep(3600)
    elif behaviour == "chat_after":
        say(LEGAL[0])
        unread = array.array("i", [1])
        while unread[0]:   # until the referee has read the move, so that what follows comes apart
            fcntl.ioctl(1, termios.FIONREAD, unread)
            time.sleep(0.001)
        say("unasked hello")
    elif behaviour == "late":
        time.sleep(float(arg) / 1000)
        say(LEGAL[0])
    else:
        sys.exit(f"hostile.py: unknown behaviour {behaviour!r}")


LEGAL, ILLEGAL = ["0"], "0"
if behaviour.endswith("_start"):
    misbehave()
for raw in sys.stdin:
    words = raw.split()
    if not words:
        continue
    if words[0] == "arena":
        say("ready hostile " + behaviour)
    elif words[0] == "turn":
        ply = sum(c in "xo" for c in words[5])
        LEGAL = words[4].split(",")
        cells = words[5]
        ILLEGAL = str(next(i for i, c in enumerate(cells) if c != "." or i == len(cells) - 1)
                      if any(c != "." for c in cells) else len(cells))
        if ply >= 2:
            misbehave()
        else:
            say(LEGAL[0])
    elif words[0] == "quit":
        break
