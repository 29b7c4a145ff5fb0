"""`neighbors`: the default scheduler of the Dimensions ladder (StoneT2000/Dimensions,
src/Tournament/Ladder/index.ts, its `schedule`), the ladder behind the Lux AI challenges."""

from __future__ import annotations

import random

from . import BotStanding, Pairing, Standings, seat_newcomers

#: ranks above and below a bot its opponent is drawn from: Dimensions takes
#: 2.5 x agents per match (5 for two) above, and one fewer below (its slice's end is exclusive)
ABOVE = 5
BELOW = 4


class Neighbors:
    """Dimensions' ladder: a round gives every bot, in rank order (by mu - 3 sigma), one
    game against a bot drawn uniformly from the 5 ranks above it and the 4 below; rounds are
    queued, and a new round is drawn from the standings of the moment when fewer than twice
    the pairings asked for are left. Newcomers come first, each against a neighbour of its rank.
    A queued pairing with a bot that may no longer play is dropped."""

    def __init__(self) -> None:
        self.queue: list[Pairing] = []

    def pairings(self, standings: Standings, count: int, rng: random.Random) -> list[Pairing]:
        """The next `count` pairings of the queue, newcomers' first."""
        bots = standings.playable()
        if count <= 0 or len(bots) < 2:
            return []
        ranked = sorted(bots, key=lambda b: -b.exposed)
        rank = {b.name: i for i, b in enumerate(ranked)}
        chosen = seat_newcomers(standings, count, rng,
                                lambda new, _others: _neighbour(ranked, rank[new.name], rng))
        playing = set(rank)
        self.queue = [p for p in self.queue if p.first in playing and p.second in playing]
        while len(self.queue) < 2 * (count - len(chosen)):
            self.queue += [Pairing(b.name, _neighbour(ranked, i, rng).name)
                           for i, b in enumerate(ranked)]
        taken, self.queue = self.queue[:count - len(chosen)], self.queue[count - len(chosen):]
        return chosen + taken


def _neighbour(ranked: list[BotStanding], at: int, rng: random.Random) -> BotStanding:
    """A bot drawn uniformly from the ranks ABOVE above and BELOW below rank `at`."""
    near = ranked[max(at - ABOVE, 0):at] + ranked[at + 1:at + 1 + BELOW]
    return rng.choice(near)
