"""What checking a store costs when `arena run` opens it for writing: PRAGMA quick_check,
reading every text once (a record that is not UTF-8 is refused before anything is written)
and reading every game's record (one that is no record, or names a winner that is no seat,
is refused too).

Builds a store of GAMES real random games (the publish tests' builder), then opens it for
writing RUNS times and prints the CPU and wall time of the open, of the quick check, of
the text read and of the records read on their own, and of a read-only open (which runs
the quick check alone) for comparison.

    .venv/bin/python benchmarks/store_check.py [--games 20000] [--runs 3]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from browser.league import shared_store  # noqa: E402  (the tests' store builder)

from arena.league import Store  # noqa: E402
from arena.record import GameRecord  # noqa: E402


def timed(what: str, action) -> None:
    """Print the CPU and wall time of action()."""
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    print(f"  {what}: {time.process_time() - cpu:.3f} s CPU, {time.perf_counter() - wall:.3f} s wall")


def read_every_text(path: Path) -> None:
    """What the check adds to quick_check: every row of every table, decoded."""
    with sqlite3.connect(path) as db:
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for _row in db.execute(f'SELECT * FROM "{table}"'):
                pass
    db.close()


def read_every_record(path: Path) -> None:
    """What the check adds to the text read: every game's record, read as one."""
    with sqlite3.connect(path) as db:
        for (text,) in db.execute("SELECT record FROM games"):
            GameRecord.from_json(text)
    db.close()


def quick_check(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA quick_check(3)").fetchall()
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = shared_store(Path(tmp), bots=20, games=args.games)
        print(f"store of {args.games:,} games: {store.stat().st_size / 1e6:.0f} MB")
        for run in range(1, args.runs + 1):
            print(f"run {run}:")
            timed("quick_check", lambda: quick_check(store))
            timed("every text read", lambda: read_every_text(store))
            timed("every record read", lambda: read_every_record(store))
            timed("open for writing (all three)", lambda: Store(store).close())
            timed("open read-only (the quick check)", lambda: Store(store, readonly=True).close())


if __name__ == "__main__":
    main()
