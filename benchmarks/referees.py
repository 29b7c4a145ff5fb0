"""A game played by a referee process against the same game built in (docs/referees.md).

The same two bots (fixture_bots/codingame_random_bot.py, seeded: a CodinGame Ultimate
Tic-Tac-Toe bot answering a random valid action) play ultimate tic-tac-toe
  (built-in) as the built-in `ultimate` game, the bots speaking the codingame dialect;
  (relayed)  through a Python referee process, fixture_bots/ultimate_referee.py, speaking
             cg-brutaltester's protocol, which plays the same rules and writes the bots the
             same lines; the arena relays them (arena.referee.relay).
Each game is played as a league's worker plays it (play_game, sandboxed, one game at a time;
a CodinGame bot plays one game a process, so every game starts its two bots, and the
relayed game its referee too), the two taking turns game by game. Each game's bots are
seeded by its seed; given the same seeds they make the same choices in both, so the two play
the very same games: checked, and said.

Printed: games/s of each and their ratio (the median of the rounds' ratios; target >= 0.6),
and the CPU time per move of the arena's side of a game, in the thread that plays it: the
built-in referee's (rules, clock, records) and the relay's (the referee's lines read and
relayed, the clock, records). Where the process may use more than one CPU a wait for a reply
first polls for up to SPIN_S (arena.referee.channel), twice a move in a relayed game (the
bot's reply, the referee's next command), and that polling is CPU time too: so the CPU is
given as the rounds measured it, and from one more pass with the polling off (spin_seconds
made 0 for it), the work itself. Load on a shared machine moves the figures a lot;
their ratio, measured game by game, much less.

Run: python benchmarks/referees.py [--rounds 5] [--games 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import arena.referee.referee
from arena.games import default_registry
from arena.league.refereegame import referee_game
from arena.referee import BotSpec, MatchSettings, TimeControl, play_game
from arena.sandbox import Sandbox

BOTS = Path(__file__).resolve().parent / "fixture_bots"


def bots(dialect: str, game_seed: int) -> tuple[BotSpec, BotSpec]:
    """The two bots of a game, each seeded by the game's seed (another game, other choices)."""
    return tuple(BotSpec(name=f"random{seat}", dialect=dialect, readable=(str(BOTS),),
                         argv=(sys.executable, str(BOTS / "codingame_random_bot.py"), str(2 * game_seed + seat)))
                 for seat in (0, 1))   # type: ignore[return-value]


def relayed_game():
    """Ultimate tic-tac-toe played by fixture_bots/ultimate_referee.py, declared as a plugin
    declares a referee game."""
    return referee_game({"name": "ultimate-ref", "referee": f"{sys.executable} ultimate_referee.py",
                         "players": 2}, BOTS)()


def play(games, seeds, sandbox: Sandbox, settings: MatchSettings):
    """The games of seeds, each seed played by every game in turn (a game of one, then of
    the other: load that comes and goes falls on both alike); per game, its records, the
    wall seconds and this thread's CPU seconds they took."""
    records: list[list] = [[] for _ in games]
    wall, cpu = [0.0] * len(games), [0.0] * len(games)
    for seed in seeds:
        for i, game in enumerate(games):
            started, thread = time.perf_counter(), time.thread_time()
            records[i].append(play_game(game, bots("codingame", seed), seed, sandbox, settings))
            cpu[i] += time.thread_time() - thread
            wall[i] += time.perf_counter() - started
    return records, wall, cpu


def same_games(built, relayed) -> str | None:
    """None if each pair of records is the same game (moves and result); else the first
    difference."""
    for index, (a, b) in enumerate(zip(built, relayed, strict=True)):
        if a.termination.value != "normal" or b.termination.value != "normal":
            return f"game {index}: {a.termination.value} ({a.reason}) / {b.termination.value} ({b.reason})"
        if len(a.moves) != len(b.moves) or a.winner != b.winner:
            return (f"game {index}: built in {len(a.moves)} moves, winner {a.winner}; relayed "
                    f"{len(b.moves)} moves, winner {b.winner}")
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=20, help="games of each a round")
    args = parser.parse_args()
    sandbox = Sandbox()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"# sandbox mode: {sandbox.mode}, {os.cpu_count()} CPUs, load average {load}")
    builtin, relayed = default_registry().create("ultimate"), relayed_game()
    settings = MatchSettings(time=TimeControl(move_ms=1000, startup_ms=5000))
    rates: list[tuple[float, float]] = []
    cpus: list[tuple[float, float]] = []
    moves = 0
    for round_ in range(args.rounds):
        seeds = range(round_ * args.games, (round_ + 1) * args.games)
        (a, b), (a_wall, b_wall), (a_cpu, b_cpu) = play((builtin, relayed), seeds, sandbox, settings)
        differ = same_games(a, b)
        if differ is not None:
            sys.exit(f"the two did not play the same games: {differ}")
        n = sum(len(r.moves) for r in a)
        moves += n
        rates.append((len(a) / a_wall, len(b) / b_wall))
        cpus.append((a_cpu / n * 1e6, b_cpu / n * 1e6))
        print(f"round {round_ + 1}: built-in {rates[-1][0]:.1f} games/s, relayed {rates[-1][1]:.1f} games/s "
              f"({rates[-1][1] / rates[-1][0]:.2f}); CPU a move: built-in {cpus[-1][0]:.0f} us, "
              f"relay {cpus[-1][1]:.0f} us ({n} moves)", flush=True)
    spin = arena.referee.referee.spin_seconds
    arena.referee.referee.spin_seconds = lambda: 0.0   # type: ignore[attr-defined]
    try:
        seeds = range(args.games)
        (a, _), _, (a_cpu, b_cpu) = play((builtin, relayed), seeds, sandbox, settings)
    finally:
        arena.referee.referee.spin_seconds = spin   # type: ignore[attr-defined]
    n = sum(len(r.moves) for r in a)
    work = (a_cpu / n * 1e6, b_cpu / n * 1e6)
    ratio = statistics.median(r / b for b, r in rates)
    print(f"the same {moves} moves in {args.rounds * args.games} games played by both (same moves, same results)")
    print(f"built-in: {statistics.median(b for b, _ in rates):.1f} games/s; relayed through a referee "
          f"process: {statistics.median(r for _, r in rates):.1f} games/s")
    print(f"relayed / built-in games/s: {ratio:.2f}  (target >= 0.6; median of the rounds' ratios)")
    print(f"CPU a move in the playing thread: built-in referee {statistics.median(c for c, _ in cpus):.0f} us, "
          f"relay {statistics.median(c for _, c in cpus):.0f} us (medians of the rounds, polling included); "
          f"with no polling: built-in referee {work[0]:.0f} us, relay {work[1]:.0f} us ({args.games} games each)")
    print(f"# load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
