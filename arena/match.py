"""`arena match` as a test runner: two bots' games played through the one Run a league
plays through (arena.league.run: the registered executor, the store, the stop), counted
from the first bot's side as they finish, stopped by an SPRT, stored to resume.

The games are fixtures as in a league: pair k has seed `seed + k` and one opening, the
first bot moves first in the pair's first game. The statistics are arena.stats's. What a
user reads of a match is arena.cli.matchtext's; what its store keeps to know it again,
arena.league.identity's (match_identity).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.league.config import BotConfig
from arena.league.drive import Driven
from arena.league.executors.base import Executor, GameJob, Placement
from arena.league.executors.local import play_fixtures
from arena.league.pairs import Tally
from arena.league.run import Games, Run, RunOptions
from arena.league.schedule import Fixture
from arena.league.sight import own_code
from arena.league.sources import FixtureList, FixtureSource
from arena.league.store import Store
from arena.record import GameRecord
from arena.referee import BotSpec
from arena.referee.botspec import parse_command
from arena.stats import Decision, MatchResults, Pentanomial, SprtSpec, SprtState, check

#: games a test with --sprt plays at most when --games is not given
DEFAULT_SPRT_CAP = 2000

OpeningOf = Callable[[int, int], tuple[int, ...]]
#: how run_match plays a list of fixtures: (job, fixtures, workers) -> records as games end
PlayFixtures = Callable[[GameJob, list[Fixture], int], Iterator[tuple[Fixture, GameRecord]]]


def match_fixtures(a: str, b: str, games: int, seed: int,
                   opening_of: OpeningOf | None = None) -> list[Fixture]:
    """Games A-B, B-A, A-B, ...: pair k has seed seed + k and opening opening_of(k, seed + k)."""
    fixtures = []
    for i in range(games):
        k, swap = divmod(i, 2)
        opening = opening_of(k, seed + k) if opening_of is not None else ()
        fixtures.append(Fixture.of_pair(a, b, k, swap, seed + k, opening, index=i))
    return fixtures


class MatchTally:
    """The first bot's results so far: every game one by one (results()), and the
    seat-swapped pairs as the SPRT reads them: in fixture order, pair k once it and every
    pair before it are complete (read_pair), whatever order games finish in. So the test
    reads the same pairs however many games are played at once, and after a stop and resume."""

    def __init__(self, a: str, b: str) -> None:
        self.a, self.b = a, b
        self._tally = Tally()          # every game counted
        self._in_order = Tally()       # the games of the pairs read
        self._waiting: dict[int, GameRecord] = {}   # fixture index -> a game not read yet
        self.pairs_read = 0

    def add(self, record: GameRecord, index: int | None = None) -> bool:
        """Count a finished game (index: its fixture's, pair index // 2, for the pairs read
        in order); True when it completed a pair."""
        if index is not None:
            self._waiting[index] = record
        return self._tally.add(record)

    def read_pair(self) -> bool:
        """Read the next pair in order if both its games are in; False if it is not complete."""
        first, second = 2 * self.pairs_read, 2 * self.pairs_read + 1
        if first not in self._waiting or second not in self._waiting:
            return False
        self._in_order.add(self._waiting.pop(first))
        self._in_order.add(self._waiting.pop(second))
        self.pairs_read += 1
        return True

    @property
    def pentanomial(self) -> Pentanomial:
        """The pairs read in order: what the SPRT is checked on."""
        return self._in_order.between(self.a, self.b).pairs

    def results(self) -> MatchResults:
        """Everything counted, as arena.stats takes it."""
        return self._tally.between(self.a, self.b)

    def results_read(self) -> MatchResults:
        """The games of the pairs read in order only: what a decided test reports."""
        return self._in_order.between(self.a, self.b)


def _read_pairs(tally: MatchTally, sprt: SprtSpec, state: SprtState) -> SprtState:
    """Read the pairs complete in order, checking the SPRT after each, up to a decision."""
    while state.decision is Decision.CONTINUE and tally.read_pair():
        state = check(sprt, tally.pentanomial)
    return state


@dataclass
class MatchOutcome:
    """How a match run ended."""

    results: MatchResults
    sprt: SprtState | None
    already: int            #: games stored before this run
    played: int             #: games this run played and counted
    interrupted: bool

    @property
    def decided(self) -> bool:
        return self.sprt is not None and self.sprt.decision is not Decision.CONTINUE


class MatchGames(Games[MatchOutcome]):
    """A match's games for the Run: its fixtures the store lacks, each counted as it ends
    (MatchTally) and, with an SPRT, the test checked after every pair read in order, up to
    a decision, which stops the run.

    At a stop (decision or Ctrl-C) the games still being played are discarded: their
    processes are killed and nothing of them is counted or stored. A decided test reports
    the games of the pairs it read; games finished beyond them are stored, not counted.
    Undecided (the cap, Ctrl-C), every stored game counts, a lone one unpaired. on_game:
    told of each game counted (after the tally and the status line); start: the status
    line's first words."""

    def __init__(self, fixtures: list[Fixture], tally: MatchTally, sprt: SprtSpec | None = None,
                 on_game: Callable[[Fixture, GameRecord], None] | None = None,
                 start: str | None = None) -> None:
        self.fixtures, self.tally, self.sprt, self.on_game, self.start = fixtures, tally, sprt, on_game, start
        self.state: SprtState | None = None
        self.already = 0

    def source(self, run: Run) -> FixtureSource:
        tally, store = self.tally, run.store
        if store is not None:
            stored = list(store.games.records(current=True))    # the games of the bots as they are now
            for game in stored:
                tally.add(game.record, game.fixture_index)
            self.already = len(stored)
        if self.sprt is not None:
            self.state = _read_pairs(tally, self.sprt, check(self.sprt, tally.pentanomial))
        todo = store.games.missing(self.fixtures) if store is not None else self.fixtures
        return FixtureList([] if self._decided() else todo)

    def begin(self, run: Run) -> str | None:
        return self.start

    def record(self, run: Run, fixture: Fixture, record: GameRecord) -> bool:
        """Count a stored game; True at the SPRT's decision."""
        self.tally.add(record, fixture.index)
        if self.sprt is not None and self.state is not None:
            self.state = _read_pairs(self.tally, self.sprt, self.state)
        if run.progress is not None:
            run.progress.update(record)
        if self.on_game is not None:
            self.on_game(fixture, record)
        return self._decided()

    def end(self, run: Run, driven: Driven) -> MatchOutcome:
        # a decided test reports the pairs it read, as an uninterrupted run would: not the
        # games that happened to finish beyond them (they stay stored)
        tally = self.tally
        return MatchOutcome(tally.results_read() if self._decided() else tally.results(), self.state,
                            self.already, driven.played, driven.interrupted)

    def _decided(self) -> bool:
        return self.state is not None and self.state.decision is not Decision.CONTINUE


class _Playing(Executor):
    """A function that plays a list of fixtures (run_match's play) as an executor."""

    name = "play"

    def __init__(self, play: PlayFixtures) -> None:
        self._play = play

    def play(self, job: GameJob, source: FixtureSource, workers: int,
             placement: Placement | None = None) -> Iterator[tuple[Fixture, GameRecord]]:
        assert isinstance(source, FixtureList)
        return self._play(job, source.fixtures, workers)


def run_match(job: GameJob, fixtures: list[Fixture], workers: int, tally: MatchTally,
              sprt: SprtSpec | None = None, store: Store | None = None,
              on_game: Callable[[Fixture, GameRecord], None] | None = None,
              play: PlayFixtures = play_fixtures) -> MatchOutcome:
    """Play the fixtures not stored yet on `workers` processes (play: how, by default local
    worker processes), counting each game as it ends (MatchGames, through the one Run);
    with an SPRT, stop at a decision. `arena match` plays the same games through the
    registered `local` executor."""
    run = Run(None, options=RunOptions(workers=workers), executor=_Playing(play))
    run.store, run.job = store, job
    return run.play(MatchGames(fixtures, tally, sprt, on_game))


# --- the bots' versions ------------------------------------------------------------------------

def match_bot_config(spec: BotSpec, reads: Iterable[str], plugins: Any) -> BotConfig:
    """A match's bot as a league config would give it, for its fingerprint
    (arena.league.versions): a registered bot with its options, or a command with its own
    directory; reads: the --read paths, which are the bot's too."""
    readable = tuple(Path(path) for path in reads)
    if plugins.bots.get(spec.spec) is not None:
        return BotConfig(name=spec.name, bot=spec.spec, options=dict(spec.options),
                         readable=readable)
    dialect, _, command = spec.spec.partition(":")
    code = own_code(parse_command(command))
    return BotConfig(name=spec.name, command=command, argv=spec.argv, dialect=dialect,
                     dir=code.parent if code is not None else None, readable=readable)
