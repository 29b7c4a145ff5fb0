"""A bot declaration checks its own options, once (BotDeclaration.options_problem): a league
config, `arena match NAME:KEY=VALUE` and the options a spec is made with all ask it, and
each words what it found for its reader as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.cli import main
from arena.plugins import PluginError, load_plugins

LEAGUE = ("name: opts\ngame: ultimate\nstore: opts.sqlite\nbots:\n"
          "  - {name: a, bot: uttt-random}\n  - {name: b, bot: uttt-minimax-pruning, options: %s}\n")


@pytest.fixture(scope="module")
def minimax():
    return load_plugins().bots.require("uttt-minimax-pruning")


def test_the_declaration_names_the_option_it_refuses_and_why(minimax, tmp_path):
    (tmp_path / "w.json").write_text("{}")
    (tmp_path / "dir.json").mkdir()
    assert minimax.options_problem({"depth": 3, "weights": "w.json"}, tmp_path) is None
    unknown = minimax.options_problem({"dpeth": 3}, tmp_path)
    assert (unknown.key, unknown.unknown) == ("dpeth", True)
    assert unknown.message == ("bot 'uttt-minimax-pruning' has no option 'dpeth' "
                               "(options: depth, top, weights, emulate, seed)")
    wrong = minimax.options_problem({"depth": "deep"}, tmp_path)
    assert (wrong.key, wrong.message) == ("depth", "must be an integer from 1 to 81, got 'deep'")
    missing = minimax.options_problem({"weights": "gone.json"}, tmp_path)
    assert missing.missing and missing.message == f"no file {str(tmp_path / 'gone.json')!r}"
    folder = minimax.options_problem({"weights": "dir.json"}, tmp_path)
    assert folder.message == f"{str(tmp_path / 'dir.json')!r} is a directory, not a regular file"
    # without a directory to read paths from, a file is not looked for
    assert minimax.options_problem({"weights": "gone.json"}) is None
    with pytest.raises(PluginError, match=r"^bot 'uttt-minimax-pruning' has no option 'dpeth'"):
        minimax.check_options({"dpeth": 3})
    with pytest.raises(PluginError, match=r"^bot 'uttt-minimax-pruning' option 'depth': must be"):
        minimax.check_options({"depth": 0})
    assert minimax.check_options({"depth": 3})["depth"] == 3


@pytest.mark.parametrize(("league_options", "match_options", "league_line", "match_line"), [
    ("{dpeth: 3}", "dpeth=3",
     "bots[1].options.dpeth: bot 'uttt-minimax-pruning' has no option 'dpeth' (options: depth, top, "
     "weights, emulate, seed)",
     "bot 'uttt-minimax-pruning' has no option 'dpeth' (options: depth, top, weights, emulate, seed)"),
    ("{depth: 0}", "depth=0", "bots[1].options.depth: must be an integer from 1 to 81, got 0",
     "uttt-minimax-pruning:depth: must be an integer from 1 to 81, got 0"),
    ("{weights: gone.json}", "weights=gone.json",
     "bots[1].options.weights: no file '{dir}/gone.json' (a path is taken from the config's "
     "directory; JSON text starting with '{{' is also allowed)",
     "uttt-minimax-pruning:weights: no file '{dir}/gone.json'"),
    ("{weights: dir.json}", "weights=dir.json",
     "bots[1].options.weights: '{dir}/dir.json' is a directory, not a regular file",
     "uttt-minimax-pruning:weights: '{dir}/dir.json' is a directory, not a regular file"),
])
def test_a_league_config_and_arena_match_word_the_one_check_as_before(
        tmp_path, monkeypatch, capsys, league_options, match_options, league_line, match_line):
    (tmp_path / "dir.json").mkdir()
    (tmp_path / "l.yaml").write_text(LEAGUE % league_options)
    monkeypatch.chdir(tmp_path)
    where = os.path.realpath(tmp_path)
    assert main(["run", "l.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena run: error: l.yaml:") and err.rstrip().endswith(
        league_line.format(dir=where)), err
    assert main(["match", f"uttt-minimax-pruning:{match_options}", "uttt-random", "--game",
                 "ultimate"]) == 2
    assert capsys.readouterr().err == f"arena match: error: {match_line.format(dir=where)}\n"
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == ["dir.json", "l.yaml"]
