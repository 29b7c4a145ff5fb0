"""Agents for any registered game that need no knowledge of its rules."""

from __future__ import annotations

from arena.games import State

from .base import SEED_OPTION, Agent


class RandomAgent(Agent):
    """A uniformly random legal move, for any game: legal[int(rng.random() * n)], as arena.games.random_game."""

    name = "random"
    game = "*"
    description = "beyond the papers: a uniformly random legal move, any game"
    options = dict(SEED_OPTION)

    def choose(self, state: State, time_left_ms: float | None) -> int:
        return self.pick(self.legal(state))


__all__ = ["RandomAgent"]
