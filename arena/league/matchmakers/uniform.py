"""`uniform`: two bots drawn uniformly at random, the baseline every policy is measured against."""

from __future__ import annotations

import random

from . import Pairing, Standings, seat_newcomers


class Uniform:
    """Each pairing two distinct playable bots drawn uniformly at random (newcomers first,
    each against a bot drawn the same way): random pairing, the plainest ladder."""

    def pairings(self, standings: Standings, count: int, rng: random.Random) -> list[Pairing]:
        """`count` uniformly random pairings, newcomers' first."""
        bots = standings.playable()
        if count <= 0 or len(bots) < 2:
            return []
        chosen = seat_newcomers(standings, count, rng, lambda _new, others: rng.choice(others))
        while len(chosen) < count:
            a, b = rng.sample(bots, 2)
            chosen.append(Pairing(a.name, b.name))
        return chosen


