"""Fixture sources: what executors pull a run's games from, a piece at a time, as slots free up.

A round robin or a gauntlet is a finite list of fixtures (FixtureList); a ladder is an
endless source whose next fixtures depend on the results so far (arena.league.ladder). So a source is asked again
after each record comes back (the run tells it of every record with `done`), and its answer
says which of three things holds: a piece to play, nothing now (ask again after the next
record), or finished.
"""

from __future__ import annotations

import functools
import inspect
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any, Protocol

from arena.errors import ArenaError
from arena.record import GameRecord

from .schedule import Fixture

#: a piece: fixtures of one pairing that one worker plays in a row, keeping its bots started
Piece = list[Fixture]


class SourceStalled(ArenaError, RuntimeError):
    """A source that had nothing to hand out while no game was being played: it would wait
    for a record that can never come."""

    def __init__(self) -> None:
        super().__init__("the fixture source has nothing to play and no game is in flight "
                         "whose result could change that")


class FixtureSource(Protocol):
    """Where an executor takes its games from (`arena.league.sources`).

    A source may also accept `running` in its take, take(slots, most_pairs, running=...):
    the names of the bots whose processes the asking worker keeps started, so that among
    near-equal pieces it can hand out one those bots play (a start costs more than most
    games). Executors ask through take_from, which passes it only to a take that has such
    a parameter: a source written without it works unchanged."""

    def take(self, slots: int, most_pairs: int | None = None) -> Piece | None:
        """The next piece to play; [] when there is nothing now (ask again once the next
        record is back); None when the source is finished for good. slots: how many games
        the executor plays at a time; most_pairs: the most seat-swapped pairs a piece may
        hold (None: as the source likes, a whole pairing at most)."""
        ...

    def done(self, fixture: Fixture, record: GameRecord) -> None:
        """A game handed out has ended (its record may be ABORTED: not played after all)."""
        ...

    def __iter__(self) -> Iterator[Fixture]:
        """Every fixture, one by one, for an executor that plays one game at a time and
        asks for the next only once the last one's record is back."""
        ...


def takes_running(source: FixtureSource) -> bool:
    """True if the source's take accepts `running` (the bots the asking worker runs)."""
    return _take_has_running(type(source))


@functools.cache
def _take_has_running(kind: Any) -> bool:
    try:
        return "running" in inspect.signature(kind.take).parameters
    except (TypeError, ValueError, AttributeError):
        return False


def take_from(source: FixtureSource, slots: int, most_pairs: int | None = None,
              running: Collection[str] = frozenset()) -> Piece | None:
    """source.take(slots, most_pairs), telling it the bots the asking worker runs when its
    take accepts them (FixtureSource)."""
    if takes_running(source):
        return source.take(slots, most_pairs, running=frozenset(running))  # type: ignore[call-arg]
    return source.take(slots, most_pairs)


def fixtures_of(source: FixtureSource,
                running: Callable[[], Collection[str]] | None = None) -> Iterator[Fixture]:
    """The fixtures of a source one at a time (pieces of one pair, taken as each is
    needed, telling it the bots running() names); SourceStalled if it has nothing now,
    since nothing else is in flight."""
    while True:
        piece = take_from(source, 1, 1, running() if running is not None else frozenset())
        if piece is None:
            return
        if not piece:
            raise SourceStalled()
        yield from piece


class FixtureList:
    """A finite source: a schedule's fixtures, cut into pieces (chunks) by the first
    executor's call to take, then handed out in that order; never 'nothing now'."""

    def __init__(self, fixtures: Sequence[Fixture]) -> None:
        self.fixtures = list(fixtures)
        self._pieces: deque[Piece] | None = None

    def __len__(self) -> int:
        return len(self.fixtures)

    def take(self, slots: int, most_pairs: int | None = None) -> Piece | None:
        """The next piece of the cut made for the first caller's slots and most_pairs."""
        if self._pieces is None:
            self._pieces = deque(chunks(self.fixtures, slots, most_pairs))
        return self._pieces.popleft() if self._pieces else None

    def done(self, fixture: Fixture, record: GameRecord) -> None:
        """Nothing to learn: the list is fixed."""
        return None

    def __iter__(self) -> Iterator[Fixture]:
        return fixtures_of(self)


#: bots in a block of the crosstable's side: a league of more than twice this many plays
#: its pairings block by block (chunks), so a worker needs 2 x this many bots started at
#: a time (about 0.75 GB of sandboxed uttt-random), not every bot of the league
BLOCK_BOTS = 16


def chunks(fixtures: list[Fixture], workers: int, most_pairs: int | None = None,
           block_bots: int = BLOCK_BOTS) -> list[Piece]:
    """Fixtures cut into pieces a worker plays in a row, handed out interleaved.

    A piece holds games of one pairing, at most most_pairs seat-swapped pairs of them;
    without most_pairs a piece is a whole pairing (its two bots start once), and only
    when there are too few pairings to give every worker two pieces are pairings split,
    evenly. Pieces come round by round: every pairing's i-th piece before any pairing's
    (i+1)-th, so a run stopped early has played about as much of every pairing (with
    most_pairs=1, pair k of every pairing before pair k+1 of any). Within a round, a
    league of more than 2 x block_bots bots goes block by block of its crosstable (the
    bots, by name, in groups of at most block_bots; a block: the pairings of two groups,
    or of one group among itself), so the bots a worker keeps started play on: each block
    round (blocks of every group once) leaves every bot about as many games as the others.
    """
    by_pairing: dict[str, list[Fixture]] = {}
    for fixture in fixtures:
        by_pairing.setdefault(fixture.pairing, []).append(fixture)
    splits = 1 if workers <= 1 or not by_pairing else -(-2 * workers // len(by_pairing))
    out: list[tuple[int, list[Fixture]]] = []     # (piece number in its pairing, piece)
    for games in by_pairing.values():
        if most_pairs is not None:
            pairs: dict[int, list[Fixture]] = {}
            for fixture in games:
                pairs.setdefault(fixture.round // 2, []).append(fixture)
            blocks = list(pairs.values())
            grouped = [[f for pair in blocks[i:i + most_pairs] for f in pair]
                       for i in range(0, len(blocks), most_pairs)]
            # numbered by pair, not by position: in a resumed run, pairs already played
            # keep their turn rather than pushing the pairing's next pairs ahead
            out.extend((piece[0].round // 2 // most_pairs, piece) for piece in grouped)
            continue
        size = -(-len(games) // min(splits, len(games)))
        out.extend(enumerate(games[i:i + size] for i in range(0, len(games), size)))
    block = _crosstable_blocks(fixtures, block_bots)
    return [piece for _n, piece in sorted(out, key=lambda p: (p[0], block(p[1][0]), p[1][0].index))]


def _crosstable_blocks(fixtures: list[Fixture], block_bots: int) -> Callable[[Fixture], tuple[int, ...]]:
    """The block of a fixture's pairing as a sort key: (block round, lower group), where
    block round (i + j) mod groups holds each group once; () for all when there are at
    most 2 x block_bots bots (one block: the order stays the seeds')."""
    names = sorted({name for f in fixtures for name in (f.seat0, f.seat1)})
    if len(names) <= 2 * block_bots:
        return lambda fixture: ()
    groups = -(-len(names) // block_bots)
    size = -(-len(names) // groups)      # groups as even as they go
    group = {name: i // size for i, name in enumerate(names)}

    def block(fixture: Fixture) -> tuple[int, ...]:
        a, b = group[fixture.seat0], group[fixture.seat1]
        return ((a + b) % groups, min(a, b))
    return block


def as_source(fixtures: list[Fixture] | FixtureSource) -> FixtureSource:
    """A source as it is, or a list of fixtures as a FixtureList."""
    if isinstance(fixtures, list):
        return FixtureList(fixtures)
    return fixtures
