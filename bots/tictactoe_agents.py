"""Tic-tac-toe agents: seed 002's blind, novice and master levels and seed 004's negamax.

Seed 002 (Tic-Tac-Toe AI, "The Score Function", "A Master Move", "A Novice
Move", "A Blind Move") scores a finished game for x: 10 - (o's move count) if x
won, -10 + (o's move count) if o won, 0 for a draw; x maximises, o minimises.
The winner's score is therefore 10 - (number of o marks) either way, which
makes quicker wins worth more.

Positions are two 9-bit masks (x, o); x is to move when both have the same
number of marks.
"""

from __future__ import annotations

import random
import time
from functools import lru_cache
from typing import Any

from arena.games import Game, State
from arena.games.grid import FULL, HAS_LINE, POPCOUNT, SQUARES

from .base import Agent


def seed002_score(x: int, o: int) -> int | None:
    """Seed 002's score for x of a finished position, or None if the game goes on."""
    if HAS_LINE[x]:
        return 10 - POPCOUNT[o]
    if HAS_LINE[o]:
        return -10 + POPCOUNT[o]
    if x | o == FULL:
        return 0
    return None


def _solve() -> dict[tuple[int, int], int]:
    """Seed 002's minimax value (for x) of every position reachable from the empty board."""
    values: dict[tuple[int, int], int] = {}

    def value(x: int, o: int) -> int:
        key = (x, o)
        got = values.get(key)
        if got is not None:
            return got
        score = seed002_score(x, o)
        if score is None:
            free = SQUARES[FULL & ~(x | o)]
            if POPCOUNT[x] == POPCOUNT[o]:
                score = max(value(x | 1 << s, o) for s in free)
            else:
                score = min(value(x, o | 1 << s) for s in free)
        values[key] = score
        return score

    value(0, 0)
    return values


@lru_cache(maxsize=1)
def solved_table() -> dict[tuple[int, int], int]:
    """All 5478 reachable positions with their seed-002 minimax value, built once per process."""
    return _solve()


def minimax_value_uncached(x: int, o: int) -> tuple[int, int]:
    """(value for x, positions visited) by plain minimax without any table: the uncached cost."""
    visited = 0

    def value(x: int, o: int) -> int:
        nonlocal visited
        visited += 1
        score = seed002_score(x, o)
        if score is not None:
            return score
        free = SQUARES[FULL & ~(x | o)]
        if POPCOUNT[x] == POPCOUNT[o]:
            return max(value(x | 1 << s, o) for s in free)
        return min(value(x, o | 1 << s) for s in free)

    return value(x, o), visited


def _masks(state: State) -> tuple[int, int]:
    x, o = state.masks  # type: ignore[attr-defined]
    return x, o


def ranked_moves(x: int, o: int) -> list[tuple[int, int]]:
    """[(move, value for x)] sorted best first for the side to move; equal values keep square order
    (seed 002 sorts its actions, listed by ascending square, with a stable sort)."""
    table = solved_table()
    x_to_move = POPCOUNT[x] == POPCOUNT[o]
    scored = [(s, table[(x | 1 << s, o) if x_to_move else (x, o | 1 << s)]) for s in SQUARES[FULL & ~(x | o)]]
    scored.sort(key=lambda mv: mv[1], reverse=x_to_move)
    return scored


class Blind(Agent):
    """Seed 002, "A Blind Move": a uniformly random empty square."""

    def choose(self, state: State, time_left_ms: float | None) -> int:
        return self.pick(self.legal(state))


class Master(Agent):
    """Seed 002, "A Master Move": the first move of the ranking by minimax value with seed 002's score.

    The ranking is the seed's stable sort of the empty squares (ascending) by
    value, so among equally good moves the lowest square is played. Values come
    from a table of all 5478 reachable positions, solved once per process when
    the first master or novice agent is made (about 10 ms).
    """

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        super().__init__(game, rng, **options)
        solved_table()

    def choose(self, state: State, time_left_ms: float | None) -> int:
        self.legal(state)
        ranking = ranked_moves(*_masks(state))
        self.last_stats = {"value": ranking[0][1]}
        return ranking[0][0]


class Novice(Agent):
    """Seed 002, "A Novice Move": the best-ranked move 40% of the time, else the second-ranked.

    As in the seed: draw r = 100 * random(); if r <= 40 play ranking[0], else
    ranking[1] (ranking[0] when it is the only move). The seed calls ranking[1]
    "the first suboptimal action", but it is simply the second entry of the
    stable sort: when two moves share the best value it is an optimal move too.
    One random number is drawn per decision, even when only one move is legal.
    """

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        super().__init__(game, rng, **options)
        solved_table()

    def choose(self, state: State, time_left_ms: float | None) -> int:
        self.legal(state)
        ranking = ranked_moves(*_masks(state))
        optimal = self.rng.random() * 100 <= self.config["optimal_percent"]
        index = 0 if optimal or len(ranking) < 2 else 1
        self.last_stats = {"rank": index, "value": ranking[index][1]}
        return ranking[index][0]


def negamax(x: int, o: int, alpha: float, beta: float, counter: list[int], pruning: bool = True) -> int:
    """Seed 004's negamax (alpha-beta when pruning): value for the side to move of a position.

    Scores are seed 002's, seen from the side to move, so they equal the master's
    values up to sign; counter[0] counts every position visited, this one included."""
    counter[0] += 1
    score = seed002_score(x, o)
    if score is not None:
        # the game is over: the side to move is the one that did not make the last move
        return -score if POPCOUNT[x] == POPCOUNT[o] + 1 else score
    x_to_move = POPCOUNT[x] == POPCOUNT[o]
    best = -100
    for s in SQUARES[FULL & ~(x | o)]:
        if x_to_move:
            v = -negamax(x | 1 << s, o, -beta, -alpha, counter, pruning)
        else:
            v = -negamax(x, o | 1 << s, -beta, -alpha, counter, pruning)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if pruning and alpha >= beta:
                    break
    return best


class Negamax(Agent):
    """Seed 004, section 1.2: negamax with alpha-beta pruning over the whole game tree, no table.

    The move is the first (lowest square) of the best value; last_stats["nodes"]
    is the number of states explored for this decision, counted as the seed
    does: every position the search visits, the current one included. From the
    empty board that is 549,946 without pruning (the seed's figure) and 20,866
    with it (the seed reports about 18,000; the count depends on move order).
    """

    def choose(self, state: State, time_left_ms: float | None) -> int:
        moves = self.legal(state)
        x, o = _masks(state)
        x_to_move = POPCOUNT[x] == POPCOUNT[o]
        pruning = self.config["pruning"]
        counter = [1]  # the current position
        start = time.perf_counter()
        best_move, alpha, beta = moves[0], -100, 100
        for s in moves:
            child = (x | 1 << s, o) if x_to_move else (x, o | 1 << s)
            v = -negamax(*child, -beta, -alpha, counter, pruning)
            if v > alpha:
                alpha, best_move = v, s
        self.last_stats = {"nodes": counter[0], "value": alpha,
                           "time_ms": round((time.perf_counter() - start) * 1000, 3)}
        return best_move


__all__ = ["Blind", "Master", "Negamax", "Novice", "minimax_value_uncached", "negamax", "ranked_moves",
           "seed002_score", "solved_table"]
