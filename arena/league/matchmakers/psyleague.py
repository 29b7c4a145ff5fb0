"""`psyleague`: the matchmaking of psyleague 0.4.1 (its `choose_match` in psyleague/psyleague.py)."""

from __future__ import annotations

import random

from . import Pairing, Standings


class Psyleague:
    """psyleague 0.4.1's matchmaking, for two players: the first bot is drawn uniformly
    among the bots with fewer games than the minimum (psyleague's `mm_min_matches`, here
    the ladder's min_games; with its `mm_min_matches_preference` of 1.0, always when there
    is one), else among all bots; its opponent uniformly among the others."""

    def pairings(self, standings: Standings, count: int, rng: random.Random) -> list[Pairing]:
        """`count` pairings drawn one at a time as psyleague draws a match."""
        bots = standings.playable()
        if count <= 0 or len(bots) < 2:
            return []
        under = [b for b in bots if b.games < standings.min_games]
        chosen = []
        for _ in range(count):
            first = rng.choice(under or bots)
            second = rng.choice([b for b in bots if b.name != first.name])
            chosen.append(Pairing(first.name, second.name))
        return chosen
