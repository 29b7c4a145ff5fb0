"""Executors pull their games from a fixture source as slots free up: a source may have
nothing now and something once a record is back (a ladder's matchmaker), or be finished.
Real worker processes, real sandboxed bots."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from arena.league import config_from_dict, runner
from arena.league.executors.base import RunError
from arena.league.executors.local import start_playing
from arena.league.runner import make_job
from arena.league.schedule import Fixture, schedule
from arena.league.sources import FixtureList, chunks
from arena.plugins import load_plugins
from arena.record import GameRecord, Termination

PLUGINS = load_plugins()


def league(tmp: Path):
    data = {"name": "drip", "game": "ultimate", "games_per_pairing": 4, "workers": 2, "seed": 3,
            "bots": [{"name": f"r{i}", "bot": "uttt-random"} for i in range(3)],
            "store": str(tmp / "drip.sqlite"), "time_control": {"move_ms": 2000}}
    return config_from_dict(data, base_dir=tmp, known_bots=runner.known_bots_check(PLUGINS),
                            games=PLUGINS.games)


class Drip:
    """A source with one piece in flight at most: 'nothing now' until every game it
    handed out is back, as a matchmaker waiting for results would say."""

    def __init__(self, fixtures: list[Fixture]) -> None:
        self.pieces = chunks(fixtures, 1, most_pairs=1)
        self.out: set[str] = set()
        self.most_out = 0
        self.waits = 0

    def take(self, slots, most_pairs=None):
        if self.out:
            self.waits += 1
            return []
        if not self.pieces:
            return None
        piece = self.pieces.pop(0)
        self.out = {f.key for f in piece}
        self.most_out = max(self.most_out, len(self.out))
        return piece

    def done(self, fixture: Fixture, record: GameRecord) -> None:
        self.out.discard(fixture.key)

    def __iter__(self):
        from arena.league.sources import fixtures_of
        return fixtures_of(self)


def drive(games, source) -> list[str]:
    """Read every record as a run does (telling the source of each), in a thread: a hang
    guard, not a timing."""
    keys: list[str] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for fixture, record in games:
                assert record.termination is not Termination.ABORTED
                keys.append(fixture.key)
                source.done(fixture, record)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            errors.append(exc)
        finally:
            games.close()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(timeout=240)
    assert not thread.is_alive(), "the executor never finished"
    if errors:
        raise errors[0]
    return keys


@pytest.mark.parametrize("workers", [1, 2])
def test_a_source_with_nothing_now_is_asked_again_after_each_record(tmp_path, workers):
    config = league(tmp_path)
    fixtures = schedule(config, PLUGINS.games)
    source = Drip(fixtures)
    keys = drive(start_playing(make_job(config, PLUGINS), source, workers, pin=False), source)
    assert sorted(keys) == sorted(f.key for f in fixtures)       # each once, none lost
    assert source.most_out == 2 and not source.pieces and not source.out
    if workers > 1:      # a worker asking while the other plays the one piece out is told to wait
        assert source.waits > 0


@pytest.mark.parametrize("workers", [1, 2])
def test_a_source_that_waits_with_nothing_in_flight_stops_the_run_in_one_line(tmp_path, workers):
    class Never(Drip):
        def take(self, slots, most_pairs=None):
            return []
    config = league(tmp_path)
    source = Never([])
    with pytest.raises(Exception) as caught:
        drive(start_playing(make_job(config, PLUGINS), source, workers, pin=False), source)
    assert "nothing to play and no game is in flight" in str(caught.value)
    assert isinstance(caught.value, RunError) or type(caught.value).__name__ == "SourceStalled"


def test_a_fixture_list_is_cut_once_for_its_first_taker_and_then_finished():
    fixtures = schedule(league(Path("/tmp")), PLUGINS.games)
    source = FixtureList(fixtures)
    first = source.take(2, 1)
    rest = []
    while (piece := source.take(5)) is not None:
        rest.append(piece)
    assert [first, *rest] == chunks(fixtures, 2, most_pairs=1)
    assert source.take(2, 1) is None and list(FixtureList([])) == []
