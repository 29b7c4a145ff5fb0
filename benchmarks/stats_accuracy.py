"""How often the statistics are right, by simulation: the SPRT's error rates, the league
Elo fit's interval coverage, and the pairwise interval and LOS on small matches.
Seeded, so a run is reproducible; CPU only, no bots.

Run: python benchmarks/stats_accuracy.py [--runs N] [--parts sprt,fit,small]
SPRT: runs of seat-swapped pairs (draw rate 30%, the first seat +0.1 expected score) at
several true Elo differences, checked after every pair, each capped at 4,000 pairs;
prints how often each decision came and the mean pairs played.
Fit: leagues of four bots (true Elo 0, 40, 80, 200), 30 pairs per pairing (draw rate
20%, first seat +0.1), and 2 pairs per pairing; prints how often the 95% interval of
each rating (anchored at the first bot) holds the truth, without a prior and with the
default one.
Small: matches of a few seat-swapped pairs (draw rate 20%, first seat +0.1); prints how
often the pairwise 95% score interval holds the true score, and how often two equal bots
get LOS >= 95% (a false "significant"), without a prior and with the default one.
"""

from __future__ import annotations

import argparse
import random
import time
from itertools import combinations

from arena.stats import (
    DEFAULT_PRIOR_GAMES,
    Decision,
    MatchResults,
    Pentanomial,
    SprtSpec,
    Trinomial,
    check,
    expected_score,
    fit_elo,
    summarize,
)


def game(rng: random.Random, expected: float, draw_rate: float) -> float:
    """One game's points for a bot with this expected score and draw rate."""
    e = min(max(expected, draw_rate / 2), 1 - draw_rate / 2)
    roll = rng.random()
    return 1.0 if roll < e - draw_rate / 2 else 0.5 if roll < e + draw_rate / 2 else 0.0


def pair(rng: random.Random, elo: float, draw_rate: float, edge: float) -> tuple[float, float]:
    """A seat-swapped pair: the bot's points first seated, then second seated."""
    base = expected_score(elo)
    return game(rng, base + edge, draw_rate), game(rng, base - edge, draw_rate)


def sprt_run(rng: random.Random, spec: SprtSpec, elo: float, cap: int) -> tuple[Decision, int]:
    counts = [0] * 5
    for played in range(1, cap + 1):
        counts[round(2 * sum(pair(rng, elo, 0.3, 0.1)))] += 1
        decision = check(spec, Pentanomial((counts[0], counts[1], counts[2], counts[3],
                                            counts[4]))).decision
        if decision is not Decision.CONTINUE:
            return decision, played
    return Decision.CONTINUE, cap


def sprt_table(spec: SprtSpec, truths: list[float], runs: int, seed: int) -> None:
    print(f"SPRT {spec.model} elo0={spec.elo0:g} elo1={spec.elo1:g} alpha={spec.alpha:g} "
          f"beta={spec.beta:g}, {runs} runs each")
    print("  true Elo (logistic)   H1 accepted   H0 accepted   capped   mean pairs")
    for elo in truths:
        rng = random.Random(f"{seed}|{elo}")
        results = [sprt_run(rng, spec, elo, 4000) for _ in range(runs)]
        share = {d: sum(1 for r, _n in results if r is d) / runs for d in Decision}
        pairs = sum(n for _r, n in results) / runs
        print(f"  {elo:19g}   {share[Decision.H1]:11.3f}   {share[Decision.H0]:11.3f}   "
              f"{share[Decision.CONTINUE]:6.3f}   {pairs:10.0f}")


def league(rng: random.Random, truth: dict[str, float], pairs: int) -> list[MatchResults]:
    matches = []
    for a, b in combinations(truth, 2):
        played = [pair(rng, truth[a] - truth[b], 0.2, 0.1) for _ in range(pairs)]
        games = [points for p in played for points in p]
        matches.append(MatchResults(a, b, Trinomial(games.count(1.0), games.count(0.5),
                                                    games.count(0.0)),
                                    Pentanomial.of([sum(p) for p in played]), Trinomial()))
    return matches


def coverage(runs: int, seed: int, pairs: int) -> None:
    truth = {"a": 0.0, "b": 40.0, "c": 80.0, "d": 200.0}
    print(f"Elo fit, {runs} leagues of {pairs} pairs a pairing: 95% interval holds the true "
          f"rating (anchor a = 0)")
    print("  prior games   " + "   ".join(f"{bot} (true {truth[bot]:+.0f})" for bot in "bcd")
          + "   no finite fit")
    for prior in (0.0, DEFAULT_PRIOR_GAMES):
        rng = random.Random(f"{seed}|{pairs}")
        hits, fitted = dict.fromkeys("bcd", 0), 0
        for _ in range(runs):
            try:
                fit = fit_elo(league(rng, truth, pairs), anchor="a", prior_games=prior)
            except ValueError:      # without a prior: a bot that lost every game
                continue
            fitted += 1
            for bot in hits:
                hits[bot] += abs(fit.ratings[bot] - truth[bot]) <= fit.error(bot)
        print(f"  {prior:11g}   " + "   ".join(f"{hits[bot] / max(fitted, 1):13.3f}"
                                            for bot in "bcd")
              + f"   {(runs - fitted) / runs:13.3f}")


def small_matches(runs: int, seed: int) -> None:
    print(f"Pairwise, {runs} matches each: 95% score interval holds the truth; "
          f"LOS >= 95% between equal bots")
    print("  pairs   true Elo   covered, no prior   covered, prior   LOS>=95%, no prior   "
          "LOS>=95%, prior")
    for pairs in (1, 2, 3, 5, 10, 25):
        for elo in (0.0, 200.0):
            rng = random.Random(f"{seed}|{pairs}|{elo}")
            truth = expected_score(elo)
            covered = [0, 0]
            confident = [0, 0]
            for _ in range(runs):
                played = [pair(rng, elo, 0.2, 0.1) for _ in range(pairs)]
                games = [points for p in played for points in p]
                results = MatchResults("a", "b", Trinomial(games.count(1.0), games.count(0.5),
                                                           games.count(0.0)),
                                       Pentanomial.of([sum(p) for p in played]), Trinomial())
                for k, prior in enumerate((0.0, DEFAULT_PRIOR_GAMES)):
                    s = summarize(results, prior)
                    assert s.score_low is not None and s.score_high is not None and s.los is not None
                    covered[k] += s.score_low <= truth <= s.score_high
                    confident[k] += s.los >= 0.95
            los = (f"{confident[0] / runs:18.3f}   {confident[1] / runs:15.3f}" if elo == 0
                   else f"{'':18}   {'':15}")
            print(f"  {pairs:5d}   {elo:8g}   {covered[0] / runs:17.3f}   {covered[1] / runs:14.3f}"
                  f"   {los}".rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="simulated runs per line")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parts", default="sprt,fit,small",
                        help="which tables, comma-separated: sprt, fit, small")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    if parts - {"sprt", "fit", "small"}:
        parser.error(f"--parts takes sprt, fit and small, not {args.parts!r}")
    started = time.process_time()
    if "sprt" in parts:
        sprt_table(SprtSpec(0, 20), [-10, 0, 10, 20, 30], args.runs, args.seed)
        sprt_table(SprtSpec(0, 20, model="normalized"), [0, 20], args.runs // 4, args.seed)
    if "fit" in parts:
        coverage(args.runs, args.seed, 30)
        coverage(args.runs, args.seed, 2)
    if "small" in parts:
        small_matches(args.runs, args.seed)
    print(f"({time.process_time() - started:.0f} CPU s)")


if __name__ == "__main__":
    main()
