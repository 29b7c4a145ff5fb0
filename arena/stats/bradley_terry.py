"""Elo ratings of a whole league from all its games at once (a Bradley-Terry fit, as Ordo).

The model: bot i scores 1 / (1 + 10^((r_j - r_i) / 400)) on average against bot j, a
draw being half a win. The ratings maximize the likelihood of every game's points,
so they depend on the results only, never on the order games were played (unlike
TrueSkill's or Elo's updates). Newton's method on the concave log-likelihood finds them.
A prior of virtual games between bots that met, half won and half lost, keeps ratings
finite when a bot won or lost every game (BayesElo adds virtual draws for the same
reason); it is the pairwise statistics' prior (arena.stats.pairwise.DEFAULT_PRIOR_GAMES).

Intervals come from the curvature of the likelihood (its Hessian H) with the spread
of the score gradient measured over the independent units, seat-swapped pairs and
unpaired games, and the prior's virtual games: cov = H^-1 J H^-1 (a sandwich estimator),
so the correlation of a pair's two games is counted, as in the pentanomial model. The
virtual games are in J as in H: without them two drawn games would have no spread and
an interval of 0. Formulas: docs/statistics.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from .pairwise import DEFAULT_PRIOR_GAMES, Z95, MatchResults, prior_units

#: d(expected score)/d(rating) / (p (1 - p)): ln 10 / 400
SLOPE = math.log(10) / 400


@dataclass(frozen=True)
class EloFit:
    """Ratings of a league with their covariance, anchored at one bot or at the mean."""

    ratings: dict[str, float]         #: bot -> Elo; bots outside the fit are missing
    covariance: dict[tuple[str, str], float]
    anchor: str | None                #: the bot rated 0, or None: the mean is 0

    def error(self, bot: str) -> float:
        """Half-width of the 95% interval of a bot's rating (0 for the anchor)."""
        return Z95 * math.sqrt(max(0.0, self.covariance[bot, bot]))

    def interval(self, bot: str) -> tuple[float, float]:
        """The 95% interval of a bot's rating."""
        return self.ratings[bot] - self.error(bot), self.ratings[bot] + self.error(bot)

    def difference_sd(self, a: str, b: str) -> float:
        """Standard deviation of r_a - r_b."""
        c = self.covariance
        return math.sqrt(max(0.0, c[a, a] + c[b, b] - 2 * c[a, b]))

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority of a over b: Phi((r_a - r_b) / sd(r_a - r_b))."""
        diff, sd = self.ratings[a] - self.ratings[b], self.difference_sd(a, b)
        if sd == 0:
            return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
        return NormalDist().cdf(diff / sd)


def fit_elo(matches: Iterable[MatchResults], bots: Sequence[str] | None = None,
            anchor: str | None = None, prior_games: float = DEFAULT_PRIOR_GAMES) -> EloFit:
    """Fit ratings to the matches; anchor names the bot rated 0, else the mean is 0.

    Only the largest group of bots connected by games is rated (ratings of groups that
    never met each other are not comparable); bots without games are left out.
    prior_games virtual games, half won and half lost, are added to every pairing that met.
    """
    if prior_games < 0:
        raise ValueError(f"prior_games must be >= 0, not {prior_games}")
    table = _merge(matches)
    names = _largest_component(table, bots)
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not a rated bot; rated: {', '.join(names) or '-'}")
    if len(names) < 2:
        return EloFit({name: 0.0 for name in names}, {(n, n): 0.0 for n in names}, anchor)
    index = {name: i for i, name in enumerate(names)}
    edges = [(index[m.first], index[m.second], m) for m in table.values()
             if m.first in index and m.second in index]
    if prior_games == 0 and not _mle_exists(len(names), edges):
        raise ValueError("without a prior the ratings are infinite: some group of bots "
                         "scored nothing against the rest; use prior_games > 0")
    ratings = _newton(len(names), edges, prior_games)
    cov = _sandwich(len(names), edges, ratings, prior_games)
    weights = ([1.0 if name == anchor else 0.0 for name in names] if anchor is not None
               else [1 / len(names)] * len(names))
    shift = sum(w * r for w, r in zip(weights, ratings))
    cov = _recentred(cov, weights)
    return EloFit(ratings={name: ratings[i] - shift for name, i in index.items()},
                  covariance={(a, b): cov[index[a]][index[b]] for a in names for b in names},
                  anchor=anchor)


def _merge(matches: Iterable[MatchResults]) -> dict[tuple[str, str], MatchResults]:
    """One MatchResults per pair of bots (sorted names), whichever side they were given from."""
    table: dict[tuple[str, str], MatchResults] = {}
    for match in matches:
        if match.first == match.second or not match.games.games:
            continue
        if match.first > match.second:
            match = match.swapped()
        key = (match.first, match.second)
        if key in table:
            old = table[key]
            match = MatchResults(match.first, match.second, old.games + match.games,
                                 old.pairs + match.pairs, old.unpaired + match.unpaired)
        table[key] = match
    return table


def _largest_component(table: dict[tuple[str, str], MatchResults],
                       bots: Sequence[str] | None) -> list[str]:
    """The bots of the biggest connected group, in the order given (or sorted)."""
    neighbours: dict[str, set[str]] = {}
    for a, b in table:
        if bots is None or (a in bots and b in bots):
            neighbours.setdefault(a, set()).add(b)
            neighbours.setdefault(b, set()).add(a)
    best: set[str] = set()
    seen: set[str] = set()
    for start in sorted(neighbours):
        if start in seen:
            continue
        group, todo = {start}, [start]
        while todo:
            for other in neighbours[todo.pop()] - group:
                group.add(other)
                todo.append(other)
        seen |= group
        if len(group) > len(best):
            best = group
    order = list(bots) if bots is not None else sorted(neighbours)
    return [name for name in order if name in best]


def _mle_exists(n: int, edges: list[tuple[int, int, MatchResults]]) -> bool:
    """Finite maximum-likelihood ratings exist iff every bot reaches every other through
    "scored points against" links (Zermelo's condition; a draw links both ways)."""
    beats: list[set[int]] = [set() for _ in range(n)]
    for i, j, m in edges:
        if m.games.points > 0:
            beats[i].add(j)
        if m.games.points < m.games.games:
            beats[j].add(i)
    def reach(links: list[set[int]]) -> int:
        seen, todo = {0}, [0]
        while todo:
            for other in links[todo.pop()] - seen:
                seen.add(other)
                todo.append(other)
        return len(seen)
    beaten_by: list[set[int]] = [set() for _ in range(n)]
    for i, targets in enumerate(beats):
        for j in targets:
            beaten_by[j].add(i)
    return reach(beats) == n and reach(beaten_by) == n


def _expected(ri: float, rj: float) -> float:
    return 1 / (1 + math.exp(-SLOPE * (ri - rj)))


def _log_likelihood(ratings: list[float], edges: list[tuple[int, int, MatchResults]],
                    prior: float) -> float:
    total = 0.0
    for i, j, m in edges:
        games, points = m.games.games + prior, m.games.points + prior / 2
        p = _expected(ratings[i], ratings[j])
        total += points * math.log(p) + (games - points) * math.log(1 - p) if 0 < p < 1 else -math.inf
    return total


def _newton(n: int, edges: list[tuple[int, int, MatchResults]], prior: float) -> list[float]:
    """Maximum-likelihood ratings, bot 0 held at 0; damped Newton steps on the rest."""
    ratings = [0.0] * n
    current = _log_likelihood(ratings, edges, prior)
    for _ in range(100):
        grad = [0.0] * n
        info = [[0.0] * n for _ in range(n)]    # minus the Hessian
        for i, j, m in edges:
            games, points = m.games.games + prior, m.games.points + prior / 2
            p = _expected(ratings[i], ratings[j])
            g = SLOPE * (points - games * p)
            h = SLOPE * SLOPE * games * p * (1 - p)
            grad[i] += g
            grad[j] -= g
            info[i][i] += h
            info[j][j] += h
            info[i][j] -= h
            info[j][i] -= h
        # positive definite on bots 1..n-1 when they are connected: a Newton step uphill
        step = _solve([row[1:] for row in info[1:]], grad[1:])
        size = 1.0
        while True:
            trial = [0.0] + [r + size * s for r, s in zip(ratings[1:], step)]
            value = _log_likelihood(trial, edges, prior)
            if value >= current or size < 1e-6:
                break
            size /= 2
        ratings, current = trial, value
        if max((abs(s) * size for s in step), default=0.0) < 1e-9:
            break
    return ratings


def _sandwich(n: int, edges: list[tuple[int, int, MatchResults]], ratings: list[float],
              prior: float) -> list[list[float]]:
    """cov = A J A with A = (-H)^-1 on bots 1..n-1 (bot 0 fixed) and J over pairs, games
    and the prior's virtual games (a virtual win and loss: J is never 0 where H is not)."""
    info = [[0.0] * n for _ in range(n)]
    meat = [[0.0] * n for _ in range(n)]
    virtual = prior_units(prior)
    for i, j, m in edges:
        p = _expected(ratings[i], ratings[j])
        h = SLOPE * SLOPE * (m.games.games + prior) * p * (1 - p)
        # the score gradient's spread over the independent units, real and virtual
        v = SLOPE * SLOPE * sum(count * (points - size * p) ** 2
                                for points, size, count in (*m.clusters(), *virtual))
        for matrix, x in ((info, h), (meat, v)):
            matrix[i][i] += x
            matrix[j][j] += x
            matrix[i][j] -= x
            matrix[j][i] -= x
    inverse = _inverse([row[1:] for row in info[1:]])
    reduced = _product(_product(inverse, [row[1:] for row in meat[1:]]), inverse)
    return [[0.0] * n] + [[0.0] + row for row in reduced]


def _recentred(cov: list[list[float]], weights: list[float]) -> list[list[float]]:
    """Covariance of r - w.r (K cov K^T with K = I - 1 w^T)."""
    n = len(cov)
    k = [[(1.0 if a == b else 0.0) - weights[b] for b in range(n)] for a in range(n)]
    kt = [list(col) for col in zip(*k)]
    return _product(_product(k, cov), kt)


def _product(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    cols = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, col)) for col in cols] for row in a]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan with partial pivoting (the matrices here are small and well conditioned)."""
    n = len(matrix)
    work = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(work[r][col]))
        if work[pivot][col] == 0:
            raise ArithmeticError("singular matrix: the bots are not connected by games")
        work[col], work[pivot] = work[pivot], work[col]
        scale = work[col][col]
        work[col] = [x / scale for x in work[col]]
        for r in range(n):
            if r != col and work[r][col]:
                factor = work[r][col]
                work[r] = [x - factor * y for x, y in zip(work[r], work[col])]
    return [row[n:] for row in work]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix x = vector."""
    inverse = _inverse(matrix)
    return [sum(a * b for a, b in zip(row, vector)) for row in inverse]
