"""What a running ladder pays to watch its membership: Membership.poll() when nothing
changed (the config and every bot's files stat-ed, the retired bots read), and a poll
that takes one edited bot as a new version. BOTS command bots, each a directory of FILES
files, in a config file of their own.

    .venv/bin/python benchmarks/membership.py [--bots 32] [--files 5] [--polls 2000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from arena.league import Store
from arena.league.membership import Membership
from arena.league.runner import bot_versions, load_league
from arena.plugins import load_plugins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=32)
    parser.add_argument("--files", type=int, default=5, help="files per bot")
    parser.add_argument("--polls", type=int, default=2000, help="polls timed when nothing changed")
    parser.add_argument("--edits", type=int, default=20, help="polls timed that take an edit")
    args = parser.parse_args()
    plugins = load_plugins()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        old = time.time() - 3600    # files older than the racy window, as a bot's files are
        for i in range(args.bots):
            bot = base / f"bot{i}"
            bot.mkdir()
            (bot / "bot.py").write_text("print('hello')\n")
            for j in range(args.files - 1):
                (bot / f"data{j}.txt").write_text(f"{i} {j}\n" * 100)
        lines = [f"  - {{name: bot{i}, command: \"python3 bot{i}/bot.py\"}}" for i in range(args.bots)]
        path = base / "ladder.yaml"
        path.write_text("name: bench\ngame: tictactoe\nstore: ladder.sqlite\nbots:\n" + "\n".join(lines) + "\n")
        for item in base.rglob("*"):
            os.utime(item, (old, old))
        config = load_league(str(path), plugins)
        with Store(config.store) as store:
            store.bind(config)
            bot_versions(config, plugins, store)
            membership = Membership(path, config, plugins, store)
            still = []
            for _ in range(args.polls):
                started = time.perf_counter()
                update = membership.poll()
                still.append(time.perf_counter() - started)
                assert update is None, update
            edits = []
            for k in range(args.edits):
                edited = base / f"bot{k % args.bots}" / "bot.py"
                with open(edited, "a") as fh:
                    fh.write("# edited\n")
                os.utime(edited, (old, old))   # saved a while ago: taken (not still being written)
                started = time.perf_counter()
                update = membership.poll()
                edits.append(time.perf_counter() - started)
                assert update is not None and len(update.changed) == 1, update
    print(f"{args.bots} bots of {args.files} files: a poll when nothing changed "
          f"{statistics.median(still) * 1e6:.0f} us (median of {args.polls}), one taking an "
          f"edited bot as a new version {statistics.median(edits) * 1e3:.1f} ms (median of {args.edits})")


if __name__ == "__main__":
    main()
