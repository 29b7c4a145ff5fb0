"""Two Connect Four bots written with the arena SDK: each is a class with choose()."""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game, State

from .game import COLUMNS, LINES, ConnectFourState

WIN_SCORE = 1_000_000
#: centre columns first: better moves first make alpha-beta cut more
ORDER = (3, 2, 4, 1, 5, 0, 6)


class RandomBot:
    """Drops its disc into a uniformly random open column."""

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        self.rng = rng

    def choose(self, state: State, time_left_ms: float | None) -> int:
        return self.rng.choice(state.legal_moves())


class SearchBot:
    """Negamax with alpha-beta to a fixed depth; leaves scored by open lines of two and three."""

    def __init__(self, game: Game, rng: random.Random, depth: int = 4, **options: Any) -> None:
        self.rng = rng
        self.depth = int(depth)

    def choose(self, state: State, time_left_ms: float | None) -> int:
        assert isinstance(state, ConnectFourState)
        best, best_score = [], -WIN_SCORE * 2
        for move in _ordered(state):
            score = -_negamax(state.play(move), self.depth - 1, -WIN_SCORE * 2, WIN_SCORE * 2)
            if score > best_score:
                best, best_score = [move], score
            elif score == best_score:
                best.append(move)
        return self.rng.choice(best)


def _ordered(state: ConnectFourState) -> list[int]:
    legal = state.legal_moves()
    return [c for c in ORDER if c in legal]


def _negamax(state: ConnectFourState, depth: int, alpha: int, beta: int) -> int:
    """The position's value for the side to move."""
    if state.is_terminal():
        # the side that just moved won, or a draw; sooner wins score higher
        return 0 if state.winner is None else -(WIN_SCORE + depth)
    if depth <= 0:
        return _evaluate(state)
    for move in _ordered(state):
        score = -_negamax(state.play(move), depth - 1, -beta, -alpha)
        if score >= beta:
            return score
        alpha = max(alpha, score)
    return alpha


def _evaluate(state: ConnectFourState) -> int:
    """Open lines weighted by how full they are, from the side to move's view."""
    mine, theirs = "xo"[state.to_move], "xo"[1 - state.to_move]
    score = 0
    for line in LINES:
        marks = [state.board[s] for s in line]
        if theirs not in marks:
            score += (0, 1, 4, 16)[marks.count(mine)] if marks.count(mine) < 4 else 0
        if mine not in marks:
            score -= (0, 1, 4, 16)[marks.count(theirs)] if marks.count(theirs) < 4 else 0
    centre = [state.board[r * COLUMNS + 3] for r in range(6)]
    return score + centre.count(mine) - centre.count(theirs)
