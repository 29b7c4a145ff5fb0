"""Is a bot that answers within half its move limit ever forfeited for time when the
machine is loaded? (issue: timing under load)

Runs a league of bots that each spin the CPU for half their move time, on 2 workers,
with CPU-hogging processes alongside (one per core, same priority), until at least
--moves moves are played, and counts timeouts. Run: python benchmarks/timing_under_load.py
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.league import Store, config_from_dict
from arena.league.progress import Progress
from arena.league.runner import run_league
from arena.record import Termination

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=10_000)
    parser.add_argument("--move-ms", type=int, default=40)
    parser.add_argument("--hogs", type=int, default=1, help="CPU-hogging processes alongside")
    args = parser.parse_args()
    bot_dir = HERE / "fixture_bots"
    bot = str(bot_dir / "half_time_bot.py")
    games = max(2, args.moves // 40 + 2)  # games of these bots run 45 to 60 moves: enough
    per_pairing = games + games % 2
    with tempfile.TemporaryDirectory() as tmp:
        config = config_from_dict({
            "name": "timing-under-load", "game": "ultimate",
            "bots": [{"name": "half-a", "command": f"{sys.executable} {bot}", "dir": str(bot_dir)},
                     {"name": "half-b", "command": f"{sys.executable} {bot}", "dir": str(bot_dir)}],
            "games_per_pairing": per_pairing, "workers": 2, "seed": 1,
            "time_control": {"move_ms": args.move_ms, "startup_ms": 5000},
            "store": "timing.sqlite"}, base_dir=tmp)
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)]
        try:
            started = time.monotonic()
            run_league(config, progress=Progress(per_pairing, stream=open(os.devnull, "w")))
            elapsed = time.monotonic() - started
        finally:
            for hog in hogs:
                hog.kill()
        moves = timeouts = 0
        worst = 0.0
        waited = []
        limit = args.move_ms
        with Store(config.store) as store:
            for stored in store.records():
                record = stored.record
                moves += len(record.moves)
                worst = max([worst] + [m.wall_ms for m in record.moves])
                waited += [m.wait_ms or 0.0 for m in record.moves]
                if record.termination is Termination.TIMEOUT:
                    timeouts += 1
                    print(f"forfeit: {record.reason}")
    print(f"load: {args.hogs} CPU hogs + 2 workers on {os.cpu_count()} cores; move limit {limit} ms, "
          f"bots spin {limit / 2:.0f} ms a move; overhead allowance 50 ms")
    print(f"moves: {moves} in {elapsed:.0f} s; games forfeited for time: {timeouts}; "
          f"slowest reply seen by the referee: {worst:.1f} ms")
    waited.sort()
    if waited:
        print(f"CPU wait (host load, not charged) per move: median {waited[len(waited) // 2]:.1f} ms, "
              f"max {waited[-1]:.1f} ms; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
