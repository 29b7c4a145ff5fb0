"""Stored games as the statistics read them: per pairing, W/D/L and seat-swapped pairs.

The schedule plays each pairing in pairs of games that share a seed with the seats
swapped (schedule.make_fixtures); the seed and the two names find a game's partner,
whatever the fixture keys look like. A game whose partner is missing (not played yet,
or left out of the standings) counts on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from arena.stats import MatchResults, Pentanomial, Trinomial

from .ratings import GameRow, points

Pairing = tuple[str, str]     #: two bot names, sorted


def match_results(games: Iterable[GameRow], faults_count_as_losses: bool = True,
                  bots: Sequence[str] | None = None) -> dict[Pairing, MatchResults]:
    """Every pairing's results from its first (alphabetically) bot's side, in the order met.

    Games are taken as the standings count them (ratings.points); with bots, only games
    between two of them.
    """
    wanted = set(bots) if bots is not None else None
    # (pairing, seed) -> [points of pairing[0] in games where it sat first, ... second]
    by_seed: dict[tuple[Pairing, int], tuple[list[float], list[float]]] = {}
    for _key, _index, record in games:
        names = (record.bots[0].name, record.bots[1].name)
        if names[0] == names[1] or (wanted is not None and not wanted.issuperset(names)):
            continue
        result = points(record, faults_count_as_losses)
        if result is None:
            continue
        pairing: Pairing = (min(names), max(names))
        seat = 0 if names[0] == pairing[0] else 1     # where pairing[0] sat
        by_seed.setdefault((pairing, record.seed), ([], []))[seat].append(result[seat])

    tallies: dict[Pairing, tuple[list[float], list[float]]] = {}   # pair scores, every game
    singles: dict[Pairing, list[float]] = {}
    for (pairing, _seed), (first_seat, second_seat) in by_seed.items():
        pair_scores, every = tallies.setdefault(pairing, ([], []))
        matched = min(len(first_seat), len(second_seat))
        pair_scores += [a + b for a, b in zip(first_seat, second_seat)]
        every += first_seat + second_seat
        singles.setdefault(pairing, []).extend(first_seat[matched:] + second_seat[matched:])
    return {pairing: MatchResults(pairing[0], pairing[1], _trinomial(every),
                                  Pentanomial.of(pair_scores), _trinomial(singles[pairing]))
            for pairing, (pair_scores, every) in tallies.items()}


def between(table: Mapping[Pairing, MatchResults], a: str, b: str) -> MatchResults:
    """The results of a against b from a's side (empty if they never met)."""
    first, second = min(a, b), max(a, b)
    results = table.get((first, second))
    if results is None:
        return MatchResults(a, b, Trinomial(), Pentanomial(), Trinomial())
    return results if a == first else results.swapped()


def _trinomial(scores: list[float]) -> Trinomial:
    return Trinomial(scores.count(1.0), scores.count(0.5), scores.count(0.0))
