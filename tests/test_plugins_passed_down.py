"""The plugins a run is given are the ones its parts use (issue 35, item 2): the status line's
fault summary, the store's binding (a rule option its game gained since) and the published
site read the run's games, not the process's loaded ones (read only where a process starts)."""

from __future__ import annotations

import io
import json
import sys
import types
from pathlib import Path

import pytest

from arena.games import RuleOption
from arena.games.tictactoe import TicTacToe
from arena.hooks import hookimpl
from arena.league import config_from_dict, runner
from arena.league.progress import Progress
from arena.league.store import Store
from arena.plugins import load_plugins, loaded_plugins
from arena.publish import load_league, publish_site

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = f"bash {ROOT / 'examples' / 'random_bot.sh'}"
GARBAGE_BOT = f"{sys.executable} {ROOT / 'tests' / 'fixture_bots' / 'fixed_reply_bot.py'} arena hello"


class Named(TicTacToe):
    """Tic-tac-toe under a name no installed plugin has, its seats called P and Q."""

    info = TicTacToe.info._replace(name="private-named", seat_names=("P", "Q"))


class NamedLater(Named):
    """The same game after it gained a rule option."""

    info = Named.info._replace(options=(RuleOption("board", (3,), 3, "the board's side"),))


def _plugins(game: type[TicTacToe]):
    module = types.ModuleType(f"passed_{game.__name__.lower()}")
    module.arena_register_games = hookimpl(lambda registry: registry.add(game))
    plugins = load_plugins(extra=(module,), entry_points=False)
    assert plugins.errors == [] and "private-named" not in loaded_plugins().games.names()
    return plugins


def _run(here: Path, game: type[TicTacToe], **more):
    """Run the league of game (two games a pairing, a bot that answers garbage) into
    here/p.sqlite with the plugins that declare it: its summary and status lines."""
    plugins = _plugins(game)
    data = {"name": "passed", "game": "private-named", "seed": 5, "workers": 1, "games_per_pairing": 2,
            "store": str(here / "p.sqlite"), "time_control": {"move_ms": 2000, "startup_ms": 10000},
            "bots": [{"name": "random", "command": RANDOM_BOT}, {"name": "garbage", "command": GARBAGE_BOT}],
            **more}
    config = config_from_dict(data, base_dir=here, plugins=plugins)
    out = io.StringIO()
    summary = runner.run_league(config, plugins, progress=Progress(0, stream=out, tty=False), out=io.StringIO())
    return plugins, summary, out.getvalue()


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    here = tmp_path_factory.mktemp("passed")
    return here, *_run(here, Named)


def test_a_runs_fault_lines_name_the_seats_as_its_own_game_does(league):
    _here, _plugins, summary, out = league
    assert summary.played == 2
    faults = [line for line in out.splitlines() if line.startswith("fault: ")]
    assert faults and all("(P) vs" in line and "(Q):" in line for line in faults), out


def test_a_site_is_published_by_the_games_it_is_given(league):
    here, plugins, _summary, _out = league
    with Store(here / "p.sqlite", readonly=True) as store:
        assert load_league(store, registry=plugins.games).seat_names == ("P", "Q")
    publish_site(here / "p.sqlite", here / "site", registry=plugins.games)
    moves = (here / "site" / "data" / "moves" / "0.js").read_text()
    replays = json.loads(moves[moves.index(",") + 1:moves.rindex(")")])["games"]
    assert replays and all("grid" in replay for replay in replays)   # replayed by its rules: boards shown


def test_a_store_of_the_games_earlier_rules_is_resumed_by_its_run(league):
    here, _plugins, _summary, _out = league
    # the game gained a rule option since; the config naming it at its default is the same league
    _later, again, out = _run(here, NamedLater, rules={"board": 3})
    assert not again.interrupted and again.played == 0, out
