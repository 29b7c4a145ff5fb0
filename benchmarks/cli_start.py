"""How long the arena command takes to start, measured side by side in one run.

Times, as the tests run it (a new process each time), `arena --version`, `arena games`, a
refused `arena match` (a bad bot option: plugins loaded, nothing played), `arena run` of a
2-bot, 2-game tic-tac-toe league into a new store, and `arena leaderboard` of that store.
Each command is run --runs times; for each, the median and the fastest run (on a machine
shared with other work, the one it held up least) of: the wall time of the whole command;
its CPU time (with its children's: the bots of the run), which a loaded machine moves less;
and the part of it spent importing (the top-level imports' cumulative times as `python -X
importtime` reports them, summed over the imports after the interpreter's own start-up, in
a run of its own).

Every checkout's modules are byte-compiled into a folder of the benchmark's own
(PYTHONPYCACHEPREFIX) by an untimed first round: a checkout with files changed since its
install, whose byte-code is stale, is not measured compiling them (where
PYTHONDONTWRITEBYTECODE is set it would at every start), and nothing is written into either
checkout.

With --against CHECKOUT (another checkout of bot-arena with its own .venv, e.g. the main
branch's) the same commands of both are run in the same rounds, each command of one right
after the other's, so the load of a shared machine weighs on both alike, and the tables show
them side by side, with the change: the median of the rounds' ratios (each round's two runs
ran back to back, under one load), and the fastest's ratio.

    python benchmarks/cli_start.py [--runs 7] [--against /work/main]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

LEAGUE = """\
name: cli-start
game: tictactoe
bots:
  - {name: random, bot: random}
  - {name: blind, bot: ttt-blind}
games_per_pairing: 2
workers: 1
seed: 1
store: league.sqlite
"""

#: (label, arguments, the exit code it must give); run in this order, in a league's folder
COMMANDS: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("arena --version", ("--version",), 0),
    ("arena games", ("games",), 0),
    ("arena match (refused)", ("match", "uttt-minimax-pruning:depth=deep", "random", "--game", "ultimate"), 2),
    ("arena run (2 bots, 2 games)", ("run", "league.yaml"), 0),
    ("arena leaderboard", ("leaderboard", "league.sqlite"), 0),
)


class Checkout:
    """A checkout of bot-arena, its .venv, and a folder of its own for the league."""

    def __init__(self, root: Path, folder: Path, env: dict[str, str]) -> None:
        self.root = root
        self.python = root / ".venv" / "bin" / "python"
        self.arena = root / ".venv" / "bin" / "arena"
        if not self.arena.exists():
            raise SystemExit(f"{self.arena} does not exist: run scripts/install.sh in {root}")
        self.folder, self.env = folder, env
        folder.mkdir()
        (folder / "league.yaml").write_text(LEAGUE)
        self.wall: dict[str, list[float]] = {label: [] for label, _, _ in COMMANDS}
        self.cpu: dict[str, list[float]] = {label: [] for label, _, _ in COMMANDS}
        self.imports: dict[str, list[float]] = {label: [] for label, _, _ in COMMANDS}

    def run(self, label: str, args: tuple[str, ...], code: int, importtime: bool = False) -> None:
        """Run one command (each run of the league into a new store) and keep its time."""
        if args[0] == "run":
            for stale in self.folder.glob("league.sqlite*"):
                stale.unlink()
        command = [str(self.python), "-X", "importtime", str(self.arena), *args] if importtime else \
            [str(self.arena), *args]
        start, children = time.perf_counter(), os.times()
        done = subprocess.run(command, cwd=self.folder, env=self.env, capture_output=True, text=True)
        wall, after = time.perf_counter() - start, os.times()
        cpu = after.children_user + after.children_system - children.children_user - children.children_system
        if done.returncode != code:
            raise SystemExit(f"{self.root}: arena {' '.join(args)} exited {done.returncode}, not {code}:\n"
                             f"{done.stderr[-2000:]}")
        if importtime:
            self.imports[label].append(import_seconds(done.stderr))
        else:
            self.wall[label].append(wall)
            self.cpu[label].append(cpu)


def import_seconds(stderr: str) -> float:
    """The seconds of the top-level imports -X importtime reports after the interpreter's own
    start-up (the `site` module and what it imports come first)."""
    total_us = 0
    started = False
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not name.startswith("  "):   # a top-level import: its cumulative time holds the nested ones
            if started:
                total_us += int(cumulative)
            started = started or name.strip() == "site"
    return total_us / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7,
                        help="runs of each command (the median and the fastest are shown)")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="another bot-arena checkout with its own .venv, shown side by side")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        checkouts = [Checkout(HERE, Path(tmp) / "this", env)]
        if args.against is not None:
            checkouts.append(Checkout(args.against.resolve(), Path(tmp) / "against", env))
        for checkout in checkouts:   # once untimed: byte-compiled files written, caches warm
            for label, command, code in COMMANDS:
                checkout.run(label, command, code)
        for round_ in range(args.runs):
            # each command of each checkout in turn, each checkout going first in turn
            ordered = checkouts[round_ % 2:] + checkouts[:round_ % 2]
            for label, command, code in COMMANDS:
                for importtime in (False, True):
                    for checkout in ordered:
                        checkout.run(label, command, code, importtime)
    against = f"; against: {checkouts[1].root}" if len(checkouts) > 1 else ""
    print(f"in ms, the median of {args.runs} runs{against}; change: the median of each round's ratio")
    print_table(checkouts, statistics.median, _median_ratio)
    # the fastest run is the one other work on the machine held up least
    print(f"\nin ms, the fastest of {args.runs} runs; change: the fastest's ratio")
    print_table(checkouts, min, lambda this, other: min(this) / min(other))


def _median_ratio(this: list[float], other: list[float]) -> float:
    """The median of the rounds' ratios: each round's pair ran back to back, under one load."""
    return statistics.median(a / b for a, b in zip(this, other))


def print_table(checkouts: list[Checkout], statistic: Callable[[list[float]], float],
                ratio: Callable[[list[float], list[float]], float]) -> None:
    """One row a command: wall time, CPU time and imports of each checkout (and the change)."""
    width = max(len(label) for label, _, _ in COMMANDS)
    sides = ("this", "against", "change")[:3 if len(checkouts) == 2 else 1]
    block = len(sides) * 8
    print(f"{'':<{width}}" + "".join(f"  {title:^{block}}" for title in ("wall", "CPU", "imports")))
    print(f"{'':<{width}}" + ("  " + "".join(f"{side:>8}" for side in sides)) * 3)
    for label, _, _ in COMMANDS:
        cells = []
        for measure in ("wall", "cpu", "imports"):
            runs = [getattr(c, measure)[label] for c in checkouts]
            cells.append("".join(f"{statistic(values) * 1000:8.0f}" for values in runs) +
                         (f"{ratio(*runs) - 1:+8.0%}" if len(runs) == 2 else ""))
        print(f"{label:<{width}}" + "".join(f"  {cell}" for cell in cells))


if __name__ == "__main__":
    main()
