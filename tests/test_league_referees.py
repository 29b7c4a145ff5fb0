"""Games played by a referee process as a user runs them (docs/referees.md): the real arena
command on configs whose `game:` names a referee, real sandboxed referees and bots, a real
SQLite file. A league runs, resumes after kill -9 and replays its transcripts; a Java referee
is built by the league and plays a free-for-all; ladders, gauntlets and `arena match` with
an SPRT run; a changed referee is a new season; a failing referee stops a run in one line;
each mistake in a game's config is one line naming its key."""

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from test_referee_hostile import processes_with

from arena.league.config import ConfigError, validate_entrant
from arena.league.refereegame import GAME_KEYS
from arena.league.runner import load_league

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixture_referees"


def arena(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def flat(text: str) -> str:
    """Text with its lines joined by spaces: the leaderboard wraps its notes."""
    return " ".join(text.split())


def games(db: Path) -> dict[str, tuple[str, dict]]:
    """The games stored in db now, by key: termination and record (none while it is new)."""
    try:
        with contextlib.closing(sqlite3.connect(db)) as conn:
            return {key: (termination, json.loads(record)) for key, termination, record in
                    conn.execute("SELECT fixture_key, termination, record FROM games")}
    except sqlite3.OperationalError:   # the table is not made yet
        return {}


@pytest.fixture
def ttt(tmp_path) -> Path:
    """examples/referee-tictactoe, copied: its referee and bots, each in a directory of its own."""
    return Path(shutil.copytree(EXAMPLES / "referee-tictactoe", tmp_path / "ttt"))


def ttt_config(path: Path, game: str, bots: int = 3, **extra) -> Path:
    names = ["first-free", "random-1", "random-2"][:bots]
    commands = ["python3 ttt/first-free/bot.py", "python3 ttt/random/bot.py 1", "python3 ttt/random/bot.py 2"]
    lines = [f"name: {path.stem}", "game:", *(f"  {line}" for line in game.strip().splitlines()), "bots:"]
    lines += [f"  - {{name: {name}, command: \"{command}\"}}" for name, command in zip(names, commands)]
    lines += [f"{key}: {value}" for key, value in {"games_per_pairing": 2, "workers": 2,
                                                    "time_control": "{move_ms: 2000}", **extra}.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


TTT_GAME = """name: tictactoe-ref
referee: python3 ttt/referee/referee.py {marker}
players: 2"""


def test_a_league_of_the_python_referee_survives_kill_9_resumes_and_replays(tmp_path, ttt):
    marker = f"arena-referee-{uuid.uuid4().hex}"
    config = ttt_config(tmp_path / "league.yaml", TTT_GAME.format(marker=marker), games_per_pairing=4)
    db = tmp_path / "results" / "league.sqlite"
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120           # a hang guard, not a timing
        while not db.exists() or len(games(db)) < 2:
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.05)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    before = games(db)
    assert 2 <= len(before) < 12
    deadline = time.monotonic() + 30                # the referees go with their workers
    while processes_with(marker):
        assert time.monotonic() < deadline, "a referee outlived its run"
        time.sleep(0.05)
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 0, out.stderr
    assert f"{len(before)} of 12 games already stored" in out.stderr
    after = games(db)
    assert len(after) == 12 and all(after[key] == value for key, value in before.items())
    assert {termination for termination, _ in after.values()} == {"normal"}
    assert "it takes no seed, so the two games of a seat-swapped pair are independent" in flat(out.stdout)
    replay = arena("replay", str(config), "--game", "2")
    assert replay.returncode == 0, replay.stderr
    text = replay.stdout
    assert text.startswith("tictactoe-ref: ") and "no seed told" in text
    assert "step 1: " in text and "    < -1 -1" in text and "  answered (" in text and "\nresult: " in text


def test_a_java_referee_built_by_the_league_plays_a_free_for_all_of_three_by_seed(tmp_path):
    if shutil.which("javac") is None:
        pytest.skip("javac is not installed: the Java referee cannot be built")
    shutil.copytree(EXAMPLES / "referee-java", tmp_path / "examples" / "referee-java")
    (tmp_path / "tournaments").mkdir()
    config = tmp_path / "tournaments" / "referee-java.yaml"
    # its shipped config, one rotation of three bots: 3 games on one seed
    text = (ROOT / "tournaments" / "referee-java.yaml").read_text()
    config.write_text(re.sub(r"  - \{name: random-2.*\n", "", text).replace("games: 12", "games: 3"))
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 0, out.stderr
    assert "building referee lowest-unique: javac -d build LowestUnique.java" in out.stderr
    assert "mean rank" in out.stdout and "the same seed, told to it" in flat(out.stdout)
    stored = games(tmp_path / "tournaments" / "results" / "referee-java.sqlite")
    assert len(stored) == 3 and {termination for termination, _ in stored.values()} == {"normal"}
    by_seed: dict[int, list[dict]] = {}
    for _, record in stored.values():
        assert len(record["ranking"]) == 3 and record["referee"]["seed"] is not None
        by_seed.setdefault(record["seed"], []).append(record)
    for block in by_seed.values():     # a rotation is told one seed: the same prizes
        assert len(block) == 3
        assert len({tuple(move["input"][1] for move in record["moves"][::3]) for record in block}) == 1
    again = arena("run", str(config), "--standings", "0")
    assert again.returncode == 0 and "referee lowest-unique: build skipped" in again.stderr
    assert "3 of 3 games already stored; playing 0" in again.stderr


def test_a_ladder_and_a_gauntlet_of_a_referee_game(tmp_path, ttt):
    game = TTT_GAME.format(marker="")
    ladder = ttt_config(tmp_path / "ladder.yaml", game, games_per_pairing=None, schedule="ladder",
                        ladder="{games: 6}")
    ladder.write_text(ladder.read_text().replace("games_per_pairing: None\n", ""))
    out = arena("run", str(ladder), "--standings", "0")
    assert out.returncode == 0, out.stderr
    assert len(games(tmp_path / "results" / "ladder.sqlite")) >= 6
    gauntlet = ttt_config(tmp_path / "gauntlet.yaml", game, schedule="gauntlet", candidates="[first-free]")
    out = arena("run", str(gauntlet), "--standings", "0")
    assert out.returncode == 0, out.stderr
    assert sorted(games(tmp_path / "results" / "gauntlet.sqlite")) == [
        "first-free|random-1|0|0", "first-free|random-1|0|1", "first-free|random-2|0|0", "first-free|random-2|0|1"]


def test_arena_match_plays_a_referee_game_file_with_an_sprt(tmp_path, ttt):
    (tmp_path / "ttt.yaml").write_text(TTT_GAME.format(marker=""))
    args = ["match", "python3 ttt/first-free/bot.py", "python3 ttt/random/bot.py 5", "--game", "ttt.yaml",
            "--sprt", "elo0=0,elo1=400", "--games", "6", "--concurrency", "2", "--store", "m.sqlite",
            "--seed", "3"]
    out = arena(*args, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "SPRT elo0=0,elo1=400" in out.stdout and "result: " in out.stdout, out.stdout
    with sqlite3.connect(tmp_path / "m.sqlite") as conn:     # the referee is the match's identity
        referee = json.loads(conn.execute("SELECT value FROM league WHERE key = 'referee'").fetchone()[0])
    assert referee["name"] == "tictactoe-ref" and len(referee["fingerprint"]) == 16
    three = tmp_path / "three.yaml"
    three.write_text(TTT_GAME.format(marker="").replace("players: 2", "players: 3"))
    refused = arena("match", "python3 a.py", "python3 b.py", "--game", "three.yaml", cwd=tmp_path)
    assert refused.returncode == 2 and "has 3 players: arena match plays two bots" in refused.stderr


def test_a_changed_referee_is_another_game_played_in_a_new_season(tmp_path, ttt):
    config = ttt_config(tmp_path / "league.yaml", TTT_GAME.format(marker=""), bots=2)
    assert arena("run", str(config), "--standings", "0").returncode == 0
    with open(ttt / "referee" / "referee.py", "a") as file:
        file.write("# a change\n")
    refused = arena("run", str(config))
    assert refused.returncode == 2, refused.stderr
    assert "this store holds a league with referee tictactoe-ref at fingerprint" in refused.stderr
    assert "which its files, command or build no longer make" in refused.stderr
    out = arena("run", str(config), "--new-season", "--standings", "0")
    assert out.returncode == 0 and "season 2 begins: the 2 games of earlier seasons" in out.stderr
    said = arena("games", str(tmp_path / "results" / "league.sqlite")).stdout
    assert "tictactoe-ref (played by its referee process `python3 ttt/referee/referee.py`, 2 players, " \
           "the brutaltester protocol; it takes no seed; fingerprint " in said


def test_a_failing_referee_makes_void_games_and_stops_the_run_in_one_line(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "referee")
    game = """name: hostile
referee: python3 hostile_referee.py crash_mid
dir: referee
players: 2
referee_faults: 2"""
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(FIXTURES / "echo_bot.py", bots / "echo.py")
    config = tmp_path / "league.yaml"
    config.write_text("name: league\ngame:\n" + "".join(f"  {line}\n" for line in game.splitlines())
                      + "bots:\n  - {name: a, command: python3 bots/echo.py}\n"
                        "  - {name: b, command: python3 bots/echo.py}\n"
                        "games_per_pairing: 8\nworkers: 1\n")
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 1, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("arena run: error: 2 games in a row were void: the referee of hostile failed them")
    assert "referee fault: a (seat 0) vs b (seat 1): void (referee fault), referee hostile: exited " \
           "(exit code 1) before ###End, 2 moves" in out.stderr
    assert "the referee's stderr: ZeroDivisionError: division by zero" in out.stderr
    stored = games(tmp_path / "results" / "league.sqlite")
    assert len(stored) == 2 and {termination for termination, _ in stored.values()} == {"referee_fault"}
    board = arena("leaderboard", str(config))
    assert board.returncode == 0 and "2 games were void (the referee failed them)" in flat(board.stdout)
    assert "      0  0  0  0" in board.stdout       # no game, win or loss for either bot
    # a referee that fails before any answer stops the run at once, before any game is played
    config.write_text(config.read_text().replace("crash_mid", "crash_start").replace("name: league", "name: other"))
    out = arena("run", str(config))
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "arena run: error: referee hostile: exited (exit code 1) before ###End; its stderr: RuntimeError: "
        "the referee could not load its map; nothing was played")


def test_a_plugin_declares_a_referee_game_that_leagues_name(tmp_path, ttt):
    # the example of docs/plugins.md, taken from the page, installed as an entry point
    text = (ROOT / "docs" / "plugins.md").read_text()
    module = re.search(r"```python\n(# arena_tictactoe_referee\.py.*?)```", text, re.S)
    assert module, "docs/plugins.md has no arena_tictactoe_referee.py"
    site = tmp_path / "site"
    site.mkdir()
    (site / "arena_tictactoe_referee.py").write_text(module.group(1))
    shutil.copytree(ttt / "referee", site / "referee")
    dist = site / "arena_ttt_referee-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-ttt-referee\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[arena]\nttt-referee = arena_tictactoe_referee\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    config = ttt_config(tmp_path / "plugged.yaml", "", bots=2)
    config.write_text(config.read_text().replace("game:\n", "game: tictactoe-ref\n"))
    out = arena("run", str(config), "--standings", "0", env=env)
    assert out.returncode == 0, out.stderr
    stored = games(tmp_path / "results" / "plugged.sqlite")
    assert len(stored) == 2
    assert all(record["referee"]["name"] == "tictactoe-ref" and len(record["referee"]["fingerprint"]) == 16
               for _, record in stored.values())


@pytest.mark.parametrize(("game", "extra", "said"), [
    ("name: g\nreferee: python3 ttt/referee/referee.py\nplayers: 5", {},
     "game.players: must be an integer >= 2 and <= 4, got 5"),
    ("name: g\nreferee: python3 ttt/referee/nothere.py\nplayers: 2", {},
     "game.referee: script 'ttt/referee/nothere.py' not found"),
    ("name: g\nreferee: python3 ttt/referee/referee.py\nplayers: 2\nseeds: true", {},
     "game.seeds: unknown key (did you mean 'seed'?)"),
    ("name: g\nreferee: python3 ttt/referee/referee.py\nplayers: 2\nprotocol: sdk", {},
     "game.protocol: must be one of 'brutaltester', got 'sdk'"),
    ("name: g\nreferee: python3 ttt/referee/referee.py\nplayers: 2\nstep_ms: 0", {},
     "game.step_ms: must be an integer >= 1"),
    ("name: g\nreferee: python3 ttt/referee/referee.py\nplayers: 2", {"rules": "{x: 1}"},
     "rules: not allowed for a game played by a referee process"),
    ("name: g\nreferee: python3 ttt/referee/referee.py\nplayers: 2", {"timeout_policy": "{mode: strikes}"},
     "timeout_policy.mode: a game played by a referee process has no move to play"),
    ("name: g\nreferee: python3 ttt/referee/referee.py\nplayers: 2",
     {"executor": "ray", "ray": "{files: runtime_env}"}, "ray.files: the nodes are not sent a referee's directory"),
    ("name: g\nreferee: python3 referee/referee.py\ndir: ttt\nplayers: 2", {},
     "which holds bot 'first-free''s directory"),
])
def test_a_mistake_in_a_referee_game_is_one_line_naming_its_key(tmp_path, ttt, game, extra, said):
    config = ttt_config(tmp_path / "bad.yaml", game, bots=2, **extra)
    with pytest.raises(ConfigError) as raised:
        load_league(str(config))
    assert said in str(raised.value) and "\n" not in str(raised.value)


def test_the_command_says_a_mistake_in_one_line(tmp_path, ttt):
    config = ttt_config(tmp_path / "bad.yaml", "name: g\nreferee: python3 ttt/referee/referee.py\nplayers: 2",
                        bots=2, openings="random:2")
    out = arena("run", str(config))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr == (f"arena run: error: {config}:12: openings: not allowed for a game played by a "
                          "referee process (it starts where its referee starts it)\n")


def test_every_key_of_a_referee_game_is_documented():
    text = (ROOT / "docs" / "config.md").read_text()
    section = text[text.index("## A game played by a referee process"):text.index("## `time_control`")]
    assert set(GAME_KEYS) == set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert "| `first_move_ms` |" in text


def test_a_newcomer_is_checked_as_the_configs_bots_are(tmp_path, ttt):
    # before: a ladder's newcomer or a server's submission could give a dialect (refused
    # later by the roster, naming the server's file) and sit in the referee's directory
    config = load_league(str(ttt_config(tmp_path / "l.yaml", TTT_GAME.format(marker=""), bots=2)))
    (ttt / "referee" / "mine").mkdir()
    (ttt / "mine").mkdir()
    for home, more, said in ((ttt / "referee" / "mine", {}, "which holds bot 'mine''s directory"),
                             (ttt / "mine", {"dialect": "arena"},
                              "bots[2].dialect: a game played by a referee process relays its referee's lines")):
        (home / "bot.py").write_text("print('0 0')\n")
        entry = {"name": "mine", "command": f"python3 {home / 'bot.py'}", "dir": str(home), **more}
        with pytest.raises(ConfigError) as raised:
            validate_entrant(entry, config)
        assert said in str(raised.value) and "\n" not in str(raised.value)
