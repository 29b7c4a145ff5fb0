"""The dialect example of docs/plugins.md (examples/arena-hackerearth-dialect) is the real
thing: the doc shows the plugin's file as it is, and installed with pip into a fresh
environment it is listed, validated in a league config, and played through the sandboxed
referee by a bot written for that format, in `arena match` and in a league's workers."""

import importlib.util
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fresh_venv import venv_with_plugin

from arena.games import default_registry
from arena.plugins import load_plugins
from arena.protocol import TurnInfo

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "examples" / "arena-hackerearth-dialect"
DOC = ROOT / "docs" / "plugins.md"


def test_the_doc_shows_the_plugin_file_as_it_is():
    section = DOC.read_text().split("## Adding a dialect", 1)[1].split("\n## ", 1)[0]
    shown = re.search(r"```python\n# examples/arena-hackerearth-dialect/arena_hackerearth.py\n(.*?)```",
                      section, re.S)
    assert shown is not None, "the section shows arena_hackerearth.py in full"
    assert shown.group(1) == (PLUGIN / "arena_hackerearth.py").read_text()


def plugin_module():
    spec = importlib.util.spec_from_file_location("arena_hackerearth", PLUGIN / "arena_hackerearth.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_plugin_registers_a_dialect_that_speaks_the_format():
    plugins = load_plugins(extra=(plugin_module(),), entry_points=False)
    assert plugins.errors == []
    assert plugins.dialects.names()[-1] == "hackerearth"
    assert plugins.dialects.plugin("hackerearth") == "arena_hackerearth"
    dialect = plugins.dialects.require("hackerearth")
    game = default_registry().create("tictactoe")
    state = game.initial_state().play(0).play(4)        # x top left, o in the centre
    turn = TurnInfo(state=state, last_move=4, legal=state.legal_moves(), move_ms=1000, bank_ms=0,
                    ply=2, seat=0)
    assert dialect.turn_lines(game, turn) == ["1 0 0", "0 2 0", "0 0 0", "1"]
    assert dialect.parse_move(game, turn, "2 1") == 5     # x (column) 2, y (row) 1
    assert dialect.supports(default_registry().create("ultimate"))


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A fresh venv that sees bot-arena as installed here, with the plugin pip-installed."""
    root = tmp_path_factory.mktemp("hackerearth")
    python = venv_with_plugin(PLUGIN, root)
    bot_dir = root / "bot"          # the bot's own directory, which the sandbox shows it
    bot_dir.mkdir()
    shutil.copy(PLUGIN / "hackerearth_bot.py", bot_dir)
    for path in (root, bot_dir):
        path.chmod(0o755)
    return root, python


def arena(env, *args, python=None):
    root, env_python = env
    return subprocess.run([str(python or env_python), "-m", "arena", *args], capture_output=True,
                          text=True, timeout=300, cwd=root, check=False)


BOT = "hackerearth:python3 bot/hackerearth_bot.py"


def test_installed_it_is_listed_and_plays_arena_match_in_the_sandbox(env):
    listed = arena(env, "plugins")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert re.search(r"^hackerearth +arena-hackerearth-dialect 0\.1\.0 +1 dialect,", listed.stdout, re.M)
    played = arena(env, "match", BOT, "random", "--game", "tictactoe", "--games", "4", "--seed", "5",
                   "--json")
    assert played.returncode == 0, played.stderr
    records = [json.loads(line) for line in played.stdout.splitlines() if '"summary"' not in line]
    assert len(records) == 4
    for record in records:
        assert record["termination"] == "normal", record
        assert record["bots"][0]["spec"] in (BOT, "random")
    # the bot blocks and completes lines: against random it never loses all four
    assert any(r["winner"] is not None and r["bots"][r["winner"]]["spec"] == BOT for r in records)
    wrong = arena(env, "match", BOT, "random", "--game", "ultimate", "--json")
    assert "the hackerearth dialect plays tictactoe, not ultimate" in wrong.stdout + wrong.stderr


LEAGUE = """\
name: NAME
game: tictactoe
bots:
  - {name: he, command: python3 bot/hackerearth_bot.py, dialect: hackerearth}
  - {name: rand, bot: random}
  - {name: first, bot: random}
games_per_pairing: 2
workers: 2
seed: 3
store: NAME.sqlite
executor: EXECUTOR
"""

try:
    import ray  # noqa: F401
    RAY_MISSING = None
except ImportError as exc:  # the default install: no Ray
    RAY_MISSING = f"Ray cannot be imported ({exc}); pip install 'bot-arena[ray]'"


@pytest.mark.parametrize("executor", [
    "local",   # worker processes forked from the run
    pytest.param("ray", marks=pytest.mark.skipif(RAY_MISSING is not None, reason=RAY_MISSING or "")),
])
def test_a_league_names_the_dialect_and_its_workers_play_it(env, executor):
    """Ray's workers are processes of their own: they find the dialect by loading the
    registry themselves, from the same environment's entry points."""
    root, _python = env
    config = root / f"{executor}.yaml"
    config.write_text(LEAGUE.replace("NAME", executor).replace("EXECUTOR", executor))
    run = arena(env, "run", str(config))
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(root / f"{executor}.sqlite") as db:
        records = [json.loads(row[0]) for row in db.execute("SELECT record FROM games")]
    assert len(records) == 6 and {r["termination"] for r in records} == {"normal"}
    played = [r for r in records if "he" in (r["bots"][0]["name"], r["bots"][1]["name"])]
    assert len(played) == 4 and all(len(r["moves"]) >= 5 for r in played)


def test_without_the_plugin_the_name_is_no_dialect(env):
    root, _python = env
    config = root / "plain.yaml"
    config.write_text(LEAGUE.replace("NAME", "plain").replace("EXECUTOR", "local"))
    refused = arena(env, "run", str(config), python=sys.executable)    # this test's environment
    assert refused.returncode == 2
    assert "plain.yaml:4: bots[0].dialect: must be one of 'arena', 'codingame'" in refused.stderr
    assert "got 'hackerearth'" in refused.stderr
