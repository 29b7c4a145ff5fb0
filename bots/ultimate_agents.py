"""Ultimate tic-tac-toe agents of seed 001 (Singhal and Nambikrishnan, "Playing Ultimate
Tic-Tac-Toe with TD Learning and Monte Carlo Tree Search"), section 2.2, with the features
and weights of section 2.3.

Choices where the paper is vague (also in docs/agents.md):
- "agent" in the features is the seat of the agent choosing the move; utility is +100
  for its win, -100 for its loss, 0 for a draw (section 2.1).
- Depth d follows the recurrence of section 2.2.4: it drops by one after the opponent's
  move, so depth 1 is the agent's move and the opponent's reply (2 plies), then Eval.
- The top-3 filter applies at every node of the recurrence that is not an end state and
  has d > 0 (agent nodes keep the 3 successors of highest Eval, opponent nodes the 3 of
  lowest); the root itself scores every legal move, as "choose the action whose
  successor has the greatest minimax value" says. Successors are ranked by a stable
  sort over ascending cells, and a successor that ends the game is ranked by its
  utility rather than by Eval, so a winning move is never filtered out.
- Ties at the root are broken uniformly at random from the agent's rng (section 2.2.4:
  "or a random one if multiple actions that achieve the maximum exist").
- Evaluation weights are applied as integers in millionths (bots.features.SCALE), so
  equal positions get exactly equal values and minimax with and without pruning see the
  same ties.
- Expectimax (section 2.2.7): opponent nodes average over all their successors (the
  paper's formula has no filter there); agent nodes keep the top 3 and take the max (the
  paper's formula divides the max by |A(s)|, a typo).
- If a search would overrun the time the referee allows, the agent falls back to the
  depth-0 choice (the Advanced Perceptron's) and says so in last_stats.
- The agents that use the learned evaluation take a `weights` option: weights learned
  by `arena train ultimate` (bots/training.py), as a mapping, as JSON text or as the path
  of the JSON file; missing names keep the paper's weights.

`emulate` (default `none`): the Reflex, Minimax, Advanced Perceptron and Expectimax agents
can instead reproduce defects of the authors' published code (github.com/karan1149/
ultimate-tic-tac-toe, agent.py), which produced the paper's Table 1; see EMULATE_PARTS and
docs/agents.md. The game-level defect (the 2-5-8 column of boards never wins) is the
`ultimate` rule option column258=ignored.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.games import Game, State
from arena.games.bigboard import BigBoardState
from arena.games.grid import FULL, SQUARES
from arena.games.search_support import FREE

from .base import Agent, AgentOptionError
from .features import ADVANCED_WEIGHTS, SIMPLE_WEIGHTS, BoardEval, advanced_eval, scaled, simple_features
from .search9 import INF, Search9, SearchTimeout, winning_squares


def parse_weights(value: Any) -> dict[str, float]:
    """The 13 advanced-feature weights from a mapping, JSON object text, or the path of a JSON
    file (as `arena train ultimate` writes it); missing names keep the paper's learned weights,
    unknown names are an error."""
    if isinstance(value, (str, Path)):
        text = str(value).strip()
        if not text.startswith("{"):
            try:
                text = Path(text).read_text()
            except OSError as err:
                raise ValueError(f"cannot read weights file {str(value)!r}: {err.strerror}") from None
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"weights are not JSON: {err}") from None
    if not isinstance(value, Mapping):
        raise ValueError(f"weights must be a mapping of feature names to numbers, not {value!r}")
    unknown = sorted(set(value) - set(ADVANCED_WEIGHTS))
    if unknown:
        raise ValueError(f"unknown feature {unknown[0]!r} (features: {', '.join(ADVANCED_WEIGHTS)})")
    out = dict(ADVANCED_WEIGHTS)
    for key, w in value.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)):
            raise ValueError(f"weight {key!r} must be a number, not {w!r}")
        out[key] = float(w)
    return out



#: The defects of the authors' published agent.py that `emulate` can switch on, one by one.
EMULATE_PARTS: dict[str, str] = {
    "min-node": "the Minimax Pruning Agent's min nodes return no value (Python 2 None, below every "
                "number) unless they cut before their last child",
    "seat0": "features and utility are always the first player's (seat 0), and the agent maximises "
             "them in either seat: moving second, it plays for its opponent",
    "reflex-wins": "the Reflex filter also removes moves that win the game, when the opponent could "
                   "win a small board next if the game went on",
    "depth": "depth drops after the agent's own move, not the opponent's: depth d searches 2d+1 plies",
    "adjacent-pairs": "adjacent pieces are counted as neighbouring pairs (each from both ends), not as "
                      "squares with a neighbour",
}

#: The parts that change the search itself (the others change the evaluation or the Reflex filter).
SEARCH_PARTS = frozenset({"min-node", "seat0", "depth"})

def parse_emulate(agent: str, value: str, allowed: tuple[str, ...]) -> frozenset[str]:
    """The set of published-code defects named by an `emulate` option value."""
    text = str(value).strip()
    if text in ("", "none"):
        return frozenset()
    if text == "published-code":
        return frozenset(allowed)
    parts = [p.strip() for p in text.split(",") if p.strip()]
    for part in parts:
        if part not in allowed:
            raise AgentOptionError(
                f"agent {agent!r}: option 'emulate' cannot be {value!r}: {part!r} is not a defect of "
                f"this agent (allowed: none, published-code, {', '.join(allowed)})")
    return frozenset(parts)


class UltimateRandom(Agent):
    """Seed 001, section 2.2.1 (Random Agent): a uniformly random legal move."""

    def choose(self, state: State, time_left_ms: float | None) -> int:
        return self.pick(self.legal(state))


class Perceptron(Agent):
    """Seed 001, section 2.2.2 (Perceptron Agent): the move whose successor scores highest under the
    Simple Feature Extractor (2.3.1) with weights wins 5, centre .2, corner .1, adjacent .4; ties at random.

    The features count the agent's won boards, centre squares, corner squares and
    squares with at least one of its own squares next to them (across a side or a
    corner, within the same small board)."""

    emulate_parts = ("adjacent-pairs",)

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        super().__init__(game, rng, **options)
        self.emulate = parse_emulate(self.name, self.config["emulate"], self.emulate_parts)
        self.pairs = "adjacent-pairs" in self.emulate
        self.weights = {k: scaled(w) for k, w in SIMPLE_WEIGHTS.items()}

    def choose(self, state: State, time_left_ms: float | None) -> int:
        moves = self.legal(state)
        seat = state.to_move
        scored = []
        for m in moves:
            f = simple_features(state.play(m), seat, self.pairs)
            scored.append((sum(f[k] * w for k, w in self.weights.items()), m))
        best = max(v for v, _ in scored)
        tied = [m for v, m in scored if v == best]
        self.last_stats = {"score": best / 1e6, "tied": len(tied)}
        return self.pick(tied)


class Reflex(Agent):
    """Seed 001, section 2.2.3 (Reflex Agent): a random move among those after which no opponent reply
    wins a small board; a random move of all when every move allows one."""

    emulate_parts = ("reflex-wins",)

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        super().__init__(game, rng, **options)
        self.emulate = parse_emulate(self.name, self.config["emulate"], self.emulate_parts)
        winning_squares()  # build the tables now rather than during the first move

    def choose(self, state: State, time_left_ms: float | None) -> int:
        moves = self.legal(state)
        winsq = winning_squares()
        safe = []
        for m in moves:
            nxt = state.play(m)
            assert isinstance(nxt, BigBoardState)
            if nxt.is_terminal() and "reflex-wins" not in self.emulate:
                safe.append(m)
                continue
            # emulating the published code, a move that ends the game is judged like any other:
            # its target and closed boards say where the opponent would play if the game went on
            opp = winsq[nxt.to_move]
            boards = (nxt.target,) if nxt.target >= 0 else SQUARES[FULL & ~nxt.closed]
            if not any(opp[nxt.boards[b]] for b in boards):
                safe.append(m)
        self.last_stats = {"safe": len(safe), "moves": len(moves)}
        return self.pick(safe or moves)


class _Seed001Search(Agent):
    """Shared search of seed 001's Minimax, Minimax Pruning, Advanced Perceptron and Expectimax agents."""

    mode = "minimax"  # "minimax" | "pruning" | "expectimax"
    option_types = {"weights": parse_weights, "seed": int}
    emulate_parts: tuple[str, ...] = ("seat0", "depth", "adjacent-pairs")

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        super().__init__(game, rng, **options)
        if self.config["depth"] < 0 or self.config["top"] < 0:
            raise ValueError(f"agent {self.name!r}: depth and top must be >= 0")
        self._init_weights()

    def _init_weights(self) -> None:
        self.emulate = parse_emulate(self.name, self.config["emulate"], self.emulate_parts)
        weights = self.config["weights"] or ADVANCED_WEIGHTS
        self.weight_items = tuple((k, weights[k]) for k in ADVANCED_WEIGHTS)

    def evaluation(self, seat: int) -> BoardEval:
        """The learned linear evaluation, with this agent's weights, for the agent playing `seat`."""
        return advanced_eval(seat, self.weight_items, "adjacent-pairs" in self.emulate)

    # a node is (side, target, closed, xw, ow, e); boards live in self.s9.boards

    def _children(self, side, target, closed, xw, ow, e):
        """[(agent value of child, move, b, nv, term, nt, nc, nxw, now, ne)] in ascending cell order."""
        s9 = self.s9
        boards = s9.boards
        bs = (target,) if target >= 0 else SQUARES[FULL & ~closed]
        out = []
        child, agent_value = s9.child, s9.agent_value
        for b in bs:
            for s in FREE[boards[b]]:
                m = 9 * b + s
                nv, term, nt, nc, nxw, now, ne = child(side, target, closed, xw, ow, e, m)
                out.append((agent_value(side, b, nv, term, nt, ne), m, b, nv, term, nt, nc, nxw, now, ne))
        self.nodes += len(out)
        return out

    def _value(self, side, target, closed, xw, ow, e, d, alpha, beta):
        """V(s, d) of section 2.2.4 (or 2.2.7) for a node that is not over, with d >= 1, for the agent."""
        if self.clock() > self.deadline:
            raise SearchTimeout
        agent_turn = side == self.s9.agent
        kids = self._children(side, target, closed, xw, ow, e)
        mode, top = self.mode, self.config["top"]
        expect = mode == "expectimax" and not agent_turn
        if not expect:
            kids.sort(key=lambda k: k[0], reverse=agent_turn)
            if top:
                del kids[top:]
        nd = d if agent_turn else d - 1
        prune = mode == "pruning"
        boards = self.s9.boards
        best = -INF if agent_turn else INF
        total = 0
        for key, _m, b, nv, term, nt, nc, nxw, now, ne in kids:
            if term is not None or nd == 0:
                val = key
            else:
                v = boards[b]
                boards[b] = nv
                try:
                    val = self._value(side ^ 1, nt, nc, nxw, now, ne, nd, alpha, beta)
                finally:
                    boards[b] = v
            if expect:
                total += val
            elif agent_turn:
                if val > best:
                    best = val
                    if prune and val > alpha:
                        alpha = val
                        if alpha >= beta:
                            break
            else:
                if val < best:
                    best = val
                    if prune and val < beta:
                        beta = val
                        if alpha >= beta:
                            break
        return total / len(kids) if expect else best

    def choose(self, state: State, time_left_ms: float | None) -> int:
        moves = self.legal(state)
        start = self.clock()
        budget = self.budget_ms(None, time_left_ms)
        self.deadline = INF if budget is None else start + budget / 1000
        self.nodes = 0
        depth = self.config["depth"]
        timed_out = False
        root_values = self._published_root_values if self.emulate & SEARCH_PARTS else self._root_values
        try:
            values = root_values(state, depth)
        except SearchTimeout:
            timed_out = True
            values = root_values(state, 0)
        best = max(v for _, v in values)
        tied = [m for m, v in values if v == best]
        move = self.pick(tied)
        assert move in moves
        self.last_stats = {"nodes": self.nodes, "depth": 0 if timed_out else depth, "value": best / 1e6,
                           "tied": len(tied), "timeout": timed_out,
                           "time_ms": round((self.clock() - start) * 1000, 3)}
        return move

    def clock(self) -> float:
        return time.perf_counter()

    def _root_values(self, state: State, depth: int) -> list[tuple[int, float]]:
        """[(move, value for the agent)] for every legal move; values tied with the best are exact."""
        assert isinstance(state, BigBoardState)
        seat = state.to_move
        self.s9 = s9 = Search9(state, self.evaluation(seat), seat)
        self.nodes += 1
        out = []
        alpha = -INF
        prune = self.mode == "pruning"
        boards = s9.boards
        for key, m, b, nv, term, nt, nc, nxw, now, ne in self._children(
                seat, s9.target, s9.closed, s9.xwon, s9.owon, s9.e):
            if term is not None or depth == 0:
                val = key
            else:
                v = boards[b]
                boards[b] = nv
                try:
                    # alpha - 1 keeps any move equal to the best so far exact (values are integers)
                    val = self._value(seat ^ 1, nt, nc, nxw, now, ne, depth,
                                      alpha - 1 if prune else -INF, INF)
                finally:
                    boards[b] = v
            out.append((m, val))
            if val > alpha:
                alpha = val
        return out

    # ---------------------------------------------------------------- the published code's search

    def _published_root_values(self, state: State, depth: int) -> list[tuple[int, float]]:
        """[(move, value)] as the authors' agent.py computes them, with the defects in self.emulate.

        Every root move is searched with the full window, as there. Values keep Python 2's
        order: NO_VALUE (a min node that fell off its end, None there) is below every number,
        and the code's infinities are the finite -BIG and BIG, above NO_VALUE."""
        assert isinstance(state, BigBoardState)
        seat = state.to_move
        side_of_view = 0 if "seat0" in self.emulate else seat
        self.root_seat = seat
        self.s9 = s9 = Search9(state, self.evaluation(side_of_view), side_of_view)
        self.nodes += 1
        boards = s9.boards
        out = []
        for key, m, b, nv, term, nt, nc, nxw, now, ne in self._children(
                seat, s9.target, s9.closed, s9.xwon, s9.owon, s9.e):
            if term is not None or depth == 0:
                val = key
            else:
                v = boards[b]
                boards[b] = nv
                try:
                    val = self._published_value(seat ^ 1, nt, nc, nxw, now, ne, depth, -BIG, BIG)
                finally:
                    boards[b] = v
            out.append((m, val))
        return out

    def _published_value(self, side, target, closed, xw, ow, e, d, alpha, beta):
        """A node's value as agent.py's minimaxValue computes it (not over, d >= 1)."""
        if self.clock() > self.deadline:
            raise SearchTimeout
        emulate = self.emulate
        max_node = side == self.s9.agent
        own_move = side == self.root_seat
        # the paper: d drops after the opponent's move; the code: after the agent's own
        nd = (d - 1 if own_move else d) if "depth" in emulate else (d if own_move else d - 1)
        kids = self._children(side, target, closed, xw, ow, e)
        expect = self.mode == "expectimax" and not max_node
        if not expect:
            kids.sort(key=lambda k: k[0], reverse=max_node)
            if self.config["top"]:
                del kids[self.config["top"]:]
        boards = self.s9.boards

        def value_of(kid, alpha, beta):
            key, _m, b, nv, term, nt, nc, nxw, now, ne = kid
            if term is not None or nd == 0:
                return key
            v = boards[b]
            boards[b] = nv
            try:
                return self._published_value(side ^ 1, nt, nc, nxw, now, ne, nd, alpha, beta)
            finally:
                boards[b] = v

        if expect:
            return sum(value_of(k, alpha, beta) for k in kids) / len(kids)
        if self.mode != "pruning":
            vals = [value_of(k, -BIG, BIG) for k in kids]
            return max(vals) if max_node else min(vals)
        # agent.py's alpha-beta: fail-hard, a max node returns alpha; a min node's only `return
        # beta` is reached when a cut comes before its last child, else it falls off its end
        if max_node:
            if alpha < beta:
                for k in kids:
                    if not alpha < beta:
                        return alpha
                    alpha = max(alpha, value_of(k, alpha, beta))
            return alpha
        if alpha < beta:
            for k in kids:
                if not alpha < beta:
                    return beta
                beta = min(beta, value_of(k, alpha, beta))
        return NO_VALUE if "min-node" in emulate else beta


#: A min node of the published code that returns nothing (None sorts below every number in
#: Python 2), and the code's float infinities, kept finite so that they sort above it.
NO_VALUE = -INF
BIG = 10.0 ** 18


class Minimax(_Seed001Search):
    """Seed 001, section 2.2.4 (Minimax Agent): depth-limited minimax over the top-3 successors at each
    node, Eval = the learned linear function of the Advanced Feature Extractor (2.3.2)."""

    mode = "minimax"


class MinimaxPruning(_Seed001Search):
    """Seed 001, section 2.2.5 (Minimax Pruning Agent): the Minimax Agent with alpha-beta pruning;
    picks among moves of exactly the same values as the Minimax Agent (same rng, same move)."""

    mode = "pruning"
    emulate_parts = ("min-node", "seat0", "depth", "adjacent-pairs")


class AdvancedPerceptron(_Seed001Search):
    """Seed 001, section 2.2.6 (Advanced Perceptron Agent): the move whose successor has the highest
    learned Eval (advanced features, learned weights), ties at random; minimax at depth 0."""

    mode = "minimax"
    emulate_parts = ("seat0", "adjacent-pairs")

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        Agent.__init__(self, game, rng, **options)
        self.config.update(depth=0, top=0)
        self._init_weights()


class Expectimax(_Seed001Search):
    """Seed 001, section 2.2.7 (Expectimax Agent): like the Minimax Agent but the opponent is assumed
    to play uniformly at random (its nodes average over all successors)."""

    mode = "expectimax"


__all__ = ["EMULATE_PARTS", "AdvancedPerceptron", "Expectimax", "Minimax", "MinimaxPruning", "Perceptron",
           "Reflex", "UltimateRandom", "parse_emulate", "parse_weights"]
