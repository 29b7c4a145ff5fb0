"""Agents for tron: a random cycle that does not crash where it can help it, and a
territory search (the Voronoi evaluation of the 2010 Google AI Challenge's Tron bots).

Territory: a breadth-first search over the free cells from each head; a cell belongs
to the cycle that reaches it in fewest steps, and cells two cycles reach in as few
belong to nobody. The searches run on the bits of the board's int of taken cells
(one shift per direction and step), so a whole evaluation is some dozens of int
operations rather than a loop over cells.
"""

from __future__ import annotations

import itertools
import math
import time

from arena.games import State
from arena.games.tron import TronState

from .base import Agent

#: the value of a position lost or won outright, beyond any territory count
DECIDED = 100_000.0
#: a deeper search expected to take this many times the time left is not begun
HOPELESS = 2.0


def safe_moves(state: TronState, seat: int) -> tuple[int, ...]:
    """seat's moves into a free cell (a head moving there too may still meet it)."""
    head, taken, steps = state.heads[seat], state.taken, state.board.steps
    return tuple(move for move in state.moves_of(seat) if not taken >> (head + steps[move]) & 1)


def territory(state: TronState) -> dict[int, int]:
    """Cells each cycle still in reaches strictly before every other, by seat: a
    breadth-first search over free cells from each head, all run a step at a time."""
    stride = state.board.stride
    seats = [seat for seat in range(state.seats) if state.out[seat] < 0]
    fronts = [1 << state.heads[seat] for seat in seats]
    seen = [state.taken] * len(seats)      # each search's own: the taken cells and its own reach
    claimed = state.taken                  # cells some search reached at an earlier step
    counts = [0] * len(seats)
    while any(fronts):
        for i, f in enumerate(fronts):
            fronts[i] = ((f << 1) | (f >> 1) | (f << stride) | (f >> stride)) & ~seen[i]
            seen[i] |= fronts[i]
        first = [f & ~claimed for f in fronts]
        reached = twice = 0
        for cells in first:
            twice |= reached & cells
            reached |= cells
        for i, cells in enumerate(first):
            counts[i] += (cells & ~twice).bit_count()
        claimed |= reached
    return dict(zip(seats, counts))


class _TronAgent(Agent):
    """What tron agents share: they move for a seat (by the 2010 rules the cycles move at
    once; by CodinGame's the seat to move is the state's)."""

    def choose(self, state: State, time_left_ms: float | None) -> int:
        if state.to_move < 0:
            raise ValueError(f"agent {self.name!r}: in tron the cycles move at once; ask choose_for(state, seat, ...)")
        return self.choose_for(state, state.to_move, time_left_ms)


class TronRandom(_TronAgent):
    """A uniformly random move into a free cell, or any move when every one crashes."""

    def choose_for(self, state: State, seat: int, time_left_ms: float | None) -> int:
        assert isinstance(state, TronState)
        return self.pick(safe_moves(state, seat) or state.moves_of(seat))


class _OutOfTime(Exception):
    """The move's deadline passed inside a search."""


class TronTerritory(_TronAgent):
    """Paranoid search over joint moves to a shallow depth, leaves scored by territory. With
    a time limit it deepens a turn at a time, from 1 to `depth`, and plays the deepest
    search that ended before its deadline (a share of the move's time, as mcts keeps to):
    where `depth` fits in the time, it plays what `depth` alone would."""

    _deadline = math.inf     #: this move's, on time.perf_counter

    def choose_for(self, state: State, seat: int, time_left_ms: float | None) -> int:
        assert isinstance(state, TronState)
        start = time.perf_counter()
        budget = self.budget_ms(None, time_left_ms)
        self._deadline = math.inf if budget is None else start + budget / 1000
        mine = safe_moves(state, seat) or state.moves_of(seat)
        scored: list[tuple[float, int]] = []
        reached, evaluated, before = 0, 0, 1     # the deepest search done, its leaves, the last one's
        took = 0.0                              # seconds that search took
        # without a limit only `depth` is searched; with one, each shallower search is the
        # answer should the next one run out of time
        for depth in range(self.config["depth"] if budget is None else 1, self.config["depth"] + 1):
            began, self.evaluated = time.perf_counter(), 0
            # a turn deeper costs about as many times more as this one had more leaves than
            # the last: one far past the deadline is not begun (its time would be lost)
            if reached and took * evaluated / before > HOPELESS * (self._deadline - began):
                break
            done: list[tuple[float, int]] = []
            try:
                for move in mine:
                    done.append((self._value_of(state, seat, move, depth), move))
            except _OutOfTime:
                if not scored:      # the first search, cut short: the moves it valued
                    scored, reached, evaluated = done, depth if done else 0, self.evaluated
                break
            scored = done
            reached, before, evaluated = depth, evaluated or 1, self.evaluated
            took = time.perf_counter() - began
        if scored:
            best = max(value for value, _ in scored)
            move = self.pick([m for value, m in scored if value == best])
        else:       # not one move valued in time: a move into a free cell
            best, move = math.nan, self.pick(mine)
        self.last_stats = {"value": best, "depth": reached, "evaluated": evaluated,
                           "time_ms": round((time.perf_counter() - start) * 1000, 3)}
        return move

    def _value_of(self, state: TronState, seat: int, move: int, depth: int) -> float:
        """The worst value over the other cycles' replies when seat plays move, searched
        depth turns deep (this one included)."""
        movers = state.movers()
        if state.to_move >= 0:     # by CodinGame's rules: the others move after, each in turn
            return self._after(state.play(move), seat, depth - 1)
        others = [safe_moves(state, s) or state.moves_of(s) for s in movers if s != seat]
        worst = float("inf")
        for replies in itertools.product(*others):
            reply = iter(replies)
            joint = [move if s == seat else next(reply) for s in movers]
            after = state.play_joint(joint)
            value = self._value(after, seat, depth - 1)
            if value < worst:
                worst = value
        return worst

    def _after(self, state: TronState, seat: int, depth: int) -> float:
        """By CodinGame's rules: seat's value once the others have moved, the worst of their
        replies, each moving in turn until it is seat's move (or seat is out, or it is over)."""
        if state.is_terminal() or state.out[seat] >= 0 or state.to_move == seat:
            return self._value(state, seat, depth)
        mover = state.to_move
        return min(self._after(state.play(m), seat, depth)
                   for m in safe_moves(state, mover) or state.moves_of(mover))

    def _value(self, state: TronState, seat: int, depth: int) -> float:
        """seat's value of state: decided when it is out or the game is over, else its
        territory less the largest other's, or the best move's worst case when depth is left.
        _OutOfTime once the move's deadline has passed."""
        if time.perf_counter() >= self._deadline:
            raise _OutOfTime()
        if state.out[seat] >= 0 or state.is_terminal():
            # out: worse the earlier; the game over with seat in: won (it ranks first)
            return (state.returns()[seat] - 0.5) * DECIDED if state.is_terminal() \
                else -DECIDED + state.out[seat]
        if depth > 0:
            mine = safe_moves(state, seat) or state.moves_of(seat)
            return max(self._value_of(state, seat, m, depth) for m in mine)
        self.evaluated += 1
        counts = territory(state)
        own = counts.pop(seat)
        return float(own - max(counts.values(), default=0))


__all__ = ["TronRandom", "TronTerritory", "safe_moves", "territory"]
