"""Reference agents' speed, single core; optionally their strength (MCTS against every ultimate agent).

Run: python benchmarks/agents.py [--seconds S] [--table1 N] [--matches N] [--mcts-ms MS]
Prints one measurement per line. What the search counts as a node is said in
bots/search9.py and docs/agents.md: the root and every child position a move
produces, whether searched further, evaluated statically or found to end the game.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

# benchmarks/bots/ (fixture bots) would shadow the bots package when this file runs as a script
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.games import default_registry, random_positions  # noqa: E402
from bots import agent_class  # noqa: E402
from bots.features import advanced_eval  # noqa: E402
from bots.search9 import Search9  # noqa: E402
from bots.tictactoe_agents import minimax_value_uncached, solved_table  # noqa: E402

REGISTRY = default_registry()


def midgame_positions(name: str, count: int, seed: int, plies: tuple[int, int]) -> list:
    """Positions reached by random play after a random number of plies in `plies`, game not over."""
    return random_positions(REGISTRY.create(name), count, random.Random(seed), plies)


def alphabeta_rate(seconds: float) -> tuple[float, int, float]:
    """Full-width alpha-beta at ultimate (seed 001's evaluation), 7 plies from random positions."""
    nodes = 0
    elapsed = 0.0
    positions = midgame_positions("ultimate", 200, 7, (6, 40))
    for state in positions:
        s9 = Search9(state, advanced_eval(state.to_move), state.to_move)
        t = time.perf_counter()
        s9.root_values(7)
        elapsed += time.perf_counter() - t
        nodes += s9.nodes
        if elapsed >= seconds:
            break
    return nodes / elapsed, nodes, elapsed


def agent_rate(name: str, game: str, options: dict, positions: list, seconds: float) -> tuple[float, float]:
    """(nodes/s, ms per move) of an agent over positions, until `seconds` of thinking."""
    agent = agent_class(name)(REGISTRY.create(game), random.Random(1), **options)
    nodes, elapsed, moves = 0, 0.0, 0
    for state in positions:
        t = time.perf_counter()
        agent.choose(state, None)
        elapsed += time.perf_counter() - t
        nodes += agent.last_stats["nodes"]
        moves += 1
        if elapsed >= seconds:
            break
    return nodes / elapsed, elapsed * 1000 / moves


def mcts_rate(seconds: float) -> tuple[float, float]:
    """Simulations per second of the mcts agent at ultimate: from the start and from midgame positions."""
    game = REGISTRY.create("ultimate")
    agent = agent_class("mcts")(game, random.Random(1), time_ms=seconds * 500, reuse=False)
    agent.choose(game.initial_state(), None)
    start_rate = agent.last_stats["simulations"] / (agent.last_stats["time_ms"] / 1000)
    sims, ms = 0, 0.0
    for state in midgame_positions("ultimate", 5, 3, (10, 30)):
        agent = agent_class("mcts")(game, random.Random(1), time_ms=seconds * 100, reuse=False)
        agent.choose(state, None)
        sims += agent.last_stats["simulations"]
        ms += agent.last_stats["time_ms"]
    return start_rate, sims / (ms / 1000)


def tictactoe_first_move() -> dict[str, float]:
    game = REGISTRY.create("tictactoe")
    empty = game.initial_state()
    out: dict[str, float] = {}
    solved_table.cache_clear()
    t = time.perf_counter()
    solved_table()
    out["table_ms"] = (time.perf_counter() - t) * 1000
    master = agent_class("ttt-master")(game, random.Random(1))
    times = []
    for _ in range(200):
        t = time.perf_counter()
        master.choose(empty, None)
        times.append(time.perf_counter() - t)
    out["master_ms"] = sorted(times)[len(times) // 2] * 1000
    negamax = agent_class("ttt-negamax")(game, random.Random(1))
    times = []
    for _ in range(5):
        t = time.perf_counter()
        negamax.choose(empty, None)
        times.append(time.perf_counter() - t)
    out["negamax_ms"] = min(times) * 1000
    out["negamax_states"] = negamax.last_stats["nodes"]
    t = time.perf_counter()
    _, visited = minimax_value_uncached(0, 0)
    out["minimax_ms"] = (time.perf_counter() - t) * 1000
    out["minimax_states"] = visited
    return out


def play(game_name: str, first, second, seed: int) -> int | None:
    """Winner seat (0 = first) of one game between two agents, or None for a draw."""
    game = REGISTRY.create(game_name)
    state = game.initial_state()
    agents = (first, second)
    for agent in agents:
        agent.new_game()
    while not state.is_terminal():
        state = state.play(agents[state.to_move].choose(state, None))
    return state.winner


def matches(games: int, mcts_ms: float) -> None:
    """MCTS against every documented ultimate agent, `games` games each, half with MCTS first."""
    opponents = [("uttt-random", {}), ("uttt-perceptron", {}), ("uttt-reflex", {}),
                 ("uttt-minimax", {"depth": 1}), ("uttt-minimax", {"depth": 2}),
                 ("uttt-minimax-pruning", {"depth": 2}), ("uttt-advanced-perceptron", {}),
                 ("uttt-expectimax", {"depth": 1}), ("uttt-expectimax", {"depth": 2})]
    game = REGISTRY.create("ultimate")
    for name, options in opponents:
        won = drawn = lost = 0
        t = time.perf_counter()
        for g in range(games):
            mcts = agent_class("mcts")(game, random.Random(1000 + g), time_ms=mcts_ms)
            other = agent_class(name)(game, random.Random(2000 + g), **options)
            mcts_seat = g % 2
            seats = (mcts, other) if mcts_seat == 0 else (other, mcts)
            winner = play("ultimate", *seats, seed=g)
            if winner is None:
                drawn += 1
            elif winner == mcts_seat:
                won += 1
            else:
                lost += 1
        label = name + "".join(f" {k}={v}" for k, v in options.items())
        print(f"mcts ({mcts_ms:g} ms/move) vs {label}: won {won}, drawn {drawn}, lost {lost} "
              f"({time.perf_counter() - t:.0f} s)", flush=True)


# (row agent, options, column agent, options, the paper's win/draw/loss)
TABLE1: list[tuple[str, dict, str, dict, str]] = [
    ("uttt-random", {}, "uttt-random", {}, ".39 .27 .34"),
    ("uttt-perceptron", {}, "uttt-random", {}, ".64 .12 .24"),
    ("uttt-reflex", {}, "uttt-random", {}, ".42 .35 .26"),
    ("uttt-minimax", {"depth": 1}, "uttt-random", {}, ".55 .20 .26"),
    ("uttt-minimax-pruning", {"depth": 2}, "uttt-random", {}, ".51 .23 .26"),
    ("uttt-advanced-perceptron", {}, "uttt-random", {}, ".71 .07 .20"),
    ("uttt-expectimax", {"depth": 1}, "uttt-random", {}, ".98 .01 .01"),
    ("uttt-minimax", {"depth": 1}, "uttt-advanced-perceptron", {}, ".78 .08 .14"),
    ("uttt-expectimax", {"depth": 1}, "uttt-advanced-perceptron", {}, ".96 .03 .01"),
    ("uttt-advanced-perceptron", {}, "uttt-advanced-perceptron", {}, ".93 .06 .01"),
    ("uttt-minimax", {"depth": 1}, "uttt-perceptron", {}, ".38 .11 .51"),
]


def table1(games: int) -> None:
    """Seed 001's Table 1 pairings: win/draw/loss of the row agent, who moves first."""
    game = REGISTRY.create("ultimate")
    for row, row_opts, col, col_opts, paper in TABLE1:
        counts = [0, 0, 0]
        for g in range(games):
            first = agent_class(row)(game, random.Random(g), **row_opts)
            second = agent_class(col)(game, random.Random(10**6 + g), **col_opts)
            winner = play("ultimate", first, second, seed=g)
            counts[1 if winner is None else 0 if winner == 0 else 2] += 1
        ours = " ".join(f"{c / games:.2f}".lstrip("0") for c in counts)
        label = row + "".join(f" {k}={v}" for k, v in row_opts.items()) + " vs " + col
        print(f"table 1 {label}: {ours} (paper {paper}; {games} games)", flush=True)


def time_limited_answers(allowance_ms: float = 200.0) -> dict[str, float]:
    """Wall ms each time-limited agent takes to answer with allowance_ms left (it plans to use
    at most about half of it; the tests only check that it answers)."""
    cases = (("nineboard-negamax", "nineboard", {}), ("mcts", "ultimate", {}),
             ("meta-minimax", "meta", {"depth": 9}), ("uttt-expectimax", "ultimate", {"depth": 3}))
    out = {}
    for name, game_name, options in cases:
        game = REGISTRY.create(game_name)
        agent = agent_class(name)(game, random.Random(0), **options)
        state = game.initial_state().play(game.initial_state().legal_moves()[0])
        start = time.perf_counter()
        agent.choose(state, allowance_ms)
        out[name] = (time.perf_counter() - start) * 1000
    return out


def sandbox_cpu_seconds_cost(calls: int = 2000) -> float:
    """Microseconds one SandboxedProcess.cpu_seconds() costs (a /proc read per call)."""
    from arena.sandbox import Sandbox
    proc = Sandbox().start([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        began = time.perf_counter()
        for _ in range(calls):
            proc.cpu_seconds()
        return (time.perf_counter() - began) / calls * 1e6
    finally:
        proc.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per speed measurement")
    parser.add_argument("--matches", type=int, default=0,
                        help="also play N games of mcts against each ultimate agent (slow)")
    parser.add_argument("--mcts-ms", type=float, default=1000.0, help="mcts thinking time in --matches")
    parser.add_argument("--table1", type=int, default=0,
                        help="also replay seed 001's Table 1 pairings, N games each")
    args = parser.parse_args()
    print(f"# python {platform.python_version()} on {platform.machine()}, one core", flush=True)

    rate, nodes, elapsed = alphabeta_rate(args.seconds)
    print(f"ultimate alpha-beta nodes/s: {rate:,.0f}  (full-width, 7 plies, seed 001 evaluation; "
          f"{nodes:,} nodes in {elapsed:.2f} s)", flush=True)
    positions = midgame_positions("ultimate", 60, 11, (6, 40))
    for name, options in (("uttt-minimax-pruning", {"depth": 2}), ("uttt-minimax", {"depth": 2})):
        rate, ms = agent_rate(name, "ultimate", options, positions, args.seconds)
        print(f"ultimate {name} depth 2 (top-3 filter) nodes/s: {rate:,.0f}  ({ms:.1f} ms per move)",
              flush=True)
    rate, ms = agent_rate("nineboard-negamax", "nineboard", {"time_ms": 300},
                          midgame_positions("nineboard", 20, 5, (2, 12)), args.seconds)
    print(f"nineboard negamax (iterative deepening) nodes/s: {rate:,.0f}  ({ms:.0f} ms per move)", flush=True)
    rate, ms = agent_rate("meta-minimax", "meta", {"depth": 5},
                          midgame_positions("meta", 20, 5, (4, 30)), args.seconds)
    print(f"meta minimax depth 5 nodes/s: {rate:,.0f}  ({ms:.0f} ms per move)", flush=True)

    start_rate, mid_rate = mcts_rate(args.seconds)
    print(f"ultimate mcts simulations/s: {start_rate:,.0f}  (from the empty board; "
          f"{mid_rate:,.0f} from midgame positions)", flush=True)

    ttt = tictactoe_first_move()
    print(f"tictactoe first move ms (perfect play): {ttt['master_ms']:.3f}  (ttt-master, solved table "
          f"built once per process in {ttt['table_ms']:.1f} ms)")
    print(f"tictactoe first move ms (uncached alpha-beta): {ttt['negamax_ms']:.1f}  "
          f"(ttt-negamax, best of 5, {ttt['negamax_states']:,} states explored; seed 004: ~18,000, 0.9 ms in C)")
    print(f"tictactoe first move ms (plain minimax): {ttt['minimax_ms']:.0f}  "
          f"({ttt['minimax_states']:,} states explored; seed 004: 549,946)", flush=True)

    for name, ms in time_limited_answers().items():
        print(f"time-limited {name}: answered in {ms:.0f} ms of 200 allowed  (target < 160)")
    print(f"sandboxed process cpu_seconds() cost: {sandbox_cpu_seconds_cost():.0f} us a call  "
          "(target < 1000)", flush=True)

    if args.table1:
        table1(args.table1)
    if args.matches:
        matches(args.matches, args.mcts_ms)


if __name__ == "__main__":
    main()
