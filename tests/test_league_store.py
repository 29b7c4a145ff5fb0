"""The results store: a real SQLite file, duplicates refused, survives kill -9 of its writer."""

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from arena.league import Store, StoreError, config_from_dict, make_fixtures
from arena.league.store import SCHEMA_VERSION
from arena.record import BotEntry, GameRecord, MoveRecord, Termination

BOTS = ["alice", "bob", "carol"]


def record_for(fixture, winner=0, termination=Termination.NORMAL, faulted=None):
    moves = [MoveRecord(seat=i % 2, move=str(40 + i), wall_ms=1.0 + i) for i in range(5)]
    return GameRecord(game="ultimate", rule_options={"tiebreak": "none"}, seed=fixture.seed,
                      bots=[BotEntry(fixture.seat0, "mcts"), BotEntry(fixture.seat1, "random")],
                      moves=moves, winner=winner, termination=termination, faulted=faulted,
                      reason="test", started_at="2024-01-01T00:00:00+00:00", duration_ms=12.5)


def league(tmp_path, bots=BOTS, seed=1, game="ultimate"):
    return config_from_dict({"name": "s", "game": game, "seed": seed, "workers": 1,
                             "bots": [{"name": b, "bot": "random"} for b in bots]},
                            base_dir=tmp_path)


def test_a_new_store_is_a_wal_sqlite_file_with_a_schema_version(tmp_path):
    path = tmp_path / "results" / "league.sqlite"
    with Store(path) as store:
        assert store.count() == 0 and store.done_keys() == set()
    assert path.is_file()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    db.close()


def test_games_are_stored_once_and_missing_ones_listed(tmp_path):
    fixtures = make_fixtures(BOTS, 4, seed=1)
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        assert store.add_game(fixtures[0], record_for(fixtures[0]))
        assert store.add_game(fixtures[3], record_for(fixtures[3], winner=None))
        assert not store.add_game(fixtures[0], record_for(fixtures[0], winner=1))   # duplicate
        assert store.count() == 2
        assert store.done_keys() == {fixtures[0].key, fixtures[3].key}
        assert store.missing(fixtures) == [f for i, f in enumerate(fixtures) if i not in (0, 3)]
    with Store(path) as again:                              # durable across reopening
        games = list(again.records())
    assert [(g.key, g.fixture_index) for g in games] == [(fixtures[0].key, 0), (fixtures[3].key, 3)]
    assert games[0].record == record_for(fixtures[0])       # the first one stands
    assert games[1].record.winner is None


def test_a_reader_kept_open_follows_the_bots_current_versions(tmp_path):
    # arena serve's reader keeps one read-only Store while the ladder writes: it rated the
    # versions current at its first reading for ever (a bot's v2 never reached the standings)
    path = tmp_path / "s.sqlite"
    fixtures = make_fixtures(["alice", "bob"], 4, seed=1)
    with Store(path) as writer, Store(path, readonly=True) as reader:
        writer.sync_versions({"alice": {"code": "1"}, "bob": {"code": "1"}})
        for fixture in fixtures[:2]:
            writer.add_game(fixture, record_for(fixture))
        assert len(list(reader.records(current=True))) == 2
        writer.sync_versions({"alice": {"code": "2"}, "bob": {"code": "1"}})
        for fixture in fixtures[2:]:
            writer.add_game(fixture, record_for(fixture))
        assert [g.key for g in reader.records(current=True)] == [f.key for f in fixtures[2:]]
        assert reader.rated_games()[1]["alice"][0] == 2


def test_records_come_in_fixture_order_whatever_the_insertion_order(tmp_path):
    fixtures = make_fixtures(BOTS, 6, seed=2)
    shuffled = fixtures[:]
    random.Random(4).shuffle(shuffled)
    with Store(tmp_path / "s.sqlite") as store:
        for f in shuffled:
            store.add_game(f, record_for(f, winner=f.index % 2))
        games = list(store.records())
    assert [g.key for g in games] == [f.key for f in fixtures]
    assert [g.fixture_index for g in games] == list(range(len(fixtures)))
    assert all(g.record == record_for(f, winner=f.index % 2) for g, f in zip(games, fixtures))


def test_a_record_must_match_its_fixture_and_aborted_games_are_not_results(tmp_path):
    f, g = make_fixtures(BOTS, 2, seed=1)[:2]
    with Store(tmp_path / "s.sqlite") as store:
        with pytest.raises(ValueError, match="does not match fixture"):
            store.add_game(f, record_for(g))
        with pytest.raises(ValueError, match="aborted"):
            store.add_game(f, record_for(f, winner=None, termination=Termination.ABORTED))
        assert store.count() == 0


def test_bind_keeps_the_league_identity(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.bind(league(tmp_path))
        created = store.meta()["created"]
        store.bind(league(tmp_path, bots=BOTS + ["dave"]))        # adding a bot is fine
        meta = store.meta()
        assert meta["created"] == created and meta["game"] == "ultimate" and meta["seed"] == "1"
        assert "dave" in meta["config"]
        with pytest.raises(StoreError, match="seed 1, the config says 2"):
            store.bind(league(tmp_path, seed=2))
        with pytest.raises(StoreError, match="game ultimate, the config says meta"):
            store.bind(league(tmp_path, game="meta"))


def test_a_file_that_is_not_a_store_is_refused(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("these are not the games you are looking for\n" * 100)
    with pytest.raises(StoreError, match="not a usable arena store"):
        Store(path)


WRITER = textwrap.dedent("""
    import sys
    from arena.league import Store, make_fixtures
    from arena.record import BotEntry, GameRecord, MoveRecord
    store = Store(sys.argv[1])
    names = [f"bot{i}" for i in range(12)]
    for f in make_fixtures(names, 40, seed=3):
        moves = [MoveRecord(seat=i % 2, move=str(i), wall_ms=0.5) for i in range(60)]
        record = GameRecord(game="ultimate", rule_options={}, seed=f.seed,
                            bots=[BotEntry(f.seat0), BotEntry(f.seat1)], moves=moves, winner=0)
        store.add_game(f, record)
        print(f.key, flush=True)
""")


def test_the_store_survives_kill_9_of_its_writer(tmp_path):
    path = tmp_path / "killed.sqlite"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE,
                              text=True)
    confirmed = []
    try:
        while len(confirmed) < 40:
            line = writer.stdout.readline()
            assert line, "the writer stopped before it was killed"
            confirmed.append(line.strip())
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.kill()
        writer.wait(timeout=30)
        writer.stdout.close()
    assert writer.returncode == -signal.SIGKILL
    with Store(path) as store:
        done = store.done_keys()
        assert set(confirmed) <= done                       # every confirmed game is there
        games = list(store.records())
        assert len(games) == len(done) == store.count()
        assert all(len(g.record.moves) == 60 for g in games)
        fixtures = make_fixtures([f"bot{i}" for i in range(12)], 40, seed=3)
        left = store.missing(fixtures)                      # a re-run plays only these
        assert len(left) == len(fixtures) - len(done)
        assert store.add_game(left[0], record_for(left[0]))
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
