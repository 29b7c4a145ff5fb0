"""Pairwise statistics against hand-worked examples (docs/statistics.md) and an independent
computation: the games or pairs written out one by one and fed to Python's statistics."""

import math
import statistics
from statistics import NormalDist

import pytest

from arena.stats import NELO_PER_T, Z95, MatchResults, Pentanomial, Trinomial, expected_score, logistic_elo, summarize


def unpaired(w, d, l):
    return MatchResults("a", "b", Trinomial(w, d, l), Pentanomial(), Trinomial(w, d, l))


def paired(counts, games):
    return MatchResults("a", "b", games, Pentanomial(counts), Trinomial())


def independent(units, games):
    """Score, stderr, Elo interval, nElo and LOS from the list of each unit's mean score."""
    n = len(units)
    score = statistics.fmean(units)
    stderr = math.sqrt(statistics.pvariance(units) / n)
    def elo(s):     # the same curve, written otherwise
        return 400 * math.log10(s / (1 - s))
    sigma_game = stderr * math.sqrt(games)
    return {"score": score, "stderr": stderr, "elo": elo(score),
            "elo_low": elo(score - 1.959964 * stderr), "elo_high": elo(score + 1.959964 * stderr),
            "nelo": (score - 0.5) / sigma_game * 800 / math.log(10),
            "los": NormalDist().cdf((score - 0.5) / stderr)}


def test_trinomial_worked_example_by_hand():
    # docs/statistics.md, worked example 1: W 60, D 25, L 15 (computed with bc, see there)
    s = summarize(unpaired(60, 25, 15))
    assert s.games == 100 and s.pairs == 0
    assert s.score == pytest.approx(0.725, abs=1e-12)
    assert s.stderr == pytest.approx(math.sqrt(0.136875 / 100), abs=1e-12)
    assert (s.score_low, s.score_high) == pytest.approx((0.652488, 0.797512), abs=1e-6)
    assert s.elo == pytest.approx(168.402, abs=1e-3)
    assert (s.elo_low, s.elo_high) == pytest.approx((109.441, 238.135), abs=1e-3)
    assert s.elo_error == pytest.approx(64.347, abs=1e-3)
    assert s.nelo == pytest.approx(211.298, abs=1e-3)
    assert s.draw_rate == 0.25 and s.los > 0.999999


@pytest.mark.parametrize("wdl", [(60, 25, 15), (13, 70, 17), (3, 1, 2), (40, 40, 40)])
def test_trinomial_agrees_with_the_games_written_out(wdl):
    s = summarize(unpaired(*wdl))
    games = [1.0] * wdl[0] + [0.5] * wdl[1] + [0.0] * wdl[2]
    ref = independent(games, len(games))
    for key, value in ref.items():
        assert getattr(s, key) == pytest.approx(value, abs=1e-3), key


def test_pentanomial_worked_example_and_the_pairs_written_out():
    # docs/statistics.md, worked example 2: 100 pairs LL 5, LD 20, WL+DD 50, WD 15, WW 10
    counts = (5, 20, 50, 15, 10)
    s = summarize(paired(counts, Trinomial(70, 65, 65)))
    assert s.pairs == 100 and s.games == 200 and s.pentanomial == counts
    assert s.score == pytest.approx(0.5125, abs=1e-12)
    assert s.stderr == pytest.approx(0.024335, abs=1e-6)
    assert s.elo == pytest.approx(8.688, abs=1e-3)
    assert (s.elo_low, s.elo_high) == pytest.approx((-24.497, 42.032), abs=1e-3)
    assert s.nelo == pytest.approx(12.619, abs=1e-3)
    assert s.los == pytest.approx(0.696, abs=1e-3)
    pair_means = [m for m, n in zip((0, 0.25, 0.5, 0.75, 1), counts) for _ in range(n)]
    ref = independent(pair_means, 200)
    for key, value in ref.items():
        assert getattr(s, key) == pytest.approx(value, abs=1e-3), key


def test_pairs_and_unpaired_games_mix_as_independent_units():
    # 40 pairs and 10 single games: each unit is one term of the variance
    counts = (2, 8, 20, 6, 4)
    alone = Trinomial(5, 3, 2)
    results = MatchResults("a", "b", Trinomial(25, 35, 20) + alone, Pentanomial(counts), alone)
    s = summarize(results)
    units = ([(p, 2) for p, n in zip((0, 0.5, 1, 1.5, 2), counts) for _ in range(n)]
             + [(1.0, 1)] * 5 + [(0.5, 1)] * 3 + [(0.0, 1)] * 2)
    games = sum(size for _p, size in units)
    score = sum(p for p, _size in units) / games
    stderr = math.sqrt(sum((p - size * score) ** 2 for p, size in units)) / games
    assert games == 90 and s.score == pytest.approx(score) and s.stderr == pytest.approx(stderr)


def test_pairs_that_cancel_out_narrow_the_interval():
    # every pair a win and a loss (the seat decides): the trinomial view sees a coin
    # flip, the pentanomial one sees no spread at all
    games = Trinomial(50, 0, 50)
    assert summarize(paired((0, 0, 50, 0, 0), games)).stderr == 0
    assert summarize(unpaired(50, 0, 50)).stderr == pytest.approx(0.05)


def test_degenerate_results():
    empty = summarize(MatchResults("a", "b", Trinomial(), Pentanomial(), Trinomial()))
    assert empty.games == 0 and empty.score is None and empty.elo is None and empty.elo_error is None
    clean_sweep = summarize(unpaired(10, 0, 0))
    assert clean_sweep.elo == math.inf and clean_sweep.los == 1.0 and clean_sweep.nelo is None
    # the interval is [+inf, +inf]: its half-width is no number (inf - inf), said as +inf
    assert clean_sweep.elo_low == clean_sweep.elo_high == math.inf and clean_sweep.elo_error == math.inf
    assert summarize(unpaired(0, 0, 10)).elo_error == math.inf
    assert logistic_elo(0) == -math.inf and logistic_elo(0.5) == 0
    for elo in (-500, -10, 0, 35, 800):
        assert logistic_elo(expected_score(elo)) == pytest.approx(elo)
    assert Z95 == pytest.approx(1.959964, abs=1e-6) and NELO_PER_T == pytest.approx(347.4356, abs=1e-4)


def test_counts_and_sides():
    assert Pentanomial.of([0, 0.5, 1, 1, 2, 1.5]).counts == (1, 1, 2, 1, 1)
    with pytest.raises(ValueError, match="0, 0.5, 1, 1.5 or 2"):
        Pentanomial.of([0.25])
    with pytest.raises(ValueError, match="five counts"):
        Pentanomial((1, 2, 3))
    with pytest.raises(ValueError, match="not 1 pairs and 0 unpaired"):
        MatchResults("a", "b", Trinomial(1, 0, 0), Pentanomial((0, 0, 0, 0, 1)), Trinomial())
    m = MatchResults("a", "b", Trinomial(4, 1, 2), Pentanomial((0, 1, 1, 0, 1)), Trinomial(1, 0, 0))
    back = m.swapped()
    assert (back.first, back.games, back.pairs.counts) == ("b", Trinomial(2, 1, 4), (1, 0, 1, 1, 0))
    assert summarize(back).score == pytest.approx(1 - summarize(m).score)
    assert summarize(back).elo == pytest.approx(-summarize(m).elo)
