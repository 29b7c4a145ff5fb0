#!/usr/bin/env python3
"""A referee of cg-brutaltester's protocol that misbehaves as told: hostile_referee.py BEHAVIOUR
[ARG]. It asks each seat for one answer (its input: one line, "go"), then misbehaves; the
"*_start" behaviours misbehave before any command. Stdlib only.

crash_start, crash_mid: a traceback, exit 1; hang: stops answering (a child of its own
sleeping too, ARG in its command line, so a test can see it go); long_line: a 100 MB line;
seat: asks seat ARG; no_end: exits 0 without ###End; bad_end: an ###End that leaves a seat
out; garbage: a line that is no command; read: tries to read the file ARG and says on stderr
what it found, then fails; error: an ###Error on stdout and one on stderr about seat 1, then
plays on (seat 0 wins); seed: tells seat 0 the seed it was told ("seed S", or "no seed"), seat 0
wins; flood: ARG more answers of seat 0, each to a line of 100,000 characters, seat 0 wins;
late: ###End after ARG seconds (the game's own clock runs out first); transcript: ARG more
answers, the seats in turn, each given one line of 1,900 characters (every 50th, 5,000), a log
line on stderr each, an ###Error on stderr about seat 1 after the third, seat 0 wins."""

import subprocess
import sys
import time

behaviour = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else ""


def say(*lines):
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


if behaviour == "crash_start":
    raise RuntimeError("the referee could not load its map")
start = sys.stdin.readline().split()
seed = None
if start[0] == "###Seed":
    seed, start = start[1], sys.stdin.readline().split()
players = int(start[1])
for seat in range(players):
    say(f"###Input {seat}", "go")
for seat in range(players):
    say(f"###Output {seat} 1")
    sys.stdin.readline()
if behaviour == "crash_mid":
    print(1 / 0)
elif behaviour == "hang":
    subprocess.Popen(["sh", "-c", f"sleep 3600; : {arg}"])
    time.sleep(3600)
elif behaviour == "long_line":
    say("###Input 0")
    sys.stdout.write("x" * (100 << 20) + "\n")
    sys.stdout.flush()
    time.sleep(60)
elif behaviour == "seat":
    say(f"###Input {arg}", "go")
elif behaviour == "no_end":
    sys.exit(0)
elif behaviour == "bad_end":
    say("###End 0")
elif behaviour == "garbage":
    say("the referee says hello")
elif behaviour == "read":
    try:
        with open(arg, "rb") as file:
            print(f"read {len(file.read())} bytes of {arg}", file=sys.stderr)
    except OSError as exc:
        print(f"cannot read {arg}: {exc.strerror}", file=sys.stderr)
    sys.exit(1)
elif behaviour == "error":
    say("###Error 1 stdout complaint")
    print("###Error 1 stderr complaint", file=sys.stderr, flush=True)
    say("###Input 0", "2", "###Output 0 2")
    sys.stdin.readline()
    sys.stdin.readline()
    say("###End 0 " + "".join(map(str, range(1, players))))
elif behaviour == "seed":
    say("###Input 0", "no seed" if seed is None else f"seed {seed}", "###Output 0 1")
    sys.stdin.readline()
    say("###End 0 " + "".join(map(str, range(1, players))))
elif behaviour == "flood":
    for _ in range(int(arg)):
        say("###Input 0", "1 " + "x" * 100_000, "###Output 0 1")
        sys.stdin.readline()
    say("###End 0 " + "".join(map(str, range(1, players))))
elif behaviour == "transcript":
    for step in range(1, int(arg) + 1):
        seat = step % players
        say(f"###Input {seat}", f"step{step} " + "y" * (5000 if step % 50 == 0 else 1900), f"###Output {seat} 1")
        sys.stdin.readline()
        print(f"referee log: step {step} answered", file=sys.stderr, flush=True)
        if step == 3:
            print("###Error 1 your third answer was <b>dull</b>", file=sys.stderr, flush=True)
    say("###End 0 " + "".join(map(str, range(1, players))))
elif behaviour == "late":
    time.sleep(float(arg))
    say("###End 01")
time.sleep(60)     # what a referee does after its last line is no matter: it is killed
