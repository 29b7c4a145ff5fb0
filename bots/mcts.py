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

A node holds no reference back to its parent (a simulation keeps the path it walked
down instead), so the tree has no cycles: a dropped subtree is freed at once by
reference counting, and the garbage collector never has to find it. What a move
drops is freed at the start of the next one, within that move's own time (about 2 ms
for the nodes of 10,000 simulations), not after its deadline.
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

    __slots__ = ("state", "move", "children", "untried", "visits", "score", "mover")

    def __init__(self, state: State, move: int, mover: int) -> None:
        self.state = state
        self.move = move
        self.children: list[Node] = []
        self.untried = list(state.legal_moves())
        self.visits = 0
        self.score = 0.0  # summed results for `mover`, the seat that made `move`
        self.mover = mover


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
        self._root: Node | None = None    #: the subtree kept for the next move
        self._spent: Node | None = None   #: the rest of the last move's tree, to free

    def new_game(self) -> None:
        self._root = self._spent = None

    def _find_root(self, state: State) -> Node:
        old = self._root
        if old is not None and self.config["reuse"]:
            if old.state == state:
                return old
            for child in old.children:
                if child.state == state:
                    return child
        return Node(state, -1, 1 - state.to_move)

    def choose(self, state: State, time_left_ms: float | None) -> int:
        moves = self.legal(state)
        start = time.perf_counter()
        wanted = self.config["time_ms"] if self.config["time_ms"] > 0 else None
        budget = self.budget_ms(wanted, time_left_ms)
        deadline = math.inf if budget is None else start + budget / 1000
        cap = self.config["iterations"] if self.config["iterations"] > 0 else math.inf
        self._spent = None   # freed here, inside this move's time: its search stops at the same deadline
        root = self._find_root(state)
        self._root = None    # and the branches of the kept subtree that the game did not take
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
        self._root, self._spent = best, root
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
            path = [root]
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
                path.append(node)
            # expansion
            untried = node.untried
            if untried:
                i = int(rng.random() * len(untried))
                move = untried[i]
                untried[i] = untried[-1]
                untried.pop()
                child = Node(node.state.play(move), move, node.state.to_move)
                node.children.append(child)
                node = child
                path.append(node)
            # simulation
            final = node.state if node.state.is_terminal() else playout(node.state, rng)
            result = final.returns()
            # backpropagation
            for up in path:
                up.visits += 1
                up.score += result[up.mover]
            done += 1
        return done


__all__ = ["MCTS", "Node"]
