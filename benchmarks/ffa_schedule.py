"""What drawing a free-for-all league's schedule costs (arena run draws it at every start):
make_ffa_fixtures for a few league shapes, with the spread of seats and meetings it gives.

Below MAX_GROUPS_WEIGHED possible groups every group is weighed for each block; above it
the group is picked a bot at a time, so the time grows with bots x games, not with the
groups.

    .venv/bin/python benchmarks/ffa_schedule.py [--runs 3]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from itertools import combinations
from math import comb

from arena.league.schedule import MAX_GROUPS_WEIGHED, make_ffa_fixtures

SHAPES = ((6, 4, 1000), (12, 4, 1000), (12, 4, 10_000), (40, 4, 2000), (40, 3, 10_000))


def main() -> None:
    """Time each shape (best of --runs) and print the balance it reaches."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'bots':>4} {'seats':>5} {'games':>6} {'groups':>7}  {'best s':>7}  seat spread  "
          "meetings min..max")
    for bots, seats, games in SHAPES:
        names = [f"bot{i}" for i in range(bots)]
        best = float("inf")
        for _ in range(args.runs):
            started = time.perf_counter()
            fixtures = make_ffa_fixtures(names, seats, games, seed=1)
            best = min(best, time.perf_counter() - started)
        seated = Counter((name, s) for f in fixtures for s, name in enumerate(f.seats))
        spread = max(max(seated[n, s] for s in range(seats)) - min(seated[n, s] for s in range(seats))
                     for n in names)
        met = Counter(frozenset(p) for f in fixtures for p in combinations(f.seats, 2))
        groups = comb(bots, seats)
        how = "all" if groups <= MAX_GROUPS_WEIGHED else "greedy"
        print(f"{bots:>4} {seats:>5} {games:>6} {groups:>7}  {best:>7.3f}  {spread:>11}  "
              f"{min(met.values())}..{max(met.values())} ({how})")


if __name__ == "__main__":
    main()
