"""One Run for every run (arena.league.run): a league, a ladder and `arena match` share the
store, versions, executor, stop and closing line; only their games differ. `arena match`
plays through the registered executor; run_league plays any config, a ladder's too; a
match's running, its text and what its store keeps are modules of their own."""

from __future__ import annotations

import io
import json
import sqlite3

from arena.cli import main
from arena.cli.matchtext import closing_line, summary_lines
from arena.league.identity import match_identity
from arena.league.progress import Progress
from arena.league.runner import load_league, run_league
from arena.match import MatchTally, match_fixtures, run_match
from arena.plugins import load_plugins, loaded_plugins
from arena.record import GameRecord
from arena.stats import SprtSpec


def test_arena_match_plays_through_the_registered_local_executor(tmp_path, monkeypatch, capsys):
    """It played with the local executor's functions directly, around the registry: an
    executor a plugin put in `local`'s place was never asked."""
    local = loaded_plugins().executors.require("local")
    asked = []

    def play(job, source, workers, placement=None):
        asked.append((sorted(job.bots), len(source.fixtures), workers, placement.executor))
        return type(local).play(local, job, source, workers, placement)

    monkeypatch.setattr(local, "play", play)
    db = tmp_path / "m.sqlite"
    assert main(["match", "ttt-blind", "random", "--game", "tictactoe", "--games", "4",
                 "--seed", "3", "--store", str(db), "--json"]) == 0
    assert asked == [(["random", "ttt-blind"], 4, 1, "local")]
    out, err = capsys.readouterr()
    summary = json.loads(out.splitlines()[-1])["summary"]
    assert summary["games"] == 4 and summary["played"] == 4
    assert err.splitlines()[-1].startswith("finished: 4 games played; result: 4 games played")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone() == (4,)
    # resumed: nothing left to play, and the executor is asked with no fixture at all
    assert main(["match", "ttt-blind", "random", "--game", "tictactoe", "--games", "4",
                 "--store", str(db)]) == 0
    assert asked[-1] == (["random", "ttt-blind"], 0, 1, "local")
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith(f"; resuming with 4 games stored in {db}"), err
    assert err[-1] == "finished: 0 games played; result: 4 games played", err


def test_run_league_plays_a_ladder_config_as_arena_run_does(tmp_path):
    """arena run picked run_ladder or run_league through a variable; run_league plays any
    config, its games chosen by the config (a ladder's source, a schedule's list)."""
    (tmp_path / "l.yaml").write_text(
        "name: ladder\ngame: tictactoe\nschedule: ladder\nladder: {games: 2}\nseed: 1\n"
        "store: l.sqlite\nbots:\n  - {name: a, bot: ttt-blind}\n  - {name: b, bot: random}\n"
        "  - {name: c, bot: ttt-blind}\n")
    plugins = load_plugins()
    config = load_league(str(tmp_path / "l.yaml"), plugins)
    stream = io.StringIO()
    summary = run_league(config, plugins, progress=Progress(0, stream=stream), out=io.StringIO())
    assert summary.played == 2 and summary.total == 2 and not summary.interrupted
    closing = stream.getvalue().splitlines()[-1]
    assert closing.startswith("finished (games: 2 stored): 2 games played in "), closing
    assert closing.endswith(f"; 2 stored in {tmp_path / 'l.sqlite'}")


def _a_wins(fixture) -> GameRecord:
    from arena.record import BotEntry
    return GameRecord(game="ultimate", rule_options={}, seed=fixture.seed,
                      bots=[BotEntry(fixture.seat0), BotEntry(fixture.seat1)],
                      winner=0 if fixture.seat0 == "a" else 1)


def test_a_match_is_run_read_and_known_again_by_modules_of_their_own():
    spec = SprtSpec.parse("elo0=0,elo1=100,alpha=0.1")
    assert spec.text() == "elo0=0,elo1=100,alpha=0.1,beta=0.05,model=logistic"
    assert SprtSpec.parse(spec.text()) == spec
    fixtures = match_fixtures("a", "b", 40, seed=1)

    def play(job, todo, workers):
        for fixture in todo:
            yield fixture, _a_wins(fixture)

    outcome = run_match(None, fixtures, 1, MatchTally("a", "b"), spec, play=play)
    assert outcome.decided and outcome.played == 2 * outcome.sprt.samples
    lines = summary_lines(outcome, spec, len(fixtures))
    assert lines[2].startswith(f"SPRT {spec.text()}: LLR ") and lines[-3] == "result: H1 accepted: a is stronger"
    assert closing_line(outcome, spec, len(fixtures)) == (
        f"finished: {outcome.played} games played; result: H1 accepted: a is stronger")
    from arena.league.executors import GameJob
    from arena.referee import BotSpec, MatchSettings
    from arena.sandbox import Limits
    job = GameJob(game="tictactoe", rules={}, bots={"a": BotSpec(name="a", argv=("x",))},
                  settings=MatchSettings(), sandbox_mode="auto", limits=Limits(memory_mb=256))
    identity = match_identity(job, 1, "none", spec)
    assert identity["match.sprt"] == spec.text() and json.loads(identity["match.bots"]) == [{"name": "a"}]
