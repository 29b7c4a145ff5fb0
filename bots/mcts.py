"""Monte Carlo tree search (UCT) for any registered game, through the generic State API.

Beyond the seeds (seed 001 names MCTS only for its training rollouts). Each
simulation walks down the tree choosing the child with the highest UCB1 score
(mean result for the player who moved into it + c * sqrt(ln N / n)), adds one
untried child (chosen at random), plays the game out at random with
game.random_playout when the game has one (arena.games.random_playout
otherwise), and adds the result (1 win, 0.5 draw, 0 loss per seat) back up the
path. The move played is the root child with the most visits. The subtree under
the move actually played is kept for the next decision when the opponent's reply
is in it.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from arena.games import Game, State, random_playout

from .base import Agent


class Node:
    """One tree node: a state, how it was reached, its statistics."""

    __slots__ = ("state", "move", "parent", "children", "untried", "visits", "score", "mover")

    def __init__(self, state: State, move: int, parent: Node | None) -> None:
        self.state = state
        self.move = move
        self.parent = parent
        self.children: list[Node] = []
        self.untried = list(state.legal_moves())
        self.visits = 0
        self.score = 0.0  # summed results for `mover`, the seat that made `move`
        self.mover = parent.state.to_move if parent is not None else 1 - state.to_move


class MCTS(Agent):
    """UCT with random playouts, for any game; a time budget per move and an optional iteration cap."""

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        super().__init__(game, rng, **options)
        if self.config["time_ms"] <= 0 and self.config["iterations"] <= 0:
            raise ValueError(f"agent {self.name!r}: set time_ms or iterations (both are 0)")
        fast = getattr(game, "random_playout", None)
        if fast is not None:
            self._playout = fast
        else:
            self._playout = lambda state, rng: random_playout(game, state, rng)
        self._root: Node | None = None

    def new_game(self) -> None:
        self._root = None

    def _find_root(self, state: State) -> Node:
        old = self._root
        if old is not None and self.config["reuse"]:
            if old.state == state:
                old.parent = None
                return old
            for child in old.children:
                if child.state == state:
                    child.parent = None
                    return child
        return Node(state, -1, None)

    def choose(self, state: State, time_left_ms: float | None) -> int:
        moves = self.legal(state)
        start = time.perf_counter()
        wanted = self.config["time_ms"] if self.config["time_ms"] > 0 else None
        budget = self.budget_ms(wanted, time_left_ms)
        deadline = math.inf if budget is None else start + budget / 1000
        cap = self.config["iterations"] if self.config["iterations"] > 0 else math.inf
        root = self._find_root(state)
        reused = root.visits
        if len(moves) == 1:
            done = 0
        else:
            done = self._run(root, cap, deadline)
        if root.children:
            best = max(root.children, key=lambda n: (n.visits, n.score))
            move = best.move
        else:
            best, move = None, moves[0]
        self._root = best
        self.last_stats = {
            "simulations": done, "reused": reused,
            "value": round(best.score / best.visits, 4) if best is not None and best.visits else None,
            "time_ms": round((time.perf_counter() - start) * 1000, 3),
        }
        return move

    def _run(self, root: Node, cap: float, deadline: float) -> int:
        """Simulations from root until cap or deadline (checked every 16); returns how many ran."""
        rng, playout = self.rng, self._playout
        c = self.config["c"]
        sqrt, log, clock = math.sqrt, math.log, time.perf_counter
        done = 0
        while done < cap:
            if not done & 15 and clock() >= deadline:
                break
            node = root
            # selection
            while not node.untried and node.children:
                logn = log(node.visits)
                best, best_ucb = node.children[0], -1.0
                for child in node.children:
                    n = child.visits
                    ucb = child.score / n + c * sqrt(logn / n)
                    if ucb > best_ucb:
                        best, best_ucb = child, ucb
                node = best
            # expansion
            untried = node.untried
            if untried:
                i = int(rng.random() * len(untried))
                move = untried[i]
                untried[i] = untried[-1]
                untried.pop()
                child = Node(node.state.play(move), move, node)
                node.children.append(child)
                node = child
            # simulation
            final = node.state if node.state.is_terminal() else playout(node.state, rng)
            result = final.returns()
            # backpropagation
            up: Node | None = node
            while up is not None:
                up.visits += 1
                up.score += result[up.mover]
                up = up.parent
            done += 1
        return done


__all__ = ["MCTS", "Node"]
