"""Do the reference bots keep to their time? (issues: our own MCTS lost games on time;
tron-territory at depth 2 timed out on the first move of every 4-player game)

Plays games of the catalog's bots through the sandboxed referee, as a league would (one
SDK process a bot, a game at a time), at --move-ms a move (default 100: a bot aims at
half of it less 5 ms, 45 ms, of wall time), until --moves moves are played, and prints
per bot the CPU time the referee measured a move: the median, the 99th percentile, the
largest, how many moves went over half the move limit (the most the bot plans to use:
its target plus a 5 ms margin) and over the move limit (must be 0), and the games lost
on time. --game ultimate (the default): mcts against itself. --game tron: the tron bots,
four a game on 12x12 as tournaments/tron-ffa.yaml has them (tron-territory at depths 1
and 2, mcts, tron-random; each bot in every seat in turn) and, with --players 2, two on
CodinGame's 30x20 (tron-territory at depth 3 against mcts). With --in-process the
ultimate games are played in this process instead (the agent's choose() as the SDK calls
it), each move's CPU time taken with time.process_time, and the garbage collector's full
collections inside moves counted: a busy machine gives the bot less CPU time in its
45 ms of wall time, but a collection costs what it costs.
Run: python benchmarks/mcts_clock.py [--moves 2000] [--move-ms 100] [--in-process]
     python benchmarks/mcts_clock.py --game tron [--players 4|2] [--moves 2000] [--move-ms 100]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import time
from typing import Any

from arena.games import default_registry
from arena.plugins import loaded_plugins
from arena.record import Termination
from arena.referee import MatchSettings, TimeControl, play_game
from arena.referee.botspec import bot_spec
from arena.sandbox import Sandbox
from arena.sdk import freeze_start_up
from bots import agent_class
from bots.base import TIME_MARGIN_MS, TIME_SHARE

#: the bots each --game plays, by name: (registered bot, its options)
LINEUPS: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {
    "ultimate": {"mcts-a": ("mcts", {}), "mcts-b": ("mcts", {})},
    "tron4": {"territory-1": ("tron-territory", {"depth": 1}), "territory-2": ("tron-territory", {"depth": 2}),
              "mcts": ("mcts", {}), "random": ("tron-random", {})},
    "tron2": {"territory-3": ("tron-territory", {"depth": 3}), "mcts": ("mcts", {})},
}
RULES = {"ultimate": ("ultimate", {}), "tron4": ("tron", {"players": 4, "width": 12, "height": 12}),
         "tron2": ("tron", {"players": 2, "width": 30, "height": 20})}


def refereed(lineup: str, moves: int, move_ms: int) -> tuple[dict[str, list[float]], dict[str, int]]:
    """CPU ms the referee measured for each move of each bot of the lineup, playing each
    other (seats rotated game by game); the games each lost on time."""
    plugins = loaded_plugins()
    bots = []
    for name, (bot, options) in LINEUPS[lineup].items():
        declaration = plugins.bots.get(bot)
        assert declaration is not None, f"the {bot} bot is not registered"
        bots.append(bot_spec(declaration, options, name=name))
    game_name, rules = RULES[lineup]
    game = default_registry().create(game_name, **rules)
    settings = MatchSettings(time=TimeControl(move_ms=move_ms, startup_ms=5000))
    sandbox = Sandbox()
    cpu: dict[str, list[float]] = {spec.name: [] for spec in bots}
    lost = dict.fromkeys(cpu, 0)
    games = 0
    while sum(map(len, cpu.values())) < moves:
        seated = bots[games % len(bots):] + bots[:games % len(bots)]
        record = play_game(game, seated, games + 1, sandbox, settings)
        games += 1
        for move in record.moves:
            if move.cpu_ms is not None:
                cpu[seated[move.seat].name].append(move.cpu_ms)
        timeouts = [(o.seat, o.reason) for o in record.out if o.termination is Termination.TIMEOUT]
        if record.termination is Termination.TIMEOUT and record.faulted is not None:
            timeouts.append((record.faulted, record.reason))
        for seat, reason in timeouts:
            lost[seated[seat].name] += 1
            print(f"lost on time: game {games}: {reason}", flush=True)
        if record.termination not in (Termination.NORMAL, Termination.TIMEOUT):
            print(f"game {games} ended {record.termination.value}: {record.reason}", flush=True)
    return cpu, lost


def _figures(cpu: list[float], move_ms: int) -> str:
    cpu = sorted(cpu)
    if not cpu:
        return "no timed move"
    return (f"{len(cpu)} moves, CPU a move: median {cpu[len(cpu) // 2]:.1f} ms, 99th percentile "
            f"{cpu[min(len(cpu) - 1, int(len(cpu) * 0.99))]:.1f} ms, max {cpu[-1]:.1f} ms; over half "
            f"move_ms {sum(c > move_ms * TIME_SHARE for c in cpu)}, over move_ms "
            f"{sum(c > move_ms for c in cpu)} (must be 0)")


def in_process(moves: int, move_ms: int) -> tuple[list[float], list[float]]:
    """CPU ms of each move of mcts against itself in this process, and the CPU ms of each
    full collection that fell inside a move."""
    game = default_registry().create("ultimate")
    agents = [agent_class("mcts")(game, random.Random(seat)) for seat in (1, 2)]
    fulls: list[float] = []
    began = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.process_time()
        elif info["generation"] == 2:
            fulls.append((time.process_time() - began[0]) * 1000)

    cpu: list[float] = []
    freeze_start_up()   # as the SDK does at a bot's first handshake
    gc.callbacks.append(timed)
    try:
        while len(cpu) < moves:
            state = game.initial_state()
            for agent in agents:
                agent.new_game()
            while not state.is_terminal():
                start = time.process_time()
                move = agents[state.to_move].choose(state, float(move_ms))
                cpu.append((time.process_time() - start) * 1000)
                state = state.play(move)
    finally:
        gc.callbacks.remove(timed)
    return cpu, fulls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--move-ms", type=int, default=100)
    parser.add_argument("--game", choices=("ultimate", "tron"), default="ultimate")
    parser.add_argument("--players", type=int, choices=(2, 4), default=4, help="tron: players a game")
    parser.add_argument("--in-process", action="store_true",
                        help="play ultimate in this process and count the full collections inside moves")
    args = parser.parse_args()
    target = args.move_ms * TIME_SHARE - TIME_MARGIN_MS
    started = time.monotonic()
    if args.in_process:
        cpu, fulls = in_process(args.moves, args.move_ms)
        elapsed = time.monotonic() - started
        print(f"mcts against itself at ultimate in this process, move_ms {args.move_ms} (its target "
              f"{target:g} ms of wall time): {elapsed:.0f} s, load average {os.getloadavg()[0]:.1f}")
        print(f"{_figures(cpu, args.move_ms)}; full collections inside a move: {len(fulls)}, the "
              f"longest {max(fulls, default=0.0):.1f} ms of CPU")
        return
    lineup = args.game if args.game == "ultimate" else f"tron{args.players}"
    per_bot, lost = refereed(lineup, args.moves, args.move_ms)
    elapsed = time.monotonic() - started
    game_name, rules = RULES[lineup]
    shown = " ".join(f"{k}={v}" for k, v in rules.items())
    print(f"{', '.join(per_bot)} at {game_name} {shown} through the sandboxed referee, move_ms "
          f"{args.move_ms} (a bot's target {target:g} ms of wall time): {elapsed:.0f} s, load average "
          f"{os.getloadavg()[0]:.1f}")
    for name, cpu in per_bot.items():
        print(f"{name}: {_figures(cpu, args.move_ms)}; games lost on time: {lost[name]}")


if __name__ == "__main__":
    main()
