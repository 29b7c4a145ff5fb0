"""Leagues of many bots: a worker keeps the bots it started (within its memory and its
descriptors). Processes are counted by the pool's counters (reused, missed, evicted),
never timed. Real sandboxed bots, real workers, the real CLI."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from test_league_failures import assert_nothing_left, kill_ours, run_env
from test_league_run import write_config

from arena.games import default_registry
from arena.league.executors.worker import pool_caps
from arena.league.schedule import Fixture
from arena.referee import BotPool, BotSpec, MatchSettings, TimeControl, play_game
from arena.referee.botspec import ARENA_PACKAGE_DIR
from arena.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = MatchSettings(time=TimeControl(move_ms=2000, startup_ms=10000))
FIRST_MOVE = BotSpec(name="b", argv=(sys.executable, str(ROOT / "examples" / "first_move_bot.py")),
                     readable=(str(ROOT / "examples"), ARENA_PACKAGE_DIR))


def bots(count: int) -> dict[str, BotSpec]:
    """count sandboxed tic-tac-toe bots (one program under count names)."""
    return {f"b{i:02d}": dataclasses.replace(FIRST_MOVE, name=f"b{i:02d}") for i in range(count)}


def play(fixtures, specs: dict[str, BotSpec], pool: BotPool) -> None:
    """Play the fixtures in their order through one pool, as a worker does."""
    game, sandbox = default_registry().create("tictactoe"), Sandbox()
    for fixture in fixtures:
        record = play_game(game, (specs[fixture.seat0], specs[fixture.seat1]), fixture.seed,
                           sandbox, SETTINGS, pool=pool)
        assert record.termination.value == "normal", record.reason


def test_a_pool_keeps_its_idle_bots_within_its_memory_cap():
    specs = bots(6)
    measuring = BotPool(max_idle_bytes=2**40)
    try:
        play([Fixture(0, "k", "b00|b01", "b00", "b01", 1, 0)], specs, measuring)
        one = measuring.idle_bytes / 2     # a sandboxed SDK bot's resident memory, read by the pool
    finally:
        measuring.close()
    assert one > 1_000_000, one
    cap = int(2.5 * one)                  # room for two idle bots, not three
    pool = BotPool(max_idle_bytes=cap)
    try:
        for a, b in (("b00", "b01"), ("b02", "b03"), ("b04", "b05"), ("b04", "b05")):
            play([Fixture(0, "k", f"{a}|{b}", a, b, 1, 0)], specs, pool)
            assert pool.idle_bytes <= cap
            assert len(pool.running()) == 2
        assert pool.running() == {"b04", "b05"}
        # b00-b03 were closed for the next two; b04 and b05 were kept for their second game
        assert (pool.missed, pool.evicted, pool.reused) == (6, 4, 2)
    finally:
        pool.close()


def test_a_worker_pool_is_capped_by_its_share_of_memory_and_its_descriptors():
    caps = pool_caps(4, available=8 * 2**30, open_files=1024)
    assert caps.bytes == 2**30                  # half the memory, shared by 4 workers
    assert caps.bots == (1024 - 128) // 16      # 16 descriptors a kept bot, 128 spare
    assert pool_caps(1, available=8 * 2**30, open_files=10**6).bots == 512


def test_a_league_of_many_bots_leaves_no_process_once_it_has_run(tmp_path):
    config = write_config(tmp_path / "many.yaml", [(f"r{i:02d}", "uttt-random") for i in range(34)],
                          workers=2)
    try:
        run = subprocess.run([sys.executable, "-m", "arena", "run", str(config), "--standings", "0"],
                             capture_output=True, text=True, timeout=600, cwd=tmp_path,
                             env=run_env(tmp_path))
        assert run.returncode == 0, run.stderr
        assert "1122 games" in run.stdout + run.stderr, run.stdout + run.stderr
        assert_nothing_left(tmp_path)
    finally:
        kill_ours(tmp_path)
