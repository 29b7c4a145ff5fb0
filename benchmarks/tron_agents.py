"""Tron agents against each other, in-process: score and time per move.

Run: python benchmarks/tron_agents.py [--games N] [--size 16] [--players 2]
Each line is one pairing: the first agent in one seat (seats rotating by game), the
second agent in every other seat, N seeded games; the score is the first agent's
summed returns (1 first, 0 last, ties shared), with its mean milliseconds per move.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from arena.games import default_registry
from bots import agent_class

PAIRINGS = (
    ("tron-territory", {}, "tron-random", {}),
    ("mcts", {"time_ms": 0, "iterations": 500}, "tron-random", {}),
    ("mcts", {"time_ms": 0, "iterations": 500}, "tron-territory", {}),
    ("tron-territory", {"depth": 2}, "tron-territory", {}),
)


def duel(game, first, first_options, other, other_options, games):
    """(first agent's summed score, its mean ms per move) over games seeded 0..games-1."""
    score, thinking, moves = 0.0, 0.0, 0
    for g in range(games):
        seat = g % game.seats
        agents = [agent_class(other)(game, random.Random(1000 + 10 * g + s), **other_options)
                  for s in range(game.seats)]
        agents[seat] = agent_class(first)(game, random.Random(g), **first_options)
        state = game.initial_state()
        while not state.is_terminal():
            joint = []
            for s in state.movers():
                t0 = time.perf_counter()
                joint.append(agents[s].choose_for(state, s, None))
                if s == seat:
                    thinking += time.perf_counter() - t0
                    moves += 1
            state = state.play_joint(joint)
        score += state.returns()[seat]
    return score, 1000 * thinking / max(moves, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--size", type=int, default=16, help="width and height")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    game = default_registry().create("tron", width=args.size, height=args.size, players=args.players)
    print(f"# python {platform.python_version()} on {platform.machine()}, tron {args.size}x{args.size}, "
          f"{args.players} players, {args.games} games a pairing")
    for first, first_options, other, other_options in PAIRINGS:
        score, ms = duel(game, first, first_options, other, other_options, args.games)
        name = first + "".join(f" {k}={v}" for k, v in first_options.items())
        print(f"{name} vs {other}{''.join(f' {k}={v}' for k, v in other_options.items())}: "
              f"scored {score:g} of {args.games} ({ms:.1f} ms a move)")


if __name__ == "__main__":
    main()
