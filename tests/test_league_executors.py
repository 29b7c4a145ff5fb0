"""Executors are plugins: docs/plugins.md's serial executor, registered like any plugin,
plays a real league from YAML through the sandboxed referee, and the config accepts
exactly the registered names."""

import importlib
import io
import json
import re
import sqlite3
from pathlib import Path

import pytest

from arena.league import ConfigError
from arena.league.progress import Progress
from arena.league.runner import load_league, run_league
from arena.plugins import load_plugins

ROOT = Path(__file__).resolve().parent.parent


def docs_example(tmp_path: Path, monkeypatch) -> object:
    """The executor example of docs/plugins.md, as the module a user would write."""
    text = (ROOT / "docs" / "plugins.md").read_text()
    section = text.split("## Adding an executor", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert code.startswith("# arena_serial.py")
    (tmp_path / "arena_serial.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module("arena_serial")


def league(tmp_path: Path, name: str, executor: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\ngame: ultimate\nexecutor: {executor}\nworkers: 2\n"
                    "games_per_pairing: 4\nseed: 5\nstore: " + name + ".sqlite\n"
                    "time_control: {move_ms: 2000, startup_ms: 10000}\nbots:\n"
                    "  - {name: a, bot: uttt-random}\n  - {name: b, bot: random}\n"
                    "  - {name: c, bot: uttt-random}\n")
    return path


def moves(db: Path) -> dict:
    """Each stored game's moves and winner: what must not depend on where it was played."""
    with sqlite3.connect(db) as conn:
        return {key: ([m["move"] for m in json.loads(record)["moves"]], winner)
                for key, winner, record in conn.execute("SELECT fixture_key, winner, record FROM games")}


def test_the_docs_serial_executor_plays_a_league_from_yaml_as_local_workers_do(tmp_path, monkeypatch):
    plugins = load_plugins(extra=(docs_example(tmp_path, monkeypatch),))
    assert plugins.errors == []
    assert plugins.executors.names() == ["local", "ray", "serial"]
    assert plugins.executors.plugin("serial") == "arena_serial"
    serial = plugins.executors.require("serial")
    played = []

    def play(job, fixtures, workers, config=None):   # the runner reaches this executor
        played.append((len(fixtures), workers, config.executor))
        return type(serial).play(serial, job, fixtures, workers, config)

    monkeypatch.setattr(serial, "play", play)
    config = load_league(str(league(tmp_path, "serial", "serial")), plugins)
    summary = run_league(config, plugins, progress=Progress(0, stream=io.StringIO()))
    assert played == [(12, 2, "serial")]
    assert summary.played == 12 and not summary.interrupted

    local = load_league(str(league(tmp_path, "local", "local")), plugins)
    run_league(local, plugins, progress=Progress(0, stream=io.StringIO()))
    assert len(moves(tmp_path / "serial.sqlite")) == 12
    assert moves(tmp_path / "serial.sqlite") == moves(tmp_path / "local.sqlite")


def test_executor_names_come_from_the_registry_in_one_line_naming_file_line_and_key(tmp_path, monkeypatch):
    plugins = load_plugins(extra=(docs_example(tmp_path, monkeypatch),))
    path = league(tmp_path, "typo", "serail")
    with pytest.raises(ConfigError) as error:
        load_league(str(path), plugins)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:3: executor:"), message
    assert "must be one of 'local', 'ray', 'serial', got 'serail'" in message
    # without the plugin, its name is no executor
    with pytest.raises(ConfigError, match="must be one of 'local', 'ray', got 'serial'"):
        load_league(str(league(tmp_path, "bare", "serial")), load_plugins())


def test_a_plugin_executor_that_is_no_executor_is_named_before_anything_runs(tmp_path):
    import types

    from arena.plugins import PluginError, hookimpl

    @hookimpl
    def arena_register_executors(registry):
        registry.add("broken", lambda job, fixtures, workers: iter(()))   # a bare function

    plugin = types.ModuleType("broken_executor")
    plugin.arena_register_executors = arena_register_executors
    plugins = load_plugins(extra=(plugin,))
    config = load_league(str(league(tmp_path, "broken", "broken")), plugins)
    with pytest.raises(PluginError, match="plugin 'broken_executor': executor 'broken' is <function"):
        run_league(config, plugins, progress=Progress(0, stream=io.StringIO()))
    assert not config.store.exists()
