"""The store never loses, rewrites or half-writes what it holds, and never misleads (issue
34): a -wal left beside a store by another file is refused and never applied, the backup
it lies beside staying byte for byte; a store a command refuses is left byte for byte; a
record that lies is one line naming its game; a store written over in place during a run
ends it with the honest count; readers check what they read and say what they could not;
a store another process holds says which process. The real CLI on real files and real
processes, from one small stored league (a real run of tic-tac-toe, made once)."""

import hashlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_league_run import GATED_MOVE_MS, wait_for_games

ROOT = Path(__file__).resolve().parent.parent

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
#: the same league with a third bot, the tests' gate (test_league_run.gated): a run of it
#: plays the gate's new games and cannot end before the test opens the gate
GATED = LEAGUE.replace("bots:\n", "bots:\n  - {name: g, command: python3 bots/gate/gate_bot.py 2}\n")
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


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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


def with_gate(league: Path) -> None:
    """Add the gate bot to the league (its games are new: a run plays them)."""
    (league / "bots" / "gate").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "fixture_bots" / "gate_bot.py", league / "bots" / "gate")
    (league / "l.yaml").write_text(GATED)


def start_run(league: Path) -> subprocess.Popen:
    """`arena run` of the gated league in the background, stderr to league/stderr."""
    with open(league / "stderr", "w") as err:
        return subprocess.Popen([sys.executable, "-m", "arena", "run", "l.yaml", "--standings", "0"],
                                cwd=league, stdout=subprocess.DEVNULL, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def end_run(league: Path, proc: subprocess.Popen) -> str:
    """Open the gate and wait for the run to end (a hang guard, not a timing); its stderr."""
    (league / "bots" / "gate" / "open").mkdir()
    try:
        proc.wait(timeout=120)
    finally:
        stop(proc)
    return (league / "stderr").read_text()


def stop(proc: subprocess.Popen) -> None:
    """Never leave a run (and its workers and bots) waiting at the gate."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


READERS = (["leaderboard", "results/d.sqlite"], ["versions", "results/d.sqlite"],
           ["replay", "results/d.sqlite", "--fixture", KEY],
           ["publish", "results/d.sqlite", "--out", "site"])


# --- 1. a -wal that is not the store's is never applied --------------------------------------

def test_a_wal_left_by_a_deleted_store_is_never_applied_to_the_backup_put_in_its_place(league):
    # before: `cp backup.sqlite results/d.sqlite` then any command read the dead run's
    # games into the backup (its sha256 changed), or called it damaged
    db, wal = league / "results" / "d.sqlite", league / "results" / "d.sqlite-wal"
    backup = league / "backup.sqlite"
    shutil.copy(db, backup)
    with_gate(league)
    proc = start_run(league)
    try:
        wait_for_games(db, 6)       # 4 stored before, and the gate's first two
        db.unlink()                 # the store alone: its -wal and -shm stay
    finally:
        err = end_run(league, proc)
    assert proc.returncode == 1 and "was deleted while this run stored games" in err, err
    assert wal.stat().st_size > 0
    shutil.copy(backup, db)
    kept = digest(db)
    commands = [["run", "l.yaml"], *READERS,
                ["match", "ttt-blind", "ttt-novice", "--game", "tictactoe", "--games", "2",
                 "--store", "results/d.sqlite"]]
    for command in commands:
        refused(arena(*command, cwd=league), "results/d.sqlite", "-wal file belongs to another file",
                "move d.sqlite-wal and d.sqlite-shm out of the way")
        assert digest(db) == kept, command
    assert not (league / "site").exists()
    # moved into place rather than copied: the healthy file is not called damaged
    db.unlink()
    shutil.copy(backup, league / "moved.sqlite")
    os.replace(league / "moved.sqlite", db)
    line = refused(arena("leaderboard", "results/d.sqlite", cwd=league), "belongs to another file")
    assert "damaged" not in line
    # the -wal and -shm moved away, as the line says: the backup reads as it was, and stays so
    for side in ("-wal", "-shm"):
        os.replace(f"{db}{side}", league / f"stale{side}")
    done = arena("leaderboard", "results/d.sqlite", "--format", "csv", cwd=league)
    assert done.returncode == 0 and len(done.stdout.strip().splitlines()) == 3, done.stderr
    assert digest(db) == kept


EDITOR = textwrap.dedent("""
    import sqlite3, sys
    db = sqlite3.connect(sys.argv[1], isolation_level=None)   # as an sqlite3 shell would
    db.execute("INSERT INTO retired VALUES ('blind', '2026-01-01T00:00:00+00:00')")
    print("edited", flush=True)
    sys.stdin.read()
""")


def test_a_wal_in_use_is_judged_by_who_uses_it(league):
    # a -wal another program keeps open for this very file is its own, marked or not; one
    # kept open for the file deleted under it is not, nor, once its program is gone, one
    # that says nothing of the file it follows
    db = league / "results" / "d.sqlite"
    backup = league / "backup.sqlite"
    shutil.copy(db, backup)
    editor = subprocess.Popen([sys.executable, "-c", EDITOR, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert editor.stdout.readline() == "edited\n"
        done = arena("leaderboard", "results/d.sqlite", "--format", "csv", cwd=league)
        assert done.returncode == 0 and "blind" not in done.stdout, done.stderr   # retired
        db.unlink()
        shutil.copy(backup, db)
        kept = digest(db)
        refused(arena("leaderboard", "results/d.sqlite", cwd=league),
                f"its -wal file is in use by pid {editor.pid} ({sys.executable} -c",
                "for another file, the store it opened before it was deleted or replaced")
    finally:
        editor.kill()
        editor.wait()
    refused(arena("leaderboard", "results/d.sqlite", cwd=league),
            "its -wal file was left by another program than arena, and cannot be told to be "
            "this store's", "move d.sqlite-wal and d.sqlite-shm out of the way")
    assert digest(db) == kept


WRITER = textwrap.dedent("""
    import sys
    from arena.league import Store, make_fixtures
    from arena.record import BotEntry, GameRecord
    with Store(sys.argv[1]) as store:
        for f in make_fixtures([f"b{i}" for i in range(6)], 20, seed=3)[:int(sys.argv[2])]:
            store.add_game(f, GameRecord(game="tictactoe", rule_options={}, seed=f.seed,
                                         bots=[BotEntry(f.seat0), BotEntry(f.seat1)]))
""")


def test_a_wal_being_written_is_always_the_stores_own(tmp_path):
    # readers opening the store while a writer commits, checkpoints and restarts its -wal
    # (every 100 games) read it, each time: the check never mistakes a live -wal for another's
    path = tmp_path / "live.sqlite"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "300"])
    reader = textwrap.dedent("""
        import sys
        from arena.league import Store, StoreError
        seen, last = 0, 0
        while True:
            done = sys.argv[2] and open(sys.argv[2]).read() == "done"
            try:
                with Store(sys.argv[1], readonly=True) as store:
                    now = store.count()
            except StoreError as exc:
                if "no such store file" in str(exc) or "no schema" in str(exc):
                    continue          # not made yet
                raise
            assert now >= last, (now, last)
            seen, last = seen + 1, now
            if done:
                break
        print(seen, last)
    """)
    flag = tmp_path / "flag"
    flag.write_text("")
    readers = [subprocess.Popen([sys.executable, "-c", reader, str(path), str(flag)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(2)]
    try:
        assert writer.wait(timeout=240) == 0
        flag.write_text("done")
        for proc in readers:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            assert out.split()[1] == "300", out
    finally:
        for proc in (writer, *readers):
            proc.kill()
            proc.wait()


# --- 3. a store refused is left byte for byte ------------------------------------------------

DAMAGED_RECORDS = [
    ("replace(record, '\"moves\"', '\"Xoves\"')", "unknown key 'Xoves'"),   # one byte flipped
    ("json_set(record, '$.winner', 7)", "'winner' is 7, not a seat of its 2"),
    ("'{}'", "no 'game'"),
    ("'null'", "a record is a JSON object, not null"),
    ("'5'", "a record is a JSON object, not a number"),
    ("json_set(record, '$.moves', 3)", "'moves' is a number"),
    ("json_set(record, '$.termination', 'exploded')", "'termination' is 'exploded', not one of"),
]


def test_a_damaged_record_is_refused_before_anything_is_written(league):
    # before: "4 of 4 games already stored; playing 0", then the store is damaged, exit 2,
    # and the league's `updated` row written first
    from arena.league.store import Store, StoreDamagedError
    db = league / "results" / "d.sqlite"
    clean = db.read_bytes()
    for number, (change, said) in enumerate(DAMAGED_RECORDS):
        db.write_bytes(clean)
        edit(db, f"UPDATE games SET record = {change} WHERE fixture_key = {FIRST}")
        kept = digest(db)
        if number < 2:       # as a user runs it; the others as arena opens a store to write
            refused(arena("run", "l.yaml", cwd=league), "the store is damaged", f"game {FIRST}",
                    said, "nothing was written to it")
        else:
            with pytest.raises(StoreDamagedError, match=re.escape(said)):
                Store(db, claim=True)
        assert digest(db) == kept, said


def test_a_store_of_a_later_schema_or_another_league_is_refused_byte_for_byte(league):
    # before: schema 999 in rollback mode was refused only once the file was switched to WAL
    db = league / "results" / "d.sqlite"
    edit(db, "UPDATE schema_version SET version = 999", "PRAGMA journal_mode = DELETE")
    kept = digest(db)
    for command in (["run", "l.yaml"], READERS[0], ["forget", "results/d.sqlite", "blind", "--yes"]):
        refused(arena(*command, cwd=league), "store schema version 999")
    assert digest(db) == kept
    # another league's store: before, the run wrote its builds and file hashes first
    edit(db, "UPDATE schema_version SET version = 2")
    kept = digest(db)
    (league / "l.yaml").write_text(LEAGUE.replace("seed: 5", "seed: 6"))
    refused(arena("run", "l.yaml", cwd=league), "this store holds a league with seed 5")
    assert digest(db) == kept


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


# --- 5. a store written over in place during a run -------------------------------------------

@pytest.mark.parametrize("how", ["overwritten", "emptied"])
def test_a_store_written_over_during_a_run_ends_it_with_the_honest_count(league, how):
    # before: "finished: ... 1200 of 1200 stored", then "the store is damaged", exit 2
    db = league / "results" / "d.sqlite"
    backup = (league / "results" / "d.sqlite").read_bytes()
    with_gate(league)
    proc = start_run(league)
    put = backup if how == "overwritten" else b""
    try:
        wait_for_games(db, 6)
        with open(db, "r+b") as f:          # `cat backup > d.sqlite`, `: > d.sqlite`
            f.truncate(0)
            f.write(put)
    finally:
        err = end_run(league, proc)
    assert proc.returncode == 1, err
    assert "finished" not in err and "stored in" not in err and "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert "the store file was overwritten while this run stored games in it" in last, err
    lost = re.search(r"its (\d+) games \((\d+) played by this run\) are lost with it", last)
    assert lost is not None and int(lost[2]) >= 2 and int(lost[1]) == 4 + int(lost[2]), last
    assert db.read_bytes() == put           # the run's pages were never copied into it


# --- 6. readers check what they read ---------------------------------------------------------

def _garble(db: Path, name: str) -> None:
    """Garbage over the root page of a table or index."""
    conn = sqlite3.connect(db)
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
    conn.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(bytes((i * 131 + 7) % 256 for i in range(page)))


def test_damage_in_what_the_readers_read_is_refused_and_elsewhere_is_said(league):
    # before: the games table's unique index garbled, leaderboard, publish, replay and
    # versions exit 0 while run refuses
    db = league / "results" / "d.sqlite"
    clean = db.read_bytes()
    _garble(db, "sqlite_autoindex_games_1")
    for command in (READERS[0], READERS[1], READERS[3]):
        refused(arena(*command, cwd=league), "the store is damaged (table 'games'")
    assert not (league / "site").exists()
    # the runs' own table garbled: the readers read what they show, and say the rest
    db.write_bytes(clean)
    _garble(db, "builds")
    kept = digest(db)
    for command in (READERS[0], READERS[3]):
        done = arena(*command, cwd=league)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 0 and len(lines) == 1, done.stderr
        assert "warning" in lines[0] and "part of the store is damaged (table 'builds'" in lines[0]
    refused(arena("run", "l.yaml", cwd=league), "the store is damaged (table 'builds'")
    assert digest(db) == kept


# --- 7. a store another process holds --------------------------------------------------------

HOLDER = textwrap.dedent("""
    import sqlite3, sys, time
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    db.execute("PRAGMA locking_mode = EXCLUSIVE")
    db.execute("BEGIN EXCLUSIVE")
    print("held", flush=True)
    sys.stdin.read()
""")


def test_a_store_another_process_holds_names_that_process(league):
    # before: "not a usable arena store (database is locked)"
    db = league / "results" / "d.sqlite"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        refused(arena("leaderboard", "results/d.sqlite", cwd=league),
                "another process holds the store", f"pid {holder.pid}: {sys.executable} -c")
    finally:
        holder.kill()
        holder.wait()
