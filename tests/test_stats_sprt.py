"""The GSPRT: its LLR against an independent maximization of the two likelihoods, fishtest's
published examples, fastchess's closed-form approximation, and its error rates by simulation."""

import math
import random

import pytest

from arena.stats import Decision, Pentanomial, SprtSpec, Trinomial, check, expected_score, llr

GOLDEN = (math.sqrt(5) - 1) / 2

# fishtest's stat_util.py examples (its __main__ self-test): a real test's counts
FISHTEST_WDL = Trinomial(wins=65388, draws=56553, losses=65804)
FISHTEST_PENTA = Pentanomial((10789, 19328, 33806, 19402, 10543))
# and the pair it gives of logistic bounds (0.2, 0.9) and normalized ones (0.764, 3.439)
# meant to be the same test on these counts
FISHTEST_EQUIVALENT = Pentanomial((39, 2226, 31451, 2412, 40))


def golden_max(f, low, high, rounds=200):
    """The x in [low, high] maximizing a concave f, by golden-section search."""
    a, b = low, high
    for _ in range(rounds):
        c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
        if f(c) >= f(d):
            b = d
        else:
            a = c
    return (a + b) / 2


def log_likelihood(probs, dist):
    return sum(p * math.log(q) for p, q in zip(probs, dist))


def brute_trinomial(counts, mean):
    """Max log-likelihood per game over (L, D, W) distributions of the given mean: one free
    variable (the draw rate) searched directly, no Lagrange multiplier."""
    n = counts.games
    probs = [counts.losses / n, counts.draws / n, counts.wins / n]
    def dist(d):
        return [1 - mean - d / 2, d, mean - d / 2]
    best = golden_max(lambda d: log_likelihood(probs, dist(d)), 1e-12,
                      min(2 * mean, 2 * (1 - mean)) - 1e-12)
    return log_likelihood(probs, dist(best))


def brute_pentanomial(counts, mean, sweeps=60):
    """The same over pentanomial distributions: cyclic golden-section on three free bins."""
    n = counts.pairs
    probs = [c / n for c in counts.counts]
    values = (0, 0.25, 0.5, 0.75, 1)
    free = probs[1:4]
    def dist(q):
        q4 = mean - sum(v * x for v, x in zip(values[1:4], q))
        return [1 - sum(q) - q4, *q, q4]
    def value(q):
        d = dist(q)
        return log_likelihood(probs, d) if min(d) > 0 else -math.inf
    for _ in range(sweeps):
        for i in range(3):
            def along(x, i=i):
                q = list(free)
                q[i] = x
                return value(q)
            free[i] = golden_max(along, 1e-12, 1, rounds=80)
    return value(free)


def test_logistic_trinomial_llr_matches_a_direct_maximization():
    s0, s1 = expected_score(-3), expected_score(1)
    n = FISHTEST_WDL.games
    direct = n * (brute_trinomial(FISHTEST_WDL, s1) - brute_trinomial(FISHTEST_WDL, s0))
    ours = llr(SprtSpec(-3, 1), FISHTEST_WDL)
    assert ours == pytest.approx(direct, abs=1e-3)
    assert ours == pytest.approx(2.049, abs=1e-3)       # docs/statistics.md


def test_logistic_pentanomial_llr_matches_a_direct_maximization():
    s0, s1 = expected_score(-3), expected_score(1)
    n = FISHTEST_PENTA.pairs
    direct = n * (brute_pentanomial(FISHTEST_PENTA, s1) - brute_pentanomial(FISHTEST_PENTA, s0))
    ours = llr(SprtSpec(-3, 1), FISHTEST_PENTA)
    assert ours == pytest.approx(direct, abs=1e-3)
    assert ours == pytest.approx(2.131, abs=1e-3)       # docs/statistics.md


def brute_trinomial_t(counts, t):
    """Max log-likelihood per game over (L, D, W) with (mean - 1/2) / sd = t."""
    n = counts.games
    probs = [counts.losses / n, counts.draws / n, counts.wins / n]
    def dist(d):
        # the mean with that t-value at draw rate d, by bisection (t rises with the mean)
        lo, hi = d / 2, 1 - d / 2
        for _ in range(200):
            m = (lo + hi) / 2
            var = (m - d / 2) + d / 4 - m * m
            if (m - 0.5) - t * math.sqrt(max(var, 0)) > 0:
                hi = m
            else:
                lo = m
        return [1 - m - d / 2, d, m - d / 2]
    def value(d):
        q = dist(d)
        return log_likelihood(probs, q) if min(q) > 0 else -math.inf
    return value(golden_max(value, 1e-9, 1 - 1e-9))


def test_normalized_trinomial_llr_matches_a_direct_maximization():
    counts = Trinomial(wins=1450, draws=4000, losses=1350)
    t0, t1 = 0 / 347.43558552260146, 5 / 347.43558552260146
    direct = counts.games * (brute_trinomial_t(counts, t1) - brute_trinomial_t(counts, t0))
    assert llr(SprtSpec(0, 5, model="normalized"), counts) == pytest.approx(direct, abs=1e-3)


def test_fishtest_equivalent_logistic_and_normalized_bounds_give_the_same_llr():
    logistic = llr(SprtSpec(0.2, 0.9), FISHTEST_EQUIVALENT)
    normalized = llr(SprtSpec(0.764, 3.439, model="normalized"), FISHTEST_EQUIVALENT)
    assert logistic == pytest.approx(normalized, abs=1e-3)
    assert logistic == pytest.approx(2.163, abs=1e-3)


@pytest.mark.parametrize("counts", [FISHTEST_WDL, FISHTEST_PENTA, FISHTEST_EQUIVALENT])
def test_close_to_fastchess_closed_form(counts):
    # fastchess: LLR ~ N/2 log(var0 / var1), var_k the spread around score s_k (sprt.cpp)
    elo0, elo1 = (-3, 1) if counts is not FISHTEST_EQUIVALENT else (0.2, 0.9)
    bins = list(counts.bins())
    size = 2 if isinstance(counts, Pentanomial) else 1
    n = sum(c for _p, c in bins)
    def spread(s):
        return sum(c * (p / size - s) ** 2 for p, c in bins) / n
    approx = n / 2 * math.log(spread(expected_score(elo0)) / spread(expected_score(elo1)))
    assert llr(SprtSpec(elo0, elo1), counts) == pytest.approx(approx, rel=0.01)


def test_bounds_decisions_and_parsing():
    spec = SprtSpec.parse("elo0=0, elo1=10,alpha=0.05,beta=0.1")
    assert (spec.elo0, spec.elo1, spec.alpha, spec.beta, spec.model) == (0, 10, 0.05, 0.1, "logistic")
    assert spec.lower == pytest.approx(math.log(0.1 / 0.95))
    assert spec.upper == pytest.approx(math.log(0.9 / 0.05))
    assert SprtSpec(0, 5).upper == pytest.approx(2.944, abs=1e-3)
    assert check(spec, Pentanomial()).decision is Decision.CONTINUE
    assert check(spec, Pentanomial((0, 0, 0, 5, 300))).decision is Decision.H1
    assert check(spec, Pentanomial((300, 5, 0, 0, 0))).decision is Decision.H0
    assert check(spec, Trinomial(300, 0, 2)).samples == 302
    assert Decision.H1.value == "H1 accepted"
    assert SprtSpec.parse("elo0=-1.5,elo1=2,model=normalized").model == "normalized"
    for text, message in [("elo0=0", "lacks elo1"), ("elo0=0,elo1=5,gamma=1", "KEY=VALUE"),
                          ("elo0=x,elo1=5", "is not a number"), ("elo0=5,elo1=5", "above elo0"),
                          ("elo0=0,elo1=5,alpha=0.7", "alpha must be"),
                          ("elo0=0,elo1=5,model=bayes", "model must be")]:
        with pytest.raises(ValueError, match=message):
            SprtSpec.parse(text)


# --- error rates, by simulation -------------------------------------------------------------

def play_pair(rng, elo, draw_rate=0.3, seat_edge=0.1):
    """One seat-swapped pair: a true expected score, draws, and a first-seat edge."""
    base = expected_score(elo)
    total = 0.0
    for edge in (seat_edge, -seat_edge):
        e = min(max(base + edge, draw_rate / 2), 1 - draw_rate / 2)
        roll = rng.random()
        total += 1.0 if roll < e - draw_rate / 2 else 0.5 if roll < e + draw_rate / 2 else 0.0
    return total


def run_test(rng, spec, elo, cap=4000):
    counts = [0] * 5
    for _ in range(cap):
        counts[round(2 * play_pair(rng, elo))] += 1
        state = check(spec, Pentanomial(tuple(counts)))
        if state.decision is not Decision.CONTINUE:
            return state.decision
    return Decision.CONTINUE


def rate(spec, elo, runs, seed):
    rng = random.Random(seed)
    outcomes = [run_test(rng, spec, elo) for _ in range(runs)]
    return {d: outcomes.count(d) / runs for d in Decision}


def test_sprt_error_rates_by_simulation():
    spec = SprtSpec(elo0=0, elo1=60, alpha=0.05, beta=0.05)
    runs = 200
    # the type I error at the truth elo0 is at most alpha (up to the sampling error of 200
    # runs: 3 sd of a binomial(200, 0.05) is 0.046)
    under_h0 = rate(spec, 0, runs, seed=1)
    assert under_h0[Decision.H1] <= 0.05 + 0.046
    assert under_h0[Decision.H0] >= 0.9
    # below elo0 it all but never accepts H1
    assert rate(spec, -30, runs, seed=2)[Decision.H1] <= 0.01
    # at elo1, H1 with probability 1 - beta
    under_h1 = rate(spec, 60, runs, seed=3)
    assert under_h1[Decision.H1] >= 0.95 - 0.046
    assert rate(spec, 120, runs, seed=4)[Decision.H1] == 1.0


def test_normalized_sprt_tells_equal_from_stronger():
    spec = SprtSpec(elo0=0, elo1=100, model="normalized")
    assert rate(spec, 0, 40, seed=5)[Decision.H1] <= 0.1
    assert rate(spec, 80, 40, seed=6)[Decision.H1] >= 0.85
