"""How long fingerprinting a league's bots takes, cold (every file hashed) and warm (the
store's size+mtime cache): 40 bots, each a directory of FILES files of SIZE_KB KiB.

    .venv/bin/python benchmarks/versions.py [--bots 40] [--files 20] [--size-kb 64]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from arena.league import Store, config_from_dict
from arena.league.runner import bot_versions, known_bots_check
from arena.plugins import load_plugins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--files", type=int, default=20, help="files per bot")
    parser.add_argument("--size-kb", type=int, default=64, help="size of each file")
    parser.add_argument("--runs", type=int, default=5, help="warm runs (the best is shown)")
    args = parser.parse_args()
    plugins = load_plugins()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        old = time.time() - 3600    # files older than the racy window, as a bot's files are
        for i in range(args.bots):
            bot = base / f"bot{i}"
            (bot / "data").mkdir(parents=True)
            (bot / "bot.py").write_text("print('hello')\n")
            for j in range(args.files - 1):
                path = bot / "data" / f"f{j}.bin"
                path.write_bytes(os.urandom(args.size_kb * 1024))
            for path in bot.rglob("*"):
                os.utime(path, (old, old))
        bots = [{"name": f"bot{i}", "command": f"python3 bot{i}/bot.py"} for i in range(args.bots)]
        bots.append({"name": "mcts", "bot": "mcts", "options": {"time_ms": 50}})
        config = config_from_dict({"name": "bench", "game": "ultimate", "bots": bots,
                                   "store": "league.sqlite"}, base_dir=base,
                                  known_bots=known_bots_check(plugins, base))
        with Store(config.store if config.store.is_absolute() else base / config.store) as store:
            store.bind(config)
            started = time.perf_counter()
            bot_versions(config, plugins, store)
            cold = time.perf_counter() - started
            warm = []
            for _ in range(args.runs):
                started = time.perf_counter()
                notes = bot_versions(config, plugins, store)
                warm.append(time.perf_counter() - started)
                assert not notes, notes   # nothing changed: no new version
    total_mb = args.bots * args.files * args.size_kb / 1024
    print(f"{args.bots} command bots ({args.files} files, {total_mb:.0f} MiB in all) + 1 registered "
          f"bot: cold {cold * 1000:.0f} ms, warm {min(warm) * 1000:.1f} ms (best of {args.runs})")


if __name__ == "__main__":
    main()
