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

    A bot's doubt is the misordered pairs it is expected to be in: the sum, over its
    neighbours in mu order (within `window` places), of the chance that the two are ranked
    the wrong way round. One more game removes about sigma^4 / c^2 of its variance (c^2 =
    2 beta^2 + both sigmas^2), so its need, the gain of a game, is its doubt times
    sigma^power. A bot whose place is settled (far from the others, or measured well) needs
    no games, however large its sigma. Bots are taken by need, and each plays the
    neighbour that makes the most informative game: an even one (exp(-d^2 / 2c^2), d the
    gap in mu) with needy bots, divided by (1 + times the two have met) ** repeat. A
    pairing whose pairs would pass `share` times the mean of the pairings in reach waits
    while any other is under its share, so no pair is played over and over, even when a
    ladder asks for one pairing each time a slot frees. Each bot plays once in a call
    while there are free bots, which spreads one call's pairings over the ladder.
    Newcomers come first, each against its best neighbour.
    """

    window: int = 6            #: places either side in mu order where opponents are looked for
    repeat: float = 2.0        #: how hard a pairing already played is avoided
    power: float = 2.0         #: a bot's need grows as sigma ** power
    share: float = 2.0         #: most pairs of one pairing, over the mean of those in reach

    def pairings(self, standings: Standings, count: int, rng: random.Random) -> list[Pairing]:
        """Up to `count` pairings, newcomers' first, then the needy bots' best games."""
        bots = standings.playable()
        if count <= 0 or len(bots) < 2:
            return []
        rng.shuffle(bots)                      # ties (a fresh ladder: every mu equal) at random
        order = sorted(bots, key=lambda b: -b.mu)
        place = {b.name: i for i, b in enumerate(order)}
        doubt = self._doubt(order)
        need = {b.name: doubt[i] * b.sigma ** self.power for i, b in enumerate(order)}
        two_beta2 = 2 * standings.beta ** 2
        used: set[str] = set()

        def gain(a: BotStanding, b: BotStanding) -> float:
            c2 = two_beta2 + a.sigma ** 2 + b.sigma ** 2
            even = math.exp(-(a.mu - b.mu) ** 2 / (2 * c2))
            worth = even * (need[a.name] + need[b.name]) / c2
            worth /= (1 + standings.times(a.name, b.name)) ** self.repeat
            return worth * RUNNING_BONUS if b.running else worth

        # a pairing started more than `share` times the mean of the pairings in reach (each
        # bot's within `window` places) waits while any other pairing is under its share
        reach = sum(min(self.window, len(order) - 1 - i) for i in range(len(order)))
        started = sum(b.games for b in bots) / 4     # each pair is two games for each of two bots
        cap = max(1.0, self.share * (started + 1) / reach)

        def best(a: BotStanding, taken: set[str], fair: bool = True) -> BotStanding | None:
            i = place[a.name]
            near = [b for b in order[max(0, i - self.window):i + self.window + 1]
                    if b.name != a.name and b.name not in taken
                    and (not fair or standings.times(a.name, b.name) + 1 <= cap)]
            return max(near, key=lambda b: gain(a, b)) if near else None

        waiting = {b.name for b in bots if b.games < standings.min_games}

        def newcomers_opponent(new: BotStanding, others: list[BotStanding]) -> BotStanding:
            used.add(new.name)       # a free established neighbour while there is one
            b = best(new, used | waiting) or best(new, used) or best(new, used, fair=False) \
                or rng.choice(others)
            used.add(b.name)
            return b

        chosen = seat_newcomers(standings, count, rng, newcomers_opponent)
        by_need = sorted(bots, key=lambda b: -need[b.name])
        while len(chosen) < count:
            added = 0
            for fair in (True, False):         # a pairing over its share only when none is under
                for a in by_need:
                    if len(chosen) >= count:
                        break
                    if a.name in used:
                        continue
                    b = best(a, used, fair)
                    if b is not None:
                        chosen.append(Pairing(a.name, b.name))
                        used.update((a.name, b.name))
                        added += 1
                if added:
                    break
            if not added:                      # every bot has played in this call: again
                if not used:
                    break
                used.clear()
        return chosen

    def _doubt(self, order: list[BotStanding]) -> list[float]:
        """The misordered pairs each bot, by place in mu order, is expected to be in among
        its neighbours within `window` places: the sum of the chances that the two are ranked
        the wrong way round, Phi(-|mu_a - mu_b| / sqrt(sigma_a^2 + sigma_b^2)) (a half for
        equal mu, near 0 once settled)."""
        # rating_systems.skill_los, inlined: that module imports arena.plugins, which loads
        # this one, and this runs for n x window pairs a call
        n, erfc, sqrt = len(order), math.erfc, math.sqrt
        mu = [b.mu for b in order]
        var = [b.sigma ** 2 for b in order]
        doubt = [0.0] * n
        for i in range(n):
            for j in range(i + 1, min(n, i + self.window + 1)):
                spread = sqrt(2 * (var[i] + var[j]))
                wrong = 0.5 * erfc((mu[i] - mu[j]) / spread) if spread else 0.5 * (mu[i] == mu[j])
                doubt[i] += wrong
                doubt[j] += wrong
        return doubt
