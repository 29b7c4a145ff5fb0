"""How long publishing a league's site takes, and whether 20,000 games fit in a minute.

Builds a store of real random games (as the publish tests do: 20 bots, GAMES games of
ultimate tic-tac-toe), publishes it RUNS times, and prints the CPU and wall time of
each run, per game, and extrapolated to 20,000 games (the work is linear in games: one
replay and one rating update each). --games 20000 measures that size itself.

    .venv/bin/python benchmarks/publish.py [--games 2000] [--bots 20] [--runs 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from browser.league import shared_store  # noqa: E402  (the tests' store builder)

from arena.publish import publish_site  # noqa: E402

BUDGET_S = 60.0
TARGET_GAMES = 20_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        built = time.perf_counter()
        store = shared_store(base, bots=args.bots, games=args.games)
        print(f"store of {args.games:,} games, {args.bots} bots: built in "
              f"{time.perf_counter() - built:.1f} s")
        for run in range(1, args.runs + 1):
            cpu, wall = time.process_time(), time.perf_counter()
            publish_site(store, base / f"site{run}")
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            per_game = cpu / args.games
            print(f"run {run}: {cpu:.2f} s CPU, {wall:.2f} s wall; {per_game * 1000:.2f} ms a game; "
                  f"{per_game * TARGET_GAMES:.0f} s CPU for {TARGET_GAMES:,} games "
                  f"({'within' if per_game * TARGET_GAMES < BUDGET_S else 'over'} the "
                  f"{BUDGET_S:.0f} s budget)")


if __name__ == "__main__":
    main()
