"""Pairings interleaved: workers are handed pair k of every pairing before pair k+1 of any,
so a partial run is balanced; ratings still replay fixture order, so the leaderboard is
the one main computed before the change, whatever the worker count."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.league.executors.base import chunks
from arena.league.schedule import make_fixtures

DATA = Path(__file__).resolve().parent / "data"

GOLD = """\
name: gold
game: tictactoe
bots:
  - {name: r1, bot: random}
  - {name: r2, bot: random}
  - {name: r3, bot: random}
  - {name: r4, bot: random}
games_per_pairing: 6
workers: WORKERS
seed: 11
store: gold.sqlite
"""


def arena(*args):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, check=False)


def test_single_pair_pieces_come_round_by_round():
    fixtures = make_fixtures([f"b{i}" for i in range(5)], 8, 2)
    out = chunks(fixtures, 3, most_pairs=1)
    assert all(len(p) == 2 and p[0].seed == p[1].seed and p[0].pairing == p[1].pairing
               and {p[0].round, p[1].round} == {p[0].round // 2 * 2, p[0].round // 2 * 2 + 1}
               for p in out)
    assert sorted(f.index for p in out for f in p) == list(range(len(fixtures)))
    pair_numbers = [p[0].round // 2 for p in out]
    assert pair_numbers == sorted(pair_numbers)            # pair k of all before any pair k+1
    assert all(len({p[0].pairing for p in out[i:i + 10]}) == 10 for i in range(0, 40, 10))
    # a resumed run: half-played pairs and missing pairs still come in pair order
    left = [f for f in fixtures if f.index % 3]
    again = chunks(left, 2, most_pairs=1)
    assert sorted(f.index for p in again for f in p) == sorted(f.index for f in left)
    assert [p[0].round // 2 for p in again] == sorted(p[0].round // 2 for p in again)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_leaderboard_is_the_one_before_interleaving(tmp_path, workers):
    config = tmp_path / "gold.yaml"
    config.write_text(GOLD.replace("WORKERS", str(workers)))
    out = arena("run", str(config), "--format", "json")
    assert out.returncode == 0, out.stderr
    board = json.loads(out.stdout)
    for row in board["rows"]:
        row.pop("mean_move_ms")       # wall time: the only thing that may differ
        row.pop("version"), row.pop("fingerprint")   # which code played, not how it played
    board.pop("title")
    assert board == json.loads((DATA / "leaderboard_before_interleaving.json").read_text())


@pytest.mark.parametrize("workers", [1, 2])
def test_games_finish_balanced_over_pairings(tmp_path, workers):
    config = tmp_path / "bal.yaml"
    config.write_text(GOLD.replace("WORKERS", str(workers)).replace("games_per_pairing: 6",
                                                                     "games_per_pairing: 16")
                      .replace("gold.sqlite", "bal.sqlite"))
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    with sqlite3.connect(tmp_path / "bal.sqlite") as conn:
        order = [(a, b) for a, b in conn.execute("SELECT seat0, seat1 FROM games ORDER BY id")]
    assert len(order) == 6 * 16
    counts: dict[frozenset, int] = {}
    widest = 0
    for n, (a, b) in enumerate(order, 1):
        counts[frozenset((a, b))] = counts.get(frozenset((a, b)), 0) + 1
        if n >= 6 * 2:   # every pairing has begun
            widest = max(widest, max(counts.values()) - min(counts.values()))
    # the queue is in pair order: a pairing is behind the others by the pair before it in
    # the queue and the pieces in flight (at most one per worker), never by more
    assert widest <= 2 * (1 + workers), widest


def test_a_worker_pool_keeps_its_bots_across_pairings_closing_the_oldest_beyond_its_cap():
    import dataclasses

    from arena.games import default_registry
    from arena.referee import BotPool, BotSpec, MatchSettings, TimeControl, play_game
    from arena.referee.botspec import ARENA_PACKAGE_DIR
    from arena.sandbox import Sandbox
    root = Path(__file__).resolve().parent.parent
    sdk = BotSpec(name="a", argv=(sys.executable, str(root / "examples" / "first_move_bot.py")),
                  readable=(str(root / "examples"), ARENA_PACKAGE_DIR))
    a, b, c = (dataclasses.replace(sdk, name=n) for n in "abc")
    game, sandbox = default_registry().create("tictactoe"), Sandbox()
    settings = MatchSettings(time=TimeControl(move_ms=2000, startup_ms=10000))
    pool = BotPool(max_idle=2)
    try:
        for seats, reused in (((a, b), 0), ((b, a), 2), ((b, c), 3), ((a, b), 4)):
            record = play_game(game, seats, 1, sandbox, settings, pool=pool)
            assert record.termination.value == "normal", record.reason
            assert pool.reused == reused     # a was closed for c (the oldest), so started again
            assert len(pool._idle) == 2
    finally:
        pool.close()
