"""Bot versions as a user meets them: edit a bot, change an option or the time control,
see every version, forget and retire, build a C bot, open a store from before versions."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from arena.league import Store

ROOT = Path(__file__).resolve().parent.parent
FIRST_MOVE = (ROOT / "examples" / "first_move_bot.py").read_text()


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], check=False, cwd=cwd,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def league(tmp: Path, move_ms: int = 1000, percent: int = 40, games: int = 2,
           extra: str = "") -> Path:
    """A tic-tac-toe league of two program bots (mine/, other/) and a registered one."""
    for name in ("mine", "other"):
        bot = tmp / name / "bot.py"
        if not bot.exists():
            bot.parent.mkdir(parents=True, exist_ok=True)
            bot.write_text(FIRST_MOVE)
    config = tmp / "league.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: versions
        game: tictactoe
        bots:
          - {{name: mybot, command: "python3 mine/bot.py"}}
          - {{name: other, command: "python3 other/bot.py"}}
          - {{name: novice, bot: ttt-novice, options: {{optimal_percent: {percent}}}}}
        """) + extra + textwrap.dedent(f"""\
        games_per_pairing: {games}
        time_control: {{move_ms: {move_ms}}}
        workers: 1
        store: results/versions.sqlite
        """))
    return config


def games(tmp: Path) -> list[tuple[str, str, str, int, int, int]]:
    with sqlite3.connect(tmp / "results" / "versions.sqlite") as db:
        return db.execute("SELECT fixture_key, seat0, seat1, v0, v1, season FROM games"
                          " ORDER BY id").fetchall()


def board(tmp: Path, *args: str) -> dict:
    out = arena("leaderboard", "league.yaml", "--format", "json", *args, cwd=tmp)
    assert out.returncode == 0, out.stderr
    return {row["bot"]: row for row in json.loads(out.stdout)["rows"]}


def test_an_edited_bot_is_a_new_version_whose_games_are_played_again(tmp_path):
    league(tmp_path)
    first = arena("run", "league.yaml", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "changed" not in first.stderr                      # a new league: nothing to say
    before = games(tmp_path)
    assert len(before) == 6
    with open(tmp_path / "mine" / "bot.py", "a") as fh:
        fh.write("# faster now\n")
    (tmp_path / "mine" / "__pycache__").mkdir()
    (tmp_path / "mine" / "__pycache__" / "bot.cpython.pyc").write_bytes(b"not a change")
    second = arena("run", "league.yaml", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "mybot: files changed (bot.py) (now v2, " in second.stderr
    assert "other:" not in second.stderr and "novice:" not in second.stderr
    assert "2 of 6 games already stored; playing 4" in second.stderr
    after = games(tmp_path)
    assert after[:6] == before                                 # the old games stay, as history
    new = after[6:]
    assert len(new) == 4 and all("mybot" in row[0] for row in new)
    assert all((row[3] if row[1] == "mybot" else row[4]) == 2 for row in new)
    rows = board(tmp_path)
    assert rows["mybot"]["version"] == 2 and rows["mybot"]["games"] == 4
    assert rows["other"]["version"] == 1 and rows["other"]["games"] == 4   # 2 of them against v2
    assert len(rows["mybot"]["fingerprint"]) == 16
    third = arena("run", "league.yaml", cwd=tmp_path)
    assert "6 of 6 games already stored; playing 0" in third.stderr and "changed" not in third.stderr

    every = board(tmp_path, "--all-versions")
    assert set(every) == {"mybot@1", "mybot@2", "other@1", "novice@1"}
    assert every["mybot@1"]["games"] == 4 and every["mybot@2"]["games"] == 4
    assert every["mybot@1"]["version"] == 1 and every["mybot@2"]["version"] == 2
    assert every["mybot@1"]["fingerprint"] != every["mybot@2"]["fingerprint"]
    csv = arena("leaderboard", "league.yaml", "--format", "csv", cwd=tmp_path).stdout.splitlines()
    assert csv[0].endswith(",version,fingerprint") and ",2," in next(x for x in csv if ",mybot," in x)

    listed = arena("versions", "results/versions.sqlite", "mybot", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 3 and " v1 " in lines[1] and " v2 " in lines[2] and "current" in lines[2]


def test_a_changed_option_is_a_new_version(tmp_path):
    league(tmp_path, percent=40)
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    league(tmp_path, percent=90)
    out = arena("run", "league.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "novice: options changed (optimal_percent 40 -> 90) (now v2, " in out.stderr
    assert "2 of 6 games already stored; playing 4" in out.stderr
    # back to 40: the first version again, whose games are all there
    league(tmp_path, percent=40)
    back = arena("run", "league.yaml", cwd=tmp_path)
    assert "novice: options changed (optimal_percent 90 -> 40) (now v3, " in back.stderr


def test_a_changed_time_control_is_refused_and_a_new_season_keeps_the_old_games(tmp_path):
    league(tmp_path, move_ms=1000)
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    league(tmp_path, move_ms=200)
    refused = arena("run", "league.yaml", cwd=tmp_path)
    assert refused.returncode == 2
    assert ("this store holds a league with time_control move_ms 1000, the config says "
            "move_ms 200; use another store file for a different league, or run with "
            "--new-season") in refused.stderr
    assert len(games(tmp_path)) == 6
    season = arena("run", "league.yaml", "--new-season", cwd=tmp_path)
    assert season.returncode == 0, season.stderr
    assert "season 2 begins: the 6 games of earlier seasons stay" in season.stderr
    assert "0 of 6 games already stored; playing 6" in season.stderr
    rows = games(tmp_path)
    assert [r[5] for r in rows] == [1] * 6 + [2] * 6
    assert all(row["games"] == 4 for row in board(tmp_path).values())   # season 2 only
    again = arena("run", "league.yaml", cwd=tmp_path)
    assert again.returncode == 0 and "6 of 6 games already stored" in again.stderr


def test_fewer_games_per_pairing_leaves_the_games_beyond_it_out_of_the_leaderboard(tmp_path):
    league(tmp_path, games=4)
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    assert all(row["games"] == 8 for row in board(tmp_path).values())
    league(tmp_path, games=2)
    out = arena("run", "league.yaml", cwd=tmp_path)
    assert "6 of 6 games already stored; playing 0" in out.stderr
    assert all(row["games"] == 4 for row in board(tmp_path).values())
    assert len(games(tmp_path)) == 12                          # kept in the store all the same


CANNOT_START = "import sys\nsys.exit('cannot load weights.bin')\n"


def versions_of(tmp: Path, bot: str) -> list[int]:
    out = arena("versions", "league.yaml", bot, "--format", "json", cwd=tmp)
    assert out.returncode == 0, out.stderr
    return [row["version"] for row in json.loads(out.stdout)]


def test_a_bot_the_preflight_stopped_is_no_version_of_its_own(tmp_path):
    # a run the preflight stops plays nothing: the fixed bot is still v1, and no
    # "files changed (now v2)" for a version that never played a game
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "bot.py").write_text(CANNOT_START)
    league(tmp_path)
    broken = arena("run", "league.yaml", cwd=tmp_path)
    assert broken.returncode == 1 and "bot 'mybot' cannot start" in broken.stderr, broken.stderr
    assert games(tmp_path) == []
    (tmp_path / "mine" / "bot.py").write_text(FIRST_MOVE)
    fixed = arena("run", "league.yaml", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert "changed" not in fixed.stderr and "v2" not in fixed.stderr, fixed.stderr
    assert versions_of(tmp_path, "mybot") == [1]
    assert board(tmp_path)["mybot"]["version"] == 1 and len(games(tmp_path)) == 6

    # v1 played; a broken edit is stopped and leaves v1 current, whose games stay counted
    (tmp_path / "mine" / "bot.py").write_text(CANNOT_START)
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 1
    assert versions_of(tmp_path, "mybot") == [1]
    assert board(tmp_path)["mybot"]["games"] == 4
    (tmp_path / "mine" / "bot.py").write_text(FIRST_MOVE + "# faster now\n")
    edited = arena("run", "league.yaml", cwd=tmp_path)
    assert edited.returncode == 0, edited.stderr
    assert "mybot: files changed (bot.py) (now v2, " in edited.stderr   # v2, not v3
    assert versions_of(tmp_path, "mybot") == [1, 2]


def test_forget_asks_and_retire_keeps_history(tmp_path):
    league(tmp_path)
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    with open(tmp_path / "mine" / "bot.py", "a") as fh:
        fh.write("# v2\n")
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    assert len(games(tmp_path)) == 10
    unasked = arena("forget", "league.yaml", "mybot@1", cwd=tmp_path)
    assert unasked.returncode == 2 and "add --yes to confirm" in unasked.stderr
    assert len(games(tmp_path)) == 10
    # a run's claim on its store is a flock of the file, here held by flock(1) till it is killed
    playing = subprocess.Popen(["flock", tmp_path / "results" / "versions.sqlite", "-c", "echo held; sleep 600"],
                               stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert playing.stdout is not None and playing.stdout.readline() == "held\n"
        held = arena("forget", "league.yaml", "mybot@1", "--yes", cwd=tmp_path)
    finally:
        os.killpg(playing.pid, signal.SIGKILL)   # flock and the shell holding the lock
        playing.wait()
    assert held.returncode == 2 and "another `arena run` is playing into this store" in held.stderr, held.stderr
    assert "forget its bot's games once the run has finished" in held.stderr
    assert len(games(tmp_path)) == 10
    bad = arena("forget", "league.yaml", "mybot@7", "--yes", cwd=tmp_path)
    assert bad.returncode == 2 and "has no 'mybot@7'" in bad.stderr
    forgot = arena("forget", "league.yaml", "mybot@1", "--yes", cwd=tmp_path)
    assert forgot.returncode == 0 and "forgot mybot v1: 4 games deleted" in forgot.stdout
    assert len(games(tmp_path)) == 6
    assert "mybot@1" not in board(tmp_path, "--all-versions")

    retired = arena("retire", "league.yaml", "other", cwd=tmp_path)
    assert retired.returncode == 0 and "other: retired" in retired.stdout
    (tmp_path / "mine" / "bot.py").write_text(FIRST_MOVE + "# v3\n")
    out = arena("run", "league.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "other: retired, plays no new games" in out.stderr
    assert "0 of 2 games already stored; playing 2" in out.stderr   # mybot v3 vs novice only
    assert set(board(tmp_path)) == {"mybot", "novice"}
    assert "other@1" in board(tmp_path, "--all-versions")
    assert arena("publish", "league.yaml", "--out", "site", cwd=tmp_path).returncode == 0
    assert sorted(p.name for p in (tmp_path / "site" / "bots").iterdir()) == ["mybot.html", "novice.html"]
    back = arena("retire", "league.yaml", "other", "--undo", cwd=tmp_path)
    assert back.returncode == 0
    assert "playing 2" in arena("run", "league.yaml", cwd=tmp_path).stderr


C_BOT = r"""
#include <stdio.h>
/* codingame tic-tac-toe: read the opponent's move and the valid actions, play the FIRST */
int main(void) {
    int r, c, n, i, pr, pc;
    while (scanf("%d %d", &r, &c) == 2 && scanf("%d", &n) == 1) {
        for (i = 0; i < n; i++) { int a, b; scanf("%d %d", &a, &b); if (i == PICK) { pr = a; pc = b; } }
        printf("%d %d\n", pr, pc);
        fflush(stdout);
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_a_c_bot_is_built_before_the_league_and_rebuilt_when_its_source_changes(tmp_path):
    cbot = tmp_path / "cbot"
    cbot.mkdir()
    (cbot / "bot.c").write_text(C_BOT.replace("PICK", "0"))
    extra = '  - {name: cbot, command: "./cbot/bot", dialect: codingame, build: "cc -O2 -o bot bot.c"}\n'
    league(tmp_path, extra=extra)
    out = arena("run", "league.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "building cbot: cc -O2 -o bot bot.c" in out.stderr
    assert (cbot / "bot").is_file()
    rows = board(tmp_path)
    assert rows["cbot"]["games"] == 6 and rows["cbot"]["faults"] == {}
    (cbot / "bot.c").write_text(C_BOT.replace("PICK", "n - 1"))
    again = arena("run", "league.yaml", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "cbot: files changed (bot.c) (now v2, " in again.stderr   # bot is what it wrote
    assert "6 of 12 games already stored; playing 6" in again.stderr
    (cbot / "bot.c").write_text("int main(void) { return syntax error; }\n")
    broken = arena("run", "league.yaml", cwd=tmp_path)
    assert broken.returncode == 1   # a failed run, as when a bot cannot start
    assert "cbot: build 'cc -O2 -o bot bot.c' failed (exit 1)" in broken.stderr
    assert "error:" in broken.stderr and "bot.c" in broken.stderr   # the compiler's own words
    assert "playing" not in broken.stderr


# --- a store from before versions: schema 1, as main wrote it --------------------------------

OLD_SCHEMA = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE league (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY, fixture_key TEXT NOT NULL UNIQUE, fixture_index INTEGER NOT NULL,
    round INTEGER NOT NULL, seed INTEGER NOT NULL, seat0 TEXT NOT NULL, seat1 TEXT NOT NULL,
    winner INTEGER, termination TEXT NOT NULL, faulted INTEGER, reason TEXT NOT NULL,
    record TEXT NOT NULL, finished_at TEXT NOT NULL);
CREATE INDEX games_in_order ON games (round, seed, fixture_key);
INSERT INTO schema_version VALUES (1);
"""


def old_store(source: Path, target: Path) -> None:
    """A schema-1 store (before versions) holding the games and league facts of source."""
    with sqlite3.connect(source) as new:
        rows = new.execute("SELECT id, fixture_key, fixture_index, round, seed, seat0, seat1, winner,"
                           " termination, faulted, reason, record, finished_at FROM games").fetchall()
        meta = [(k, v) for k, v in new.execute("SELECT key, value FROM league")
                if k in ("name", "game", "rules", "seed", "config", "created", "updated")]
    old = sqlite3.connect(target)
    old.executescript(OLD_SCHEMA)
    old.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    old.executemany("INSERT INTO league VALUES (?, ?)", meta)
    old.commit()
    old.close()


def test_a_store_from_before_versions_keeps_its_games_as_version_1(tmp_path):
    league(tmp_path)
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    store = tmp_path / "results" / "versions.sqlite"
    before = board(tmp_path)
    store.rename(tmp_path / "new.sqlite")
    old_store(tmp_path / "new.sqlite", store)
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT version FROM schema_version").fetchone() == (1,)
    listed = arena("versions", str(store), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "(not yet)" in listed.stdout and listed.stdout.count(" v1 ") == 3
    out = arena("run", "league.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "mybot: games from before versions, fingerprinted now (now v1, " in out.stderr
    assert "6 of 6 games already stored; playing 0" in out.stderr
    after = board(tmp_path)
    assert {b: r["games"] for b, r in after.items()} == {b: r["games"] for b, r in before.items()}
    assert all(r["version"] == 1 and r["fingerprint"] for r in after.values())
    with Store(store) as opened:
        assert opened.count() == 6
    with open(tmp_path / "mine" / "bot.py", "a") as fh:
        fh.write("# after the migration\n")
    changed = arena("run", "league.yaml", cwd=tmp_path)
    assert "mybot: files changed (bot.py) (now v2, " in changed.stderr and "playing 4" in changed.stderr


def test_the_site_lists_each_bots_versions_and_replays_say_which_version_played(tmp_path):
    league(tmp_path)
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    with open(tmp_path / "mine" / "bot.py", "a") as fh:
        fh.write("# v2\n")
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    assert arena("publish", "league.yaml", "--out", "site", cwd=tmp_path).returncode == 0
    page = (tmp_path / "site" / "bots" / "mybot.html").read_text()
    section = page[page.index('<h2 id="versions">'):page.index("</table>", page.index('id="versions"'))]
    assert section.count("<tr><td") == 2 and "v1" in section and "v2" in section
    assert "history" in section and "current" in section
    moves = (tmp_path / "site" / "data" / "moves" / "0.js").read_text()
    assert "mybot v2, other v1" in moves or "other v1, mybot v2" in moves
    replay = arena("replay", "results/versions.sqlite", "--fixture", "mybot|other|0|0", cwd=tmp_path)
    assert replay.returncode == 0, replay.stderr
    assert "(fixture mybot|other|0|0), played by mybot v2 and other v1" in replay.stdout.splitlines()[0]


def test_the_hash_cache_keeps_only_the_files_bots_still_have(tmp_path):
    league(tmp_path)
    (tmp_path / "mine" / "notes.txt").write_text("a file the bot reads")
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    store = tmp_path / "results" / "versions.sqlite"
    with sqlite3.connect(store) as db:
        paths = {p for (p,) in db.execute("SELECT path FROM file_hashes")}
    # files hashed a moment ago may change again within the same mtime tick: not cached yet
    assert not any(p.endswith("notes.txt") for p in paths)
    old = 1_000_000_000
    for path in (tmp_path / "mine").iterdir():
        os.utime(path, (old, old))
    assert arena("run", "league.yaml", cwd=tmp_path).returncode == 0
    with sqlite3.connect(store) as db:
        paths = {p for (p,) in db.execute("SELECT path FROM file_hashes")}
    assert str(tmp_path / "mine" / "notes.txt") in paths
    (tmp_path / "mine" / "notes.txt").unlink()
    out = arena("run", "league.yaml", cwd=tmp_path)
    assert "mybot: files changed (notes.txt)" in out.stderr
    with sqlite3.connect(store) as db:
        paths = {p for (p,) in db.execute("SELECT path FROM file_hashes")}
    assert not any(p.endswith("notes.txt") for p in paths)


def test_a_program_in_the_temp_dir_itself_is_fingerprinted_by_its_own_file(tmp_path):
    from arena.league import config_from_dict
    from arena.league.versions import bot_manifest
    program = Path(tempfile.gettempdir()) / f"arena-versions-{os.getpid()}.py"
    program.write_text(FIRST_MOVE)
    try:
        config = config_from_dict({"name": "t", "game": "tictactoe", "store": str(tmp_path / "s.sqlite"),
                                   "bots": [{"name": "a", "command": f"python3 {program}", "allow_shared_dir": True},
                                            {"name": "b", "command": f"python3 {program}",
                                             "allow_shared_dir": True}]})
        manifest = bot_manifest(config.bots[0], config, None, {})
        assert list(manifest["files"]) == [program.name]
    finally:
        program.unlink()


# --- what a bot is made from: its script, wherever its interpreter lies ------------------------

CG_PY_MAIN = """\
import sys
from scorebot import pick
for line in sys.stdin:          # codingame tic-tac-toe: the opponent's move, then the actions
    n = int(sys.stdin.readline())
    actions = [sys.stdin.readline().strip() for _ in range(n)]
    print(pick(actions), flush=True)
"""


def test_a_script_run_by_an_interpreter_outside_the_system_is_the_bots_version(tmp_path):
    # a real interpreter outside the system directories, as /opt/py27/bin/python2.7 is
    interpreter = tmp_path / "py" / "bin" / "python3"
    interpreter.parent.mkdir(parents=True)
    shutil.copy2(os.path.realpath(sys.executable), interpreter)
    bot = tmp_path / "bots" / "f4hy"
    bot.mkdir(parents=True)
    (bot / "main.py").write_text(CG_PY_MAIN)
    (bot / "scorebot.py").write_text("def pick(actions):\n    return actions[0]\n")
    extra = (f'  - {{name: f4hy, command: "{interpreter} bots/f4hy/main.py", dialect: codingame,'
             f' readable: [{interpreter.parent.parent}]}}\n')
    league(tmp_path, extra=extra)
    from arena.league import load_config
    assert load_config(str(tmp_path / "league.yaml")).bots[3].dir == bot.resolve()
    first = arena("run", "league.yaml", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert board(tmp_path)["f4hy"]["faults"] == {}
    (bot / "scorebot.py").write_text("def pick(actions):\n    return actions[-1]\n")
    second = arena("run", "league.yaml", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "f4hy: files changed (f4hy/scorebot.py) (now v2, " in second.stderr
    assert "6 of 12 games already stored; playing 6" in second.stderr
    with open(bot / "main.py", "a") as fh:
        fh.write("# tuned\n")
    third = arena("run", "league.yaml", cwd=tmp_path)
    assert "f4hy: files changed (f4hy/main.py) (now v3, " in third.stderr
    assert "6 of 12 games already stored; playing 6" in third.stderr


STAMP_BUILD = """\
cp main.py bot.py
head -c 32 /dev/urandom > build.stamp
echo built >> ../../builds.log
"""


def test_a_build_is_skipped_when_nothing_changed_and_what_it_writes_is_no_part_of_the_version(tmp_path):
    # a build whose output differs every time (a jar keeps timestamps): random bytes here
    bot = tmp_path / "bots" / "stamp"
    bot.mkdir(parents=True)
    (bot / "main.py").write_text(CG_PY_MAIN)
    (bot / "scorebot.py").write_text("def pick(actions):\n    return actions[0]\n")
    (bot / "build.sh").write_text(STAMP_BUILD)
    extra = '  - {name: stamp, command: "python3 bots/stamp/bot.py", dialect: codingame, build: "sh build.sh"}\n'
    league(tmp_path, extra=extra)
    log = tmp_path / "builds.log"
    first = arena("run", "league.yaml", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "building stamp: sh build.sh" in first.stderr and log.read_text().count("built") == 1
    assert board(tmp_path)["stamp"]["faults"] == {}

    second = arena("run", "league.yaml", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "stamp: build skipped: its inputs are unchanged and its outputs (bot.py, build.stamp) " \
        "are as it left them" in second.stderr
    assert "building" not in second.stderr and log.read_text().count("built") == 1
    assert "12 of 12 games already stored; playing 0" in second.stderr

    (bot / "build.stamp").unlink()   # an output gone: built again, other bytes, same version
    third = arena("run", "league.yaml", cwd=tmp_path)
    assert third.returncode == 0, third.stderr
    assert "building stamp" in third.stderr and log.read_text().count("built") == 2
    assert "changed" not in third.stderr
    assert "12 of 12 games already stored; playing 0" in third.stderr

    (bot / "scorebot.py").write_text("def pick(actions):\n    return actions[-1]\n")
    fourth = arena("run", "league.yaml", cwd=tmp_path)
    assert fourth.returncode == 0, fourth.stderr
    assert "building stamp" in fourth.stderr and log.read_text().count("built") == 3
    assert "stamp: files changed (scorebot.py) (now v2, " in fourth.stderr
    assert "6 of 12 games already stored; playing 6" in fourth.stderr

    with open(bot / "build.sh", "a") as fh:   # the build command's script is an input too
        fh.write("# faster\n")
    fifth = arena("run", "league.yaml", cwd=tmp_path)
    assert "building stamp" in fifth.stderr and "stamp: files changed (build.sh) (now v3, " in fifth.stderr


def test_a_build_whose_directory_holds_only_what_it_wrote_is_refused(tmp_path):
    dist = tmp_path / "bots" / "made" / "dist"
    dist.mkdir(parents=True)
    (dist / "bot.py").write_text(FIRST_MOVE)   # built by hand once; the build writes it again
    (tmp_path / "bots" / "made" / "src.py").write_text(FIRST_MOVE)
    extra = '  - {name: made, command: "python3 bots/made/dist/bot.py", build: "cp ../src.py bot.py"}\n'
    league(tmp_path, extra=extra)
    out = arena("run", "league.yaml", cwd=tmp_path)
    assert out.returncode == 1
    assert "made: every file in " in out.stderr and "give 'dir'" in out.stderr
    assert "playing" not in out.stderr


def test_two_entries_of_one_program_build_it_once(tmp_path):
    bot = tmp_path / "bots" / "stamp"
    bot.mkdir(parents=True)
    (bot / "main.py").write_text(CG_PY_MAIN)
    (bot / "scorebot.py").write_text("def pick(actions):\n    return actions[0]\n")
    (bot / "build.sh").write_text(STAMP_BUILD)
    extra = ('  - {name: stamp, command: "python3 bots/stamp/bot.py", dialect: codingame, build: "sh build.sh"}\n'
             '  - {name: stamp2, command: "python3 bots/stamp/bot.py 2", dialect: codingame,'
             ' build: "sh build.sh"}\n')
    league(tmp_path, extra=extra)
    log = tmp_path / "builds.log"
    first = arena("run", "league.yaml", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("building ") == 1 and log.read_text().count("built") == 1
    second = arena("run", "league.yaml", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "stamp: build skipped" in second.stderr and log.read_text().count("built") == 1
    assert "files changed" not in second.stderr and "playing 0" in second.stderr
