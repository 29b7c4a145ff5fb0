"""Bots in the runtimes their platforms gave them, and why they failed said in one line: a
CodinGame JavaScript bot run by node (readline, print, printErr), and the line of a dead
bot's stderr that every first-fault line quotes (the error, not node's `Node.js v20`)."""

import json
import shutil
from pathlib import Path

import pytest
from test_league_run import arena

from arena.errorline import error_line

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

#: a Tron Battle bot as CodinGame's JavaScript template writes one: its globals only
CODINGAME_JS = """\
while (true) {
    const [n, p] = readline().split(' ').map(Number);
    for (let i = 0; i < n; i++) readline();
    printErr('turn of player ' + p);
    print(p === 0 ? 'LEFT' : 'RIGHT');
}
"""
#: a bot of node's own, without CodinGame's globals, dying on its second turn
DIES_ON_TURN_2 = """\
const lines = require('readline').createInterface({input: process.stdin});
let rows = null, me = 0, turn = 0;
lines.on('line', (line) => {
    if (rows === null) { [rows, me] = line.split(' ').map(Number); return; }
    if (--rows > 0) return;
    rows = null;
    if (++turn === 2) nosuchFunction(me);
    console.log(me === 0 ? 'LEFT' : 'RIGHT');
});
"""


def _bot(tmp_path: Path, name: str, text: str) -> str:
    folder = tmp_path / name
    folder.mkdir()
    (folder / f"{name}.js").write_text(text)
    return f"node {name}/{name}.js"


@needs_node
def test_a_codingame_javascript_bot_plays_with_the_globals_its_platform_gives(tmp_path):
    # `node bot.js` died with "ReferenceError: readline is not defined": the arena now
    # starts a codingame bot run by node with CodinGame's globals loaded first
    command = _bot(tmp_path, "cg", CODINGAME_JS)
    out = arena("match", f"codingame:{command}", "random", "--game", "tron", "--games", "2",
                "--save", "games.jsonl", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "faulted" not in out.stdout, out.stdout
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        seat = [bot["name"] for bot in record["bots"]].index(command)
        assert f"turn of player {seat}" in record["stderr_tails"][seat]    # printErr, on stderr
        assert all(move["move"] in ("l", "r") for move in record["moves"] if move["seat"] == seat)
    assert (tmp_path / "cg" / "cg.js").read_text() == CODINGAME_JS     # the bot unchanged


@needs_node
def test_every_first_fault_line_quotes_the_error_line_of_the_bots_stderr(tmp_path):
    # node ends a crash's trace with "Node.js v20.20.2", which was all the fault line quoted
    late = _bot(tmp_path, "late", DIES_ON_TURN_2)
    (tmp_path / "dead").mkdir()
    (tmp_path / "dead" / "dead.js").write_text("require('readline');\nnoSuchSetup();\n")
    config = tmp_path / "league.yaml"
    config.write_text("name: league\ngame: tron\nbots:\n"
                      f"  - {{name: late, command: {late}, dialect: codingame}}\n"
                      "  - {name: random, bot: tron-random}\n"
                      "games_per_pairing: 2\nworkers: 1\nstore: league.sqlite\n")
    run = arena("run", str(config))
    assert run.returncode == 0, run.stderr
    fault = next(line for line in run.stderr.splitlines() if line.startswith("fault:"))
    assert "late's stderr: ReferenceError: nosuchFunction is not defined" in fault, fault
    assert "Node.js v" not in fault
    # the preflight's line, of a bot that cannot start
    dead = arena("match", "codingame:node dead/dead.js", "random", "--game", "tron", cwd=tmp_path)
    assert dead.returncode == 1 and dead.stderr.count("\n") == 1, dead.stderr
    assert "its stderr: ReferenceError: noSuchSetup is not defined" in dead.stderr, dead.stderr


# the error line of each runtime's trace, as they print one (node 20, CPython 3.11,
# OpenJDK 17, g++ 12, Go 1.21, Rust 1.75), and of a bot that only logged
TRACES = [
    ("/b/bot.js:2\n  x.y();\n    ^\n\nTypeError: Cannot read properties of undefined (reading 'y')\n"
     "    at Object.<anonymous> (/b/bot.js:2:5)\n    at node:internal/main/run_main_module:28:49\n\n"
     "Node.js v20.20.2\n", "TypeError: Cannot read properties of undefined (reading 'y')"),
    ("Traceback (most recent call last):\n  File \"/b/bot.py\", line 3, in <module>\n    main()\n"
     "    ^^^^^^\nKeyError: 'k'\n", "KeyError: 'k'"),
    ("Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds "
     "for length 1\n\tat Player.main(Player.java:9)\n",
     "Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds "
     "for length 1"),
    ("terminate called after throwing an instance of 'std::out_of_range'\n"
     "  what():  vector::_M_range_check: __n (which is 3) >= this->size() (which is 0)\n",
     "terminate called after throwing an instance of 'std::out_of_range' what():  "
     "vector::_M_range_check: __n (which is 3) >= this->size() (which is 0)"),
    ("panic: runtime error: index out of range [3] with length 0\n\ngoroutine 1 [running]:\n"
     "main.main()\n\t/b/main.go:4 +0x1d\nexit status 2\n",
     "panic: runtime error: index out of range [3] with length 0"),
    ("thread 'main' panicked at src/main.rs:4:5:\nindex out of bounds: the len is 0 but the index is 3\n"
     "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
     "thread 'main' panicked at src/main.rs:4:5: index out of bounds: the len is 0 but the index is 3"),
    ("Error estimate 0.3\nthinking about turn 12\ndepth 4 reached\n", "depth 4 reached"),
    ("", ""),
]


@pytest.mark.parametrize("text, said", TRACES)
def test_the_error_line_of_each_runtimes_trace(text, said):
    assert error_line(text) == said
