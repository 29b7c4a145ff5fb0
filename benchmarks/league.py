"""League throughput through the whole path (sandbox, referee, store), locally and on Ray.

  (i)  random-vs-random ultimate games/s with 1 and 2 local workers (multiprocess),
       and the 2-worker speed-up; then 2 workers again with pin_workers: false;
  (iii) many bots, 2 workers: a 100-bot round robin (2 games a pairing) and a 100-bot
       ladder (schedule: ladder, matchmaker active) between two runs of an 8-bot league,
       9,900 games each, in games/s and as a share of the 8-bot league's (the mean of
       its two runs): what starting bot processes costs when each worker has 100 bots
       to start (at least once) rather than 8;
  (ii) Ray: start and stop of a private local instance, the cost of an empty task,
       games/s with 2 workers on Ray, and the per-game overhead of Ray over local
       multiprocess at the same worker count; then a 20-bot ladder of 400 games on Ray
       (--ray-ladder, --ray-ladder-games), its games/s and the bot processes its workers
       started.

"whole run" is what `arena run` takes, start-up included; "steady" leaves out the
start (pool or Ray workers starting, sandbox set-up): it counts from the moment each
worker has finished one game. Every run is run_league on a generated config of
registered random bots (uttt-random) with its store in a temp dir (Ray's session
files too; Ray's token authentication is off unless RAY_AUTH_MODE says otherwise).
The machine's load average is printed first: other work on it slows every number.
"ms CPU a game" is the CPU time of every process of a local run (coordinator, workers,
bots) over its games: a figure the load moves much less than games/s.
Run: python benchmarks/league.py [--games 600] [--many-bots 100] [--ladder-games N] [--no-ray]
     [--ray-ladder 20] [--ray-ladder-games 400]
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.league import LeagueConfig, config_from_dict, runner
from arena.league.executors.base import chunks
from arena.league.ladder import run_ladder
from arena.league.progress import Progress
from arena.league.schedule import schedule
from arena.plugins import Plugins, load_plugins
from arena.record import GameRecord
from arena.sandbox import Sandbox

BOTS = 4   # 6 pairings


class _Stopwatch(Progress):
    """A silent Progress that notes when each game was stored."""

    def __init__(self) -> None:
        super().__init__(0, stream=io.StringIO())
        self.times: list[float] = []

    def update(self, record: GameRecord) -> None:
        self.times.append(time.monotonic())


def league(tmp: Path, name: str, games: int, workers: int, plugins: Plugins,
           executor: str = "local", bots: int = BOTS, pin: bool = True) -> LeagueConfig:
    pairings = bots * (bots - 1) // 2
    per_pairing = max(2, 2 * round(games / pairings / 2))
    data: dict[str, Any] = {
        "name": name, "game": "ultimate", "games_per_pairing": per_pairing, "workers": workers,
        "bots": [{"name": f"r{i}", "bot": "uttt-random"} for i in range(bots)],
        "store": str(tmp / f"{name}.sqlite"), "seed": 1, "executor": executor, "pin_workers": pin}
    return config_from_dict(data, base_dir=tmp, known_bots=runner.known_bots_check(plugins),
                            games=plugins.games)


def ladder(tmp: Path, name: str, games: int, workers: int, plugins: Plugins,
           bots: int, executor: str = "local") -> LeagueConfig:
    """A ladder of `bots` random bots that stops after `games` games."""
    data: dict[str, Any] = {
        "name": name, "game": "ultimate", "schedule": "ladder", "workers": workers,
        "ladder": {"matchmaker": "active", "games": games},
        "bots": [{"name": f"r{i}", "bot": "uttt-random"} for i in range(bots)],
        "store": str(tmp / f"{name}.sqlite"), "seed": 1, "executor": executor}
    return config_from_dict(data, base_dir=tmp, known_bots=runner.known_bots_check(plugins),
                            games=plugins.games)


def play(config: LeagueConfig, plugins: Plugins) -> tuple[int, float, float]:
    """(games, whole-run games/s, steady games/s) of one run_league (run_ladder for a ladder)."""
    clock = _Stopwatch()
    run = run_ladder if config.ladder is not None else runner.run_league
    summary = run(config, plugins, progress=clock)
    warm = config.workers  # each worker has finished one game: start-up is behind us
    steady = (len(clock.times) - warm) / (clock.times[-1] - clock.times[warm - 1])
    return summary.played, summary.played / summary.seconds, steady


def cpu_seconds() -> float:
    """CPU time of this process and of every process it (or its children) started and
    reaped: local workers and the bots, once a run has ended."""
    return sum(getattr(resource.getrusage(who), field)
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for field in ("ru_utime", "ru_stime"))


def ray_costs(workers: int, tasks: int = 2000) -> dict[str, float]:
    """Start and stop of a private local Ray instance, and an empty task's cost."""
    import ray
    started = time.monotonic()
    ray.init(address="local", num_cpus=workers, include_dashboard=False, logging_level="WARNING",
             _node_ip_address="127.0.0.1")   # as play_fixtures_ray starts it
    start_s = time.monotonic() - started
    try:
        empty = ray.remote(num_cpus=1)(_nothing)
        ray.get([empty.remote() for _ in range(2 * workers)])   # workers up and warm
        began = time.perf_counter()
        for _ in range(tasks // 4):
            ray.get(empty.remote())
        one_at_a_time_ms = (time.perf_counter() - began) / (tasks // 4) * 1000
        began = time.perf_counter()
        ray.get([empty.remote() for _ in range(tasks)])
        pipelined_ms = (time.perf_counter() - began) / tasks * 1000
    finally:
        stopping = time.monotonic()
        ray.shutdown()
    return {"start_s": start_s, "stop_s": time.monotonic() - stopping,
            "one_at_a_time_ms": one_at_a_time_ms, "pipelined_ms": pipelined_ms}


def _pieces(config: LeagueConfig, workers: int) -> str:
    """How the run was cut: a Ray worker takes a pairing at a time, a local worker a pair
    at a time; each keeps the bots it started."""
    if config.executor == "ray":
        count = len(chunks(schedule(config), workers))
        return f"{count} pieces, <= {min(2 * count, len(config.bots) * workers)} bot starts"
    count = len(chunks(schedule(config), workers, most_pairs=1))
    return f"{count} pieces of a pair, <= {len(config.bots) * workers} bot starts"


def many_bots(base: Path, plugins: Plugins, bots: int, ladder_games: int | None,
              few: int = 8) -> None:
    """(iii): the many-bot round robin and ladder between two runs of the few-bot league,
    2 workers each, as many games each as the round robin has unless ladder_games says
    otherwise; each as a share of the few-bot league's mean (the two runs bracket the
    others, so a load that changes meanwhile shows as a gap between them)."""
    ladder_games = ladder_games or bots * (bots - 1)
    runs = [(f"{few}-bot league", league(base, "few", ladder_games, 2, plugins, bots=few)),
            (f"{bots}-bot round robin", league(base, "many", 0, 2, plugins, bots=bots)),
            (f"{bots}-bot ladder", ladder(base, "ladder", ladder_games, 2, plugins, bots)),
            (f"{few}-bot league", league(base, "few2", ladder_games, 2, plugins, bots=few))]
    figures = []
    for label, config in runs:
        before = cpu_seconds()
        played, whole, steady = play(config, plugins)
        figures.append((label, played, whole, steady, (cpu_seconds() - before) / played * 1000))
    few_whole = (figures[0][2] + figures[-1][2]) / 2
    few_steady = (figures[0][3] + figures[-1][3]) / 2
    for label, played, whole, steady, cpu_ms in figures:
        print(f"(iii) {label:<20} 2 workers: {played:5d} games, {whole:6.1f} games/s whole run "
              f"({whole / few_whole:4.0%} of the {few}-bot league's mean), {steady:6.1f} steady "
              f"({steady / few_steady:4.0%}), {cpu_ms:.1f} ms CPU a game", flush=True)


def _nothing() -> None:
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="games per run (about)")
    parser.add_argument("--no-ray", action="store_true", help="local runs only")
    parser.add_argument("--many-bots", type=int, default=100,
                        help="bots in the many-bot round robin (2 games a pairing) and ladder "
                             "(0: skip them)")
    parser.add_argument("--ladder-games", type=int, default=None,
                        help="games the many-bot ladder and the few-bot league play (default: "
                             "the round robin's)")
    parser.add_argument("--few-bots", type=int, default=8, help="bots in the league they are "
                        "measured against")
    parser.add_argument("--ray-ladder", type=int, default=20,
                        help="bots in the ladder played on Ray (0: skip it)")
    parser.add_argument("--ray-ladder-games", type=int, default=400,
                        help="games of the ladder played on Ray")
    args = parser.parse_args()
    plugins = load_plugins()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        base = Path(tmp)
        # Ray's session files in the temp dir too, and no token written to ~/.ray
        os.environ.setdefault("RAY_TMPDIR", tmp)
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        configs = {w: league(base, f"local{w}", args.games, w, plugins) for w in (1, 2)}
        games = len(schedule(configs[1]))
        print(f"league throughput: random vs random (uttt-random), ultimate, {games} games a "
              f"run, sandbox {Sandbox().mode}, {os.cpu_count()} CPUs, load average {load}",
              flush=True)
        runs = {}
        for workers, config in configs.items():
            before = cpu_seconds()
            runs[workers] = play(config, plugins)
            cpu_ms = (cpu_seconds() - before) / runs[workers][0] * 1000
            label = f"local, {workers} worker{'s' * (workers > 1)}"
            print(f"(i)  {label:<17} {runs[workers][1]:6.1f} games/s whole run, "
                  f"{runs[workers][2]:6.1f} steady, {cpu_ms:.1f} ms CPU a game  "
                  f"({_pieces(config, workers)})", flush=True)
        print(f"     2-worker speed-up: {runs[2][1] / runs[1][1]:.2f}x whole run, "
              f"{runs[2][2] / runs[1][2]:.2f}x steady", flush=True)
        _, whole, steady = play(league(base, "unpinned", args.games, 2, plugins, pin=False), plugins)
        print(f"     2 workers, pin_workers: false: {whole:6.1f} games/s whole run, {steady:6.1f} "
              f"steady ({whole / runs[1][1]:.2f}x)", flush=True)
        if args.many_bots > 1:
            many_bots(base, plugins, args.many_bots, args.ladder_games, args.few_bots)
        print(f"     load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
        if args.no_ray:
            return
        try:
            import ray  # noqa: F401
        except ImportError:
            print("(ii) skipped: Ray is not installed (pip install 'bot-arena[ray]')")
            return
        costs = ray_costs(2)
        print(f"(ii) Ray local instance: start {costs['start_s']:.1f} s, stop "
              f"{costs['stop_s']:.1f} s")
        print(f"     empty task: {costs['one_at_a_time_ms']:.2f} ms one at a time, "
              f"{costs['pipelined_ms']:.2f} ms each when pipelined", flush=True)
        config = league(base, "ray2", args.games, 2, plugins, "ray")
        _, whole, steady = play(config, plugins)
        print(f"     {'Ray, 2 workers':<17} {whole:6.1f} games/s whole run, {steady:6.1f} "
              f"steady  ({_pieces(config, 2)})")
        local = runs[2][2]
        print(f"     per-game overhead of Ray over local multiprocess (2 workers, steady): "
              f"{(2 / steady - 2 / local) * 1000:+.1f} ms a game "
              f"({2000 / local:.0f} ms a game locally)", flush=True)
        if args.ray_ladder > 1:
            ray_ladder(base, plugins, args.ray_ladder, args.ray_ladder_games)


class _Said(logging.Handler):
    """Keeps what the Ray executor says of its bot starts."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "bot processes started" in record.getMessage():
            self.lines.append(record.getMessage())


def ray_ladder(base: Path, plugins: Plugins, bots: int, games: int) -> None:
    """(ii) a ladder of many bots on Ray, 2 workers: its games/s and the bot processes its
    workers started (a worker that kept no bots between pieces started two a pair)."""
    said = _Said()
    log = logging.getLogger("arena.league.ray")
    log.addHandler(said)
    log.setLevel(logging.INFO)
    try:
        played, whole, steady = play(ladder(base, "rayladder", games, 2, plugins, bots, "ray"),
                                     plugins)
    finally:
        log.removeHandler(said)
    starts = said.lines[-1].rsplit(" ", 1)[1] if said.lines else "?"
    print(f"     Ray, 2 workers, {bots}-bot ladder: {played} games, {whole:6.1f} games/s whole "
          f"run, {steady:6.1f} steady, {starts} bot starts", flush=True)


if __name__ == "__main__":
    main()
