"""Rules-engine speed, single core: random games/s and perft nodes/s per game.

Run: python benchmarks/engine.py [--seconds S]
"random games/s" plays uniformly random games from the start with the game's
playout (game.random_playout where the game has one, the loop Monte Carlo agents
use; else legal_moves/play); "via State.play" is the same games through the
public immutable-state API (State.play_joint for a game whose seats move at once,
as tron: its games are also measured with 4 players, and with every cycle moving
into a free cell while it has one, which on 16x16 makes games of about 27 turns
where uniformly random ones last about 3). "perft nodes/s" is perft leaf nodes counted per second (the
last ply is counted from the legal-move list, as engines do; a joint move is one).
"""

from __future__ import annotations

import argparse
import functools
import platform
import random
import time

from arena.games import default_registry, perft, random_game, random_turns

PERFT_DEPTH = {"tictactoe": 9, "ultimate": 5, "meta": 5, "nineboard": 5, "tron": 4}
#: the games measured besides each game with its default rules
VARIANTS = (("tron", {"players": 4}),)


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
    for name, options in [(name, {}) for name in registry.names()] + list(VARIANTS):
        game = registry.create(name, **options)
        label = name + "".join(f" {key}={value}" for key, value in options.items())
        start = game.initial_state()
        rng = random.Random(1)
        playout = getattr(game, "random_playout", None)
        by_state = random_turns if game.info.simultaneous else random_game
        if playout is not None:
            print(f"{label} random games/s: {rate(functools.partial(playout, start, rng), args.seconds):,.0f}")
            print(f"{label} random games/s via State.play: "
                  f"{rate(functools.partial(by_state, game, rng), args.seconds):,.0f}")
        else:
            print(f"{label} random games/s: {rate(functools.partial(by_state, game, rng), args.seconds):,.0f}")
        if name == "tron":
            tron_free_cell_games(game, args.seconds, label)
        if options:
            continue
        depth = PERFT_DEPTH[name]
        t0 = time.perf_counter()
        nodes = perft(start, depth)
        print(f"{name} perft nodes/s: {nodes / (time.perf_counter() - t0):,.0f}  (depth {depth}, {nodes:,} nodes)")


def tron_free_cell_games(game, seconds: float, label: str) -> None:
    """Tron games where each cycle moves into a random free cell while it has one (as the
    tron-random bot), through play_joint: games/s and joint moves/s."""
    from bots.tron_agents import safe_moves
    rng = random.Random(2)
    turns = 0

    def one_game() -> None:
        nonlocal turns
        state = game.initial_state()
        while not state.is_terminal():
            state = state.play_joint([rng.choice(safe_moves(state, seat) or state.moves_of(seat))
                                      for seat in state.movers()])
        turns += state.turn

    t0 = time.perf_counter()
    games = rate(one_game, seconds) if seconds else 0.0
    elapsed = time.perf_counter() - t0
    print(f"{label} free-cell games/s via State.play_joint: {games:,.0f}  "
          f"({turns / elapsed:,.0f} joint moves/s)")


if __name__ == "__main__":
    main()
