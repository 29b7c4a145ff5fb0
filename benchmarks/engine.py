"""Rules-engine speed, single core: random games/s and perft nodes/s per game.

Run: python benchmarks/engine.py [--seconds S]
"random games/s" plays uniformly random games from the start with the game's
playout (game.random_playout where the game has one, the loop Monte Carlo agents
use; else legal_moves/play); "via State.play" is the same games through the
public immutable-state API. "perft nodes/s" is perft leaf nodes counted per
second (the last ply is counted from the legal-move list, as engines do).
"""

from __future__ import annotations

import argparse
import functools
import platform
import random
import time

from arena.games import default_registry, perft, random_game

PERFT_DEPTH = {"tictactoe": 9, "ultimate": 5, "meta": 5, "nineboard": 5}


def rate(run_once, seconds: float) -> float:
    """Calls per second of run_once over about `seconds`, in batches."""
    count, start = 0, time.perf_counter()
    while True:
        for _ in range(20):
            run_once()
        count += 20
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args()
    print(f"# python {platform.python_version()} on {platform.machine()}, one core")
    registry = default_registry()
    for name in registry.names():
        game = registry.create(name)
        start = game.initial_state()
        rng = random.Random(1)
        playout = getattr(game, "random_playout", None)
        if playout is not None:
            print(f"{name} random games/s: {rate(functools.partial(playout, start, rng), args.seconds):,.0f}")
            print(f"{name} random games/s via State.play: "
                  f"{rate(functools.partial(random_game, game, rng), args.seconds):,.0f}")
        else:
            print(f"{name} random games/s: {rate(functools.partial(random_game, game, rng), args.seconds):,.0f}")
        depth = PERFT_DEPTH[name]
        t0 = time.perf_counter()
        nodes = perft(start, depth)
        print(f"{name} perft nodes/s: {nodes / (time.perf_counter() - t0):,.0f}  (depth {depth}, {nodes:,} nodes)")


if __name__ == "__main__":
    main()
