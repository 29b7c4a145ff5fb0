"""Agents for any registered game that need no knowledge of its rules."""

from __future__ import annotations

from arena.games import SIMULTANEOUS, State

from .base import Agent


class RandomAgent(Agent):
    """A uniformly random legal move, for any game: legal[int(rng.random() * n)], as arena.games.random_game."""

    def choose(self, state: State, time_left_ms: float | None) -> int:
        return self.pick(self.legal(state))

    def choose_for(self, state: State, seat: int, time_left_ms: float | None) -> int:
        """A uniformly random move of seat's, in any game (its seats moving at once or not)."""
        if state.to_move != SIMULTANEOUS:
            return super().choose_for(state, seat, time_left_ms)
        moves = state.moves_of(seat)
        if not moves:
            raise ValueError(f"seat {seat} has no move to choose here")
        return self.pick(moves)


__all__ = ["RandomAgent"]
