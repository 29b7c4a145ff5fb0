"""Plugins as users meet them: entry points, broken plugins, a third-party package
installed into a throw-away environment, and every declared bot playing legal
games through the real protocol in the sandbox."""

import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from fresh_venv import venv_with_plugin

from arena.games import default_registry
from arena.plugins import BotDeclaration, hookimpl, load_plugins
from arena.record import Termination
from arena.referee import MatchSettings, TimeControl, play_game
from arena.referee.botspec import bot_spec
from arena.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
FAST_OPTIONS = {"mcts": {"time_ms": 5}, "nineboard-negamax": {"time_ms": 5},
                "meta-minimax": {"depth": 2}, "uttt-minimax": {"depth": 1},
                "uttt-minimax-pruning": {"depth": 1}}


def test_reference_bots_are_declared_once_and_the_plugin_and_classes_agree_with_it():
    import inspect

    import bots
    from bots.base import Agent
    from bots.catalog import BOTS
    declared = {d.name: d for d in load_plugins().bots.all() if d.plugin == "reference-bots"}
    classes = {cls.name: cls for cls in bots.all_agents()}
    assert list(declared) == list(classes) == [bot.name for bot in BOTS]
    for name, cls in classes.items():
        decl = declared[name]
        assert (decl.game, decl.description) == (cls.game, cls.description)
        assert decl.target == f"{cls.__module__}:{cls.__name__}"
        assert {k: (o.default, o.help) for k, o in decl.options.items()} == cls.options
        assert bots.agent_class(name) is cls
    # every concrete agent class in bots/ is declared: none is left with attributes of its own
    for module in {cls.__module__ for cls in classes.values()}:
        for _, cls in inspect.getmembers(sys.modules[module], inspect.isclass):
            if issubclass(cls, Agent) and cls.__module__ == module and not inspect.isabstract(cls) \
                    and not cls.__name__.startswith("_"):
                assert cls.name in declared, f"{module}:{cls.__name__} is not in bots.catalog"


def test_the_catalog_holds_the_declarations_the_plugin_registers():
    # one declaration of each reference bot: bots.catalog builds arena's own BotDeclarations
    # (from arena.declarations, which a bot process may import) and the plugin adds them as they are
    import dataclasses

    from bots.catalog import BOTS
    registered = [d for d in load_plugins().bots.all() if d.plugin == "reference-bots"]
    assert all(isinstance(bot, BotDeclaration) for bot in BOTS)
    assert registered == [dataclasses.replace(bot, plugin="reference-bots") for bot in BOTS]


def test_a_bot_process_imports_only_its_own_agent_and_never_the_plugin_machinery():
    # what `python -m arena.sdk bots.mcts:MCTS` imports before it plays: the catalog and the
    # declarations it is made of, not the other agents' modules (tables built at import) nor
    # arena.plugins (pluggy, importlib.metadata)
    code = ("import sys, arena.sdk; arena.sdk.load_factory('bots.mcts:MCTS'); "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('bots', 'pluggy', 'arena.plugins', "
            "'arena.declarations', 'importlib.metadata')))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["arena.declarations", "bots", "bots.base", "bots.catalog", "bots.mcts"]


def test_the_emulate_option_names_every_defect_an_agent_can_emulate():
    from bots.catalog import BOTS
    from bots.ultimate_agents import EMULATE_PARTS
    (text,) = {bot.options["emulate"].help for bot in BOTS if "emulate" in bot.options}
    assert all(part in text for part in EMULATE_PARTS), text


def test_every_reference_option_declares_what_it_takes_and_its_default_fits():
    # the config checks values against these, so a default that did not fit would make
    # the bot's own default a config error; the agent's parser must take what passes
    import bots
    classes = {cls.name: cls for cls in bots.all_agents()}
    for decl in load_plugins().bots.all():
        for key, option in decl.options.items():
            assert option.kind is not None or key == "constants", (decl.name, key)
            assert option.problem(option.default) is None, (decl.name, key)
            if option.kind in ("integer", "number") and option.low is not None:
                parse = classes[decl.name].option_types.get(key, lambda v: v)
                parse(option.low)          # the smallest allowed value reaches the agent intact


def test_option_values_are_checked_against_their_declared_kind_and_range():
    from arena.plugins import BotOption
    depth = BotOption(2, kind="integer", low=1, high=81)
    assert depth.problem(3) is None
    assert depth.problem("deep") == "must be an integer from 1 to 81, got 'deep'"
    assert depth.problem(-3) == "must be an integer from 1 to 81, got -3"
    assert depth.problem(True) is not None and depth.problem(2.5) is not None
    time_ms = BotOption(None, kind="number", low=0)
    assert time_ms.problem(None) is None and time_ms.problem(12.5) is None
    assert time_ms.problem(float("nan")) == "must be a number >= 0 (or null), got nan"
    weights = BotOption(None, kind="json", file=True)
    assert weights.problem({"a": 1}) is None and weights.problem("w.json") is None
    assert weights.problem('{"a": 1}') is None
    assert "not valid JSON" in weights.problem("{bad json")
    assert BotOption(True, kind="boolean").problem("yes") == "must be true or false, got 'yes'"


def _plugin(name, **functions):
    module = types.ModuleType(name)
    for key, fn in functions.items():
        setattr(module, key, hookimpl(fn) if key.startswith("arena_") else fn)
    return module


def test_broken_plugins_are_named_and_the_others_still_load():
    def misspelt(registry):
        pass

    def nonsense(registry):
        registry.add("not a declaration")

    def wrong_game(registry):
        registry.add(BotDeclaration(name="chess-bot", game="chess", description="?", target="x:Y"))

    def duplicate(registry):
        registry.add(BotDeclaration(name="random", game="*", description="again", target="x:Y"))

    plugins = load_plugins(extra=(
        _plugin("typo_plugin", arena_register_bot=misspelt),
        _plugin("nonsense_plugin", arena_register_bots=nonsense),
        _plugin("wrong_game_plugin", arena_register_bots=wrong_game),
        _plugin("duplicate_plugin", arena_register_bots=duplicate),
    ))
    errors = "\n".join(plugins.errors)
    assert "'typo_plugin'" in errors and "arena_register_bot" in errors
    assert "'nonsense_plugin'" in errors and "not a BotDeclaration" in errors
    assert "'wrong_game_plugin'" in errors and "unknown game 'chess'" in errors
    assert "'duplicate_plugin'" in errors and "already registered" in errors
    assert plugins.bots.get("random").plugin == "reference-bots"
    assert len(plugins.bots.all()) == 17


def test_a_plugin_that_fails_to_import_is_reported_by_name(tmp_path):
    dist = tmp_path / "broken_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[arena]\nbroken = no_such_module_for_arena\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "arena", "plugins"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 1
    assert "plugin 'broken' (from broken-plugin) failed to import" in out.stdout
    assert "reference-bots" in out.stdout
    listed = subprocess.run([sys.executable, "-m", "arena", "bots"], capture_output=True, text=True,
                            env=env, timeout=60)
    assert listed.returncode == 0 and "mcts" in listed.stdout
    assert "WARNING: plugin 'broken'" in listed.stderr


def test_third_party_plugin_installs_into_a_fresh_environment_and_plays(tmp_path):
    # the throw-away environment sees bot-arena as installed here, and nothing else of ours
    python = venv_with_plugin(ROOT / "examples" / "arena-example-plugin", tmp_path)
    arena_cmd = [str(python), "-m", "arena"]
    listed = subprocess.run(arena_cmd + ["bots", "--game", "tictactoe"], capture_output=True,
                            text=True, timeout=60)
    assert "corner-first" in listed.stdout and "[example]" in listed.stdout
    plugins = subprocess.run(arena_cmd + ["plugins"], capture_output=True, text=True, timeout=60)
    assert re.search(r"^example +arena-example-plugin 0\.1\.0 +1 bot$", plugins.stdout, re.M), plugins.stdout
    match = subprocess.run(arena_cmd + ["match", "corner-first", "random", "--game", "tictactoe",
                                        "--games", "4", "--seed", "1"],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert match.returncode == 0, match.stderr
    assert "corner-first: " in match.stdout and ", 0 losses" in match.stdout.split("corner-first: ")[-1]
    # without the package, the bot is gone
    assert "corner-first" not in subprocess.run([sys.executable, "-m", "arena", "bots"],
                                                capture_output=True, text=True).stdout


def _cases():
    plugins = load_plugins()
    games = default_registry().names()
    for decl in plugins.bots.all():
        for game in games:
            if decl.plays(game):
                yield decl.name, game


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox()


@pytest.mark.parametrize(("name", "game_name"), list(_cases()))
def test_every_bot_plays_legal_games_through_the_protocol(sandbox, name, game_name):
    plugins = load_plugins()
    bot = bot_spec(plugins.bots.get(name), FAST_OPTIONS.get(name, {}))
    opponent = bot_spec(plugins.bots.get("random"), name="opponent")
    game = default_registry().create(game_name)
    settings = MatchSettings(time=TimeControl(move_ms=1000, startup_ms=10000))
    for seed, seats in ((1, (bot, opponent)), (2, (opponent, bot))):
        record = play_game(game, seats, seed, sandbox, settings)
        assert record.termination is Termination.NORMAL, record.reason
        state = game.initial_state()
        for turn in record.turns():     # one move a turn, or every mover's where seats move at once
            state = state.play_joint([game.parse_move(m.move) for m in turn])
        assert state.is_terminal()


def test_a_python_bots_code_is_byte_compiled_before_it_starts(tmp_path, monkeypatch):
    # a sandboxed bot cannot write its own .pyc files; without them each start compiles
    from arena.referee.botspec import byte_compile
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    package = tmp_path / "mybots"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "agent.py").write_text("X = 1\n")
    single = tmp_path / "single.py"
    single.write_text("Y = 2\n")
    byte_compile(str(package))
    byte_compile(str(single))
    assert {p.name.split(".")[0] for p in (package / "__pycache__").iterdir()} == {"__init__", "agent"}
    assert [p.name.split(".")[0] for p in (tmp_path / "__pycache__").iterdir()] == ["single"]
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "m.py").write_text("Z = 3\n")
    locked.chmod(0o555)
    try:
        byte_compile(str(locked))   # best effort: no error where it cannot write
    finally:
        locked.chmod(0o755)


def test_built_in_games_bots_and_commands_are_default_plugins_needing_no_installation_metadata():
    plugins = load_plugins(entry_points=False)
    assert plugins.errors == []
    assert plugins.games.names() == default_registry().names()
    assert {d.plugin for d in plugins.bots.all()} == {"reference-bots"} and len(plugins.bots.all()) == 17
    assert set(plugins.versions) == {"builtin-games", "builtin-league", "builtin-dialects",
                                     "builtin-commands", "builtin-executors", "builtin-matchmakers",
                                     "reference-bots"}
    assert plugins.commands.plugin("match") == "builtin-commands"
    assert plugins.commands.plugin("train") == "reference-bots"   # the CLI never imports bots
    assert plugins.dialects.names() == ["arena", "codingame", "theaigames", "riddles", "aichallenge2010"]
    assert {plugins.dialects.plugin(name) for name in plugins.dialects} == {"builtin-dialects"}
    assert plugins.executors.names() == ["local", "ray"]
    assert {plugins.executors.plugin(name) for name in plugins.executors} == {"builtin-executors"}
    assert plugins.matchmakers.names() == ["active", "uniform", "psyleague", "halite", "neighbors"]


def test_a_plugin_game_that_clashes_or_is_no_game_is_named_and_the_rest_load():
    from arena.games.tictactoe import TicTacToe

    class Impostor(TicTacToe):
        pass

    class Renamed(TicTacToe):
        info = TicTacToe.info._replace(name="tictactoe-again")

    def clash(registry):
        registry.add(Impostor)

    def not_a_game(registry):
        registry.add("chess")

    def fine(registry):
        registry.add(Renamed)

    plugins = load_plugins(extra=(_plugin("clash_plugin", arena_register_games=clash),
                                  _plugin("junk_plugin", arena_register_games=not_a_game),
                                  _plugin("fine_plugin", arena_register_games=fine)))
    errors = "\n".join(plugins.errors)
    assert "'clash_plugin'" in errors and "'tictactoe' is already registered by 'builtin-games'" in errors
    assert "'junk_plugin'" in errors and "not a Game class" in errors
    assert plugins.games.get("tictactoe") is TicTacToe
    assert plugins.games.plugin("tictactoe-again") == "fine_plugin"
    builtin = default_registry().names()
    assert plugins.games.names()[:len(builtin)] == builtin


def test_a_bot_of_a_plugin_game_loads_only_the_games_not_the_cli_league_or_reference_bots(tmp_path):
    # the SDK makes a plugin game from the entry points, but a bot process must not pay for
    # arena's other default plugins (the CLI, the league with TrueSkill and the store, the bots)
    example = Path(__file__).resolve().parent.parent / "examples" / "arena-connect-four"
    dist = tmp_path / "arena_connect_four-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-connect-four\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[arena]\nconnect-four = arena_connect_four.plugin\n")
    code = ("import sys, arena.sdk; game = arena.sdk.create_game('connect-four', {}); "
            "print(game.info.name, ' '.join(sorted(m for m in sys.modules if m.startswith("
            "('arena.cli', 'arena.league', 'bots', 'trueskill', 'yaml')))))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(example)])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["connect-four"]
