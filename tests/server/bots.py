"""Bots the server tests submit: tic-tac-toe in the arena protocol, no imports."""

from __future__ import annotations

#: always the first legal move (or the last, given "last"), after a nap of 10 ms
ORDERED = """\
import sys
import time

pick = -1 if sys.argv[1:] == ["last"] else 0
for line in sys.stdin:
    if line.startswith("turn"):
        time.sleep(0.01)
        print(line.split(" ", 5)[4].split(",")[pick], flush=True)
    elif line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("quit"):
        break
"""

#: says hello, then crashes at its first move with a line on stderr only its owner may read
CRASHING = """\
import sys

for line in sys.stdin:
    if line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("turn"):
        print("SECRET-STDERR <script>alert(1)</script> of the crashing bot", file=sys.stderr, flush=True)
        raise SystemExit(3)
"""

#: crashes at its first move as CRASHING does, with a traceback through its own file and a
#: line naming arena's sdk.py in ARENA_PACKAGE (the test writes where the server has it)
TRACEBACK = """\
import sys

for line in sys.stdin:
    if line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("turn"):
        print('  File "ARENA_PACKAGE/sdk.py", line 1, in run', file=sys.stderr, flush=True)
        raise RuntimeError("SECRET-STDERR <script>alert(1)</script> of the crashing bot")
"""

#: plays as ORDERED until a file crash-now appears in its directory (which makes a new
#: version of it), then crashes at its next move, saying why on stderr
CRASHES_ON_CUE = """\
import os
import sys

cue = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crash-now")
for line in sys.stdin:
    if line.startswith("turn"):
        if os.path.exists(cue):
            print("SECRET-LADDER-STDERR <b>cued</b> in", __file__, file=sys.stderr, flush=True)
            raise SystemExit(4)
        print(line.split(" ", 5)[4].split(",")[0], flush=True)
    elif line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("quit"):
        break
"""

#: the first legal move, in C++: built by the submission's build command
CPP = """\
#include <iostream>
#include <sstream>
#include <string>

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.rfind("arena", 0) == 0) {
            std::cout << "ready" << std::endl;
        } else if (line.rfind("turn", 0) == 0) {
            std::istringstream words(line);
            std::string word;
            for (int i = 0; i < 5; ++i) words >> word;
            std::cout << word.substr(0, word.find(',')) << std::endl;
        } else if (line.rfind("quit", 0) == 0) {
            break;
        }
    }
}
"""

#: plays as ORDERED, but answers the start only once a file go appears in its directory:
#: its validation waits there (a gate the test opens, or a stop ends)
GATED = """\
import os
import sys
import time

gate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go")
for line in sys.stdin:
    if line.startswith("arena"):
        while not os.path.exists(gate):
            time.sleep(0.05)
        print("ready", flush=True)
    elif line.startswith("turn"):
        print(line.split(" ", 5)[4].split(",")[0], flush=True)
    elif line.startswith("quit"):
        break
"""
