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

Where the seats move at once (state.to_move == SIMULTANEOUS, as in tron) the search
is decoupled UCT: a node keeps, for each seat moving there, visits and summed results
per move of its own; each simulation picks every seat's move by that seat's UCB1 alone
(an untried move of its first, at random), the joint move leads to the child, and
each seat's statistics take its own result. The move played is the seat's most
visited at the root.

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

from arena.games import SIMULTANEOUS, Game, State, random_playout

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


class JointNode:
    """A node where seats move at once: per mover, its moves' visits and summed results."""

    __slots__ = ("state", "movers", "moves", "counts", "scores", "visits", "children")

    def __init__(self, state: State) -> None:
        self.state = state
        self.movers = state.movers()
        self.moves = [state.moves_of(seat) for seat in self.movers]
        self.counts = [[0] * len(moves) for moves in self.moves]
        self.scores = [[0.0] * len(moves) for moves in self.moves]
        self.visits = 0
        self.children: dict[tuple[int, ...], JointNode] = {}   # by each mover's move index


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
        self._joint_root: JointNode | None = None

    def new_game(self) -> None:
        self._root = self._spent = None
        self._joint_root = None

    def _find_root(self, state: State) -> Node:
        old = self._root
        if old is not None and self.config["reuse"]:
            if old.state == state:
                return old
            for child in old.children:
                if child.state == state:
                    return child
        return Node(state, -1, 1 - state.to_move)

    def _limits(self, time_left_ms: float | None) -> tuple[float, float]:
        """(deadline on time.perf_counter, most simulations) for one decision."""
        wanted = self.config["time_ms"] if self.config["time_ms"] > 0 else None
        budget = self.budget_ms(wanted, time_left_ms)
        deadline = math.inf if budget is None else time.perf_counter() + budget / 1000
        return deadline, self.config["iterations"] if self.config["iterations"] > 0 else math.inf

    def choose(self, state: State, time_left_ms: float | None) -> int:
        if state.to_move == SIMULTANEOUS:
            raise ValueError(f"agent {self.name!r}: several seats move here; ask choose_for(state, seat, ...)")
        moves = self.legal(state)
        start = time.perf_counter()
        deadline, cap = self._limits(time_left_ms)
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

    def choose_for(self, state: State, seat: int, time_left_ms: float | None) -> int:
        """choose() in a game of turns; where seats move at once, decoupled UCT for seat."""
        if state.to_move != SIMULTANEOUS:
            return super().choose_for(state, seat, time_left_ms)
        if not state.moves_of(seat):
            raise ValueError(f"seat {seat} has no move to choose here")
        start = time.perf_counter()
        deadline, cap = self._limits(time_left_ms)
        root = self._find_joint_root(state)
        reused = root.visits
        i = root.movers.index(seat)
        done = self._run_joint(root, cap, deadline) if len(root.moves[i]) > 1 else 0
        counts, scores = root.counts[i], root.scores[i]
        k = max(range(len(counts)), key=lambda k: (counts[k], scores[k]))
        self._joint_root = root
        self.last_stats = {
            "simulations": done, "reused": reused,
            "value": round(scores[k] / counts[k], 4) if counts[k] else None,
            "time_ms": round((time.perf_counter() - start) * 1000, 3),
        }
        return root.moves[i][k]

    def _find_joint_root(self, state: State) -> JointNode:
        old = self._joint_root
        if old is not None and self.config["reuse"]:
            # the root searched last time is now one turn back: its child holds the state reached
            for child in old.children.values():
                if child.state == state:
                    return child
        return JointNode(state)

    def _run_joint(self, root: JointNode, cap: float, deadline: float) -> int:
        """Decoupled-UCT simulations from root until cap or deadline; returns how many ran."""
        rng, playout = self.rng, self._playout
        c = self.config["c"]
        sqrt, log, clock = math.sqrt, math.log, time.perf_counter
        done = 0
        while done < cap:
            if not done & 15 and clock() >= deadline:
                break
            node = root
            path: list[tuple[JointNode, tuple[int, ...]]] = []
            while True:
                # each mover picks by its own statistics: an untried move first, else UCB1
                picks = []
                logn = log(node.visits) if node.visits else 0.0
                for counts, scores in zip(node.counts, node.scores):
                    untried = [k for k, n in enumerate(counts) if n == 0]
                    if untried:
                        picks.append(untried[int(rng.random() * len(untried))])
                        continue
                    best, best_ucb = 0, -1.0
                    for k, n in enumerate(counts):
                        ucb = scores[k] / n + c * sqrt(logn / n)
                        if ucb > best_ucb:
                            best, best_ucb = k, ucb
                    picks.append(best)
                key = tuple(picks)
                path.append((node, key))
                child = node.children.get(key)
                if child is None:
                    joint = [moves[k] for moves, k in zip(node.moves, key)]
                    child = node.children[key] = JointNode(node.state.play_joint(joint))
                    node = child
                    break
                node = child
                if not node.movers:
                    break
            final = node.state if node.state.is_terminal() else playout(node.state, rng)
            result = final.returns()
            for up, key in path:
                up.visits += 1
                for i, k in enumerate(key):
                    up.counts[i][k] += 1
                    up.scores[i][k] += result[up.movers[i]]
            done += 1
        return done


__all__ = ["MCTS", "JointNode", "Node"]
