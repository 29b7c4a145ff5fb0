"""Gauntlet leagues: candidates play the pool, not each other; checked configs; real runs
with the arena command on real SQLite files, resumed and widened to a round robin."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.league import ConfigError, load_config, schedule
from arena.league.schedule import make_fixtures

BASE = """\
name: g
game: tictactoe
bots:
  - {name: new, bot: random}
  - {name: old, bot: random}
  - {name: p1, bot: random}
  - {name: p2, bot: random}
schedule: gauntlet
candidates: [new, old]
games_per_pairing: 2
workers: 2
seed: 3
store: g.sqlite
"""


def write(directory: Path, text: str) -> Path:
    path = directory / "g.yaml"
    path.write_text(text)
    return path


def arena(*args):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, check=False)


def pairings(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT seat0, seat1 FROM games").fetchall()
    out: dict[str, int] = {}
    for a, b in rows:
        key = "|".join(sorted((a, b)))
        out[key] = out.get(key, 0) + 1
    return out


def test_candidates_play_the_pool_and_not_each_other_with_the_round_robins_fixtures():
    bots = ["new", "old", "p1", "p2"]
    gauntlet = make_fixtures(bots, 4, 9, candidates=["new", "old"])
    assert {f.pairing for f in gauntlet} == {"new|p1", "new|p2", "old|p1", "old|p2"}
    assert len(gauntlet) == 4 * 4
    full = {f.key: f for f in make_fixtures(bots, 4, 9)}
    for f in gauntlet:   # a pairing's games are the same games in both schedules
        g = full[f.key]
        assert (f.seat0, f.seat1, f.seed, f.round) == (g.seat0, g.seat1, g.seed, g.round)
    assert [f.index for f in gauntlet] == list(range(len(gauntlet)))


def test_a_gauntlet_config_loads_and_the_default_stays_round_robin(tmp_path):
    config = load_config(write(tmp_path, BASE))
    assert (config.schedule, config.candidates) == ("gauntlet", ("new", "old"))
    assert len(schedule(config)) == 4 * 2
    plain = load_config(write(tmp_path, BASE.replace("schedule: gauntlet\ncandidates: [new, old]\n",
                                                     "")))
    assert (plain.schedule, plain.candidates) == ("round-robin", ())
    assert len(schedule(plain)) == 6 * 2
    assert json.loads(config.to_json())["candidates"] == ["new", "old"]


ERRORS = [
    (("candidates: [new, old]", "candidates: [new, nwe]"), "candidates:", "candidates[1]",
     ["unknown bot 'nwe'", "did you mean 'new'", "new, old, p1, p2"]),
    (("candidates: [new, old]\n", ""), "schedule:", "schedule",
     ["a gauntlet needs candidates"]),
    (("schedule: gauntlet\n", ""), "candidates:", "candidates",
     ["only allowed with schedule: gauntlet", "'round-robin'"]),
    (("schedule: gauntlet", "schedule: swiss"), "schedule:", "schedule",
     ["'round-robin', 'gauntlet'", "got 'swiss'"]),
    (("candidates: [new, old]", "candidates: new"), "candidates:", "candidates",
     ["must be a list of bot names", "got 'new'"]),
    (("candidates: [new, old]", "candidates: []"), "candidates:", "candidates",
     ["must be a list of bot names"]),
    (("candidates: [new, old]", "candidates: [new, new]"), "candidates:", "candidates[1]",
     ["'new' is listed twice"]),
    (("candidates: [new, old]", "candidates: [new, old, p1, p2]"), "candidates:", "candidates",
     ["nobody is left in the pool"]),
]


@pytest.mark.parametrize("change, at, key, allowed", ERRORS, ids=[e[2] + e[1] for e in ERRORS])
def test_gauntlet_errors_name_file_line_key_and_what_is_allowed(tmp_path, change, at, key, allowed):
    text = BASE.replace(*change)
    assert text != BASE
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    line = next(i for i, text_line in enumerate(text.splitlines(), 1) if at in text_line)
    assert message.startswith(f"{path}:{line}: {key}: "), message
    for needle in allowed:
        assert needle in message, (needle, message)
    out = arena("run", str(path))      # the CLI says the same line, exit 2
    assert out.returncode == 2 and message in out.stderr


def test_a_gauntlet_runs_resumes_and_widens_into_a_round_robin(tmp_path):
    path = write(tmp_path, BASE.replace("games_per_pairing: 2", "games_per_pairing: 4"))
    out = arena("run", str(path), "--format", "json")
    assert out.returncode == 0, out.stderr
    db = tmp_path / "g.sqlite"
    assert pairings(db) == {"new|p1": 4, "new|p2": 4, "old|p1": 4, "old|p2": 4}
    board = json.loads(out.stdout)
    assert {row["bot"] for row in board["rows"]} == {"new", "old", "p1", "p2"}
    assert all(row["elo"] is not None for row in board["rows"])   # rated through the pool
    assert "new" not in board["crosstable"]["old"]                # candidates never met
    again = arena("run", str(path))
    assert again.returncode == 0 and "16 of 16 games already stored; playing 0" in again.stderr
    # the same league as a round robin keeps every gauntlet game and plays only what it lacks
    write(tmp_path, BASE.replace("games_per_pairing: 2", "games_per_pairing: 4")
          .replace("schedule: gauntlet\ncandidates: [new, old]\n", ""))
    wider = arena("run", str(path))
    assert wider.returncode == 0, wider.stderr
    assert "16 of 24 games already stored; playing 8" in wider.stderr
    assert pairings(db) == {"new|p1": 4, "new|p2": 4, "old|p1": 4, "old|p2": 4, "new|old": 4,
                            "p1|p2": 4}
