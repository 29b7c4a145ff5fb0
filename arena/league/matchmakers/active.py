"""`active`: arena's own matchmaker, which spends each game where it most sharpens the ranking."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from . import BotStanding, Pairing, Standings, seat_newcomers

#: among near-equal pairings, one whose bot a worker already runs is worth this much more
RUNNING_BONUS = 1.05


@dataclass
class Active:
    """Pairs the bots whose games most reduce the expected number of misordered pairs.

    A bot's misordered pairs are about (bots near it in mu) x sigma: its need is the local
    density of bots in mu times sigma^3, the gain of one more game against that count (one
    game removes about sigma^4 / c^2 of its variance, c^2 = 2 beta^2 + both sigmas^2; the
    optimum then gives each bot games as density^(2/3)). Bots are taken by need, and each
    plays the neighbour in mu order (within `window` places) that makes the most
    informative game: an even one (exp(-d^2 / 2c^2), d the gap in mu) with needy bots,
    divided by (1 + times the two have met) ** repeat so that no pair is played over and
    over. Each bot plays once in a call while there are free bots, which spreads one
    call's pairings over the ladder. Newcomers come first, each against its best neighbour.
    """

    window: int = 6            #: places either side in mu order where opponents are looked for
    repeat: float = 2.0        #: how hard a pairing already played is avoided
    power: float = 3.0         #: a bot's need grows as sigma ** power

    def pairings(self, standings: Standings, count: int, rng: random.Random) -> list[Pairing]:
        """Up to `count` pairings, newcomers' first, then the needy bots' best games."""
        bots = standings.playable()
        if count <= 0 or len(bots) < 2:
            return []
        rng.shuffle(bots)                      # ties (a fresh ladder: every mu equal) at random
        order = sorted(bots, key=lambda b: -b.mu)
        place = {b.name: i for i, b in enumerate(order)}
        need = {b.name: self._density(order, i) * b.sigma ** self.power for i, b in enumerate(order)}
        two_beta2 = 2 * standings.beta ** 2
        used: set[str] = set()

        def gain(a: BotStanding, b: BotStanding) -> float:
            c2 = two_beta2 + a.sigma ** 2 + b.sigma ** 2
            even = math.exp(-(a.mu - b.mu) ** 2 / (2 * c2))
            worth = even * (need[a.name] + need[b.name]) / c2
            worth /= (1 + standings.times(a.name, b.name)) ** self.repeat
            return worth * RUNNING_BONUS if b.running else worth

        def best(a: BotStanding, taken: set[str]) -> BotStanding | None:
            i = place[a.name]
            near = [b for b in order[max(0, i - self.window):i + self.window + 1]
                    if b.name != a.name and b.name not in taken]
            return max(near, key=lambda b: gain(a, b)) if near else None

        waiting = {b.name for b in bots if b.games < standings.min_games}

        def newcomers_opponent(new: BotStanding, others: list[BotStanding]) -> BotStanding:
            used.add(new.name)       # a free established neighbour while there is one
            b = best(new, used | waiting) or best(new, used) or rng.choice(others)
            used.add(b.name)
            return b

        chosen = seat_newcomers(standings, count, rng, newcomers_opponent)
        by_need = sorted(bots, key=lambda b: -need[b.name])
        while len(chosen) < count:
            added = 0
            for a in by_need:
                if len(chosen) >= count:
                    break
                if a.name in used:
                    continue
                b = best(a, used)
                if b is not None:
                    chosen.append(Pairing(a.name, b.name))
                    used.update((a.name, b.name))
                    added += 1
            if not added:                      # every bot has played in this call: again
                if not used:
                    break
                used.clear()
        return chosen

    def _density(self, order: list[BotStanding], i: int) -> float:
        """Bots per unit of mu around place i: the window's bots over its span (plus the bot's
        sigma, so that a fresh ladder, every mu equal, has a finite density)."""
        lo, hi = max(0, i - self.window), min(len(order) - 1, i + self.window)
        return (hi - lo) / (order[lo].mu - order[hi].mu + order[i].sigma)
