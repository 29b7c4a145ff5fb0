"""The league's Bradley-Terry Elo fit: against the pairwise formula, an independent MM
iteration (Hunter 2004), and the coverage of its intervals over simulated leagues."""

import math
import random
from itertools import combinations

import pytest

from arena.stats import Z95, MatchResults, Pentanomial, Trinomial, expected_score, fit_elo, logistic_elo, summarize


def unpaired(a, b, w, d, l):
    return MatchResults(a, b, Trinomial(w, d, l), Pentanomial(), Trinomial(w, d, l))


def test_two_bots_give_the_pairwise_elo_and_its_delta_method_error():
    match = unpaired("a", "b", 60, 25, 15)
    fit = fit_elo([match], prior_games=0, anchor="b")
    pairwise = summarize(match, prior_games=0)
    assert fit.ratings["a"] == pytest.approx(logistic_elo(0.725), abs=1e-6)
    assert fit.ratings["b"] == 0 and fit.error("b") == 0
    # d elo / d score = 400 / (ln 10 s (1 - s)), times the score's standard error
    slope = 400 / (math.log(10) * 0.725 * 0.275)
    assert fit.error("a") == pytest.approx(Z95 * slope * pairwise.stderr, abs=1e-6)
    mean = fit_elo([match], prior_games=0)
    assert mean.ratings["a"] == pytest.approx(-mean.ratings["b"]) == pytest.approx(84.201, abs=1e-3)


@pytest.mark.parametrize("match", [
    unpaired("a", "b", 3, 0, 0), unpaired("a", "b", 0, 2, 0), unpaired("a", "b", 2, 1, 0),
    unpaired("a", "b", 60, 25, 15),
    MatchResults("a", "b", Trinomial(6, 1, 1), Pentanomial((0, 0, 1, 1, 2)), Trinomial()),
], ids=["3 wins", "2 draws", "2 wins 1 draw", "60-25-15", "4 pairs"])
def test_two_bots_with_the_prior_give_the_pairwise_figures_with_the_prior(match):
    # the same virtual win and loss in both: the fit's Elo is that of the pairwise
    # interval's centre, its error the delta method of the pairwise standard error
    fit = fit_elo([match], anchor="b")
    pairwise = summarize(match)
    centre = (match.games.points + 1) / (match.games.games + 2)
    assert fit.ratings["a"] == pytest.approx(logistic_elo(centre), abs=1e-6)
    slope = 400 / (math.log(10) * centre * (1 - centre))
    assert fit.error("a") == pytest.approx(Z95 * slope * pairwise.stderr, abs=1e-6)
    assert math.isfinite(fit.error("a")) and fit.error("a") > 0


def test_small_samples_give_wide_intervals_and_no_certainty():
    sweep = fit_elo([unpaired("a", "b", 3, 0, 0)])
    assert 0.8 < sweep.los("a", "b") < 0.95 and sweep.error("a") > 150
    draws = fit_elo([unpaired("a", "b", 0, 2, 0)])
    assert draws.los("a", "b") == 0.5 and draws.ratings == {"a": 0, "b": 0}
    assert draws.error("a") > 50
    # every pair a win and a loss: no spread but the prior's, still an interval
    even = MatchResults("a", "b", Trinomial(5, 0, 5), Pentanomial((0, 0, 5, 0, 0)), Trinomial())
    assert fit_elo([even]).error("a") > 10
    for fit in (sweep, draws):
        assert not any(math.isnan(v) for v in fit.covariance.values())


def test_large_samples_are_essentially_unchanged_by_the_prior():
    matches = [unpaired("a", "b", 600, 250, 150), unpaired("b", "c", 450, 200, 350),
               unpaired("a", "c", 700, 200, 100)]
    fit, bare = fit_elo(matches), fit_elo(matches, prior_games=0)
    for bot in "abc":
        assert fit.error(bot) == pytest.approx(bare.error(bot), rel=0.01)
        assert fit.ratings[bot] == pytest.approx(bare.ratings[bot], rel=0.01, abs=0.5)
    assert fit.error("a") != pytest.approx(bare.error("a"), rel=1e-6)


def hunter_mm(matches, names, rounds=20000):
    """Ratings by Hunter's MM update for Bradley-Terry, gamma_i = W_i / sum n_ij / (g_i + g_j)."""
    gamma = dict.fromkeys(names, 1.0)
    for _ in range(rounds):
        new = {}
        for i in names:
            wins = sum(m.games.points if m.first == i else m.games.games - m.games.points
                       for m in matches if i in (m.first, m.second))
            denominator = sum(m.games.games / (gamma[m.first] + gamma[m.second])
                              for m in matches if i in (m.first, m.second))
            new[i] = wins / denominator
        scale = math.exp(sum(math.log(g) for g in new.values()) / len(new))
        gamma = {i: g / scale for i, g in new.items()}
    return {i: 400 * math.log10(g) for i, g in gamma.items()}


def test_agrees_with_an_independent_mm_iteration():
    matches = [unpaired("a", "b", 30, 10, 20), unpaired("a", "c", 25, 20, 15),
               unpaired("b", "c", 22, 16, 22), unpaired("c", "d", 40, 5, 15),
               unpaired("a", "d", 50, 8, 2)]
    ours = fit_elo(matches, prior_games=0)
    mm = hunter_mm(matches, ["a", "b", "c", "d"], rounds=3000)
    for name in "abcd":
        assert ours.ratings[name] == pytest.approx(mm[name], abs=1e-3)
    assert sum(ours.ratings.values()) == pytest.approx(0, abs=1e-9)
    # the fit does not care about the order or the side results come in
    again = fit_elo([m.swapped() for m in reversed(matches)], prior_games=0)
    assert again.ratings == pytest.approx(ours.ratings, abs=1e-9)
    assert again.error("c") == pytest.approx(ours.error("c"), abs=1e-9)


def test_anchor_moves_ratings_not_differences():
    matches = [unpaired("a", "b", 30, 10, 20), unpaired("b", "c", 25, 20, 15),
               unpaired("a", "c", 35, 10, 15)]
    mean, anchored = fit_elo(matches), fit_elo(matches, anchor="c")
    assert anchored.ratings["c"] == 0 and anchored.error("c") == 0
    for x, y in combinations("abc", 2):
        assert anchored.ratings[x] - anchored.ratings[y] == pytest.approx(
            mean.ratings[x] - mean.ratings[y])
        assert anchored.difference_sd(x, y) == pytest.approx(mean.difference_sd(x, y))
        assert anchored.los(x, y) == pytest.approx(mean.los(x, y))
    # against the anchor, a bot's error is that of its difference to the anchor
    assert anchored.error("a") == pytest.approx(Z95 * mean.difference_sd("a", "c"))
    with pytest.raises(ValueError, match="anchor 'zed' is not a rated bot"):
        fit_elo(matches, anchor="zed")


def test_the_prior_keeps_a_clean_sweep_finite_and_fades_with_games():
    sweep = [unpaired("a", "b", 20, 0, 0), unpaired("b", "c", 10, 5, 5)]
    fit = fit_elo(sweep)
    assert math.isfinite(fit.ratings["a"]) and fit.ratings["a"] > fit.ratings["b"] + 300
    assert fit.los("a", "b") > 0.95
    # 2 virtual games in 1000 barely move a rating
    big = [unpaired("a", "b", 600, 100, 300)]
    assert fit_elo(big, anchor="b").ratings["a"] == pytest.approx(
        fit_elo(big, anchor="b", prior_games=0).ratings["a"], abs=0.5)
    with pytest.raises(ValueError, match="prior_games must be >= 0"):
        fit_elo(big, prior_games=-1)
    with pytest.raises(ValueError, match="infinite: some group of bots scored nothing"):
        fit_elo(sweep, prior_games=0)
    # a cycle of wins is enough for finite maximum-likelihood ratings
    cycle = [unpaired("a", "b", 3, 0, 0), unpaired("b", "c", 3, 0, 0), unpaired("c", "a", 3, 0, 0)]
    assert fit_elo(cycle, prior_games=0).ratings == pytest.approx({"a": 0, "b": 0, "c": 0})


def test_only_the_largest_connected_group_is_rated():
    matches = [unpaired("a", "b", 5, 0, 5), unpaired("b", "c", 6, 0, 4), unpaired("x", "y", 9, 0, 1)]
    fit = fit_elo(matches, bots=["c", "b", "a", "x", "y", "lonely"])
    assert list(fit.ratings) == ["c", "b", "a"]
    assert fit_elo([]).ratings == {}
    assert fit_elo([unpaired("a", "b", 5, 0, 5)], bots=["a"]).ratings == {}


def simulated_league(rng, truth, pairs=30, draw_rate=0.2, seat_edge=0.1):
    """Every pairing plays seat-swapped pairs; the seat's edge correlates a pair's games."""
    matches = []
    for a, b in combinations(truth, 2):
        base = expected_score(truth[a] - truth[b])
        scores, games = [], []
        for _ in range(pairs):
            pair = 0.0
            for edge in (seat_edge, -seat_edge):
                e = min(max(base + edge, draw_rate / 2), 1 - draw_rate / 2)
                roll = rng.random()
                game = 1.0 if roll < e - draw_rate / 2 else 0.5 if roll < e + draw_rate / 2 else 0.0
                games.append(game)
                pair += game
            scores.append(pair)
        matches.append(MatchResults(a, b, Trinomial(games.count(1.0), games.count(0.5),
                                                    games.count(0.0)),
                                    Pentanomial.of(scores), Trinomial()))
    return matches


def test_intervals_cover_the_true_ratings_95_percent_of_the_time():
    truth = {"a": 0.0, "b": 40.0, "c": 80.0, "d": 200.0}
    rng = random.Random(7)
    covered = total = 0
    los_right = los_cases = 0
    for _ in range(300):
        fit = fit_elo(simulated_league(rng, truth), anchor="a", prior_games=0)
        for bot in "bcd":
            total += 1
            covered += abs(fit.ratings[bot] - truth[bot]) <= fit.error(bot)
        los_cases += 1
        los_right += fit.los("d", "c") > 0.95
    # 900 intervals (three per league): 95% +- about 2 points
    assert 0.92 <= covered / total <= 0.98, covered / total
    assert los_right / los_cases > 0.95     # 120 Elo apart over 60 games: clearly ordered
