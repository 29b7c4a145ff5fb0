"""The store never misleads (issue 34): a record that lies is one line naming its game,
never shown as played. The real CLI on real files, from one small stored league (a real
run of tic-tac-toe, made once)."""

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_league_run import GATED_MOVE_MS

LEAGUE = f"""\
name: d
game: tictactoe
bots:
  - {{name: blind, bot: ttt-blind}}
  - {{name: novice, bot: ttt-novice}}
games_per_pairing: 4
workers: 1
seed: 5
time_control: {{move_ms: {GATED_MOVE_MS}, startup_ms: 10000}}
store: results/d.sqlite
"""
KEY = "blind|novice|0|0"     # a game of the stored league
FIRST = f"'{KEY}'"          # as lines name it


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="session")
def stored_league(tmp_path_factory) -> Path:
    """A directory with the league's config (l.yaml) and its store of 4 games
    (results/d.sqlite), closed cleanly: no -wal beside it."""
    base = tmp_path_factory.mktemp("stored-league")
    (base / "l.yaml").write_text(LEAGUE)
    done = arena("run", "l.yaml", "--standings", "0", cwd=base)
    assert done.returncode == 0, done.stderr
    assert not (base / "results" / "d.sqlite-wal").exists()
    return base


@pytest.fixture
def league(stored_league: Path, tmp_path: Path) -> Path:
    """A copy of the stored league to do anything to."""
    (tmp_path / "results").mkdir()
    shutil.copy(stored_league / "l.yaml", tmp_path / "l.yaml")
    shutil.copy(stored_league / "results" / "d.sqlite", tmp_path / "results" / "d.sqlite")
    return tmp_path


def edit(db: Path, *statements: str) -> None:
    """Change the store with SQLite itself, as a user (or damage) would."""
    conn = sqlite3.connect(db, isolation_level=None)
    for statement in statements:
        conn.execute(statement)
    conn.close()


def refused(done: subprocess.CompletedProcess, *needles: str) -> str:
    """Exit 2 with one line on stderr holding every needle; the line."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


READERS = (["leaderboard", "results/d.sqlite"], ["versions", "results/d.sqlite"],
           ["replay", "results/d.sqlite", "--fixture", KEY],
           ["publish", "results/d.sqlite", "--out", "site"])


# --- 4. a record that lies is one line naming its game ---------------------------------------

def test_a_record_whose_winner_is_no_seat_is_one_line_from_every_reader(league):
    # before: `arena publish` and `arena replay` ended in an IndexError (record.py:110)
    db = league / "results" / "d.sqlite"
    edit(db, f"UPDATE games SET record = json_set(record, '$.winner', 7) WHERE fixture_key = {FIRST}")
    for command in READERS[:1] + READERS[2:]:
        refused(arena(*command, cwd=league), f"game {FIRST}", "'winner' is 7, not a seat of its 2")
    assert not (league / "site").exists()


def test_a_record_the_rules_contradict_is_not_replayed_or_published(league):
    db = league / "results" / "d.sqlite"
    conn = sqlite3.connect(db)
    key, winner, moves = conn.execute(
        "SELECT fixture_key, json_extract(record, '$.winner'), json_extract(record, '$.moves[1].move')"
        " FROM games WHERE json_extract(record, '$.winner') IS NOT NULL").fetchone()
    conn.close()
    readers = [["replay", "results/d.sqlite", "--fixture", key],
               ["publish", "results/d.sqlite", "--out", "site"]]
    where = f"WHERE fixture_key = '{key}'"
    edit(db, f"UPDATE games SET record = json_set(record, '$.winner', {1 - winner}) {where}")
    for command in readers:       # a seat, but not the one the moves make win
        refused(arena(*command, cwd=league), key, "its record does not follow the rules of tictactoe",
                f"its winner is {1 - winner}, but its moves end in a win for seat {winner}")
    # the first move played again as the second: no legal move there
    edit(db, f"UPDATE games SET record = json_set(record, '$.winner', {winner}, '$.moves[2].move', "
             f"'{moves}') {where}")
    for command in readers:
        refused(arena(*command, cwd=league), key, "its record does not follow the rules of tictactoe",
                f"move 3 ('{moves}') is not legal there")
    assert not (league / "site").exists()
