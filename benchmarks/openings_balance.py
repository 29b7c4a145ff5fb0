"""How balanced the shipped opening books are: the first player's score over K games from
each book's openings, next to K games from the empty board, with 95% intervals.

Run: nice -n 10 python benchmarks/openings_balance.py [--games K] [--iterations N] [--only GAME ...]
     [--starts book empty]

Both seats are the reference MCTS agent with a fixed number of simulations per move (no
clock, so the figures do not depend on the machine), each game with its own seeds. Game i
of a book starts from the book's opening i (wrapping); game i from the empty board differs
only by its seeds. The score is 1 for a win of x (the first player), 0.5 a draw, 0 a loss.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

# benchmarks/fixture_bots would not shadow it, but run from anywhere: the repo first
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.games import Game, default_registry  # noqa: E402
from arena.openings import Opening, parse_spec  # noqa: E402
from bots.mcts import MCTS  # noqa: E402

BOOKS = {"tictactoe": "book:tictactoe-2ply", "ultimate": "book:ultimate-4ply",
         "meta": "book:meta-4ply", "nineboard": "book:nineboard-4ply"}


def first_player_score(game: Game, opening: Opening, iterations: int, seed: int) -> float:
    """x's score in one MCTS-vs-MCTS game from the opening."""
    agents = [MCTS(game, random.Random(f"{seed}|{seat}"), time_ms=0, iterations=iterations)
              for seat in (0, 1)]
    state = game.replay(list(opening))
    while not state.is_terminal():
        state = state.play(agents[state.to_move].choose(state, None))
    return state.returns()[0]


def interval(scores: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal interval."""
    n = len(scores)
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / (n - 1) if n > 1 else 0.0
    return mean, 1.96 * math.sqrt(var / n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per book and per empty board")
    parser.add_argument("--iterations", type=int, default=300, help="MCTS simulations per move")
    parser.add_argument("--only", nargs="*", default=list(BOOKS), help="games to measure")
    parser.add_argument("--starts", nargs="*", choices=("book", "empty"), default=["book", "empty"],
                        help="measure from the book, from the empty board, or both")
    args = parser.parse_args()
    registry = default_registry()
    print(f"first player's score, MCTS vs MCTS ({args.iterations} simulations a move), "
          f"{args.games} games each, 95% interval")
    print(f"{'game':<10} {'start':<22} {'x score':>16}  {'x wins / draws / o wins':>24}")
    for name in args.only:
        game = registry.create(name)
        for start in args.starts:
            label, openings = (BOOKS[name], parse_spec(BOOKS[name], game).book) \
                if start == "book" else ("empty board", ((),))
            started = time.perf_counter()
            scores = [first_player_score(game, openings[i % len(openings)], args.iterations,
                                         seed=i) for i in range(args.games)]
            mean, half = interval(scores)
            wins, draws = scores.count(1.0), scores.count(0.5)
            print(f"{name:<10} {label:<22} {mean:.3f} ± {half:.3f}  "
                  f"{wins:>8} / {draws} / {len(scores) - wins - draws}"
                  f"   ({time.perf_counter() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
