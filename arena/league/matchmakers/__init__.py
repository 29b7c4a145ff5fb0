"""Matchmakers: which pairings a ladder plays next, from the standings as they are now.

A matchmaker is registered by name through the `arena_register_matchmakers` hook (the
built-ins by arena's default plugin, arena.league.matchmakers.plugin) as a factory: the
ladder makes one matchmaker for its run and calls pairings(standings, count, rng) each
time `count` slots free up. Each pairing is played as a seat-swapped pair of games
sharing a seed and an opening. A matchmaker only chooses: it never plays, stores or
rates, so it is tested and simulated without a game (benchmarks/matchmaking.py).

Every built-in seats newcomers first (bots with fewer games than standings.min_games: one
in each pairing while there are any, fewest games first but in psyleague, which draws
among them) and never pairs a bot with itself; with min_games 0 the reimplemented
policies are the originals.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

__all__ = ["BotStanding", "Matchmaker", "MatchmakerFactory", "Pairing", "Standings",
           "pair_key", "seat_newcomers"]


class Pairing(NamedTuple):
    """Two bots to play a seat-swapped pair of games; `first` has the first game's first seat."""

    first: str
    second: str


@dataclass(frozen=True)
class BotStanding:
    """One bot as a matchmaker sees it: its TrueSkill rating, its games, its state."""

    name: str
    mu: float
    sigma: float
    games: int = 0              #: games played (each pairing is two)
    suspended: bool = False     #: faults too often: plays no more until a new version
    running: bool = False       #: a worker already runs its process (cheaper to play)

    @property
    def exposed(self) -> float:
        """mu - 3 sigma, what the leaderboard (and Halite's and Dimensions' ladders) rank by."""
        return self.mu - 3 * self.sigma


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The key of a pairing in Standings.pairs, whatever the seats: the names in order."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class Standings:
    """What a matchmaker is given: every bot, the pairings so far, the ladder's settings."""

    bots: Sequence[BotStanding]
    #: seat-swapped pairs started so far (played or in play), by pair_key
    pairs: Mapping[tuple[str, str], int] = field(default_factory=dict)
    #: a bot with fewer games is a newcomer, seated first
    min_games: int = 0
    #: TrueSkill's beta (the performance spread), for the chance that one bot beats another
    beta: float = 25.0 / 6

    def playable(self) -> list[BotStanding]:
        """The bots that may play: every one not suspended, in the order given."""
        return [b for b in self.bots if not b.suspended]

    def newcomers(self, rng: random.Random) -> list[BotStanding]:
        """The playable bots with fewer than min_games games, fewest first (ties shuffled)."""
        new = [b for b in self.playable() if b.games < self.min_games]
        rng.shuffle(new)
        return sorted(new, key=lambda b: b.games)

    def times(self, a: str, b: str) -> int:
        """How many seat-swapped pairs a and b have started."""
        return self.pairs.get(pair_key(a, b), 0)


class Matchmaker(Protocol):
    """Chooses the next pairings of a ladder."""

    def pairings(self, standings: Standings, count: int, rng: random.Random) -> list[Pairing]:
        """Up to `count` pairings of two distinct playable bots (fewer only when fewer than
        two bots may play), newcomers' first; all randomness from rng."""
        ...


#: what the registry holds: called with no arguments, it makes one ladder's matchmaker
MatchmakerFactory = Callable[[], Matchmaker]


def seat_newcomers(standings: Standings, count: int, rng: random.Random,
                   opponent: Callable[[BotStanding, list[BotStanding]], BotStanding]) -> list[Pairing]:
    """Up to `count` pairings, one for each newcomer, fewest games first, each against the
    bot `opponent(newcomer, others)` picks among the other playable bots."""
    bots = standings.playable()
    if count <= 0 or len(bots) < 2:
        return []
    chosen = []
    for new in standings.newcomers(rng)[:count]:
        other = opponent(new, [b for b in bots if b.name != new.name])
        chosen.append(Pairing(new.name, other.name))
    return chosen
