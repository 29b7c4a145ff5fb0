"""A stored league's leaderboard (every format, every version, an anchor) and published site
stay byte for byte what they were: the real CLI on a real SQLite store, against outputs
saved from the arena that stored it.

tests/data/stored_league/league.sql is `sqlite3 .dump` of a tic-tac-toe league (seed 13):
draws, faults counted as losses, a bot's second version, and five records in the version 1
format. The "nofault" store is the same with `rating.faults_count_as_losses: false` in its
config snapshot. ARENA_SAVE_OUTPUTS=1 writes the expected files instead of comparing (only
when a change of output is intended, and said so in its commit).
"""

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "stored_league"
SAVE = os.environ.get("ARENA_SAVE_OUTPUTS") == "1"

LEADERBOARDS = {
    f"{fmt}{'-all' if every else ''}": ["--format", fmt, *(["--all-versions"] if every else [])]
    for fmt in ("table", "md", "csv", "json") for every in (False, True)}
LEADERBOARDS |= {"wide": ["--wide"], "anchor": ["--anchor", "random"],
                 "anchor-json": ["--format", "json", "--anchor", "random"]}


def make_store(path: Path, faults_count_as_losses: bool = True) -> Path:
    """The stored league, as a SQLite file at path."""
    with sqlite3.connect(path) as db:
        db.executescript((DATA / "league.sql").read_text())
        if not faults_count_as_losses:
            config = json.loads(db.execute("SELECT value FROM league WHERE key = 'config'").fetchone()[0])
            config["rating"]["faults_count_as_losses"] = False
            db.execute("UPDATE league SET value = ? WHERE key = 'config'",
                       (json.dumps(config, separators=(",", ":")),))
    db.close()
    return path


def arena(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def check(name: str, text: str) -> None:
    expected = DATA / "expected" / name
    if SAVE:
        expected.parent.mkdir(exist_ok=True)
        expected.write_text(text)
    assert text == expected.read_text(), f"{name} differs from {expected}"


@pytest.fixture(scope="module", params=[True, False], ids=["faults-lose", "faults-left-out"])
def store(request, tmp_path_factory) -> tuple[str, Path]:
    kind = "league" if request.param else "nofault"
    return kind, make_store(tmp_path_factory.mktemp(kind) / "league.sqlite", request.param)


@pytest.mark.parametrize("case", LEADERBOARDS)
def test_the_leaderboard_of_a_stored_league_is_unchanged(store, case):
    kind, path = store
    check(f"{kind}-{case}.txt", arena("leaderboard", str(path), *LEADERBOARDS[case]))


def test_the_site_of_a_stored_league_is_unchanged(store, tmp_path):
    kind, path = store
    arena("publish", str(path), "--out", str(tmp_path / "site"))
    site = tmp_path / "site"
    digests = {str(f.relative_to(site)): hashlib.sha256(f.read_bytes()).hexdigest()
               for f in sorted(site.rglob("*")) if f.is_file()}
    check(f"{kind}-site.json", json.dumps(digests, indent=1, sort_keys=True) + "\n")
