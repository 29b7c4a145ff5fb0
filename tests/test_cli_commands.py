"""CLI commands as plugins, and errors as the CLI reports them: the docs' example command
installed through a real entry point and run by the real `arena`; a clashing or broken
command named, not fatal; ArenaError one line, exit 2; a bug keeps its traceback."""

import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import arena
import bots
from arena.errors import ArenaError

ROOT = Path(__file__).resolve().parent.parent

#: error classes that are no user's business: each is caught where it is raised
INTERNAL_ERRORS = {
    "arena.protocol.framing.LineTooLongError",   # a bot's over-long line: the referee faults the bot
}


def _install(tmp_path: Path, name: str, source: str) -> None:
    """Put module `name` on the path with an `arena` entry point, as pip would install it."""
    (tmp_path / f"{name}.py").write_text(source)
    dist = tmp_path / f"{name}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[arena]\n{name} = {name}\n")


def _arena(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)


def _docs_example() -> str:
    text = (ROOT / "docs" / "plugins.md").read_text()
    section = text[text.index("## Adding a CLI command"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_docs_command_example_installs_lists_and_runs_through_the_real_cli(tmp_path):
    source = _docs_example()
    assert source.startswith("# arena_legal_moves.py")
    _install(tmp_path, "arena_legal_moves", source)
    helped = _arena(tmp_path, "--help")
    assert helped.returncode == 0 and re.search(r"\blegal\s+print a position and its legal moves", helped.stdout)
    assert helped.stderr == ""
    done = _arena(tmp_path, "legal", "tictactoe", "--moves", "4,0")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "legal moves: 1 2 3 5 6 7 8"
    usage = _arena(tmp_path, "legal", "--help")
    assert usage.returncode == 0 and "--moves" in usage.stdout
    # what the user can fix: one line, exit 2, no traceback
    for args, message in ((("tictactoe", "--moves", "4,4"), "move 4 is not legal here"),
                          (("chess",), "unknown game 'chess'"),
                          (("tictactoe", "--moves", "0,3,1,4,2"), "the game is over")):
        bad = _arena(tmp_path, "legal", *args)
        assert bad.returncode == 2, bad.stderr
        assert bad.stderr.startswith("arena legal: error: ") and message in bad.stderr
        assert len(bad.stderr.splitlines()) == 1, bad.stderr
    listed = _arena(tmp_path, "plugins")
    assert re.search(r"^arena_legal_moves +arena-legal-moves 0.1 +1 command, 0 bots$", listed.stdout, re.M)
    # counts of one are singular, of anything else plural
    assert re.search(r"^builtin-league +.* {2}2 rating systems, 4 output formats, 0 bots$", listed.stdout, re.M)
    assert re.search(r"^builtin-executors +.* {2}2 executors, 0 bots$", listed.stdout, re.M)
    assert re.search(r"^builtin-matchmakers +.* {2}5 matchmakers, 0 bots$", listed.stdout, re.M)
    # in columns: every plugin's version starts where the others' do
    starts = {line.index("bot-arena") for line in listed.stdout.splitlines() if "(built in)" in line}
    assert len(starts) == 1, listed.stdout


CLASHING = '''
import argparse
from arena.cli import Command
from arena.plugins import hookimpl

def run(args):
    print("the impostor ran")
    return 0

def crash(args):
    return 1 // 0        # a bug in a command

@hookimpl
def arena_register_commands(registry):
    registry.add("crash", Command(name="crash", help="a command with a bug", run=crash))
    registry.add("not-a-command", print)
    registry.add("match", Command(name="match", help="an impostor", run=run))
'''


def test_a_clashing_or_malformed_command_is_named_and_the_cli_still_works(tmp_path):
    _install(tmp_path, "clashing_commands", CLASHING)
    helped = _arena(tmp_path, "--help")
    assert helped.returncode == 0
    assert "'clashing_commands'" in helped.stderr and "command 'match' is already registered by " \
        "'builtin-commands'" in helped.stderr
    assert "command 'not-a-command' is not an arena.cli.Command" in helped.stderr
    assert "an impostor" not in helped.stdout and "not-a-command" not in helped.stdout
    assert re.search(r"\bcrash\s+a command with a bug", helped.stdout)
    games = _arena(tmp_path, "games")
    assert games.returncode == 0 and "tictactoe" in games.stdout
    match = _arena(tmp_path, "match", "--help")   # still arena's own match
    assert match.returncode == 0 and "--sprt" in match.stdout
    # a bug is not a user error: it keeps its traceback (and Python's exit code)
    crashed = _arena(tmp_path, "crash")
    assert crashed.returncode == 1
    assert "Traceback" in crashed.stderr and "ZeroDivisionError" in crashed.stderr
    assert "arena crash: error" not in crashed.stderr


def test_arena_train_is_the_reference_bots_command_and_the_cli_imports_no_bots():
    cli_dir = ROOT / "arena" / "cli"
    for path in cli_dir.glob("*.py"):
        assert not re.search(r"^\s*(from|import) bots\b", path.read_text(), re.M), path
    code = ("import sys; from arena.cli import main; code = main(['games']); "
            "print(sorted(m for m in sys.modules if m.startswith('bots.') and m not in "
            "('bots.plugin', 'bots.catalog', 'bots.base')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "[]"     # no agent, no training module


def _error_classes():
    for package in (arena, bots):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if cls.__module__ == info.name and cls.__name__.endswith("Error") \
                        and issubclass(cls, Exception):
                    yield f"{info.name}.{cls.__name__}", cls


def test_every_error_class_derives_from_arena_error():
    found = dict(_error_classes())
    assert "arena.league.storefile.StoreError" in found and "bots.base.AgentOptionError" in found
    assert "arena.cli.common.UserError" in found
    strays = [name for name, cls in found.items() if not issubclass(cls, ArenaError)]
    assert sorted(strays) == sorted(INTERNAL_ERRORS)


@pytest.mark.parametrize("args, message", [
    (["perft", "tictactoe", "2", "--moves", "9"], "arena perft: error: "),          # GameError
    (["run", "no-such.yaml"], "arena run: error: "),                               # ConfigError
    (["leaderboard", "README.md"], "arena leaderboard: error: README.md is not a league store"),
    (["publish", "README.md", "--out", "/tmp/never-written"], "arena publish: error: "),
])
def test_arena_errors_are_one_line_and_exit_2(args, message):
    done = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.startswith(message) and len(done.stderr.splitlines()) == 1, done.stderr


def test_a_commands_options_may_come_between_its_positionals(tmp_path):
    """arena submit URL --token T --name BOT PATH --command CMD, as docs/server.md writes it:
    PATH after the options is the bot's file (plain argparse took URL and an empty PATH
    together and called the file an unrecognized argument)."""
    bot = tmp_path / "b.py"
    bot.write_text("print('ready')\n")
    out = _arena(tmp_path, "submit", "http://127.0.0.1:1", "--token", "x.y", "--name", "b",
                 str(bot), "--command", "python3 b.py")
    assert out.returncode == 2
    assert "unrecognized" not in out.stderr
    assert out.stderr.startswith("arena submit: error: http://127.0.0.1:1: ")   # it got as far as connecting
    # a command passing its remainder on (arena train) still parses as before
    assert _arena(tmp_path, "train", "--help").returncode == 0
