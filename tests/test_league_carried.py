"""A fixture carries its bots' specs and versions, so a bot that joins or changes during a
run reaches workers already running, and its games are stored for the version they were
played with. Real workers, real sandboxed bots, a real store."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

from arena.league import Store, config_from_dict, runner
from arena.league.executors.local import start_playing
from arena.league.runner import make_job
from arena.league.schedule import schedule
from arena.league.sources import FixtureList
from arena.plugins import load_plugins
from arena.referee import BotPool, play_game
from arena.sandbox import Sandbox

PLUGINS = load_plugins()


def league(tmp: Path, bots: int):
    data = {"name": "carried", "game": "ultimate", "games_per_pairing": 2, "workers": 2, "seed": 5,
            "bots": [{"name": f"r{i}", "bot": "uttt-random"} for i in range(bots)],
            "store": str(tmp / "carried.sqlite"), "time_control": {"move_ms": 2000}}
    return config_from_dict(data, base_dir=tmp, known_bots=runner.known_bots_check(PLUGINS),
                            games=PLUGINS.games)


def test_a_bot_the_running_workers_never_had_plays_from_the_specs_its_fixtures_carry(tmp_path):
    started = make_job(league(tmp_path, 2), PLUGINS)          # what the workers got at start
    joined = league(tmp_path, 3)                               # r2 joins afterwards
    bots = make_job(joined, PLUGINS).bots
    fixtures = [f.carrying(bots, (1, 1)) for f in schedule(joined, PLUGINS.games)]
    games = start_playing(started, FixtureList(fixtures), 2, pin=False)
    try:
        played = {fixture.key: [b.name for b in record.bots] for fixture, record in games}
    finally:
        games.close()
    assert played == {f.key: [f.seat0, f.seat1] for f in fixtures}   # r2's games too
    assert sum("r2" in seats for seats in played.values()) == 4


def test_a_kept_bot_process_is_not_reused_for_another_version(tmp_path):
    config = league(tmp_path, 2)
    bots = make_job(config, PLUGINS).bots
    game = PLUGINS.games.create("ultimate")
    sandbox = Sandbox(limits=config.limits, mode=config.sandbox_mode)
    first = (dataclasses.replace(bots["r0"], fingerprint="v1"), bots["r1"])
    pool = BotPool()
    try:
        play_game(game, first, 1, sandbox, pool=pool)
        play_game(game, first, 2, sandbox, pool=pool)
        assert pool.reused == 2                       # the same versions: both kept processes
        changed = (dataclasses.replace(bots["r0"], fingerprint="v2"), bots["r1"])
        record = play_game(game, changed, 3, sandbox, pool=pool)
        assert pool.reused == 3                       # r1's process again, r0 started afresh
        assert not record.termination.name == "ABORTED"
    finally:
        pool.close()


def test_a_game_is_stored_for_the_versions_its_fixture_carries(tmp_path):
    config = league(tmp_path, 2)
    job = make_job(config, PLUGINS)
    fixture = schedule(config, PLUGINS.games)[0].carrying(job.bots, (2, 5))
    games = start_playing(job, FixtureList([fixture]), 1)
    ((played, record),) = list(games)
    with Store(config.store) as store:
        assert store.versions_of(fixture.seats) == (1, 1)    # what it would have read
        assert store.add_game(played, record)
    with sqlite3.connect(config.store) as db:
        assert db.execute("SELECT fixture_key, v0, v1 FROM games").fetchall() == [(fixture.key, 2, 5)]
