"""A league run that fails says so, leaves nothing behind and never hangs: the arena
command on real configs, real workers and sandboxed bots, real SQLite files, killed,
interrupted, starved of disk and raced by a second run."""

import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctrl_c import sigint_default
from test_league_run import (
    GATED_MOVE_MS,
    RANDOMS,
    arena,
    count,
    gated,
    open_gate,
    stored,
    wait_for_games,
    write_config,
)

ROOT = Path(__file__).resolve().parent.parent
CAN_MOUNT = os.geteuid() == 0 and shutil.which("unshare") is not None


def run_env(tmp_path: Path, **extra) -> dict[str, str]:
    """The environment of a run whose bots' scratch dirs live in tmp_path/scratch."""
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(scratch), **extra}


def ours(tmp_path: Path) -> list[int]:
    """Live processes that belong to this test's run: their command line or working
    directory names tmp_path (workers name the config, sandboxes the scratch dirs)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            cwd = ""
        if state != "Z" and (str(tmp_path) in cmdline or cwd.startswith(str(tmp_path))):
            found.append(int(entry.name))
    return found


def wait_until(check, seconds: float = 120.0) -> bool:
    """Poll check() until it is true; False if it never became true (a hang guard)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())


def bot_dirs(tmp_path: Path) -> list[Path]:
    """The bots' scratch dirs of the run (in their processes' scratch roots)."""
    return list((tmp_path / "scratch").rglob("arena-bot-*"))


def assert_nothing_left(tmp_path: Path) -> None:
    assert wait_until(lambda: not ours(tmp_path), 60), f"left running: {ours(tmp_path)}"
    scratch = tmp_path / "scratch"
    assert wait_until(lambda: not any(scratch.glob("arena-*")), 30), \
        f"left behind: {list(scratch.rglob('*'))}"


def kill_ours(tmp_path: Path) -> None:
    """Never leave a failed test's processes to the next test."""
    for pid in ours(tmp_path):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def start_run(config: Path, tmp_path: Path, *args: str) -> subprocess.Popen:
    """`arena run` in the background; its stderr goes to tmp_path/stderr (a pipe would
    stay open as long as any worker lives, and reading it would hang)."""
    with open(tmp_path / "stderr", "w") as err:
        return subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), *args],
                                stdout=subprocess.DEVNULL, stderr=err, env=run_env(tmp_path),
                                preexec_fn=sigint_default)   # some tests Ctrl-C it


def finish(proc: subprocess.Popen, tmp_path: Path) -> str:
    """Wait for a signalled run to exit (a hang guard, not a timing); its stderr. A run
    that does not stop fails the test with every thread's stack, of it and its workers."""
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        dump_stacks(proc.pid)
        raise AssertionError("the run did not stop:\n" + (tmp_path / "stderr").read_text()) from None
    return (tmp_path / "stderr").read_text()


def dump_stacks(pid: int) -> None:
    """Have a run and its workers print their threads' stacks (arena's SIGUSR1) to stderr."""
    try:
        workers = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        workers = []
    for each in [pid, *map(int, workers)]:
        try:
            os.kill(each, signal.SIGUSR1)
        except ProcessLookupError:
            pass
    time.sleep(1)   # for the dumps to be written; what is there is shown either way


def bot_script(tmp_path: Path, name: str, text: str) -> str:
    """A command bot in a directory of its own; returns its command."""
    folder = tmp_path / "bots" / name
    folder.mkdir(parents=True)
    (folder / f"{name}.py").write_text(text)
    return f"python3 bots/{name}/{name}.py"


# --- 3. a run that fails says so -------------------------------------------------------------

def test_a_sandbox_the_host_lacks_stops_the_run_in_one_line(tmp_path):
    # bwrap asked for, not on PATH: said once, exit 1, nothing played (it said "finished: 0
    # games played" and exit 0, every worker's traceback swallowed)
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("prlimit", "setpriv", "sh"):
        (tools / name).symlink_to(shutil.which(name))
    config = write_config(tmp_path / "nobwrap.yaml", RANDOMS[:2], workers=2,
                          sandbox="{mode: bwrap}")
    out = arena("run", str(config), env={**os.environ, "PATH": str(tools)})
    assert out.returncode == 1, out.stderr
    assert out.stderr.strip().splitlines() == [out.stderr.strip()], out.stderr
    assert "bwrap was not found" in out.stderr and "Traceback" not in out.stderr
    assert count(tmp_path / "nobwrap.sqlite") == 0


@pytest.mark.parametrize("workers", [1, 2])
def test_an_error_in_a_worker_stops_the_run_and_is_no_bots_loss(tmp_path, monkeypatch, workers):
    # the referee or host failing mid-run (here: as a huge move_ms once made every worker
    # fail) stops the run naming the cause; nothing is stored as a loss for it
    import io

    from arena.league import runner
    from arena.league.executors import worker
    from arena.league.progress import Progress

    config = runner.load_league(str(write_config(tmp_path / f"w{workers}.yaml", RANDOMS[:3],
                                                 games_per_pairing=4, workers=workers)))
    real_play_game, calls = worker.play_game, tmp_path / "calls"

    def play_game(*args, **kwargs):     # forked workers inherit this too
        with open(calls, "a") as f:
            f.write("x")
        if len(calls.read_text()) >= 3:
            raise OverflowError("timestamp out of range for platform time_t")
        return real_play_game(*args, **kwargs)

    monkeypatch.setattr(worker, "play_game", play_game)
    with pytest.raises(runner.RunError, match="^OverflowError: timestamp out of range"):
        runner.run_league(config, progress=Progress(0, stream=io.StringIO()))
    games = stored(config.store)
    assert len(games) <= 2
    assert all(json.loads(record)["termination"] == "normal" for _, record in games.values())


DIES = "import sys\nprint('cannot find model.bin: No such file', file=sys.stderr)\nsys.exit(3)\n"


def test_the_preflight_stops_a_bot_that_cannot_start_before_any_game(tmp_path):
    command = bot_script(tmp_path, "dies", DIES)
    path = tmp_path / "pre.yaml"
    path.write_text("name: pre\ngame: ultimate\nbots:\n  - {name: ok, bot: random}\n"
                    f"  - {{name: broken, command: {command}}}\n"
                    "games_per_pairing: 4\nworkers: 2\nstore: pre.sqlite\n")
    out = arena("run", str(path))
    assert out.returncode == 1, out.stderr
    line = out.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, out.stderr
    assert "bot 'broken' cannot start" in line and "cannot find model.bin" in line
    assert "--keep-going" in line
    assert count(tmp_path / "pre.sqlite") == 0          # not 4 stored startup_failure losses
    kept = arena("run", str(path), "--keep-going")      # the user's choice: it loses its games
    assert kept.returncode == 0, kept.stderr
    assert "WARNING: bot 'broken' cannot start" in kept.stderr
    with sqlite3.connect(tmp_path / "pre.sqlite") as db:
        assert db.execute("SELECT termination, count(*) FROM games GROUP BY 1").fetchall() == [
            ("startup_failure", 4)]


#: a CodinGame Tron Battle bot that reads its first turn's first line, then dies
CRASHES_ON_MOVE_1 = ("import sys\nsys.stdin.readline()\n"
                     "print('IndexError: no map here', file=sys.stderr)\nsys.exit(3)\n")
#: one that answers its first turn, then dies on its second: it started
CRASHES_ON_MOVE_2 = ("import sys\nfor turn in range(2):\n    n, p = map(int, input().split())\n"
                     "    rows = [input() for _ in range(n)]\n    if turn:\n        sys.exit(3)\n"
                     "    print('LEFT' if p == 1 else 'RIGHT', flush=True)\n")


def test_the_preflight_stops_a_bot_dying_on_its_first_move_where_seats_move_at_once(tmp_path):
    # tron without a handshake: the preflight's stand-in said "started" once the turn was
    # asked, before the bot's reply, so a bot dying on move 1 played (and lost) every game,
    # 2-player match and 4-player league alike; a bot that answered once is up all the same
    crash = bot_script(tmp_path, "crash", CRASHES_ON_MOVE_1)
    match = arena("match", f"codingame:{crash}", "random", "--game", "tron", "--games", "2",
                  cwd=tmp_path)
    assert match.returncode == 1 and match.stderr.count("\n") == 1, match.stderr
    assert "bot 'python3 bots/crash/crash.py' cannot start: exited (exit code 3)" in match.stderr
    assert "IndexError: no map here" in match.stderr and "nothing was played" in match.stderr
    assert "game 1" not in match.stdout
    later = bot_script(tmp_path, "later", CRASHES_ON_MOVE_2)
    plays = arena("match", f"codingame:{later}", "random", "--game", "tron", "--games", "2",
                  cwd=tmp_path)
    assert plays.returncode == 0 and "game 2:" in plays.stdout, plays.stderr
    path = tmp_path / "ffa.yaml"
    path.write_text("name: ffa\ngame: tron\nrules: {players: 4, width: 8, height: 8}\nbots:\n"
                    f"  - {{name: crash, command: {crash}, dialect: codingame}}\n"
                    "  - {name: a, bot: tron-random}\n  - {name: b, bot: random}\n"
                    "  - {name: c, bot: tron-random, options: {seed: 5}}\n"
                    "games: 4\nworkers: 1\nstore: ffa.sqlite\n")
    league = arena("run", str(path))
    assert league.returncode == 1 and "bot 'crash' cannot start" in league.stderr, league.stderr
    assert count(tmp_path / "ffa.sqlite") == 0


def test_a_sandbox_limit_no_bot_can_start_under_is_said_before_play(tmp_path):
    config = write_config(tmp_path / "mem.yaml", RANDOMS[:2], sandbox="{memory_mb: 1}")
    out = arena("run", str(config))
    assert out.returncode == 1, out.stderr
    assert "cannot start" in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert count(tmp_path / "mem.sqlite") == 0


# --- 4. nothing is left behind, nothing hangs --------------------------------------------------

@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_killing_the_run_ends_its_workers_and_sandboxes(tmp_path, signum):
    # only the coordinator is signalled (not its process group): its workers and their
    # bots must follow it (they stayed alive forever, blocked on their result pipe)
    # the gate bot's games wait until the gate opens (never, here): the run is mid-way
    # when killed, its workers each in a game, however fast or loaded the machine
    config = write_config(tmp_path / "kill.yaml", RANDOMS[:3] + [gated(tmp_path)],
                          games_per_pairing=20, workers=2, move_ms=GATED_MOVE_MS)
    db = tmp_path / "kill.sqlite"
    proc = start_run(config, tmp_path)
    try:
        wait_for_games(db, 4)      # each of the 2 workers plays the gate bot twice first
        os.kill(proc.pid, signum)
        err = finish(proc, tmp_path)
        if signum == signal.SIGTERM:        # like Ctrl-C: a clean stop
            assert proc.returncode == 130, err
            assert "stopped:" in err and "Traceback" not in err
        assert_nothing_left(tmp_path)
    finally:
        proc.kill()
        kill_ours(tmp_path)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_run_killed_with_its_workers_leaves_nothing_once_the_next_run_starts(tmp_path):
    # kill -9 of the whole run, workers included: nothing of it can clean up, so its bots'
    # scratch dirs stayed in the temp dir for good (9 of 12 kills in a trial). Each process
    # keeps them in a root of its own, locked while it lives; the next run removes the
    # roots of dead processes, and ends anything still running in them
    config = write_config(tmp_path / "kill.yaml", RANDOMS[:3] + [gated(tmp_path)],
                          games_per_pairing=20, workers=2, move_ms=GATED_MOVE_MS)
    db = tmp_path / "kill.sqlite"
    with open(tmp_path / "stderr", "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config)],
                                stdout=subprocess.DEVNULL, stderr=err, env=run_env(tmp_path),
                                start_new_session=True)
    try:
        wait_for_games(db, 4)      # each of the 2 workers waits at the gate, its bots started
        assert bot_dirs(tmp_path)
        os.killpg(proc.pid, signal.SIGKILL)     # the run and its workers, at once
        proc.wait()
        # the bots follow their workers (bwrap --die-with-parent, setpriv --pdeathsig), but
        # not one whose bwrap was still setting up (its parent-death signal is armed last:
        # 3 kills in 20 under a load of 5 left one running, asleep in its scratch dir), so
        # what is asked is that the next run ends whatever the killed one left
        next_run = write_config(tmp_path / "next.yaml", RANDOMS[:2])
        done = arena("run", str(next_run), env=run_env(tmp_path), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert_nothing_left(tmp_path)
    finally:
        proc.kill()
        kill_ours(tmp_path)


SLOW_START = "import time\ntime.sleep(600)\n"


def test_ctrl_c_during_the_preflight_stops_at_once(tmp_path):
    # a bot still starting up must not keep the run waiting for its handshake
    command = bot_script(tmp_path, "slow", SLOW_START)
    path = tmp_path / "slow.yaml"
    path.write_text("name: slow\ngame: ultimate\nbots:\n  - {name: ok, bot: random}\n"
                    f"  - {{name: slow, command: {command}}}\n"
                    "time_control: {startup_ms: 3600000}\nworkers: 2\nstore: slow.sqlite\n")
    proc = start_run(path, tmp_path)
    try:
        assert wait_until(lambda: any(bot_dirs(tmp_path)))
        assert wait_until(lambda: len(bot_dirs(tmp_path)) >= 2)
        proc.send_signal(signal.SIGINT)
        err = finish(proc, tmp_path)        # a hang guard: the bot sleeps 600 s
        assert proc.returncode == 130, err
        assert "Traceback" not in err
        assert_nothing_left(tmp_path)
    finally:
        proc.kill()
        kill_ours(tmp_path)


def test_a_second_run_on_the_same_store_is_refused(tmp_path):
    config = write_config(tmp_path / "two.yaml", RANDOMS[:3] + [gated(tmp_path)],
                          games_per_pairing=4, workers=2, move_ms=GATED_MOVE_MS)
    db = tmp_path / "two.sqlite"
    first = start_run(config, tmp_path)
    try:
        wait_for_games(db, 1)      # and it cannot end before the gate opens
        second = arena("run", str(config))
        assert second.returncode == 2, second.stderr
        assert f"another `arena run` is playing into this store (pid {first.pid}: " in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1, second.stderr
        first.send_signal(signal.SIGINT)
        finish(first, tmp_path)
    finally:
        first.kill()
        kill_ours(tmp_path)
    assert first.returncode == 130
    # and once the first is gone, the store is free again: it resumes
    games = stored(db)
    open_gate(tmp_path)
    again = arena("run", str(config))
    assert again.returncode == 0, again.stderr
    assert f"{len(games)} of 24 games already stored" in again.stderr


def test_workers_beyond_four_per_cpu_are_capped_with_a_warning(tmp_path):
    many = 4 * (os.cpu_count() or 1) + 1
    config = write_config(tmp_path / "wide.yaml", RANDOMS[:2], workers=many)
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    assert f"WARNING: workers: {many} is more than 4 per CPU" in out.stderr
    assert count(tmp_path / "wide.sqlite") == 2


def in_mount_namespace(script: str, timeout: float = 240) -> subprocess.CompletedProcess:
    """Run a shell script in a mount namespace of its own (its mounts vanish with it)."""
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-ec", script],
                          check=False, capture_output=True, text=True, timeout=timeout)


@pytest.mark.skipif(not CAN_MOUNT, reason="needs root and unshare to mount a small tmpfs")
def test_a_full_disk_is_one_line_and_keeps_every_stored_game(tmp_path):
    # it raised a traceback, then hung until killed
    disk, kept = tmp_path / "disk", tmp_path / "kept"
    disk.mkdir()
    kept.mkdir()
    config = write_config(tmp_path / "full.yaml", RANDOMS[:3], games_per_pairing=40, workers=2,
                          store="disk/full.sqlite")
    config.write_text(config.read_text().replace("store: full.sqlite\n", ""))
    done = in_mount_namespace(
        f"mount -t tmpfs -o size=160k tmpfs {disk}\n"
        f"set +e; {sys.executable} -m arena run {config} 2> {tmp_path}/err; echo $? > {tmp_path}/rc\n"
        f"cp {disk}/* {kept}/")
    assert done.returncode == 0, done.stderr
    err = (tmp_path / "err").read_text()
    assert (tmp_path / "rc").read_text().strip() == "1", err
    errors = [line for line in err.splitlines() if not line.startswith(("[", "0 of"))]
    assert len(errors) == 1 and "database or disk is full" in errors[0], err
    # progress lines ('[12/120] 10%, ...') count stored games: none of them may be lost
    reported = [int(line[1:].split("/")[0]) for line in err.splitlines() if line.startswith("[")]
    with sqlite3.connect(kept / "full.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert stored > 0 and stored >= max(reported, default=0), (stored, err)


@pytest.mark.skipif(not CAN_MOUNT, reason="needs root and unshare for a read-only bind mount")
def test_a_store_on_a_read_only_mount_is_read_but_never_run_into(tmp_path):
    league = tmp_path / "league"
    league.mkdir()
    config = write_config(league / "ro.yaml", RANDOMS[:2])
    assert arena("run", str(config)).returncode == 0
    arena_cmd = f"{sys.executable} -m arena"
    done = in_mount_namespace(
        f"mount --bind {league} {league}\nmount -o remount,bind,ro {league}\n"
        f"{arena_cmd} leaderboard {league}/ro.sqlite --format csv\n"
        f"{arena_cmd} leaderboard {config} --format csv\n"
        f"{arena_cmd} publish {league}/ro.sqlite --out {tmp_path}/site\n"
        f"set +e; {arena_cmd} run {config} 2> {tmp_path}/err; echo $? > {tmp_path}/rc\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("r1,") == 2 and (tmp_path / "site" / "index.html").exists()
    err = (tmp_path / "err").read_text()
    assert (tmp_path / "rc").read_text().strip() == "2", err
    assert len(err.strip().splitlines()) == 1 and "is not writable" in err, err


# --- 6. a damaged store is never written to ------------------------------------------------------

def test_a_damaged_store_is_refused_and_left_as_it_was(tmp_path):
    config = write_config(tmp_path / "bad.yaml", RANDOMS[:3], games_per_pairing=6)
    db = tmp_path / "bad.sqlite"
    assert arena("run", str(config)).returncode == 0
    size = db.stat().st_size
    assert size > 64 * 1024 and not Path(f"{db}-wal").exists()
    with open(db, "r+b") as f:                 # 8 KiB of garbage in the middle
        f.seek(size // 2 // 4096 * 4096)
        f.write(bytes((i * 131 + 7) % 256 for i in range(8192)))
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    write_config(config, RANDOMS, games_per_pairing=6)     # more games to play into it
    out = arena("run", str(config))
    assert out.returncode == 2, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "damaged" in out.stderr, out.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


@pytest.fixture(scope="module")
def twelve_games(tmp_path_factory) -> Path:
    """A directory with a league's config (d.yaml) and its store of 12 stored games
    (d.sqlite), closed cleanly: made once, for the tests that damage a copy of it."""
    base = tmp_path_factory.mktemp("twelve-games")
    config = write_config(base / "d.yaml", RANDOMS[:3], games_per_pairing=4)
    assert arena("run", str(config)).returncode == 0
    assert not (base / "d.sqlite-wal").exists()
    return base


def _damaged_copy(twelve_games: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the league's config and its store of 12 stored games, to be damaged by the caller."""
    for name in ("d.yaml", "d.sqlite"):
        shutil.copy(twelve_games / name, tmp_path / name)
    return tmp_path / "d.yaml", tmp_path / "d.sqlite"


def _one_line_naming(out: subprocess.CompletedProcess, db: Path, needle: str) -> None:
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and db.name in lines[0] and needle in lines[0], out.stderr


def test_a_record_that_is_not_utf8_is_one_line_from_every_command_and_nothing_is_written(twelve_games, tmp_path):
    # SQLite's structure is sound (quick_check says ok), but one record holds bytes
    # that are not UTF-8: `arena run` said "12 of 12 games already stored", wrote to the
    # store, then a traceback, exit 1; publish and leaderboard the same traceback
    config, db = _damaged_copy(twelve_games, tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET record = CAST(X'7b22ff' AS TEXT) WHERE id = 3")
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    conn.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    for command in (["run", str(config)], ["forget", str(db), "r1"],
                    ["leaderboard", str(db)], ["publish", str(db), "--out", str(tmp_path / "site")],
                    ["replay", str(db), "--game", "1"]):
        _one_line_naming(arena(*command), db, "holds text that is not UTF-8")
        assert hashlib.sha256(db.read_bytes()).hexdigest() == before, command
    assert not (tmp_path / "site").exists()


def test_a_record_that_is_text_but_no_record_is_one_line_from_the_readers(twelve_games, tmp_path):
    config, db = _damaged_copy(twelve_games, tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET record = '{\"moves\": [' WHERE id = 3")
    conn.close()
    for command in (["leaderboard", str(db)], ["publish", str(db), "--out", str(tmp_path / "site")]):
        _one_line_naming(arena(*command), db, "its record cannot be read")


def test_a_damaged_page_is_one_line_from_the_commands_that_read_it(twelve_games, tmp_path):
    # `arena versions` and `arena publish` gave a traceback (database disk image is malformed)
    config, db = _damaged_copy(twelve_games, tmp_path)
    with sqlite3.connect(db) as conn:
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'versions'").fetchone()[0]
    conn.close()
    with open(db, "r+b") as f:             # garbage over the versions table's page
        f.seek((root - 1) * page)
        f.write(bytes((i * 131 + 7) % 256 for i in range(page)))
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    for command in (["versions", str(db)], ["versions", str(config)], ["leaderboard", str(db)],
                    ["publish", str(db), "--out", str(tmp_path / "site")], ["run", str(config)]):
        _one_line_naming(arena(*command), db, "damaged")
        assert hashlib.sha256(db.read_bytes()).hexdigest() == before, command


# --- 7. a store deleted or replaced during a run -------------------------------------------------

@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_store_deleted_or_replaced_during_a_run_stops_it_saying_what_was_lost(tmp_path, how):
    # `rm x.sqlite*` mid-run: the run played on into the unlinked file, printed
    # "finished: ... 300 of 300 stored in x.sqlite", and every game was lost
    config = write_config(tmp_path / "gone.yaml", RANDOMS[:3] + [gated(tmp_path)],
                          games_per_pairing=6, workers=2, move_ms=GATED_MOVE_MS)
    db = tmp_path / "gone.sqlite"
    other = tmp_path / "other.sqlite"
    other.write_bytes(b"another file, not this league's store\n")
    proc = start_run(config, tmp_path)
    try:
        wait_for_games(db, 4)      # and the run cannot end before the gate opens
        if how == "deleted":
            for path in tmp_path.glob("gone.sqlite*"):
                path.unlink()
        else:
            os.replace(other, db)
        open_gate(tmp_path)
        err = finish(proc, tmp_path)
        assert_nothing_left(tmp_path)
    finally:
        proc.kill()
        kill_ours(tmp_path)
    assert proc.returncode == 1, err
    assert "Traceback" not in err and "stored in" not in err and "finished" not in err, err
    last = err.strip().splitlines()[-1]
    said = "was deleted" if how == "deleted" else "was replaced by another file"
    assert last.startswith("arena run: error: ") and said in last, err
    lost = re.search(r"its (\d+) games \((\d+) played by this run\) are lost", last)
    assert lost is not None and int(lost[1]) == int(lost[2]) >= 4, last
    if how == "deleted":
        assert not db.exists()
    else:
        assert db.read_bytes() == b"another file, not this league's store\n"
