"""Does the reference MCTS keep to its own time target? (issue: our own MCTS lost games on time)

Plays ultimate games of the catalog's mcts bot against itself through the sandboxed
referee, as a league would (one SDK process a bot, a game at a time), at --move-ms a
move (default 100: the bot aims at half of it less 5 ms, 45 ms, of wall time), until
--moves moves are played, and prints the CPU time the referee measured a move: the
median, the 99th percentile, the largest, how many moves went over half the move limit
(the most the bot plans to use: its target plus a 5 ms margin) and over the move limit
(must be 0), and the games lost on time. With --in-process the
games are played in this process instead (the agent's choose() as the SDK calls it),
each move's CPU time taken with time.process_time, and the garbage collector's full
collections inside moves counted: a busy machine gives the bot less CPU time in its
45 ms of wall time, but a collection costs what it costs.
Run: python benchmarks/mcts_clock.py [--moves 2000] [--move-ms 100] [--in-process]
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import random
import time
from typing import Any

from arena.games import default_registry
from arena.record import Termination
from arena.referee import MatchSettings, TimeControl, play_game
from arena.referee.botspec import registered_bot_spec
from arena.sandbox import Sandbox
from arena.sdk import freeze_start_up
from bots import agent_class
from bots.base import TIME_MARGIN_MS, TIME_SHARE


def refereed(moves: int, move_ms: int) -> tuple[list[float], int]:
    """CPU ms the referee measured for each move of mcts against itself; games lost on time."""
    spec = registered_bot_spec("mcts")
    assert spec is not None, "the mcts bot is not registered"
    bots = (dataclasses.replace(spec, name="mcts-a"), dataclasses.replace(spec, name="mcts-b"))
    game = default_registry().create("ultimate")
    settings = MatchSettings(time=TimeControl(move_ms=move_ms, startup_ms=5000))
    sandbox = Sandbox()
    cpu: list[float] = []
    games = lost = 0
    while len(cpu) < moves:
        record = play_game(game, bots, games + 1, sandbox, settings)
        games += 1
        cpu += [m.cpu_ms for m in record.moves if m.cpu_ms is not None]
        if record.termination is Termination.TIMEOUT:
            lost += 1
            print(f"lost on time: game {games}: {record.reason}", flush=True)
        elif record.termination is not Termination.NORMAL:
            print(f"game {games} ended {record.termination.value}: {record.reason}", flush=True)
    return cpu, lost


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
    parser.add_argument("--in-process", action="store_true",
                        help="play in this process and count the full collections inside moves")
    args = parser.parse_args()
    target = args.move_ms * TIME_SHARE - TIME_MARGIN_MS
    planned = args.move_ms * TIME_SHARE
    started = time.monotonic()
    if args.in_process:
        cpu, fulls = in_process(args.moves, args.move_ms)
        where = "in this process"
        after = (f"full collections inside a move: {len(fulls)}, the longest "
                 f"{max(fulls, default=0.0):.1f} ms of CPU")
    else:
        cpu, lost = refereed(args.moves, args.move_ms)
        where = "through the sandboxed referee"
        after = f"games lost on time: {lost}"
    elapsed = time.monotonic() - started
    cpu.sort()
    print(f"mcts against itself at ultimate {where}, move_ms {args.move_ms} (its target {target:g} ms "
          f"of wall time): {len(cpu)} moves, {elapsed:.0f} s, load average {os.getloadavg()[0]:.1f}")
    print(f"CPU a move: median {cpu[len(cpu) // 2]:.1f} ms, 99th percentile "
          f"{cpu[min(len(cpu) - 1, int(len(cpu) * 0.99))]:.1f} ms, max {cpu[-1]:.1f} ms; "
          f"over half move_ms {sum(c > planned for c in cpu)}, over move_ms "
          f"{sum(c > args.move_ms for c in cpu)} (must be 0); {after}")


if __name__ == "__main__":
    main()
