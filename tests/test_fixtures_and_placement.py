"""Fixtures are made in one place (Fixture.of_pair, Fixture.of_block, pairing_of) by a
league's schedule, a ladder and a match alike; an executor is handed the run's placement
settings (Placement), not the whole league config."""

from __future__ import annotations

import io
import types
from pathlib import Path

from arena.league.executors import Placement
from arena.league.executors.local import LocalExecutor
from arena.league.progress import Progress
from arena.league.runner import load_league, run_league
from arena.league.schedule import Fixture, make_ffa_fixtures, make_fixtures, pairing_of
from arena.match import match_fixtures
from arena.plugins import hookimpl, load_plugins


def test_every_fixture_comes_from_the_one_factory_and_names_its_pairing_one_way():
    assert pairing_of(["bob", "alice"]) == "alice|bob" and pairing_of("cab") == "a|b|c"
    league = make_fixtures(["bob", "alice"], 4, seed=7)
    made = {(f.seat0, f.round): f for f in league}
    for f in league:
        first, second = sorted(f.seats)
        again = Fixture.of_pair(first, second, f.round // 2, f.round % 2, f.seed, index=f.index)
        assert again == f and again.pairing == f.pairing == "alice|bob"
    assert made[("alice", 0)].key == "alice|bob|0|0" and made[("bob", 1)].key == "alice|bob|0|1"
    opened = Fixture.of_pair("a", "b", 3, 1, 99, opening=[40, 36])
    assert (opened.key, opened.seats, opened.round, opened.opening) == ("a|b|3|1|40,36", ("b", "a"), 7, (40, 36))
    # a match names its pairing as a league does, whichever bot is A (it was "zed|amy")
    for f in match_fixtures("zed", "amy", 4, seed=5):
        assert f.pairing == "amy|zed" and f.key.startswith("zed|amy|")
        assert f == Fixture.of_pair("zed", "amy", f.index // 2, f.index % 2, 5 + f.index // 2, index=f.index)
    for f in make_ffa_fixtures(["d", "c", "b", "a"], 3, 6, seed=1):
        assert f == Fixture.of_block(f.seats, f.round, f.seed, index=f.index)
        assert f.pairing == pairing_of(f.seats) and f.key.endswith(f"||{f.round}")


class _Recording(LocalExecutor):
    """The local executor, noting what each member is handed."""

    name = "recording"

    def __init__(self) -> None:
        self.handed: list[tuple[str, object]] = []

    def check(self, placement):
        self.handed.append(("check", placement))

    def plays_here(self, placement):
        self.handed.append(("plays_here", placement))
        return True

    def play(self, job, source, workers, placement=None):
        self.handed.append(("play", placement))
        return super().play(job, source, workers, placement)


def test_an_executor_is_handed_the_placement_settings_not_the_league(tmp_path: Path):
    recording = _Recording()

    @hookimpl
    def arena_register_executors(registry):
        registry.add(recording.name, recording)

    plugin = types.ModuleType("recording_executor")
    plugin.arena_register_executors = arena_register_executors
    plugins = load_plugins(extra=(plugin,))
    (tmp_path / "l.yaml").write_text(
        "name: placed\ngame: tictactoe\nexecutor: recording\npin_workers: false\nworkers: 1\n"
        "store: l.sqlite\nbots:\n  - {name: a, bot: ttt-blind}\n  - {name: b, bot: random}\n")
    config = load_league(str(tmp_path / "l.yaml"), plugins)
    summary = run_league(config, plugins, progress=Progress(0, stream=io.StringIO()),
                         out=io.StringIO())
    assert summary.played == 2
    placed = Placement(executor="recording", pin_workers=False, ray=None)
    assert recording.handed == [("check", placed), ("play", placed), ("plays_here", placed)]
