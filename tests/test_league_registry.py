"""The registry a run is given reaches its workers, referee and preflight: a league of a
game and a dialect that only that registry holds (not the loaded plugins, the global one)
plays on real local workers with real sandboxed bots."""

from __future__ import annotations

import io
import sqlite3
import types
from pathlib import Path

import pytest

from arena.games.tictactoe import TicTacToe
from arena.hooks import hookimpl
from arena.league import config_from_dict, runner
from arena.league.progress import Progress
from arena.league.runner import run_league
from arena.plugins import load_plugins, loaded_plugins

ROOT = Path(__file__).resolve().parent.parent


class PrivateTicTacToe(TicTacToe):
    """Tic-tac-toe under a name no installed plugin has."""

    info = TicTacToe.info._replace(name="private-ttt")


def private_plugin() -> types.ModuleType:
    plugin = types.ModuleType("private_registry_plugin")

    @hookimpl
    def arena_register_games(registry):
        registry.add(PrivateTicTacToe)

    @hookimpl
    def arena_register_dialects(registry):
        registry.add("private-arena", loaded_plugins().dialects.require("arena"))

    plugin.arena_register_games = arena_register_games       # type: ignore[attr-defined]
    plugin.arena_register_dialects = arena_register_dialects  # type: ignore[attr-defined]
    return plugin


@pytest.mark.parametrize("dialect", ["private-arena", "arena"])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_league_plays_a_game_and_dialect_only_its_given_registry_holds(tmp_path, workers, dialect):
    plugins = load_plugins(extra=(private_plugin(),))
    assert plugins.errors == []
    assert "private-ttt" not in loaded_plugins().games.names()
    assert "private-arena" not in loaded_plugins().dialects.names()
    bot = f"bash {ROOT / 'examples' / 'random_bot.sh'}"
    data = {"name": "private", "game": "private-ttt", "games_per_pairing": 4, "workers": workers,
            "seed": 2, "store": str(tmp_path / "private.sqlite"),
            "bots": [{"name": "a", "command": bot, "dialect": dialect},
                     {"name": "b", "command": bot}]}
    config = config_from_dict(data, base_dir=tmp_path, known_bots=runner.known_bots_check(plugins),
                              games=plugins.games, dialects=plugins.dialects)
    summary = run_league(config, plugins, progress=Progress(0, stream=io.StringIO()))
    assert summary.played == 4 and not summary.interrupted
    with sqlite3.connect(tmp_path / "private.sqlite") as db:
        assert db.execute("SELECT count(*), count(faulted) FROM games").fetchone() == (4, 0)
