#!/usr/bin/env python3
"""An arena-protocol bot that, at the handshake, tries to read what it must not: the
league's store, its config and another bot's secret, found from where it lies itself
(LEAGUE/bots/spy/spy_bot.py). It reports each try on stderr ("read PATH: TEXT" or
"denied PATH: ERROR") and then plays the first legal move."""

import glob
import os
import sys

league = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
targets = (glob.glob(os.path.join(league, "results", "*")) + [os.path.join(league, "results", "league.sqlite")]
           + [os.path.join(league, "league.yaml"), os.path.join(league, "bots", "victim", "secret.txt")])
for line in sys.stdin:
    if line.startswith("arena "):
        for path in dict.fromkeys(targets):
            try:
                with open(path, "rb") as fh:
                    print(f"read {path}: {fh.read(40)!r}", file=sys.stderr, flush=True)
            except OSError as exc:
                print(f"denied {path}: {type(exc).__name__}", file=sys.stderr, flush=True)
        print("ready", flush=True)
    elif line.startswith("turn "):
        print(line.split()[4].split(",")[0], flush=True)
    elif line.startswith("quit"):
        break
