"""Leagues as a user runs them: the arena command on real configs, real sandboxed
bots, a real SQLite file; killed with SIGKILL and resumed, extended, interrupted."""

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ctrl_c import sigint_default

ROOT = Path(__file__).resolve().parent.parent


def write_config(path: Path, bots, games_per_pairing=2, workers=1, seed=7, move_ms=2000, **extra):
    """A league config; a bot given as (name, "python3 ...") is a command bot."""
    lines = [f"name: {path.stem}", "game: ultimate", "bots:"]
    lines += [f"  - {{name: {name}, {'command' if bot.startswith('python3 ') else 'bot'}: {bot}}}"
              for name, bot in bots]
    lines += [f"games_per_pairing: {games_per_pairing}", f"workers: {workers}", f"seed: {seed}",
              f"time_control: {{move_ms: {move_ms}, startup_ms: 10000}}",
              f"store: {path.stem}.sqlite"]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def arena(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, **kwargs)


def stored(db: Path):
    with sqlite3.connect(db) as conn:
        return {key: (winner, record) for key, winner, record in
                conn.execute("SELECT fixture_key, winner, record FROM games")}


def count(db: Path) -> int:
    """The games stored in db now (its connection closed again: an open one keeps the
    store's -wal in use by this process)."""
    try:
        with contextlib.closing(sqlite3.connect(db)) as conn:
            return conn.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:   # the table is not made yet
        return 0


RANDOMS = [("r1", "uttt-random"), ("r2", "random"), ("r3", "uttt-random"), ("r4", "random")]
#: a move_ms no gated game reaches: a bot waiting at the gate must not lose on time
GATED_MOVE_MS = 3_600_000


def gated(tmp_path: Path, free: int = 2) -> tuple[str, str]:
    """A bot ("g", its command) that is the test's gate: each of its processes plays `free`
    games, then waits at its next game's first move until open_gate(tmp_path). A run
    with it cannot finish before that, and each of its workers has stored `free` games
    first (tests/fixture_bots/gate_bot.py)."""
    folder = tmp_path / "bots" / "gate"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "tests" / "fixture_bots" / "gate_bot.py", folder / "gate_bot.py")
    return "g", f"python3 bots/gate/gate_bot.py {free}"


def open_gate(tmp_path: Path) -> None:
    (tmp_path / "bots" / "gate" / "open").mkdir()


def wait_for_games(db: Path, games: int) -> None:
    """Wait until the store holds this many games (a hang guard, not a timing)."""
    deadline = time.monotonic() + 300
    while count(db) < games:
        assert time.monotonic() < deadline, f"{count(db)} games stored, waited for {games}"
        time.sleep(0.05)


def test_run_stores_every_game_and_prints_the_leaderboard(tmp_path):
    config = write_config(tmp_path / "small.yaml", RANDOMS[:3])
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    assert "rank" in out.stdout and "row vs column" in out.stdout
    games = stored(tmp_path / "small.sqlite")
    assert len(games) == 6
    again = arena("run", str(config))  # nothing missing: plays nothing
    assert again.returncode == 0 and "playing 0" in again.stderr
    assert stored(tmp_path / "small.sqlite") == games
    board = arena("leaderboard", str(tmp_path / "small.sqlite"), "--format", "json")
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)["rows"]
    assert sorted(r["bot"] for r in rows) == ["r1", "r2", "r3"]
    assert sum(r["games"] for r in rows) == 12
    for fmt in ("md", "csv", "table"):
        assert arena("leaderboard", str(config), "--format", fmt).returncode == 0


def test_worker_count_does_not_change_results_or_leaderboard(tmp_path):
    one = write_config(tmp_path / "one.yaml", RANDOMS[:3], workers=1)
    two = write_config(tmp_path / "two.yaml", RANDOMS[:3], workers=2)
    assert arena("run", str(one)).returncode == 0
    assert arena("run", str(two)).returncode == 0
    a, b = stored(tmp_path / "one.sqlite"), stored(tmp_path / "two.sqlite")
    assert {k: v[0] for k, v in a.items()} == {k: v[0] for k, v in b.items()}

    def moves(games):
        return {k: [m["move"] for m in json.loads(r)["moves"]] for k, (_, r) in games.items()}

    assert moves(a) == moves(b)
    board_a = json.loads(arena("leaderboard", str(tmp_path / "one.sqlite"), "--format", "json").stdout)
    board_b = json.loads(arena("leaderboard", str(tmp_path / "two.sqlite"), "--format", "json").stdout)
    for board in (board_a, board_b):
        board.pop("title")
        for row in board["rows"]:
            row.pop("mean_move_ms")  # wall time: the one thing that may differ
    assert board_a == board_b


def test_kill_9_mid_run_loses_only_games_in_flight_and_resume_finishes(tmp_path):
    # the gate bot's games wait until the gate opens: the run is killed mid-way (never
    # after its last game), with each worker's first games stored, however loaded the machine
    config = write_config(tmp_path / "big.yaml", RANDOMS[:3] + [gated(tmp_path, free=4)],
                          games_per_pairing=6, workers=2, move_ms=GATED_MOVE_MS)
    db = tmp_path / "big.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        wait_for_games(db, 8)      # each of the 2 workers plays the gate bot 4 times first
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = stored(db)
    assert 8 <= len(before) < 36
    open_gate(tmp_path)
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    assert f"{len(before)} of 36 games already stored" in out.stderr
    after = stored(db)
    assert len(after) == 36
    assert all(after[k] == v for k, v in before.items())  # finished games untouched
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_adding_a_bot_plays_only_its_new_pairings(tmp_path):
    config = write_config(tmp_path / "grow.yaml", RANDOMS[:3])
    assert arena("run", str(config)).returncode == 0
    before = stored(tmp_path / "grow.sqlite")
    write_config(config, RANDOMS)
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    assert "6 of 12 games already stored; playing 6" in out.stderr
    after = stored(tmp_path / "grow.sqlite")
    new = set(after) - set(before)
    assert len(new) == 6 and all("r4" in key for key in new)


def test_ctrl_c_stops_cleanly_and_keeps_finished_games(tmp_path):
    config = write_config(tmp_path / "stop.yaml", RANDOMS[:3] + [gated(tmp_path)],
                          games_per_pairing=6, workers=2, move_ms=GATED_MOVE_MS)
    db = tmp_path / "stop.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=sigint_default)
    try:
        wait_for_games(db, 4)      # and the run cannot end before the gate opens
        proc.send_signal(signal.SIGUSR1)   # where it is: every thread's stack, and it plays on
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:   # every thread's stack, of the run and its workers
            os.killpg(proc.pid, signal.SIGUSR1)
            time.sleep(1)
            os.killpg(proc.pid, signal.SIGKILL)
            raise AssertionError("the run did not stop:\n" + proc.communicate(timeout=30)[1]) from None
    finally:
        if proc.poll() is None:    # it did not stop: never leave it waiting at the gate
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "stopped:" in err and "Traceback" not in err
    assert "(most recent call first)" in err and "run_league" in err   # the SIGUSR1 dump
    kept = stored(db)
    assert len(kept) >= 4
    open_gate(tmp_path)
    assert arena("run", str(config)).returncode == 0
    assert len(stored(db)) == 36


@pytest.mark.parametrize(("text", "needles"), [
    ("name: x\ngame: ultimate\nbots:\n  - {name: a, bot: uttt-random}\n  - {name: b, bot: uttt-randm}\n",
     ["bad.yaml:5", "bots[1]", "did you mean 'uttt-random'"]),
    ("name: x\ngame: ultimate\nworkerz: 2\nbots:\n  - {name: a, bot: random}\n  - {name: b, bot: random}\n",
     ["bad.yaml:3", "workerz", "did you mean 'workers'"]),
    ("name: x\ngame: ultimate\nbots:\n  - {name: a, bot: random}\n  - {name: b, bot: mcts, options: {depth: 3}}\n",
     ["bad.yaml:5", "bots[1].options.depth", "time_ms"]),
    ("name: x\ngame: ultimate\nbots:\n  - {name: a, bot: ttt-master}\n  - {name: b, bot: random}\n",
     ["bad.yaml:4", "plays tictactoe"]),
    ("name: x\ngame: ultimate\nschedule: ladr\nbots:\n  - {name: a, bot: random}\n  - {name: b, bot: random}\n",
     ["bad.yaml:3", "schedule", "got 'ladr' (did you mean 'ladder'?)"]),
])
def test_bad_config_is_one_clear_line_and_runs_nothing(tmp_path, text, needles):
    _one_line_exit_2(tmp_path, text, needles)


TWO = "name: x\ngame: ultimate\nbots:\n  - {name: a, bot: random}\n"
BOMB = "".join([f"a0: &a0 [{', '.join('x' * 9)}]\n"] + [
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)])


@pytest.mark.parametrize(("text", "needles"), [
    # option values are checked against each bot's declared kinds and ranges
    (TWO + "  - {name: b, bot: uttt-minimax, options: {depth: deep}}\n",
     ["bad.yaml:5", "bots[1].options.depth", "must be an integer from 1", "'deep'"]),
    (TWO + "  - {name: b, bot: uttt-minimax, options: {depth: -3}}\n",
     ["bad.yaml:5", "bots[1].options.depth", "got -3"]),
    (TWO + "  - {name: b, bot: mcts, options: {time_ms: fast}}\n",
     ["bots[1].options.time_ms", "must be a number", "'fast'"]),
    (TWO + "  - {name: b, bot: mcts, options: {seed: abc}}\n",
     ["bots[1].options.seed", "must be an integer", "'abc'"]),
    (TWO + "  - {name: b, bot: uttt-minimax, options: {weights: '{bad json'}}\n",
     ["bots[1].options.weights", "not valid JSON"]),
    # numbers are finite and bounded
    (TWO + "  - {name: b, bot: random}\ngames_per_pairing: 100000000000\n",
     ["bad.yaml:6", "games_per_pairing", "<= 1000000"]),
    (TWO + "  - {name: b, bot: random}\ntime_control: {move_ms: 100000000000000000000000}\n",
     ["time_control.move_ms", "<= 86400000"]),
    (TWO + "  - {name: b, bot: random}\ntime_control: {load_grace: .nan}\n",
     ["time_control.load_grace", "got nan"]),
    (TWO + "  - {name: b, bot: random}\nrating: {mu: .inf}\n", ["rating.mu", "got inf"]),
    (TWO + "  - {name: b, bot: random}\nrating: {tau: .nan}\n", ["rating.tau", "got nan"]),
    # the YAML itself: an alias bomb and deep nesting
    (TWO + "  - {name: b, bot: random}\n" + BOMB, ["bad.yaml:", "aliases", "expanded"]),
    (TWO + "  - {name: b, bot: random}\nrules: " + "[" * 5000 + "]" * 5000 + "\n",
     ["bad.yaml:6", "nested more than 64 levels"]),
    # a store that cannot be made
    (TWO + "  - {name: b, bot: random}\nstore: bad.yaml/league.sqlite\n",
     ["bad.yaml:6", "store", "is a file, not a directory"]),
])
def test_bad_values_are_one_clear_line_and_run_nothing(tmp_path, text, needles):
    _one_line_exit_2(tmp_path, text, needles)


def _one_line_exit_2(tmp_path, text, needles):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    out = arena("run", str(path))
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    for needle in needles:
        assert needle in out.stderr, out.stderr
    assert not list(tmp_path.glob("*.sqlite"))


def test_run_publishes_the_site_when_the_config_asks(tmp_path):
    config = write_config(tmp_path / "pub.yaml", RANDOMS[:2], publish="site")
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert "published:" in out.stderr
    again = arena("publish", str(tmp_path / "pub.sqlite"), "--out", str(tmp_path / "other"))
    assert again.returncode == 0 and (tmp_path / "other" / "index.html").exists()
    missing = arena("publish", str(tmp_path / "nope.sqlite"), "--out", str(tmp_path / "x"))
    assert missing.returncode == 2 and "no such store" in missing.stderr


def test_self_play_under_two_names_plays_two_different_games_per_pair(tmp_path):
    # the seat-swapped pair shares a game seed; each bot's own seed also follows its name
    config = write_config(tmp_path / "self.yaml", [("a", "uttt-random"), ("b", "uttt-random")],
                          games_per_pairing=4)
    assert arena("run", str(config)).returncode == 0
    games = stored(tmp_path / "self.sqlite")
    moves = {key: tuple(m["move"] for m in json.loads(record)["moves"])
             for key, (_, record) in games.items()}
    assert len(moves) == 4 and len(set(moves.values())) == 4


WEIGHTS = {"numWins": 0.5, "otherWins": -0.2, "relativeWins": 0.7}


def test_a_weights_file_option_is_read_from_the_configs_directory_inside_the_sandbox(tmp_path):
    (tmp_path / "learned").mkdir()
    (tmp_path / "learned" / "w.json").write_text(json.dumps(WEIGHTS))
    (tmp_path / "learned" / "bad.json").write_text("[1, 2]")
    path = tmp_path / "weights.yaml"
    path.write_text(
        "name: weights\ngame: ultimate\nbots:\n"
        "  - {name: learned, bot: uttt-advanced-perceptron, options: {weights: learned/w.json}}\n"
        "  - {name: broken, bot: uttt-advanced-perceptron, options: {weights: learned/bad.json}}\n"
        "  - {name: inline, bot: uttt-advanced-perceptron, options: {weights: "
        + json.dumps(WEIGHTS) + "}}\n"
        "games_per_pairing: 2\nworkers: 1\nseed: 3\nstore: weights.sqlite\n"
        "time_control: {move_ms: 2000, startup_ms: 10000}\n")
    refused = arena("run", str(path), cwd="/")      # the preflight finds the broken file
    assert refused.returncode == 1, refused.stderr
    assert "bot 'broken' cannot start" in refused.stderr and "weights must be a mapping" in refused.stderr
    assert stored(tmp_path / "weights.sqlite") == {}
    out = arena("run", str(path), "--keep-going", cwd="/")   # paths follow the config, not the cwd
    assert out.returncode == 0, out.stderr
    records = [json.loads(record) for _, record in stored(tmp_path / "weights.sqlite").values()]
    for r in records:
        r["names"] = [b["name"] for b in r["bots"]]
    between = [r for r in records if "broken" not in r["names"]]
    assert len(between) == 2 and all(r["termination"] == "normal" for r in between)
    broken = [r for r in records if "broken" in r["names"]]
    assert len(broken) == 4
    for r in broken:   # the file was read inside the sandbox: its content is what is refused
        assert r["termination"] == "startup_failure"
        assert "weights must be a mapping" in r["stderr_tails"][r["names"].index("broken")]


def test_a_missing_weights_file_is_a_config_error_naming_the_key(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\ngame: ultimate\nbots:\n  - {name: a, bot: random}\n"
                    "  - {name: b, bot: uttt-minimax, options: {weights: nope.json}}\n")
    out = arena("run", str(path))
    assert out.returncode == 2
    assert "bad.yaml:5" in out.stderr and "bots[1].options.weights" in out.stderr, out.stderr
    assert "nope.json" in out.stderr
    assert not list(tmp_path.glob("*.sqlite"))


@pytest.mark.parametrize("workers", [1, 2])
def test_each_game_is_stored_as_soon_as_it_ends(tmp_path, monkeypatch, workers):
    # what kill -9 can lose is only what is in flight: a game that has ended is reported
    # and committed before the next one of its worker ends
    import io

    from arena.league import runner
    from arena.league.executors import worker
    from arena.league.progress import Progress

    config = runner.load_league(str(write_config(tmp_path / f"w{workers}.yaml", RANDOMS[:3],
                                                 games_per_pairing=8, workers=workers)))
    ended = tmp_path / "ended"
    real_play_game = worker.play_game

    def play_game(*args, **kwargs):     # forked workers inherit this too
        record = real_play_game(*args, **kwargs)
        with open(ended, "a") as f:
            f.write("x")
        return record

    monkeypatch.setattr(worker, "play_game", play_game)
    behind = []

    class Check(Progress):
        def update(self, record):
            in_store = len(stored(config.store))
            behind.append(len(ended.read_text()) - in_store)
            super().update(record)

    runner.run_league(config, progress=Check(0, stream=io.StringIO()))
    assert len(behind) == 24 and len(stored(config.store)) == 24
    # a worker plays its next game while the coordinator stores its last, but sends it only
    # after the coordinator's "stored": at most two ended games a worker are not yet stored
    # (one in this process, which stores as it reports), however loaded the machine
    assert max(behind) <= (0 if workers == 1 else 2 * workers - 1), behind
