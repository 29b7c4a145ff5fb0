"""Agents for any registered game that need no knowledge of its rules."""

from __future__ import annotations

from arena.games import State

from .base import Agent


class RandomAgent(Agent):
    """A uniformly random legal move, for any game: legal[int(rng.random() * n)], as arena.games.random_game."""

    def choose(self, state: State, time_left_ms: float | None) -> int:
        return self.pick(self.legal(state))


__all__ = ["RandomAgent"]
