"""How well each matchmaker ranks a ladder for the games it spends, by simulation.

Bots have a true strength (Bradley-Terry, Elo drawn with a spread of 300); every game is
drawn from it with 10% draws; TrueSkill (the trueskill package's environment, with draws)
rates the games one at a time, in the order played. Each matchmaker in the registry is
asked for `--slots` pairings at a time, as a ladder asks when its slots free up, while
`--in-play` of its pairings are still unplayed, and each pairing is played as a
seat-swapped pair. After every 5 games per bot the ranking (by mu,
by mu - 3 sigma with --rank-by exposed, or with --rank-by fit by the mu of TrueSkill
fitted to all the games so far at once, the `trueskill-ep` rating system; the same for
every matchmaker) is compared with the truth by Kendall's tau. Each (bots, seed) has one
truth that every matchmaker faces.

Prints, for each number of bots: the mean tau and its 95% interval (Student's t over the
seeds) at each budget of --games, the games per bot each matchmaker needs to reach tau
0.85 and 0.9 (and uniform pairing's tau at the largest budget), the mean time of a
pairings() call, and the mean information of its games: p(1 - p), p the true chance
that one bot beats the other, which is what a game tells of the two bots' difference
(Fisher information, in units of (ln 10 / 400)^2 per Elo^2; a quarter at most, for an
even game), and how it shared its games out: the most pairs one pairing started (top
pair) and the most games one bot played over the mean (top bot), the worst over the
seeds. Seeded: a run is reproducible. CPU only, no bots.

Run: python benchmarks/matchmaking.py                      (64 and 256 bots, 10 seeds)
     python benchmarks/matchmaking.py --bots 64 --seeds 3  (a quick check)
     python benchmarks/matchmaking.py --bots 8,64 --slots 1 --in-play 1
                                (as a ladder of 2 workers asks: one pairing a call)
     python benchmarks/matchmaking.py --bots 256 --rank-by fit   (ranked as trueskill-ep ranks)
     python benchmarks/matchmaking.py --bots 256 --matchmakers "active;active:window=3;distance:150"
                                (a variant of active, and a design that knows the truth)
     python benchmarks/matchmaking.py --bots 256 --rank-by fit --matchmakers "active;greedy"
                                (against the greedy design on the covariance of all games;
                                 needs numpy: pip install numpy)
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import multiprocessing
import random
import statistics
import time
from collections import Counter, deque
from dataclasses import dataclass

import trueskill

try:                     # only the greedy design needs it: pip install numpy
    import numpy
except ImportError:
    numpy = None

from arena.league.matchmakers import BotStanding, Matchmaker, Pairing, Standings, pair_key
from arena.plugins import loaded_plugins
from arena.registry import UnknownExtensionError
from arena.stats.trueskill_ep import SkillFit

DRAW_RATE = 0.1
ELO_SPREAD = 300.0
STEP = 5                   #: tau is read every STEP games per bot
#: Student's t, two-sided 95%, by degrees of freedom (1.96 beyond the table)
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26,
       10: 2.23, 11: 2.20, 12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11,
       18: 2.10, 19: 2.09, 20: 2.09, 25: 2.06, 30: 2.04, 40: 2.02, 60: 2.00}


@dataclass(frozen=True)
class Task:
    """One simulated ladder: a matchmaker, a number of bots, a seed."""

    matchmaker: str
    bots: int
    seed: int
    budget: int          #: games per bot at the end
    slots: int
    in_play: int         #: pairings still in play (unrated) when the matchmaker is asked
    rank_by: str
    min_games: int
    tau: float = 25 / 300      #: TrueSkill's dynamics (drift added to every rating each game)


class Rater:
    """TrueSkill for one game between two bots, from the package's own v and w functions:
    the closed form of env.rate_1vs1 (the same figures), at a fraction of its cost."""

    def __init__(self, env: trueskill.TrueSkill) -> None:
        self.env = env
        self.margin = trueskill.calc_draw_margin(env.draw_probability, 2, env)
        self.tau2 = env.tau ** 2
        self.two_beta2 = 2 * env.beta ** 2

    def rate(self, mu: list[float], var: list[float], a: int, b: int, points_a: float) -> None:
        """Update a's and b's (mu, sigma^2) in place after a game where a scored points_a."""
        va, vb = var[a] + self.tau2, var[b] + self.tau2
        c2 = self.two_beta2 + va + vb
        c = math.sqrt(c2)
        winner, loser, vw, vl = (a, b, va, vb) if points_a >= 0.5 else (b, a, vb, va)
        t, eps = (mu[winner] - mu[loser]) / c, self.margin / c
        if points_a == 0.5:
            v, w = self.env.v_draw(t, eps), self.env.w_draw(t, eps)
        else:
            v, w = self.env.v_win(t, eps), self.env.w_win(t, eps)
        mu[winner] += vw / c * v
        mu[loser] -= vl / c * v
        var[winner] = vw * (1 - vw / c2 * w)
        var[loser] = vl * (1 - vl / c2 * w)


def game(rng: random.Random, elo_a: float, elo_b: float) -> float:
    """a's points in one game: expected score by Bradley-Terry (Elo), DRAW_RATE draws."""
    expected = 1 / (1 + 10 ** ((elo_b - elo_a) / 400))
    e = min(max(expected, DRAW_RATE / 2), 1 - DRAW_RATE / 2)
    roll = rng.random()
    return 1.0 if roll < e - DRAW_RATE / 2 else 0.5 if roll < e + DRAW_RATE / 2 else 0.0


def kendall_tau(truth: list[float], shown: list[float]) -> float:
    """Kendall's tau-b between two scorings of the same bots."""
    n = len(truth)
    concordant = discordant = tied_shown = 0
    for i in range(n):
        ti, si = truth[i], shown[i]
        for j in range(i + 1, n):
            s = (ti - truth[j]) * (si - shown[j])
            if s > 0:
                concordant += 1
            elif s < 0:
                discordant += 1
            elif si == shown[j]:
                tied_shown += 1
    pairs = n * (n - 1) // 2
    if tied_shown == pairs:      # no order at all (every bot rated alike): none right, none wrong
        return 0.0
    return (concordant - discordant) / math.sqrt(pairs * (pairs - tied_shown))


@dataclass(frozen=True)
class Outcome:
    """What one simulated ladder measured."""

    task: Task
    taus: list[float]        #: Kendall tau at every STEP games per bot
    picking: float           #: seconds spent in pairings()
    calls: int
    information: float       #: mean p(1 - p) of a game
    top_pair: int            #: the most pairs one pairing started
    top_bot: float           #: the most games one bot played, over the mean


def make_matchmaker(name: str, truth: list[float]) -> Matchmaker:
    """A registered matchmaker; NAME:key=value,... one with those fields set (a variant:
    active:window=3); distance:S a design fixed in advance that knows the truth (no ladder
    can run it): the bot with fewest games against the bot nearest in true Elo to its own
    plus a normal draw of spread S; greedy the design of _Greedy."""
    base, _, fields = name.partition(":")
    if base == "distance":
        return _Distance(float(fields), truth)
    if base == "greedy":
        return _Greedy()
    matchmaker = loaded_plugins().matchmakers.require(base)()
    for item in filter(None, fields.split(",")):
        key, _, value = item.partition("=")
        setattr(matchmaker, key, type(getattr(matchmaker, key))(value))
    return matchmaker


@dataclass
class _Distance:
    spread: float
    truth: list[float]

    def pairings(self, standings: Standings, count: int, rng: random.Random) -> list[Pairing]:
        """One pairing a free bot, fewest games first, at a drawn distance in true Elo."""
        by_truth = sorted(range(len(self.truth)), key=self.truth.__getitem__)
        strengths = [self.truth[i] for i in by_truth]
        bots = sorted(standings.bots, key=lambda b: (b.games, rng.random()))
        used: set[str] = set()
        chosen: list[Pairing] = []
        for bot in bots:
            if len(chosen) >= count:
                break
            if bot.name in used:
                continue
            me = int(bot.name[1:])
            for _ in range(20):    # a drawn opponent that is free and not the bot itself
                at = bisect.bisect_left(strengths, self.truth[me] + rng.gauss(0, self.spread))
                other = f"b{by_truth[min(at, len(strengths) - 1)]}"
                if other != bot.name and other not in used:
                    chosen.append(Pairing(bot.name, other))
                    used.update((bot.name, other))
                    break
        return chosen


class _Greedy:
    """The pairings that most reduce the expected number of misordered pairs, each pair of
    bots weighed with the full covariance of every game so far (the Laplace approximation
    of the TrueSkill fit: a prior of sigma 25/3 on each bot plus each pairing's Fisher
    information at the gap in mu), not one bot's sigma at a time as `active` weighs them.

    A pair (i, j) is expected to be misordered by about f_ij(0) sqrt(2 R_ij / pi), f_ij the
    density of their true difference (normal, mean the gap in mu, variance R_ij, the
    variance of the difference) and R_ij what the games leave of it; the gain of more
    games is its derivative, g_ij ~ phi(gap / sqrt(R_ij)) / R_ij, times what a pairing
    takes off each R_ij: a game of a and b with information w takes w (u_i - u_j)^2 /
    (1 + w R_ab) off R_ij, u = C(e_a - e_b) (Sherman-Morrison). Summed over every pair
    that is w (e_a - e_b)' H (e_a - e_b) / (1 + w R_ab), H = C (D - G) C, so every pairing
    is scored by two products of n x n matrices a call; the best free ones are taken.
    O(n^3) a call: a design to compare with, not a matchmaker for a ladder of many bots."""

    def pairings(self, standings: Standings, count: int, rng: random.Random) -> list[Pairing]:
        """The `count` best-scored pairings of free bots (ties in order of the bots)."""
        np = numpy
        bots = list(standings.bots)
        n = len(bots)
        index = {b.name: i for i, b in enumerate(bots)}
        mu = np.array([b.mu for b in bots])
        c = math.sqrt(2) * standings.beta
        erf = np.vectorize(math.erf)

        def information(gap):       # a seat-swapped pair's Fisher information on the gap
            z = gap / c
            p = 0.5 * (1 + erf(z / math.sqrt(2)))
            density = np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
            return 2 * density ** 2 / np.maximum(p * (1 - p), 1e-12) / c ** 2

        gaps = mu[:, None] - mu[None, :]
        w = information(gaps)
        precision = np.eye(n) / (25 / 3) ** 2
        for (a, b), times in standings.pairs.items():
            i, j = index[a], index[b]
            precision[[i, j], [i, j]] += times * w[i, j]
            precision[[i, j], [j, i]] -= times * w[i, j]
        cov = np.linalg.inv(precision)
        diag = np.diag(cov)
        r = diag[:, None] + diag[None, :] - 2 * cov
        np.fill_diagonal(r, 1.0)
        g = np.exp(-gaps ** 2 / (2 * r)) / r
        np.fill_diagonal(g, 0.0)
        h = cov @ (np.diag(g.sum(axis=1)) - g) @ cov
        hd = np.diag(h)
        score = w * (hd[:, None] + hd[None, :] - 2 * h) / (1 + w * r)
        chosen: list[Pairing] = []
        used: set[int] = set()
        for flat in np.argsort(-np.triu(score, 1), axis=None):
            if len(chosen) >= count:
                break
            i, j = divmod(int(flat), n)
            if i < j and i not in used and j not in used:
                chosen.append(Pairing(bots[i].name, bots[j].name))
                used.update((i, j))
        return chosen


def simulate(task: Task) -> Outcome:
    """One ladder to task.budget games per bot: tau at every STEP games per bot, the time
    spent in pairings(), the mean information of a game (p(1 - p), p the true chance that
    one bot beats the other, a quarter at most) and how its games were shared out. The
    matchmaker is asked while task.in_play of its pairings are still unplayed, as a
    ladder asks while its workers play (counted as started, not rated)."""
    truth_rng = random.Random(f"truth {task.bots} {task.seed}")
    truth = [truth_rng.gauss(0, ELO_SPREAD) for _ in range(task.bots)]
    games_rng = random.Random(f"games {task.matchmaker} {task.bots} {task.seed}")
    pick_rng = random.Random(f"pick {task.matchmaker} {task.bots} {task.seed}")
    env = trueskill.TrueSkill(draw_probability=DRAW_RATE, tau=task.tau)
    rater = Rater(env)
    fit = SkillFit(env.mu, env.sigma, env.beta, DRAW_RATE) if task.rank_by == "fit" else None
    matchmaker = make_matchmaker(task.matchmaker, truth)
    names = [f"b{i}" for i in range(task.bots)]
    index = {name: i for i, name in enumerate(names)}
    mu = [env.mu] * task.bots
    var = [env.sigma ** 2] * task.bots
    games = [0] * task.bots
    pairs: Counter[tuple[str, str]] = Counter()
    taus: list[float] = []
    played, picking, calls, information = 0, 0.0, 0, 0.0
    in_play: deque[tuple[int, int]] = deque()
    while len(taus) < task.budget // STEP:
        standings = Standings(
            bots=[BotStanding(names[i], mu[i], math.sqrt(var[i]), games[i]) for i in range(task.bots)],
            pairs=pairs, min_games=task.min_games, beta=env.beta)
        start = time.perf_counter()
        chosen = matchmaker.pairings(standings, task.slots, pick_rng)
        picking += time.perf_counter() - start
        calls += 1
        assert chosen, f"{task.matchmaker} chose no pairing"
        for first, second in chosen:
            a, b = index[first], index[second]
            assert a != b, f"{task.matchmaker} paired {first} with itself"
            pairs[pair_key(first, second)] += 1
            games[a] += 2
            games[b] += 2
            in_play.append((a, b))
        while len(in_play) > task.in_play and len(taus) < task.budget // STEP:
            a, b = in_play.popleft()
            p = 1 / (1 + 10 ** ((truth[b] - truth[a]) / 400))
            information += 2 * p * (1 - p)
            for x, y in ((a, b), (b, a)):            # the seat-swapped pair
                points = game(games_rng, truth[x], truth[y])
                rater.rate(mu, var, x, y, points)
                if fit is not None:
                    fit.add(names[x], names[y], points)
            played += 2
            if played >= (len(taus) + 1) * STEP * task.bots / 2:
                taus.append(kendall_tau(truth, ranked(task.rank_by, mu, var, fit, names)))
    return Outcome(task, taus, picking, calls, information / played, max(pairs.values()),
                   max(games) / statistics.fmean(games))


def ranked(rank_by: str, mu: list[float], var: list[float], fit: SkillFit | None,
           names: list[str]) -> list[float]:
    """What the ranking reads: online TrueSkill's mu or mu - 3 sigma, or the mu of the fit
    of every game so far (converged again from where it stood)."""
    if rank_by == "mu":
        return mu
    if rank_by == "exposed":
        return [m - 3 * math.sqrt(v) for m, v in zip(mu, var)]
    assert fit is not None
    fit.converge()
    fitted = fit.ratings()
    return [fitted[name][0] if name in fitted else fit.prior_tau / fit.prior_pi for name in names]


def interval(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (Student's t)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    df = len(values) - 1
    t = T95.get(df) or next((T95[k] for k in sorted(T95) if k >= df), 1.96)
    return mean, t * statistics.stdev(values) / math.sqrt(len(values))


def games_to_reach(curve: list[float], target: float) -> float | None:
    """Games per bot at which the mean tau first reaches target (linear between readings)."""
    previous_games, previous_tau = 0.0, -1.0
    for k, tau in enumerate(curve):
        games = (k + 1) * STEP
        if tau >= target:
            if previous_tau < 0:
                return games
            return previous_games + (target - previous_tau) / (tau - previous_tau) * (games - previous_games)
        previous_games, previous_tau = games, tau
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="64,256", help="numbers of bots, comma-separated")
    parser.add_argument("--games", default="10,20,40,80", help="games per bot to report tau at")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--matchmakers", default="",
                        help="separated by ';' or, without fields, ',' (default: every registered one); "
                             "NAME:key=value,... a variant, distance:S a design that knows the truth, "
                             "greedy the design on the covariance of all games (needs numpy)")
    parser.add_argument("--slots", type=int, default=8, help="pairings asked for at a time")
    parser.add_argument("--in-play", type=int, default=0,
                        help="pairings still unplayed when the matchmaker is asked (a ladder with "
                             "2 workers asks for 1 while 1 is in play: --slots 1 --in-play 1)")
    parser.add_argument("--rank-by", choices=("mu", "exposed", "fit"), default="mu",
                        help="online TrueSkill's mu or mu - 3 sigma, or TrueSkill fitted to all games (trueskill-ep)")
    parser.add_argument("--min-games", type=int, default=0, help="the ladder's newcomer threshold")
    parser.add_argument("--tau", type=float, default=25 / 300, help="TrueSkill's dynamics, for the standings")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    registry = loaded_plugins().matchmakers
    names = [m for m in args.matchmakers.split(";" if ";" in args.matchmakers else ",") if m] \
        or registry.names()
    try:
        if "greedy" in names and numpy is None:
            parser.error("the greedy design needs numpy: pip install numpy")
        for name in names:
            if not name.startswith("distance:") and name != "greedy":
                registry.require(name.partition(":")[0])
    except UnknownExtensionError as exc:
        parser.error(str(exc))
    budgets = [int(g) for g in args.games.split(",")]
    budget = -(-max(budgets) // STEP) * STEP
    sizes = [int(n) for n in args.bots.split(",")]
    tasks = [Task(m, n, s, budget, args.slots, args.in_play, args.rank_by, args.min_games, args.tau)
             for n in sizes for s in range(args.seeds) for m in names]
    started = time.perf_counter()
    with multiprocessing.Pool(args.jobs) as pool:
        results = pool.map(simulate, tasks, chunksize=1)
    print(f"{len(tasks)} ladders in {time.perf_counter() - started:.0f} s ({args.jobs} processes); "
          f"Elo spread {ELO_SPREAD:.0f}, {DRAW_RATE:.0%} draws, {args.seeds} seeds, "
          f"{args.slots} pairings a call, {args.in_play} in play, ranked by {args.rank_by}, min_games {args.min_games}")
    figures: dict[str, dict] = {}
    for n in sizes:
        mine = {m: [r for r in results if r.task.bots == n and r.task.matchmaker == m] for m in names}
        curves = {m: [r.taus for r in mine[m]] for m in names}
        cost = {m: sum(r.picking for r in mine[m]) / max(1, sum(r.calls for r in mine[m])) for m in names}
        information = {m: statistics.fmean(r.information for r in mine[m]) for m in names}
        top_pair = {m: max(r.top_pair for r in mine[m]) for m in names}
        top_bot = {m: max(r.top_bot for r in mine[m]) for m in names}
        means = {m: [statistics.fmean(c[k] for c in curves[m]) for k in range(budget // STEP)]
                 for m in names}
        reference = means["uniform"][-1] if "uniform" in means else math.nan
        print(f"\n{n} bots: Kendall tau, mean ± 95% interval over {args.seeds} seeds")
        width = max(11, *(len(m) + 1 for m in names))
        print(f"{'matchmaker':<{width}}" + "".join(f"{g:>8} games" for g in budgets)
              + "  to 0.85  to 0.90  to uniform@" + f"{budget} ({reference:.3f})  ms/call  p(1-p)  top pair  top bot")
        figures[str(n)] = {}
        for m in names:
            cells = []
            taus = {}
            for g in budgets:
                mean, half = interval([c[g // STEP - 1] for c in curves[m]])
                cells.append(f"{mean:.3f}±{half:.3f}".rjust(14))
                taus[str(g)] = {"mean": mean, "half_width": half}
            reach = [games_to_reach(means[m], t) for t in (0.85, 0.9, reference)]
            figures[str(n)][m] = {"tau": taus, "games_to_0.85": reach[0], "games_to_0.9": reach[1],
                                  "games_to_uniform": reach[2], "ms_per_call": 1000 * cost[m],
                                  "information_per_game": information[m],
                                  "top_pair": top_pair[m], "top_bot": top_bot[m]}
            shown = [f"{r:.0f}" if r is not None else f">{budget}" for r in reach]
            print(f"{m:<{width}}" + "".join(cells) + f"  {shown[0]:>7}  {shown[1]:>7}  {shown[2]:>17}"
                  + f"  {1000 * cost[m]:>7.2f}  {information[m]:>6.3f}  {top_pair[m]:>8}"
                  + f"  {top_bot[m]:>6.2f}x")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=1)


if __name__ == "__main__":
    main()
