"""Nine-board tic-tac-toe agent of seed 004 (Sam Wlody, "Building an AI for 9-board Tic-Tac-Toe").

Section 2: negamax with alpha-beta pruning (2.2), time-limited iterative deepening
(2.3: "ran Alpha-Beta pruning to subsequently greater depths until a timer ran out"),
and the heuristic of 2.4: +5 for each two-in-a-row of the agent, -5 for each of the
opponent, summed over the nine boards; a win is worth 100 and a tie 0.

Choices where the seed is vague (also in docs/agents.md):
- A two-in-a-row is a line of a small board with two of a player's marks and the
  third square empty (a line that is already blocked is not counted).
- A win is worth 100 plus the plies left in the search when it is reached, so the
  agent prefers the quicker of two wins (and the slower of two losses); a tie (being
  sent to a full board) is 0.
- At every node the side to move first checks whether it can complete a line in the
  board it must play in; if so that is the value (the quickest possible win).
- The search time is the `time_ms` option (default 500 ms), capped at half the time
  the referee allows for the move less 5 ms; the seed used 1 s. An iteration stopped
  by the clock is used only if it finished its first move (the previous best): its
  best finished move is then kept.
- Among equal values the first move searched wins (moves are searched in the previous
  iteration's order, best first); the agent uses no randomness.
"""

from __future__ import annotations

import random
import time
from typing import Any

from arena.games import Game, State
from arena.games.bigboard import BigBoardState
from arena.games.grid import FULL, POPCOUNT

from .base import Agent
from .features import nineboard_eval
from .search9 import Search9, winning_squares


class NineBoardNegamax(Agent):
    """Seed 004, section 2: negamax alpha-beta with time-limited iterative deepening and the
    two-in-a-row heuristic (+5 own, -5 opponent's, win 100, tie 0)."""

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        super().__init__(game, rng, **options)
        nineboard_eval(0), nineboard_eval(1), winning_squares()  # tables built now, not in a move

    def choose(self, state: State, time_left_ms: float | None) -> int:
        moves = self.legal(state)
        assert isinstance(state, BigBoardState)
        start = time.perf_counter()
        budget = self.budget_ms(self.config["time_ms"], time_left_ms)
        deadline = start + (budget if budget is not None else 1e12) / 1000
        seat = state.to_move
        s9 = Search9(state, nineboard_eval(seat), seat)
        empty = 81 - sum(POPCOUNT[(v | v >> 9) & FULL] for v in state.boards)
        max_depth = self.config["max_depth"] or empty
        values, depth = s9.deepen(min(max_depth, empty), deadline)
        move, best = max(values, key=lambda mv: mv[1])  # the first of the best, in search order
        assert move in moves
        self.last_stats = {"nodes": s9.nodes, "depth": depth, "value": best,
                           "time_ms": round((time.perf_counter() - start) * 1000, 3)}
        return move


__all__ = ["NineBoardNegamax"]
