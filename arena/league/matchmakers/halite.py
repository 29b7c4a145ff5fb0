"""`halite`: the game manager of the first Halite (2016), website/api/manager/ManagerAPI.php
of the HaliteChallenge/Halite repository (its `task` endpoint), for two players."""

from __future__ import annotations

import random

from . import BotStanding, Pairing, Standings, seat_newcomers

#: a candidate at rank distance d is kept when d < WINDOW / U**SKEW, U uniform in (0, 1)
WINDOW = 5.0
SKEW = 0.65


class Halite:
    """Halite 2016's matchmaking: the seed is the bot with the largest U * sigma^2 (U uniform
    for each bot: the SQL `order by rand()*-pow(sigma, 2)`), so uncertain bots play more;
    its opponent is drawn uniformly among the bots whose rank (by mu - 3 sigma) is within
    5 / U^0.65 of the seed's, U drawn again for each candidate (MySQL evaluates rand() for
    each row), which keeps most games near the seed and some far. Newcomers come first,
    each as a seed."""

    def pairings(self, standings: Standings, count: int, rng: random.Random) -> list[Pairing]:
        """`count` pairings, each drawn as Halite's manager drew a game."""
        bots = standings.playable()
        if count <= 0 or len(bots) < 2:
            return []
        ranked = sorted(bots, key=lambda b: -b.exposed)
        rank = {b.name: i for i, b in enumerate(ranked)}
        chosen = seat_newcomers(standings, count, rng,
                                lambda new, others: _opponent(new, others, rank, rng))
        while len(chosen) < count:
            seed = max(bots, key=lambda b: rng.random() * b.sigma ** 2)
            others = [b for b in bots if b.name != seed.name]
            chosen.append(Pairing(seed.name, _opponent(seed, others, rank, rng).name))
        return chosen


def _opponent(seed: BotStanding, others: list[BotStanding], rank: dict[str, int],
              rng: random.Random) -> BotStanding:
    """A bot drawn uniformly among those that pass their own random rank window."""
    near = [b for b in others
            if abs(rank[b.name] - rank[seed.name]) < WINDOW / max(rng.random(), 1e-300) ** SKEW]
    return rng.choice(near or others)
