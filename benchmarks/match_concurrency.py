"""`arena match` throughput: --concurrency 2 against --concurrency 1, side by side.

Each round runs the real command twice, once with each concurrency, in alternating
order (so a change in the machine's load hits both): random against random at ultimate
tic-tac-toe, N games, every game in the sandbox, wall time of the whole command (start
included) and as the command's own status line counts it (from its start line, so
without the interpreter's start-up). Prints every run, then the medians and their ratio. The
machine's load average is printed first: other work on it slows every number, and the
ratio needs two idle cores to reach 2.
Run: python benchmarks/match_concurrency.py [--games 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time


def run(games: int, concurrency: int, seed: int) -> tuple[float, float]:
    """Games per second of one `arena match` run: the whole command, and its own
    status line's (from the first game's start, leaving out the interpreter's start)."""
    argv = [sys.executable, "-m", "arena", "match", "uttt-random", "uttt-random", "--game",
            "ultimate", "--games", str(games), "--concurrency", str(concurrency), "--seed",
            str(seed), "--json", "--status-every", str(games)]
    started = time.monotonic()
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    seconds = time.monotonic() - started
    played = json.loads(out.stdout.splitlines()[-1])["summary"]["games"]
    assert played == games, out.stderr
    status = [line for line in out.stderr.splitlines() if line.startswith(f"[{games}/")][-1]
    playing = float(re.search(r"([0-9.]+) games/s", status).group(1))
    return games / seconds, playing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} CPUs; {args.games} games of uttt-random vs uttt-random a run")
    whole: dict[int, list[float]] = {1: [], 2: []}
    playing: dict[int, list[float]] = {1: [], 2: []}
    for r in range(args.rounds):
        for concurrency in ((1, 2) if r % 2 == 0 else (2, 1)):
            rate, rate_playing = run(args.games, concurrency, seed=r)
            whole[concurrency].append(rate)
            playing[concurrency].append(rate_playing)
            print(f"round {r + 1}: --concurrency {concurrency}: {rate:6.1f} games/s whole command, "
                  f"{rate_playing:6.1f} playing", flush=True)
    for label, rates in (("whole command", whole), ("playing", playing)):
        one, two = statistics.median(rates[1]), statistics.median(rates[2])
        print(f"median, {label}: --concurrency 1 {one:.1f} games/s, --concurrency 2 {two:.1f} "
              f"games/s, speed-up {two / one:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
