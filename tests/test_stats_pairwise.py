"""Pairwise statistics against hand-worked examples (docs/statistics.md) and an independent
computation: the games or pairs written out one by one and fed to Python's statistics.
Intervals, LOS and normalized Elo carry the prior of a virtual win and a virtual loss."""

import math
import statistics
from statistics import NormalDist

import pytest

from arena.stats import (
    NELO_PER_T,
    Z95,
    MatchResults,
    Pentanomial,
    Trinomial,
    expected_score,
    fit_elo,
    logistic_elo,
    score_stderr,
    summarize,
)

#: the prior written out: a virtual win and a virtual loss, each a game on its own
VIRTUAL = [1.0, 0.0]


def unpaired(w, d, l):
    return MatchResults("a", "b", Trinomial(w, d, l), Pentanomial(), Trinomial(w, d, l))


def paired(counts, games):
    return MatchResults("a", "b", games, Pentanomial(counts), Trinomial())


def elo(s):
    """The logistic curve, written otherwise."""
    return 400 * math.log10(s / (1 - s))


def independent(units, games):
    """Stderr, Elo interval, nElo and LOS from the list of each unit's mean score (units of
    the same size), without any prior."""
    n = len(units)
    score = statistics.fmean(units)
    stderr = math.sqrt(statistics.pvariance(units) / n)
    sigma_game = stderr * math.sqrt(games)
    return {"stderr": stderr,
            "elo_low": elo(score - 1.959964 * stderr), "elo_high": elo(score + 1.959964 * stderr),
            "nelo": (score - 0.5) / sigma_game * 800 / math.log(10),
            "los": NormalDist().cdf((score - 0.5) / stderr)}


def test_trinomial_worked_example_by_hand():
    # docs/statistics.md, worked example 1: W 60, D 25, L 15 (computed with bc, see there);
    # the interval is that of W 61, D 25, L 16, the games and the prior's win and loss
    s = summarize(unpaired(60, 25, 15))
    assert s.games == 100 and s.pairs == 0
    assert s.score == pytest.approx(0.725, abs=1e-12)
    assert s.stderr == pytest.approx(math.sqrt(0.14006632 / 102), abs=1e-9)
    assert (s.score_low, s.score_high) == pytest.approx((0.647958, 0.793218), abs=1e-6)
    assert s.elo == pytest.approx(168.402, abs=1e-3)
    assert (s.elo_low, s.elo_high) == pytest.approx((105.981, 233.552), abs=1e-3)
    assert s.elo_error == pytest.approx(63.785, abs=1e-3)
    assert s.nelo == pytest.approx(204.781, abs=1e-3)
    assert s.draw_rate == 0.25 and s.los > 0.999999


@pytest.mark.parametrize("wdl", [(60, 25, 15), (13, 70, 17), (3, 1, 2), (40, 40, 40)])
def test_trinomial_agrees_with_the_games_written_out(wdl):
    s = summarize(unpaired(*wdl))
    games = [1.0] * wdl[0] + [0.5] * wdl[1] + [0.0] * wdl[2]
    assert s.score == pytest.approx(statistics.fmean(games), abs=1e-12)
    ref = independent(games + VIRTUAL, len(games) + len(VIRTUAL))
    for key, value in ref.items():
        assert getattr(s, key) == pytest.approx(value, abs=1e-3), key


def test_pentanomial_worked_example_and_the_pairs_written_out():
    # docs/statistics.md, worked example 2: 100 pairs LL 5, LD 20, WL+DD 50, WD 15, WW 10
    counts = (5, 20, 50, 15, 10)
    s = summarize(paired(counts, Trinomial(70, 65, 65)))
    assert s.pairs == 100 and s.games == 200 and s.pentanomial == counts
    assert s.score == pytest.approx(0.5125, abs=1e-12)
    assert s.stderr == pytest.approx(0.024347, abs=1e-6)
    assert s.elo == pytest.approx(8.688, abs=1e-3)
    assert (s.elo_low, s.elo_high) == pytest.approx((-24.600, 41.962), abs=1e-3)
    assert s.nelo == pytest.approx(12.426, abs=1e-3)
    assert s.los == pytest.approx(0.694, abs=1e-3)
    # without the prior, fishtest's pentanomial figures, from the pairs written out
    bare = summarize(paired(counts, Trinomial(70, 65, 65)), prior_games=0)
    pair_means = [m for m, n in zip((0, 0.25, 0.5, 0.75, 1), counts) for _ in range(n)]
    ref = independent(pair_means, 200)
    for key, value in ref.items():
        assert getattr(bare, key) == pytest.approx(value, abs=1e-3), key
    assert bare.stderr == pytest.approx(0.024335, abs=1e-6)


@pytest.mark.parametrize("counts", [(5, 20, 50, 15, 10), (0, 0, 0, 0, 3), (0, 0, 4, 0, 0)])
def test_the_prior_is_a_virtual_win_and_loss_played_unpaired(counts):
    pairs = Pentanomial(counts)
    games = Trinomial(counts[4] * 2 + counts[3] + counts[2],
                      counts[3] + counts[1], counts[2] + counts[1] + counts[0] * 2)
    with_prior = summarize(MatchResults("a", "b", games, pairs, Trinomial()))
    written = summarize(MatchResults("a", "b", games + Trinomial(1, 0, 1), pairs,
                                     Trinomial(1, 0, 1)), prior_games=0)
    for key in ("stderr", "score_low", "score_high", "nelo", "nelo_error", "los"):
        assert getattr(with_prior, key) == pytest.approx(getattr(written, key)), key


def test_pairs_and_unpaired_games_mix_as_independent_units():
    # 40 pairs and 10 single games: each unit is one term of the variance
    counts = (2, 8, 20, 6, 4)
    alone = Trinomial(5, 3, 2)
    results = MatchResults("a", "b", Trinomial(25, 35, 20) + alone, Pentanomial(counts), alone)
    s = summarize(results)
    units = ([(p, 2) for p, n in zip((0, 0.5, 1, 1.5, 2), counts) for _ in range(n)]
             + [(1.0, 1)] * 5 + [(0.5, 1)] * 3 + [(0.0, 1)] * 2)
    games = sum(size for _p, size in units)
    assert games == 90 and s.score == pytest.approx(sum(p for p, _size in units) / games)
    units += [(v, 1) for v in VIRTUAL]
    games = sum(size for _p, size in units)
    centre = sum(p for p, _size in units) / games
    stderr = math.sqrt(sum((p - size * centre) ** 2 for p, size in units)) / games
    assert s.stderr == pytest.approx(stderr)


def test_pairs_that_cancel_out_narrow_the_interval():
    # every pair a win and a loss (the seat decides): the trinomial view sees a coin
    # flip, the pentanomial one sees no spread at all but the prior's
    games = Trinomial(50, 0, 50)
    assert summarize(paired((0, 0, 50, 0, 0), games), prior_games=0).stderr == 0
    assert summarize(unpaired(50, 0, 50), prior_games=0).stderr == pytest.approx(0.05)
    assert summarize(paired((0, 0, 50, 0, 0), games)).stderr == pytest.approx(0.5 ** 0.5 / 102)
    assert summarize(unpaired(50, 0, 50)).stderr == pytest.approx(25.5 ** 0.5 / 102)


def test_degenerate_results():
    empty = summarize(MatchResults("a", "b", Trinomial(), Pentanomial(), Trinomial()))
    assert empty.games == 0 and empty.score is None and empty.elo is None and empty.elo_error is None
    clean_sweep = summarize(unpaired(10, 0, 0), prior_games=0)
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


# --- small samples: the prior keeps intervals open and LOS short of certainty ---------------

def floats(summary):
    return [v for v in vars(summary).values() if isinstance(v, float)]


def beta_chance_above_half(a, b):
    """P(p > 1/2) for p ~ Beta(a, b), integer a and b: P(Binomial(a + b - 1, 1/2) <= a - 1)."""
    n = a + b - 1
    return sum(math.comb(n, k) for k in range(a)) / 2 ** n


@pytest.mark.parametrize("summary", [summarize(unpaired(3, 0, 0)),
                                     summarize(paired((0, 0, 0, 0, 2), Trinomial(4, 0, 0)))],
                         ids=["3 wins", "2 pairs won twice"])
def test_a_clean_sweep_gives_a_wide_one_sided_interval_and_los_below_1(summary):
    assert not any(math.isnan(v) for v in floats(summary))
    assert summary.score == 1 and summary.elo == math.inf
    # the score could be anywhere from below 60% up: the Elo interval is open upwards only
    assert summary.score_high == 1 and summary.score_low < 0.6
    assert math.isfinite(summary.elo_low) and summary.elo_low < 80 and summary.elo_high == math.inf
    assert 0.9 < summary.los < 0.99
    assert summary.nelo is not None and math.isfinite(summary.nelo)


def test_three_wins_by_hand_and_mirrored():
    # a virtual win and loss: 4 points in 5 games, spread 3 (0.2)^2 + 0.2^2 + 0.8^2 = 0.8
    s = summarize(unpaired(3, 0, 0))
    assert s.stderr == pytest.approx(math.sqrt(0.8) / 5)
    assert s.score_low == pytest.approx(0.8 - Z95 * math.sqrt(0.8) / 5)
    assert s.los == pytest.approx(NormalDist().cdf(0.3 / (math.sqrt(0.8) / 5)))
    lost = summarize(unpaired(0, 0, 3))
    assert lost.los == pytest.approx(1 - s.los) and lost.elo_high == pytest.approx(-s.elo_low)
    assert lost.score_low == 0 and lost.elo_low == -math.inf


@pytest.mark.parametrize("wins, losses", [(1, 0), (3, 0), (5, 0), (2, 1), (4, 3)])
def test_los_is_near_the_exact_chance_under_the_same_prior(wins, losses):
    # with a virtual win and loss, the chance a coin's bias is above 1/2 after these games
    # is that of Beta(wins + 1, losses + 1); the normal approximation stays within 0.025
    s = summarize(unpaired(wins, 0, losses))
    assert s.los == pytest.approx(beta_chance_above_half(wins + 1, losses + 1), abs=0.025)


@pytest.mark.parametrize("results", [unpaired(0, 2, 0), paired((0, 0, 5, 0, 0), Trinomial(5, 0, 5))],
                         ids=["2 draws", "5 pairs won and lost"])
def test_even_results_say_nothing_about_who_is_stronger(results):
    s = summarize(results)
    assert s.los == 0.5 and s.nelo == 0
    assert s.score_high - s.score_low > 0.2
    assert s.score_low == pytest.approx(1 - s.score_high)
    assert math.isfinite(s.elo_high) and s.elo_low == pytest.approx(-s.elo_high)
    assert not any(math.isnan(v) for v in floats(s))


def test_two_draws_by_hand():
    # 2 draws, a virtual win and loss: score 1/2 over 4 games, spread 2 * 0.5^2 = 0.5
    s = summarize(unpaired(0, 2, 0))
    assert s.stderr == pytest.approx(math.sqrt(0.5) / 4)
    assert s.elo_error == pytest.approx(logistic_elo(0.5 + Z95 * math.sqrt(0.5) / 4))
    assert s.elo_error == pytest.approx(296.575, abs=1e-3)


def test_no_games_say_nothing():
    empty = MatchResults("a", "b", Trinomial(), Pentanomial(), Trinomial())
    s = summarize(empty)
    assert s.games == 0 and all(v is None for v in (s.score, s.score_low, s.stderr, s.elo,
                                                     s.elo_low, s.nelo, s.los, s.draw_rate))
    assert score_stderr(empty) is None
    # the prior alone: a win and a loss
    assert score_stderr(empty, prior_games=2) == pytest.approx((0.5, math.sqrt(0.5) / 2))
    assert fit_elo([empty]).ratings == {}
    with pytest.raises(ValueError, match="prior_games must be >= 0"):
        summarize(unpaired(1, 0, 0), prior_games=-1)


@pytest.mark.parametrize("results, units, games", [
    (unpaired(600, 250, 150), [1.0] * 600 + [0.5] * 250 + [0.0] * 150, 1000),
    (paired((25, 100, 250, 75, 50), Trinomial(350, 325, 325)),
     [0.0] * 25 + [0.25] * 100 + [0.5] * 250 + [0.75] * 75 + [1.0] * 50, 1000),
])
def test_large_samples_are_essentially_unchanged(results, units, games):
    # 1000 games: the prior's two games move the interval, but by less than 1%
    new, old = summarize(results), independent(units, games)
    assert new.stderr != pytest.approx(old["stderr"], rel=1e-6)
    assert new.elo_low == pytest.approx(old["elo_low"], rel=0.01)
    assert new.elo_high == pytest.approx(old["elo_high"], rel=0.01)
    assert new.elo_error == pytest.approx((old["elo_high"] - old["elo_low"]) / 2, rel=0.01)
    assert new.los == pytest.approx(old["los"], abs=0.001)
