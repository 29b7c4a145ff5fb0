#!/usr/bin/env python3
"""A bot-arena bot in Python with the SDK: one class that picks a move."""

from arena.sdk import run


class FirstLegalMove:
    """Plays the lowest-numbered legal move."""

    def __init__(self, game, rng, **options):
        self.game = game

    def choose(self, state, time_left_ms):
        return state.legal_moves()[0]


if __name__ == "__main__":
    raise SystemExit(run(FirstLegalMove))
