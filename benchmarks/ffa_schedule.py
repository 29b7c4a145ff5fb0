"""What drawing a free-for-all league's schedule costs (arena run draws it at every start)
and how balanced it is: make_ffa_fixtures for a few league shapes, in balanced rounds (the
default) and block by block as arena drew them before ("greedy", kept for the stores
whose games follow it), with the spread of seats, the games each bot plays, and how many
games two bots meet in (and the pairs that never meet).

A round is the fewest blocks in which every bot plays equally often; a tabu search of
swaps evens out its pairs' meetings (at most MAX_SWAPS_TRIED weighed in all), so the time
grows with the rounds searched, then with bots x games.

    .venv/bin/python benchmarks/ffa_schedule.py [--runs 3]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from itertools import combinations
from math import comb

from arena.league.schedule import FFA_METHODS, make_ffa_fixtures

SHAPES = ((9, 4, 36), (7, 3, 21), (13, 4, 52), (6, 4, 1000), (12, 4, 1000), (12, 4, 10_000),
          (40, 4, 2000), (40, 3, 10_000))


def main() -> None:
    """Time each shape (best of --runs) and print the balance it reaches."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'bots':>4} {'seats':>5} {'games':>6} {'method':>7}  {'best s':>7}  seat spread  "
          "games a bot  games two bots meet in  pairs unmet")
    for bots, seats, games in SHAPES:
        names = [f"bot{i}" for i in range(bots)]
        for method in FFA_METHODS:
            best = float("inf")
            for _ in range(args.runs):
                started = time.perf_counter()
                fixtures = make_ffa_fixtures(names, seats, games, seed=1, method=method)
                best = min(best, time.perf_counter() - started)
            seated = Counter((name, s) for f in fixtures for s, name in enumerate(f.seats))
            spread = max(max(seated[n, s] for s in range(seats)) - min(seated[n, s] for s in range(seats))
                         for n in names)
            played = Counter(name for f in fixtures for name in f.seats)
            met = Counter(frozenset(p) for f in fixtures for p in combinations(f.seats, 2))
            unmet = comb(bots, 2) - len(met)
            low = 0 if unmet else min(met.values())
            print(f"{bots:>4} {seats:>5} {games:>6} {method:>7}  {best:>7.3f}  {spread:>11}  "
                  f"{min(played.values()):>5}..{max(played.values()):<5}  {low:>12}..{max(met.values()):<9}  "
                  f"{unmet:>11}", flush=True)


if __name__ == "__main__":
    main()
