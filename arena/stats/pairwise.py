"""Two bots' results as counts, and what they say: score, Elo and normalized Elo with 95%
intervals, likelihood of superiority, draw rate.

Pure functions over counts; every formula is in docs/statistics.md. Counts are kept from
the first bot's side. Seat-swapped game pairs are the unit when there are any (the
pentanomial model: a pair's two games share a seed, so they are not independent); games
without their partner count one by one (the trinomial model).

Intervals, LOS and normalized Elo add a prior of a virtual win and a virtual loss to the
units (Laplace's add-one, as Agresti and Coull's interval adds pseudo-games): without it
three won games, or two drawn ones, have no spread at all, and the interval collapses
to a point and LOS to 100% (or 50%) after a handful of games.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from statistics import NormalDist

#: two-sided 95%: the normal quantile 0.975, 1.959964
Z95 = NormalDist().inv_cdf(0.975)
#: normalized Elo per t-value: 800 / ln 10 (fishtest's nelo_divided_by_nt)
NELO_PER_T = 800 / math.log(10)
#: virtual games between two bots that met, half of them won and half lost: the prior of
#: intervals, LOS and the league fit (a virtual win and a virtual loss)
DEFAULT_PRIOR_GAMES = 2.0


@dataclass(frozen=True)
class Trinomial:
    """Games counted one by one: wins, draws and losses of the first bot."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """How many games."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """The first bot's points: win 1, draw 0.5."""
        return self.wins + 0.5 * self.draws

    def bins(self) -> Iterator[tuple[float, int]]:
        """(points of one game, how many games scored that), from 0 up."""
        yield from ((0.0, self.losses), (0.5, self.draws), (1.0, self.wins))

    def __add__(self, other: Trinomial) -> Trinomial:
        return Trinomial(self.wins + other.wins, self.draws + other.draws,
                         self.losses + other.losses)


#: pair scores of the pentanomial bins, from the first bot's side: LL, LD, WL or DD, WD, WW
PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)


@dataclass(frozen=True)
class Pentanomial:
    """Seat-swapped game pairs by the first bot's points over the pair: 0, 0.5, 1, 1.5, 2.

    counts[i] is the number of pairs that scored PAIR_SCORES[i]; a win and a loss and
    two draws both score 1 and share a bin, as in fishtest and fastchess.
    """

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        if len(self.counts) != 5 or any(c < 0 for c in self.counts):
            raise ValueError(f"pentanomial counts are five counts >= 0, not {self.counts}")

    @classmethod
    def of(cls, pair_scores: list[float]) -> Pentanomial:
        """Counts of a list of pair scores (each 0, 0.5, 1, 1.5 or 2)."""
        counts = [0] * 5
        for score in pair_scores:
            index = round(score * 2)
            if not 0 <= index <= 4 or index != score * 2:
                raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2, not {score}")
            counts[index] += 1
        return cls((counts[0], counts[1], counts[2], counts[3], counts[4]))

    @property
    def pairs(self) -> int:
        """How many pairs."""
        return sum(self.counts)

    @property
    def games(self) -> int:
        """How many games: two a pair."""
        return 2 * self.pairs

    @property
    def points(self) -> float:
        """The first bot's points over all pairs."""
        return sum(score * n for score, n in zip(PAIR_SCORES, self.counts))

    def bins(self) -> Iterator[tuple[float, int]]:
        """(points of one pair, how many pairs scored that), from 0 up."""
        yield from zip(PAIR_SCORES, self.counts)

    def __add__(self, other: Pentanomial) -> Pentanomial:
        a, b = self.counts, other.counts
        return Pentanomial((a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4]))


@dataclass(frozen=True)
class MatchResults:
    """Everything two bots played, from `first`'s side."""

    first: str
    second: str
    games: Trinomial            #: every game that counts, one by one
    pairs: Pentanomial          #: the seat-swapped pairs among them
    unpaired: Trinomial         #: games whose partner is missing or does not count

    def __post_init__(self) -> None:
        if self.games.games != self.pairs.games + self.unpaired.games:
            raise ValueError(f"{self.first} vs {self.second}: {self.games.games} games are not "
                             f"{self.pairs.pairs} pairs and {self.unpaired.games} unpaired")

    def swapped(self) -> MatchResults:
        """The same results from `second`'s side."""
        g, p, u = self.games, self.pairs.counts, self.unpaired
        return MatchResults(self.second, self.first, Trinomial(g.losses, g.draws, g.wins),
                            Pentanomial((p[4], p[3], p[2], p[1], p[0])),
                            Trinomial(u.losses, u.draws, u.wins))

    def clusters(self) -> Iterator[tuple[float, int, int]]:
        """(points, games, how many) of the independent units: pairs, then unpaired games."""
        for score, n in self.pairs.bins():
            yield score, 2, n
        for score, n in self.unpaired.bins():
            yield score, 1, n


def prior_units(prior_games: float) -> tuple[tuple[float, int, float], ...]:
    """(points, games, how many) of the prior's virtual games: half won, half lost, each
    game on its own (a unit of the spread as a real unpaired game is)."""
    if prior_games < 0:
        raise ValueError(f"prior_games must be >= 0, not {prior_games}")
    return (1.0, 1, prior_games / 2), (0.0, 1, prior_games / 2)


@dataclass(frozen=True)
class Summary:
    """What a match says about the first bot against the second (None: not defined)."""

    games: int
    wins: int
    draws: int
    losses: int
    pairs: int
    pentanomial: tuple[int, int, int, int, int]
    score: float | None          #: points per game
    score_low: float | None      #: 95% interval of the score (with the prior's games)
    score_high: float | None
    stderr: float | None         #: standard error of the score (with the prior's games)
    elo: float | None            #: logistic Elo difference; +-inf at a score of 1 or 0
    elo_low: float | None        #: the score interval's ends in Elo
    elo_high: float | None
    nelo: float | None           #: normalized Elo
    nelo_error: float | None     #: half-width of its 95% interval
    los: float | None            #: likelihood of superiority: P(first is stronger)
    draw_rate: float | None

    @property
    def elo_error(self) -> float | None:
        """Half the width of the Elo interval, the "+-" fishtest and fastchess print; +inf
        when an end is infinite (a score interval reaching 1 or 0, as a sweep's does, and
        without a prior its [1, 1] would make inf - inf = nan), so a reader shows the ends."""
        if self.elo_low is None or self.elo_high is None:
            return None
        if math.isinf(self.elo_low) or math.isinf(self.elo_high):
            return math.inf
        return (self.elo_high - self.elo_low) / 2


def logistic_elo(score: float) -> float:
    """Elo difference of an expected score: -400 log10(1/score - 1); +-inf at 1 and 0."""
    if score >= 1:
        return math.inf
    if score <= 0:
        return -math.inf
    return -400 * math.log10(1 / score - 1)


def expected_score(elo: float) -> float:
    """Expected score of an Elo difference: 1 / (1 + 10^(-elo/400))."""
    return 1 / (1 + 10 ** (-elo / 400))


def score_stderr(results: MatchResults,
                 prior_games: float = 0.0) -> tuple[float, float] | None:
    """(score, standard error) over the independent units (pairs and unpaired games), and
    the prior's virtual games; None without games (real or virtual).

    Var(score) = sum over units of (points - games * score)^2 / games^2: with pairs only
    this is fishtest's pentanomial variance, with single games only the trinomial one.
    With prior_games > 0 the spread is never 0 (a virtual win and loss always differ).
    """
    units = [*results.clusters(), *prior_units(prior_games)]
    games = sum(size * n for _points, size, n in units)
    if not games:
        return None
    score = sum(points * n for points, _size, n in units) / games
    spread = sum(n * (points - size * score) ** 2 for points, size, n in units)
    return score, math.sqrt(spread) / games


def los(score: float, stderr: float) -> float:
    """Likelihood of superiority, Phi((score - 1/2) / stderr); 1/2 without any spread."""
    if stderr == 0:
        return 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return NormalDist().cdf((score - 0.5) / stderr)


def summarize(results: MatchResults, prior_games: float = DEFAULT_PRIOR_GAMES) -> Summary:
    """Score, Elo, normalized Elo, LOS and draw rate of a match, with 95% intervals.

    The score and Elo are the games' own; the interval, LOS and normalized Elo are those
    of the games with the prior's virtual ones, centred on their score (as Agresti-Coull),
    so a clean sweep of 3 games gives score 1 with the interval [0.45, 1] and LOS 95%,
    not [1, 1] and 100%.
    """
    g = results.games
    estimate = score_stderr(results, prior_games)
    if not g.games or estimate is None:
        return Summary(0, 0, 0, 0, 0, results.pairs.counts, None, None, None, None, None, None,
                       None, None, None, None, None)
    centre, stderr = estimate
    games = g.games + prior_games
    low, high = max(0.0, centre - Z95 * stderr), min(1.0, centre + Z95 * stderr)
    sigma_game = stderr * math.sqrt(games)     # per game, as fishtest's sigma_pg
    score = sum(points * n for points, _size, n in results.clusters()) / g.games
    return Summary(
        games=g.games, wins=g.wins, draws=g.draws, losses=g.losses, pairs=results.pairs.pairs,
        pentanomial=results.pairs.counts, score=score, score_low=low, score_high=high,
        stderr=stderr, elo=logistic_elo(score), elo_low=logistic_elo(low),
        elo_high=logistic_elo(high),
        nelo=None if sigma_game == 0 else (centre - 0.5) / sigma_game * NELO_PER_T,
        nelo_error=Z95 * NELO_PER_T / math.sqrt(games),
        los=los(centre, stderr), draw_rate=g.draws / g.games)
