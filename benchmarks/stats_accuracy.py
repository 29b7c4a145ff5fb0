"""How often the statistics are right, by simulation: the SPRT's error rates and the league
Elo fit's interval coverage. Seeded, so a run is reproducible; CPU only, no bots.

Run: python benchmarks/stats_accuracy.py [--runs N]
SPRT: runs of seat-swapped pairs (draw rate 30%, the first seat +0.1 expected score) at
several true Elo differences, checked after every pair, each capped at 4,000 pairs;
prints how often each decision came and the mean pairs played.
Fit: leagues of four bots (true Elo 0, 40, 80, 200), 30 pairs per pairing (draw rate
20%, first seat +0.1); prints how often the 95% interval of each rating (anchored at
the first bot) holds the truth.
"""

from __future__ import annotations

import argparse
import random
import time
from itertools import combinations

from arena.stats import Decision, MatchResults, Pentanomial, SprtSpec, Trinomial, check, expected_score, fit_elo


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


def coverage(runs: int, seed: int) -> None:
    truth = {"a": 0.0, "b": 40.0, "c": 80.0, "d": 200.0}
    rng = random.Random(seed)
    hits = dict.fromkeys("bcd", 0)
    for _ in range(runs):
        fit = fit_elo(league(rng, truth, 30), anchor="a", prior_draws=0)
        for bot in hits:
            hits[bot] += abs(fit.ratings[bot] - truth[bot]) <= fit.error(bot)
    print(f"Elo fit, {runs} leagues: 95% interval holds the true rating (anchor a = 0)")
    for bot, n in hits.items():
        print(f"  {bot} (true {truth[bot]:+.0f}): {n / runs:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="simulated runs per line")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.process_time()
    sprt_table(SprtSpec(0, 20), [-10, 0, 10, 20, 30], args.runs, args.seed)
    sprt_table(SprtSpec(0, 20, model="normalized"), [0, 20], args.runs // 4, args.seed)
    coverage(args.runs, args.seed)
    print(f"({time.process_time() - started:.0f} CPU s)")


if __name__ == "__main__":
    main()
