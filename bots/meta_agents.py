"""Meta tic-tac-toe agent of seed 000 (Chet Weger, meta-tic-tac-toe): minimax with alpha-beta over
a weighted sum of six basis functions.

Section "How the AI Works": depth-limited minimax (the seed's code uses alpha-beta),
3 ply in the seed's experiments. Section "The Utility Function": utility =
c1*f1_score + c2*f2_center + c3*f3_corner + c4*f4_side + c5*f5_blocking +
c6*f6_potential, each f the count for MAX (the agent) minus the count for MIN,
with the default constants {c1: 3, c2: 2, c3..c6: 0.5}.

Choices where the seed is vague (also in docs/agents.md):
- f1_score counts boards won (a board is one point).
- f2..f4 (centre, corner and side pieces) and f6 (potential: a line with two of a
  player's marks and the third square empty) count only on boards still open; f5
  (blocking: a full line holding one mark of a player and two of the other, credited
  to the player with the single mark, who blocked) counts on every board.
- An ended game is worth +-W (W larger than any utility value, plus the plies left so
  quicker wins score higher), not the utility: the search never prefers a heuristic
  edge to a real win.
- Among moves of exactly equal value the agent picks at random from its rng.
- Constants are applied as integers in millionths.
"""

from __future__ import annotations

import ast
import json
import random
import time
from pathlib import Path
from typing import Any

from arena.games import Game, State
from arena.games.bigboard import BigBoardState

from .base import Agent
from .features import META_CONSTANTS, meta_eval
from .search9 import INF, Search9

KEYS = ("c1", "c2", "c3", "c4", "c5", "c6")


def parse_constants(value: Any) -> dict[str, float]:
    """Constants c1..c6 from a mapping, or from text: JSON, a Python dict literal (the seed's td.txt),
    or 'c1=3,c2=2,...'. Missing keys keep the seed's defaults; unknown keys are an error."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                value = ast.literal_eval(text)
        else:
            pairs = [p.split("=", 1) for p in text.replace(";", ",").split(",") if p.strip()]
            if any(len(p) != 2 for p in pairs):
                raise ValueError(f"{text!r}: expected c1=3,c2=2,... or a JSON object")
            value = {k.strip(): v.strip() for k, v in pairs}
    if not isinstance(value, dict):
        raise ValueError(f"constants must be a mapping of c1..c6, not {value!r}")
    unknown = sorted(set(value) - set(KEYS))
    if unknown:
        raise ValueError(f"unknown constant {unknown[0]!r} (expected {', '.join(KEYS)})")
    out = dict(META_CONSTANTS)
    out.update({k: float(v) for k, v in value.items()})
    return out


class MetaMinimax(Agent):
    """Seed 000: alpha-beta minimax to a fixed depth (3 ply) with the six-basis-function utility."""

    option_types = {"constants": parse_constants, "weights": str, "time_ms": float, "seed": int}

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        super().__init__(game, rng, **options)
        consts = dict(META_CONSTANTS)
        if self.config["weights"] is not None:
            consts = parse_constants(Path(self.config["weights"]).read_text())
        if self.config["constants"] is not None:
            consts = self.config["constants"]
        self.constants = consts
        for seat in (0, 1):  # tables built now, not during a move
            meta_eval(seat, tuple(consts[k] for k in KEYS))
        if self.config["depth"] < 1:
            raise ValueError(f"agent {self.name!r}: depth must be >= 1")

    def choose(self, state: State, time_left_ms: float | None) -> int:
        self.legal(state)
        assert isinstance(state, BigBoardState)
        start = time.perf_counter()
        budget = self.budget_ms(self.config["time_ms"], time_left_ms)
        deadline = INF if budget is None else start + budget / 1000
        seat = state.to_move
        s9 = Search9(state, meta_eval(seat, tuple(self.constants[k] for k in KEYS)), seat)
        values, depth = s9.deepen(self.config["depth"], deadline, ties=True)
        best = max(v for _, v in values)
        tied = sorted(m for m, v in values if v == best)
        move = self.pick(tied)
        self.last_stats = {"nodes": s9.nodes, "depth": depth, "value": best / 1e6, "tied": len(tied),
                           "time_ms": round((time.perf_counter() - start) * 1000, 3)}
        return move


__all__ = ["MetaMinimax", "parse_constants"]
