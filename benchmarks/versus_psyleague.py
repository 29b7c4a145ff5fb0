"""League throughput against psyleague's: the same two CodinGame-protocol Python bots, the
same game (ultimate tic-tac-toe), the same number of workers, games a second.

bot-arena plays a league of the two bots (benchmarks/fixture_bots/codingame_random_bot.py
under two seeds, dialect codingame, move_ms 100) through run_league, once in its sandbox
and once with `sandbox: {mode: none}`. psyleague 0.4.1 is pip-installed into a temporary
venv (the comparison is skipped, with a note, when it cannot be) and runs `psyleague run
--games N` with `n_workers` set in its config (its queue's depth follows the config, not
--workers), each game played by its play command: benchmarks/fixture_bots/psyleague_referee.py,
a minimal referee with no clock and no sandbox that starts both bots, plays, and kills
them. Every bot, and psyleague's referee, is run by the system's python3 (a root
referee's bot uids could not reach a Python under /root outside bwrap). Both figures are whole runs: from the command's
start to its last game stored. Beside each, the CPU time of every process of the run over
its games (referee, workers, bots; psyleague's play commands): a figure the machine's
load moves much less than games/s. The load average is printed: other work on the
machine slows every number.
Run: python benchmarks/versus_psyleague.py [--games 400] [--workers 2]
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path

from arena.league import config_from_dict, runner
from arena.league.progress import Progress
from arena.plugins import Plugins, load_plugins

HERE = Path(__file__).resolve().parent
BOT = HERE / "fixture_bots" / "codingame_random_bot.py"
REFEREE = HERE / "fixture_bots" / "psyleague_referee.py"
PSYLEAGUE = "psyleague==0.4.1"
PYTHON = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "/usr/bin/python3"


def cpu_seconds() -> float:
    """CPU time of this process and of every process it (or its children) started and reaped."""
    return sum(getattr(resource.getrusage(who), field)
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for field in ("ru_utime", "ru_stime"))


def measured(play: Callable[[], int]) -> tuple[float, float]:
    """(games a second, ms of CPU a game) of play(), which returns the games it played."""
    cpu, started = cpu_seconds(), time.monotonic()
    games = play()
    seconds = time.monotonic() - started
    return games / seconds, (cpu_seconds() - cpu) / games * 1000


def arena_run(tmp: Path, plugins: Plugins, games: int, workers: int, sandbox: str) -> int:
    """Games played by one run_league of the two bots."""
    data = {
        "name": f"cg-{sandbox}", "game": "ultimate", "games_per_pairing": games, "workers": workers,
        "bots": [{"name": f"cg{seed}", "command": f"{PYTHON} {BOT} {seed}",
                  "dialect": "codingame"} for seed in (1, 2)],
        "time_control": {"move_ms": 100}, "sandbox": {"mode": sandbox}, "openings": "none",
        "store": str(tmp / f"cg-{sandbox}.sqlite"), "seed": 1}
    config = config_from_dict(data, base_dir=tmp, known_bots=runner.known_bots_check(plugins),
                              games=plugins.games)
    return runner.run_league(config, plugins, progress=Progress(0, stream=io.StringIO())).played


def install_psyleague(tmp: Path) -> Path | str:
    """The psyleague command of a fresh venv, or why it could not be installed."""
    venv = tmp / "psyleague-venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", PSYLEAGUE], check=True,
                       capture_output=True, timeout=300)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        said = getattr(exc, "stderr", b"") or b""
        last = said.decode(errors="replace").strip().splitlines()[-1:] or [str(exc)]
        return f"pip install {PSYLEAGUE} failed: {last[0]}"
    return venv / "bin" / "psyleague"


def psyleague_run(tmp: Path, command: Path, games: int, workers: int) -> int:
    """Games played by `psyleague run --games N` on the two bots."""
    home = tmp / "psyleague"
    (home / "bots").mkdir(parents=True)
    play = f"{PYTHON} {REFEREE} '%DIR%/%P1%' '%DIR%/%P2%'"
    (home / "psyleague.cfg").write_text(
        'version = "0.4.1"\n'
        f"n_workers = {workers}\nn_players = 2\n"
        "mm_min_matches = 200\nmm_min_matches_preference = 1.0\n"
        'date_format = "%Y/%m/%d %H:%M:%S"\n'
        'leaderboard = "POS,NAME,SCORE.2,GAMES"\n'
        'model = "trueskill"\ndraw_prob = 0.0001\ntau = 0.00025\n'
        'dir_bots = "bots"\n'
        # a bot's "file" is its command line: the play command passes it to the referee
        'cmd_bot_setup = "true"\n'
        f'cmd_play_game = "{play}"\n'
        'file_log = "psyleague.log"\nfile_msg = "psyleague.msg"\n'
        'file_db = "psyleague.db"\nfile_games = "psyleague.games"\n')
    for seed in (1, 2):
        # a bot name that is its command: %DIR%/%P1% becomes 'bots/NAME', so a script
        # in bots/ named after the bot runs it
        script = home / "bots" / f"cg{seed}"
        script.write_text(f"#!/bin/sh\nexec {PYTHON} {BOT} {seed}\n")
        script.chmod(0o755)
        subprocess.run([str(command), "bot", "add", f"cg{seed}"], cwd=home, check=True,
                       capture_output=True)
    subprocess.run([str(command), "run", "--games", str(games), "--workers", str(workers), "--silent"],
                   cwd=home, check=True, capture_output=True)
    return len((home / "psyleague.games").read_text().splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per run")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore")            # mode none's warnings: known, and said above
    logging.getLogger("arena.sandbox").setLevel(logging.ERROR)
    plugins = load_plugins()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"two CodinGame Python bots, ultimate, {args.games} games a run, {args.workers} workers, "
          f"{os.cpu_count()} CPUs, load average {load}", flush=True)
    with tempfile.TemporaryDirectory(prefix="arena-versus-") as name:
        tmp = Path(name)
        rates = {}
        for mode, label in (("auto", "sandboxed"), ("none", "sandbox mode none")):
            rates[mode], cpu_ms = measured(partial(arena_run, tmp, plugins, args.games, args.workers, mode))
            print(f"bot-arena, {label + ':':<19} {rates[mode]:6.1f} games/s, {cpu_ms:5.1f} ms CPU a game",
                  flush=True)
        command = install_psyleague(tmp)
        if isinstance(command, str):
            print(f"psyleague: skipped ({command})")
            return
        theirs, cpu_ms = measured(partial(psyleague_run, tmp, command, args.games, args.workers))
        print(f"psyleague 0.4.1, no sandbox: {theirs:6.1f} games/s, {cpu_ms:5.1f} ms CPU a game", flush=True)
        print(f"ratio: {rates['auto'] / theirs:.2f}x sandboxed, {rates['none'] / theirs:.2f}x "
              f"without the sandbox (targets 1.0x and 1.3x)")
        print(f"load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
