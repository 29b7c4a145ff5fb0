"""Leagues of many bots: a worker keeps the bots it started (within its memory and its
descriptors), a large round robin goes block by block of its crosstable, and a source is
told which bots the asking worker runs. Processes are counted by the pool's counters
(reused, missed, evicted), never timed. Real sandboxed bots, real workers, the real CLI."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections import Counter
from pathlib import Path

from test_league_failures import assert_nothing_left, kill_ours, run_env
from test_league_run import write_config

from arena.games import default_registry
from arena.league.executors.worker import pool_caps
from arena.league.schedule import Fixture, make_fixtures
from arena.league.sources import chunks, fixtures_of, take_from
from arena.referee import BotPool, BotSpec, MatchSettings, TimeControl, play_game
from arena.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = MatchSettings(time=TimeControl(move_ms=2000, startup_ms=10000))
#: the first legal move, in the arena protocol with no import (tests/fixture_bots/ordered_bot.py):
#: these tests count the processes a pool starts and keeps, and one that starts in less time
#: (the SDK's example imports arena: 5.8 s against 3.8 s for the 132 games of 12 bots below)
FIRST_MOVE = BotSpec(name="b", argv=(sys.executable, str(ROOT / "tests" / "fixture_bots" / "ordered_bot.py")),
                     readable=(str(ROOT / "tests" / "fixture_bots"),))


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
        one = measuring.idle_bytes / 2     # a sandboxed bot's resident memory, read by the pool
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


def test_a_large_round_robin_goes_block_by_block_and_starts_fewer_bots():
    # 12 bots in blocks of 3: a worker keeping 6 bots plays each block with the bots it has
    names = list(bots(12))
    fixtures = make_fixtures(names, 2, seed=5)
    by_seed = chunks(fixtures, 1, most_pairs=1, block_bots=100)   # one block: the seeds' order
    by_block = chunks(fixtures, 1, most_pairs=1, block_bots=3)
    assert sorted(f.key for p in by_block for f in p) == sorted(f.key for f in fixtures)
    # 4 groups; block round r holds the blocks of groups i, j with i + j = r (mod 4), each
    # group once: r = 0 is (0,0) (1,3) (2,2), 15 pairings; r = 1 (0,1) (2,3), 18; and so on.
    # After each, every bot has as many pairings as any other, or one fewer
    played: Counter[str] = Counter()
    rounds = [by_block[:15], by_block[15:33], by_block[33:48], by_block[48:]]
    assert len(by_block) == 66
    for block_round in rounds:
        assert len({p[0].seat0 for p in block_round} | {p[0].seat1 for p in block_round}) == 12
        for piece in block_round:
            played.update((piece[0].seat0, piece[0].seat1))
        assert max(played.values()) - min(played.values()) <= 1, played
    starts = {}
    for name, order in (("seeds", by_seed), ("blocks", by_block)):
        pool = BotPool(max_idle=6)
        try:
            play([f for piece in order for f in piece], bots(12), pool)
        finally:
            pool.close()
        assert pool.reused + pool.missed == 2 * len(fixtures)
        starts[name] = pool.missed
    # a worker keeping 6 bots starts each bot once a block round at most: 4 x 12
    assert starts["blocks"] <= 48 < starts["seeds"], starts


def test_a_league_of_at_most_twice_a_block_keeps_the_order_of_its_seeds():
    fixtures = make_fixtures(list(bots(32)), 4, seed=2)
    assert chunks(fixtures, 2, most_pairs=1) == chunks(fixtures, 2, most_pairs=1, block_bots=10**6)


class Nearby:
    """A source of one-pair pieces that hands out, when told the bots the worker runs, a
    piece both of whose bots run there if it has one (as a ladder prefers among near-equal
    pairings); `heard` is what it was told."""

    def __init__(self, fixtures: list[Fixture], prefer: bool = True) -> None:
        self.pieces = chunks(fixtures, 1, most_pairs=1)
        self.prefer = prefer
        self.heard: list[frozenset[str]] = []

    def take(self, slots, most_pairs=None, running=frozenset()):
        self.heard.append(running)
        if not self.pieces:
            return None
        best = 0
        if self.prefer:
            near = [i for i, piece in enumerate(self.pieces)
                    if {piece[0].seat0, piece[0].seat1} <= running]
            best = near[0] if near else 0
        return self.pieces.pop(best)

    def done(self, fixture, record):
        return None

    def __iter__(self):
        return fixtures_of(self)


class Deaf(Nearby):
    """The same source, written before `running` existed."""

    def take(self, slots, most_pairs=None):
        return super().take(slots, most_pairs)


def test_a_source_told_the_bots_a_worker_runs_hands_it_pieces_that_start_fewer():
    specs = bots(8)
    fixtures = make_fixtures(list(specs), 2, seed=9)
    starts = {}
    for prefer in (True, False):
        source = Nearby(fixtures, prefer)
        pool = BotPool(max_idle=4)
        try:
            play(fixtures_of(source, pool.running), specs, pool)
        finally:
            pool.close()
        assert len(source.heard) == len(fixtures) // 2 + 1      # every piece, then the end
        assert source.heard[0] == frozenset() and source.heard[-1] == pool.running() | source.heard[-1]
        assert all(len(heard) <= 4 for heard in source.heard)
        starts[prefer] = pool.missed
    assert starts[True] < starts[False], starts


def test_a_source_written_without_running_is_asked_as_before():
    fixtures = make_fixtures(list(bots(4)), 2, seed=9)
    deaf = Deaf(fixtures)
    assert take_from(deaf, 2, 1, frozenset({"b00"})) == chunks(fixtures, 1, most_pairs=1)[0]
    assert deaf.heard == [frozenset()]
    nearby = Nearby(fixtures)
    take_from(nearby, 2, 1, {"b00", "b01"})
    assert nearby.heard == [frozenset({"b00", "b01"})]


def test_the_local_workers_tell_the_source_which_bots_they_run(tmp_path):
    from arena.league import config_from_dict, runner
    from arena.league.executors.local import start_playing
    from arena.league.runner import make_job
    from arena.league.schedule import schedule
    from arena.plugins import load_plugins
    plugins = load_plugins()
    data = {"name": "near", "game": "ultimate", "games_per_pairing": 2, "workers": 2, "seed": 3,
            "bots": [{"name": f"r{i}", "bot": "uttt-random"} for i in range(6)],
            "store": str(tmp_path / "near.sqlite"), "time_control": {"move_ms": 2000}}
    config = config_from_dict(data, base_dir=tmp_path, known_bots=runner.known_bots_check(plugins),
                              games=plugins.games)
    source = Nearby(schedule(config))
    games = start_playing(make_job(config, plugins), source, 2)
    try:
        keys = [fixture.key for fixture, _record in games]
    finally:
        games.close()
    assert sorted(keys) == sorted(f.key for f in schedule(config))
    # each worker asks with nothing started, then names the bots it keeps: never another's
    told = [heard for heard in source.heard if heard]
    assert told and all(heard <= {f"r{i}" for i in range(6)} for heard in told)
    assert max(map(len, told)) >= 2


def test_a_league_of_many_bots_leaves_no_process_once_it_has_run(tmp_path):
    # 34 bots: more than 2 x BLOCK_BOTS (arena/league/sources.py), so the run goes block by
    # block; tic-tac-toe, whose games are short (what is counted is processes, not moves)
    config = write_config(tmp_path / "many.yaml", [(f"r{i:02d}", "ttt-blind") for i in range(34)],
                          workers=2)
    config.write_text(config.read_text().replace("game: ultimate\n", "game: tictactoe\n"))
    try:
        run = subprocess.run([sys.executable, "-m", "arena", "run", str(config), "--standings", "0"],
                             capture_output=True, text=True, timeout=600, cwd=tmp_path,
                             env=run_env(tmp_path))
        assert run.returncode == 0, run.stderr
        assert "1122 games" in run.stdout + run.stderr, run.stdout + run.stderr
        assert_nothing_left(tmp_path)
    finally:
        kill_ours(tmp_path)


class Fixed:
    """A matchmaker that always answers a|b then c|d, noting the standings it was given."""

    def __init__(self) -> None:
        self.seen: list = []

    def pairings(self, standings, count, rng):
        from arena.league.matchmakers import Pairing
        self.seen.append(standings)
        return [Pairing("a", "b"), Pairing("c", "d")]


def test_a_ladder_tells_its_matchmaker_and_prefers_the_bots_the_asking_worker_runs(tmp_path):
    from arena.league import Store, config_from_dict
    from arena.league.ladder import LadderSource
    from arena.openings import NONE
    config = config_from_dict({"name": "near", "game": "tictactoe", "schedule": "ladder",
                               "bots": [{"name": n, "bot": "random"} for n in "abcd"],
                               "store": str(tmp_path / "near.sqlite")})
    matchmaker = Fixed()
    with Store(config.store) as store:
        source = LadderSource(config, store, matchmaker, dict.fromkeys("abcd", 1),
                              {n: BotSpec(name=n, argv=("x",)) for n in "abcd"},
                              default_registry().create("tictactoe"), NONE)
        first = take_from(source, 4, 1, {"c", "d"})
        assert first is not None and first[0].pairing == "c|d"    # not the matchmaker's first
        assert {b.name for b in matchmaker.seen[0].bots if b.running} == {"c", "d"}
        second = take_from(source, 4, 1, {"x"})
        assert second is not None and second[0].pairing == "a|b"  # the queue's rest
        assert len(matchmaker.seen) == 1


def test_a_worker_holding_descriptors_past_1024_still_starts_bots():
    # a worker keeping 100 bots holds about 1,300 descriptors: bwrap's info pipe then had a
    # number select() refuses ("filedescriptor out of range in select()", the run stopped)
    import os
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        import pytest
        pytest.skip(f"the descriptor limit ({hard}) is below 1,200")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = []
    try:
        while not held or held[-1] < 1100:
            held.append(os.open(os.devnull, os.O_RDONLY))
        pool = BotPool()
        try:
            play([Fixture(0, "k", "b00|b01", "b00", "b01", 1, 0)], bots(2), pool)
        finally:
            pool.close()
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_run_raises_a_soft_descriptor_limit_of_1024_for_its_workers_kept_bots():
    # with the soft limit many shells give (1,024) a worker kept 56 bots at most, below a
    # 100-bot ladder's; the run raises it toward the hard limit for itself and its workers
    import resource
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 16 * 512 + 128:
        import pytest
        pytest.skip(f"the hard descriptor limit ({hard}) is below what 512 bots need")
    code = ("import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (1024, "
            "resource.getrlimit(resource.RLIMIT_NOFILE)[1]));"
            "from arena.league.executors.worker import pool_caps; print(pool_caps(2).bots, "
            "resource.getrlimit(resource.RLIMIT_NOFILE)[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["512", str(16 * 512 + 128)]


class Counted(Counter):
    """A Counter that counts how often all its pairs are read."""

    reads = 0

    def items(self):
        Counted.reads += 1
        return super().items()


def test_a_ladder_keeps_its_standings_pairs_without_reading_every_pair_at_each_call(tmp_path):
    # the matchmaker is asked at nearly every take: the pairs of current versions were
    # rebuilt from every pair the ladder ever started at each call (3.6 ms a call over a
    # 100-bot ladder's first 6,000 games), now counted up as pairs are minted
    from arena.league import Store, config_from_dict
    from arena.league.ladder import LadderSource
    from arena.league.matchmakers.uniform import Uniform
    from arena.openings import NONE
    config = config_from_dict({"name": "met", "game": "tictactoe", "schedule": "ladder",
                               "bots": [{"name": n, "bot": "random"} for n in "abcde"],
                               "store": str(tmp_path / "met.sqlite")})
    with Store(config.store) as store:
        source = LadderSource(config, store, Uniform(), dict.fromkeys("abcde", 1),
                              {n: BotSpec(name=n, argv=("x",)) for n in "abcde"},
                              default_registry().create("tictactoe"), NONE)
        source.met = Counted(source.met)
        for _ in range(20):
            assert source.take(2, 1)
        assert Counted.reads == 0
        minted = Counter()
        for (a, b), n in source.met.items():
            minted[(a.split("@")[0], b.split("@")[0])] += n
        assert source.standings().pairs == minted and sum(minted.values()) == 20
        source.join("a", 2, BotSpec(name="a", argv=("x",)))     # a new version: a's pairs are history
        assert source.standings().pairs == {k: n for k, n in minted.items() if "a" not in k}
        source.leave("c")
        assert source.standings().pairs == {k: n for k, n in minted.items()
                                            if "a" not in k and "c" not in k}
