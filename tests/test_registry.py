"""One registry type for every kind (issue 35, item 2): a miss is answered one way by every
registry, a plugin's thing of the wrong kind is refused when it is added and named by the
real `arena` command, and a run uses the plugins it is given (its game, rating system,
matchmaker and output format) rather than the process's loaded ones, which are read only
where a process starts."""

from __future__ import annotations

import ast
import io
import os
import sqlite3
import subprocess
import sys
import types
from pathlib import Path

import pytest

from arena.games import GameError, UnknownGameError
from arena.games.tictactoe import TicTacToe
from arena.hooks import hookimpl
from arena.league import config_from_dict, render, runner
from arena.league.boards import store_board
from arena.league.ladder import run_ladder
from arena.league.matchmakers.uniform import Uniform
from arena.league.progress import Progress
from arena.league.rating_systems import RatingColumn, TrueSkill, rating_system
from arena.league.store import Store
from arena.plugins import load_plugins, loaded_plugins
from arena.registry import PluginError, UnknownExtensionError, UnknownNameError

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = f"bash {ROOT / 'examples' / 'random_bot.sh'}"


def test_every_registry_answers_a_miss_one_way_with_the_messages_users_saw():
    plugins = load_plugins(entry_points=False)
    registries = {"games": plugins.games, "bots": plugins.bots, "dialects": plugins.dialects,
                  "executors": plugins.executors, "rating systems": plugins.rating_systems,
                  "output formats": plugins.output_formats, "commands": plugins.commands,
                  "matchmakers": plugins.matchmakers}
    for kind, registry in registries.items():
        assert registry.get("no-such-name") is None, kind
        with pytest.raises(UnknownNameError) as missed:
            registry.require("no-such-name")
        # what each registry raised before it was one type still catches it
        assert isinstance(missed.value, UnknownExtensionError) and isinstance(missed.value, PluginError)
        assert "\n" not in str(missed.value) and str(missed.value).startswith("unknown ")
    with pytest.raises(UnknownGameError) as game:
        plugins.games.require("ultimat")
    assert isinstance(game.value, GameError)
    assert str(game.value) == ("unknown game 'ultimat' (did you mean 'ultimate'?); "
                               "known games: tictactoe, ultimate, meta, nineboard, tron")
    with pytest.raises(UnknownNameError) as fmt:
        plugins.output_formats.require("jsn")
    assert str(fmt.value) == "unknown output format 'jsn' (did you mean 'json'?); known: table, md, csv, json"
    assert plugins.games.create("tictactoe").info.name == "tictactoe"


def _plugin(name: str, **hooks) -> types.ModuleType:
    module = types.ModuleType(name)
    for hook, function in hooks.items():
        setattr(module, hook, hookimpl(function))
    return module


def test_a_thing_of_the_wrong_kind_is_refused_when_added_and_its_name_says_why():
    def dialects(registry):
        registry.add("not-a-dialect", "turn lines, please")
        registry.add("arena-again", loaded_plugins().dialects.require("arena"))   # a good one after it

    def rating_systems(registry):
        registry.add("no-system", "elo")

    def output_formats(registry):
        registry.add("no-format", 42)

    def matchmakers(registry):
        registry.add("no-matchmaker", None)

    def bots(registry):
        registry.add(type(loaded_plugins().bots.require("random"))(
            name="chess-bot", game="chess", description="?", target="x:Y"))

    plugins = load_plugins(extra=(_plugin(
        "wrong_kinds", arena_register_dialects=dialects, arena_register_rating_systems=rating_systems,
        arena_register_output_formats=output_formats, arena_register_matchmakers=matchmakers,
        arena_register_bots=bots),), entry_points=False)
    assert plugins.errors == [
        "plugin 'wrong_kinds': bot 'chess-bot' plays unknown game 'chess'",
        "plugin 'wrong_kinds': dialect 'not-a-dialect' is 'turn lines, please', not an "
        "arena.protocol.Dialect (subclass it)",
        "plugin 'wrong_kinds': rating system 'no-system' is 'elo', not an "
        "arena.league.rating_systems.RatingSystem (columns, words, prior, rate)",
        "plugin 'wrong_kinds': output format 'no-format' is 42, not a renderer: (board, wide=False) -> text",
        "plugin 'wrong_kinds': matchmaker 'no-matchmaker' is None, not a factory: called with no "
        "arguments, it makes a matchmaker"]
    assert "arena-again" in plugins.dialects and "not-a-dialect" not in plugins.dialects
    for registry, name in ((plugins.dialects, "not-a-dialect"), (plugins.rating_systems, "no-system"),
                           (plugins.output_formats, "no-format"), (plugins.matchmakers, "no-matchmaker"),
                           (plugins.bots, "chess-bot")):
        assert registry.get(name) is None and name not in registry.names()
        with pytest.raises(PluginError, match=f"plugin 'wrong_kinds': .* {name!r} "):
            registry.require(name)


BROKEN = '''
from arena.protocol import Dialect
from arena.plugins import hookimpl

@hookimpl
def arena_register_executors(registry):
    registry.add("broken", lambda job, fixtures, workers: iter(()))   # a bare function

@hookimpl
def arena_register_dialects(registry):
    registry.add("half", Dialect)    # the class, not a dialect
'''


def _installed(tmp_path: Path, name: str, source: str) -> dict[str, str]:
    """The environment of an `arena` that finds module `name` through an entry point."""
    (tmp_path / f"{name}.py").write_text(source)
    dist = tmp_path / f"{name}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[arena]\n{name} = {name}\n")
    return {**os.environ, "PYTHONPATH": str(tmp_path)}


def test_arena_names_a_plugins_executor_and_dialect_of_the_wrong_kind_and_a_run_of_it_says_why(tmp_path):
    env = _installed(tmp_path, "broken_kinds", BROKEN)
    listed = subprocess.run([sys.executable, "-m", "arena", "plugins"], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=120)
    assert listed.returncode == 1
    errors = [line for line in listed.stdout.splitlines() + listed.stderr.splitlines() if "broken_kinds" in line]
    assert any("plugin 'broken_kinds': executor 'broken' is <function " in line and
               line.endswith(", not an arena.league.executors.Executor (subclass it)") for line in errors), errors
    assert any("dialect 'half' is <class 'arena.protocol.dialects.Dialect'>, not an arena.protocol.Dialect"
               in line for line in errors), errors
    (tmp_path / "league.yaml").write_text(
        "name: broken\ngame: tictactoe\nexecutor: broken\nstore: broken.sqlite\nworkers: 1\n"
        "bots:\n  - {name: a, bot: random}\n  - {name: b, bot: random}\n")
    run = subprocess.run([sys.executable, "-m", "arena", "run", "league.yaml"], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    said = run.stderr.splitlines()[-1]
    assert said.startswith("arena run: error: plugin 'broken_kinds': executor 'broken' is <function ")
    assert said.endswith(", not an arena.league.executors.Executor (subclass it)")
    assert not (tmp_path / "broken.sqlite").exists()


# --- a run uses the plugins it is given ----------------------------------------------------------

class PrivateTicTacToe(TicTacToe):
    """Tic-tac-toe under a name no installed plugin has."""

    info = TicTacToe.info._replace(name="private-ttt")


#: TrueSkill whose ranking figure has its own name, to see which system ranked a table
PRIVATE_SKILL = TrueSkill(columns=(RatingColumn("m", "m", "mean"), RatingColumn("s", "s", "spread"),
                                   RatingColumn("private-rank", "p", "m - 3 s", ranks=True)))


def _private() -> types.ModuleType:
    def games(registry):
        registry.add(PrivateTicTacToe)

    def rating_systems(registry):
        registry.add("private-skill", PRIVATE_SKILL)

    def matchmakers(registry):
        registry.add("private-uniform", Uniform)

    def output_formats(registry):
        registry.add("names", lambda board, wide=False: " ".join(row.bot for row in board.rows))

    return _plugin("private_kinds", arena_register_games=games, arena_register_rating_systems=rating_systems,
                   arena_register_matchmakers=matchmakers, arena_register_output_formats=output_formats)


@pytest.fixture(scope="module")
def private():
    plugins = load_plugins(extra=(_private(),), entry_points=False)
    assert plugins.errors == []
    for kind, name in (("games", "private-ttt"), ("rating_systems", "private-skill"),
                       ("matchmakers", "private-uniform"), ("output_formats", "names")):
        assert name not in getattr(loaded_plugins(), kind).names(), f"the loaded plugins have {name}"
    return plugins


def _config(tmp_path: Path, plugins, **more):
    data = {"name": "private", "game": "private-ttt", "seed": 4, "workers": 1, "store": str(tmp_path / "p.sqlite"),
            "rating": {"system": "private-skill"}, "time_control": {"move_ms": 2000, "startup_ms": 10000},
            "bots": [{"name": n, "command": RANDOM_BOT} for n in ("a", "b", "c")], **more}
    return config_from_dict(data, base_dir=tmp_path, plugins=plugins)


def test_a_league_is_checked_played_and_ranked_by_the_plugins_it_is_given(tmp_path, private):
    config = _config(tmp_path, private, games_per_pairing=2)
    live = io.StringIO()
    summary = runner.run_league(config, private, standings=3, progress=Progress(0, stream=live))
    assert summary.played == 6 and not summary.interrupted
    assert "private-rank" in live.getvalue()      # the live table ranked by the given system
    with Store(config.store, readonly=True) as store:
        board = store_board(store, config.rating, config.bot_names, system=rating_system(config.rating, private))
    assert [column.key for column in board.system.columns][-1] == "private-rank"
    assert sorted(render(board, "names", plugins=private).split()) == ["a", "b", "c"]
    with pytest.raises(UnknownNameError):
        render(board, "names")                     # not a format of the loaded plugins
    # read where the plugin is not installed: the line arena always said, not a store problem
    read = subprocess.run([sys.executable, "-m", "arena", "leaderboard", str(config.store)],
                          capture_output=True, text=True, timeout=120)
    assert read.returncode == 2 and read.stderr == (
        "arena leaderboard: error: unknown rating system 'private-skill' (did you mean 'trueskill'?); "
        "known: trueskill, trueskill-ep\n")


def test_a_ladder_is_checked_and_matched_by_the_plugins_it_is_given(tmp_path, private):
    config = _config(tmp_path, private, schedule="ladder",
                     ladder={"matchmaker": "private-uniform", "games": 4})
    assert config.ladder is not None and config.ladder.matchmaker == "private-uniform"
    summary = run_ladder(config, private, progress=Progress(0, stream=io.StringIO()), standings=0)
    assert summary.played == 4
    with sqlite3.connect(config.store) as db:
        assert db.execute("SELECT count(*), count(faulted) FROM games").fetchone() == (4, 0)


def test_the_loaded_plugins_are_read_only_where_a_process_starts():
    # the CLI's entry, a worker's (the server's submission worker; a league worker given a
    # hand-made job), and arena.plugins itself (whose plugins_or_loaded is the default of
    # the functions a caller may call without plugins)
    starts = {"arena/plugins.py", "arena/server/worker.py", "arena/league/executors/worker.py"}
    found = []
    for path in sorted((ROOT / "arena").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name in starts or name.startswith("arena/cli/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), name)):
            if isinstance(node, ast.Call):
                called = node.func
                if getattr(called, "id", getattr(called, "attr", "")) == "loaded_plugins":
                    found.append(f"{name}:{node.lineno}")
    assert found == []
