"""Results counted from game outcomes, the one tally every consumer reads (the league table,
its crosstable and Elo fit, the site, `arena match`): per pairing, W/D/L and seat-swapped pairs.

The schedule plays each pairing in pairs of games that share a seed with the seats
swapped (schedule.make_fixtures); the seed and the two names find a game's partner,
whatever the fixture keys look like. A game whose partner is missing (not played yet,
or left out of the standings) counts on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from arena.record import GameRecord, Result
from arena.stats import MatchResults, Pentanomial, Trinomial

from .ratings import GameRow, standing_points

Pairing = tuple[str, str]     #: two bot names, sorted


class _Count:
    """One pairing's games from its first bot's side: W/D/L, whole pairs, pairs waiting."""

    def __init__(self) -> None:
        self.wdl = [0, 0, 0]
        self.pairs = [0, 0, 0, 0, 0]
        #: seed -> first bot's points in its games as seat 0, and as seat 1, not yet paired
        self.waiting: dict[int, tuple[list[float], list[float]]] = {}
        self.lone: list[float] = []

    def add(self, seed: int, seat: int, result: Result) -> bool:
        self.wdl[(Result.WIN, Result.DRAW, Result.LOSS).index(result)] += 1
        first, second = self.waiting.setdefault(seed, ([], []))
        (first if seat == 0 else second).append(result.points)
        if not (first and second):
            return False
        self.pairs[round(2 * (first.pop(0) + second.pop(0)))] += 1
        if not first and not second:
            del self.waiting[seed]
        return True

    def add_lone(self, result: Result) -> None:
        """A result that has no partner game (a pair's in a game of more seats)."""
        self.wdl[(Result.WIN, Result.DRAW, Result.LOSS).index(result)] += 1
        self.lone.append(result.points)

    def results(self, pairing: Pairing) -> MatchResults:
        lone = [p for first, second in self.waiting.values() for p in first + second] + self.lone
        p = self.pairs
        return MatchResults(pairing[0], pairing[1], Trinomial(*self.wdl),
                            Pentanomial((p[0], p[1], p[2], p[3], p[4])),
                            Trinomial(lone.count(1.0), lone.count(0.5), lone.count(0.0)))


class Tally:
    """Games counted one by one as they come, as the standings count them (Outcome.result);
    games of a bot against itself, or with a bot outside `bots`, are not counted."""

    def __init__(self, faults_count_as_losses: bool = True, bots: Sequence[str] | None = None) -> None:
        self.faults_count_as_losses = faults_count_as_losses
        self._wanted = set(bots) if bots is not None else None
        self._counts: dict[Pairing, _Count] = {}     # in the order pairings were first counted

    def add(self, record: GameRecord) -> bool:
        """Count a game; True when it completed a seat-swapped pair. A game of more than two
        seats counts as its P(P-1)/2 pairwise results, each a lone game: the bot that
        finished ahead of the other wins, bots tied draw (a fault ranks as the ranking says;
        a game with a fault counts for none when faults do not count as losses)."""
        if len(record.bots) > 2:
            self._add_split(record)
            return False
        names = (record.bots[0].name, record.bots[1].name)
        if names[0] == names[1] or (self._wanted is not None and not self._wanted.issuperset(names)):
            return False
        pairing: Pairing = (min(names), max(names))
        seat = 0 if names[0] == pairing[0] else 1     # where pairing[0] sat
        result = record.outcome.result(seat, self.faults_count_as_losses)
        if result is None:
            return False
        return self._counts.setdefault(pairing, _Count()).add(record.seed, seat, result)

    def _add_split(self, record: GameRecord) -> None:
        points = standing_points(record, self.faults_count_as_losses)
        if points is None:
            return
        names = [bot.name for bot in record.bots]
        for i, j in combinations(range(len(names)), 2):
            if names[i] == names[j] or (self._wanted is not None
                                        and not self._wanted.issuperset((names[i], names[j]))):
                continue
            first, second = (i, j) if names[i] < names[j] else (j, i)
            result = (Result.WIN if points[first] > points[second]
                      else Result.DRAW if points[first] == points[second] else Result.LOSS)
            self._counts.setdefault((names[first], names[second]), _Count()).add_lone(result)

    def results(self) -> dict[Pairing, MatchResults]:
        """Every pairing's results from its first (alphabetically) bot's side, in the order met."""
        return {pairing: count.results(pairing) for pairing, count in self._counts.items()}

    def between(self, a: str, b: str) -> MatchResults:
        """The results of a against b from a's side (empty if they never met)."""
        pairing = (min(a, b), max(a, b))
        count = self._counts.get(pairing)
        results = count.results(pairing) if count is not None else None
        return _from_side(results, a, b)


def match_results(games: Iterable[GameRow], faults_count_as_losses: bool = True,
                  bots: Sequence[str] | None = None) -> dict[Pairing, MatchResults]:
    """Every pairing's results from its first (alphabetically) bot's side, in the order met.

    Games are taken as the standings count them (Outcome.result); with bots, only games
    between two of them.
    """
    tally = Tally(faults_count_as_losses, bots)
    for _key, _index, record in games:
        tally.add(record)
    return tally.results()


def between(table: Mapping[Pairing, MatchResults], a: str, b: str) -> MatchResults:
    """The results of a against b from a's side (empty if they never met)."""
    return _from_side(table.get((min(a, b), max(a, b))), a, b)


def _from_side(results: MatchResults | None, a: str, b: str) -> MatchResults:
    if results is None:
        return MatchResults(a, b, Trinomial(), Pentanomial(), Trinomial())
    return results if a == results.first else results.swapped()
