"""Learning evaluation weights by self-play, as seeds 000 and 001 did: `arena train meta|ultimate`.

Training runs in this process, calling the reference agents' search code directly: it
is never a rated game. Every random choice comes from one `random.Random(seed)`, so the
same arguments write the same bytes. Each finished game prints one line to stderr with
the weights so far; the result is a JSON file the agents load through an option
(`meta-minimax weights=FILE`, the seed-001 searchers' `weights=FILE`).

Seed 000 (Weger, meta tic-tac-toe, "Learning Utility Function Constants Using Temporal
Difference Learning"). The AI plays both sides with alpha-beta minimax to `depth` plies
(3 in the seed). After each search, with prev = the position searched and leaf = the
last position of the principal variation (`depth` plies later, or the end of the game):

    dU   = U(leaf) - U(prev)                       U = c1*f1 + ... + c6*f6 for the mover
    dv_i = c_i*f_i(leaf) - c_i*f_i(prev)           the seed's sub_utility difference
    c_i += alpha * dU * dv_i * (-1)                then normalise

Choices where the seed is vague (also in docs/agents.md, "Training"):
- sub_utility(state, TD_CONSTS) is read as the list of weighted terms c_i*f_i (the v_i
  of the seed's utility code): it takes the constants as an argument. The update is then
  gradient descent on dU**2 / 2 with respect to the constants, up to a factor c_i.
- normalize() rescales the constants so that the sum of their absolute values stays what
  it was at the start (7 for the seed's defaults 3, 2, .5, .5, .5, .5); the seed does not
  define it. A plain sum could pass through zero once a constant turns negative.
- Every search is followed by an update, whichever side made it: dU and dv_i both change
  sign with the point of view, so their product, and the update, do not depend on it.
- The principal variation follows the searching side's chosen move (ties at random, as
  meta-minimax does), then for each side the lowest-numbered move of the best value,
  found by a search of the plies that remain. U is the linear utility even at the end of
  a game (the search itself scores an ended game as a win or loss, like meta-minimax).
- alpha defaults to 0.005 (the seed gives no value; the author's published trainer uses
  it). `--opponent static` plays the learner against the fixed default constants instead
  of itself (the setting of the seed's Figure 1), updating after the learner's moves only.
- The author's published trainer (github.com/chetweger/min-max-games, meta/learning.py)
  differs in three settings, offered as options: the learner always moves first
  (`--learner-seat first`; ours alternates), the static AI's c2 is 1, not 2 (`--static
  c2=1`), and a draw counts as a win of the static AI (`--draws static`, in the tally only:
  the update never sees the result).

Seed 001 (Singhal and Nambikrishnan, ultimate tic-tac-toe, section 2.2.4). For every
move requested of the training agent, `rollouts` times (25 in the paper): play from the
current position to the end, the agent (the side to move) taking the successor of
highest Eval and the opponent the successor of lowest Eval, ties at random; record
(s, a, r, s') with r = 0 except at the end (+100 win, -100 loss, 0 draw, for the agent);
then, in reverse order, w -= eta * (phi(s).w - target) * phi(s) with target = r at the
end and phi(s').w otherwise (eta = 0.00001). Then the agent plays its move.

Choices where the paper is vague:
- The game being trained on is self-play: the training agent moves for both sides, each
  move from the point of view of the side to move (features are the mover's), like the
  paper's agents, which are all written for "the agent" and "the opponent".
- The move actually played is the Minimax Pruning Agent's at `--depth` (1 by default)
  with the weights learned so far; `--depth 0` plays the Advanced Perceptron's move.
- A successor that ends the game is scored in the rollouts by its utility (+-100, 0),
  as the agents rank it, so a rollout never walks past an immediate win.
- Weights start at zero (`--init zero`, every successor ties: the first rollouts are
  random games that take immediate wins) or at the paper's weights (`--init paper`).
- Eval in the rollouts is computed in integer millionths, as the agents compute it, so
  equal positions tie exactly; the TD update itself is in floating point.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, TextIO

from arena.cli.common import path_argument
from arena.errors import ArenaError
from arena.games import default_registry
from arena.games.bigboard import BigBoardState
from arena.games.grid import CENTRE, FULL, POPCOUNT, SQUARES
from arena.games.search_support import BOARD_SPACE, FREE, VALID_BOARDS

from .features import (
    ADJACENT,
    ADVANCED_WEIGHTS,
    CORNER_MASK,
    META_CONSTANTS,
    SCALE,
    BoardEval,
    _meta_board_terms,
    advanced_eval,
    meta_basis,
    scaled,
)
from .meta_agents import KEYS as META_KEYS
from .meta_agents import parse_constants
from .search9 import Search9
from .ultimate_agents import MinimaxPruning

#: The advanced features of seed 001 in the order the weights file lists them.
FEATURES: tuple[str, ...] = (
    "numWins", "otherWins", "relativeWins", "numCenterPieces", "numOtherCenterPieces",
    "numCornerPieces", "numOtherCornerPieces", "numAdjacentPieces", "numOtherAdjacentPieces",
    "numAdjacentWonGrids", "numOtherAdjacentWonGrids", "gridsDifference", "advantageOfNextGrid",
)
assert set(FEATURES) == set(ADVANCED_WEIGHTS)

#: Seed 000's step size (not given in the seed; the author's trainer uses 0.005).
META_ALPHA = 0.005
#: Seed 001's step size and rollouts per move (section 2.2.4).
ULTIMATE_ETA = 0.00001
ULTIMATE_ROLLOUTS = 25
#: Seed 001's utility of a won game for the agent (section 2.1).
WIN_UTILITY = 100.0

Progress = Callable[[str], None]


def _fmt(weights: dict[str, float], keys: Sequence[str]) -> str:
    return " ".join(f"{k}={weights[k]:.4g}" for k in keys)


def write_weights(path: str | Path, weights: dict[str, float], keys: Sequence[str]) -> None:
    """Write weights as a JSON object in `keys` order (the same weights always give the same bytes)."""
    Path(path).write_text(json.dumps({k: weights[k] for k in keys}, indent=2) + "\n")


# ================================================================ seed 000: meta tic-tac-toe

@lru_cache(maxsize=1)
def _meta_terms() -> tuple[tuple[int, tuple[int, ...]], ...]:
    """(board int, f2..f6 of that board for x) for every board that can occur, built once."""
    return tuple((v, _meta_board_terms(v)) for v in VALID_BOARDS)


def meta_board_eval(constants: dict[str, float]) -> BoardEval:
    """Seed 000's utility with these constants as tables for x (seat 0), equal to
    bots.features.meta_eval(0, ...) but built fast and not cached (constants change every move)."""
    c = [scaled(constants[k]) for k in META_KEYS]
    c2, c3, c4, c5, c6 = c[1:]
    board = [0] * BOARD_SPACE
    for v, (centre, corner, side, block, potential) in _meta_terms():
        board[v] = c2 * centre + c3 * corner + c4 * side + c5 * block + c6 * potential
    xt = [c[0] * POPCOUNT[k] for k in range(512)]
    ot = [-x for x in xt]
    bound = sum(abs(x) for x in c) * 100
    return BoardEval(board, xt, ot, None, win=max(bound, SCALE), depth_bonus=True)


def meta_utility(constants: dict[str, float], basis: Sequence[float]) -> float:
    """U = c1*f1 + ... + c6*f6."""
    return sum(constants[k] * f for k, f in zip(META_KEYS, basis))


def normalize(constants: dict[str, float], total: float) -> dict[str, float]:
    """Constants rescaled so that the sum of their absolute values is `total`."""
    size = sum(abs(x) for x in constants.values())
    if size == 0 or not math.isfinite(size):
        raise ArithmeticError(f"constants {constants} cannot be normalised; try a smaller --alpha")
    return {k: x * total / size for k, x in constants.items()}


def meta_td_update(constants: dict[str, float], prev: BigBoardState, leaf: BigBoardState,
                   alpha: float, total: float) -> dict[str, float]:
    """Seed 000's td_learning: the constants after one update (prev searched, leaf predicted)."""
    seat = prev.to_move  # MAX; the update does not depend on it (see the module docstring)
    f_prev, f_leaf = meta_basis(prev, seat), meta_basis(leaf, seat)
    change = meta_utility(constants, f_leaf) - meta_utility(constants, f_prev)
    out = {}
    for k, a, b in zip(META_KEYS, f_prev, f_leaf):
        change_sub = constants[k] * b - constants[k] * a
        out[k] = constants[k] + alpha * change * change_sub * (-1)
    return normalize(out, total)


def _best(values: list[tuple[int, float]]) -> tuple[float, list[int]]:
    best = max(v for _, v in values)
    return best, sorted(m for m, v in values if v == best)


def meta_search(state: BigBoardState, ev: BoardEval, depth: int, rng: random.Random
                ) -> tuple[int, BigBoardState]:
    """(move, principal leaf): the move meta-minimax would play (ties at random from rng) and the
    position `depth` plies later along the principal variation (or where the game ends)."""
    values = Search9(state, ev, 0).root_values(depth, ties=True)
    _, tied = _best(values)
    move = tied[int(rng.random() * len(tied))]
    leaf = state.play(move)
    for left in range(depth - 1, 0, -1):
        if leaf.is_terminal():
            break
        _, tied = _best(Search9(leaf, ev, 0).root_values(left, ties=True))
        leaf = leaf.play(tied[0])
    assert isinstance(leaf, BigBoardState)
    return move, leaf


def train_meta(games: int, seed: int, depth: int = 3, alpha: float = META_ALPHA,
               start: dict[str, float] | None = None, opponent: str = "self",
               progress: Progress | None = None,
               snapshots: list[dict[str, float]] | None = None,
               learner_seat: str = "alternate", static: dict[str, float] | None = None,
               draws: str = "draws", tally: list[int] | None = None) -> dict[str, float]:
    """Seed 000's TD learning of c1..c6 over `games` games; the learned constants.

    opponent "self": the learner plays both sides; "static": it plays fixed constants
    (`static`, default the seed's), taking x in even games and o in odd ones, or x in every
    game with learner_seat "first" (the author's trainer). `tally`, if given, receives the
    learner's [wins, draws, losses] against the static AI; with draws "static" a draw is
    counted as the static AI's win, as the author's trainer counts it. `snapshots`, if given,
    receives the constants before the first game and after each game."""
    if opponent not in ("self", "static"):
        raise ValueError(f"opponent must be 'self' or 'static', not {opponent!r}")
    if learner_seat not in ("alternate", "first") or draws not in ("draws", "static"):
        raise ValueError(f"learner_seat must be 'alternate' or 'first' ({learner_seat!r}), "
                         f"draws 'draws' or 'static' ({draws!r})")
    rng = random.Random(seed)
    game = default_registry().create("meta")
    consts = dict(start or META_CONSTANTS)
    total = sum(abs(x) for x in consts.values())
    static_ev = meta_board_eval({**META_CONSTANTS, **(static or {})})
    if tally is not None:
        tally[:] = [0, 0, 0]
    if snapshots is not None:
        snapshots.append(dict(consts))
    for g in range(games):
        state = game.initial_state()
        assert isinstance(state, BigBoardState)
        learner = 0 if learner_seat == "first" else g % 2
        moves = updates = 0
        while not state.is_terminal():
            if opponent == "static" and state.to_move != learner:
                move, _ = meta_search(state, static_ev, depth, rng)
            else:
                move, leaf = meta_search(state, meta_board_eval(consts), depth, rng)
                consts = meta_td_update(consts, state, leaf, alpha, total)
                updates += 1
            nxt = state.play(move)
            assert isinstance(nxt, BigBoardState)
            state = nxt
            moves += 1
        x, o = state.boards_won()
        result = "draw" if state.winner is None else f"{'xo'[state.winner]} won"
        if opponent == "static":
            who = "learner" if state.winner == learner else "static" if state.winner is not None else "nobody"
            if who == "nobody" and draws == "static":
                who = "static, a draw counted as its win"
            result += f" ({who}; learner was {'xo'[learner]})"
            if tally is not None:
                outcome = 1 if state.winner is None else 0 if state.winner == learner else 2
                tally[2 if outcome == 1 and draws == "static" else outcome] += 1
        if snapshots is not None:
            snapshots.append(dict(consts))
        if progress:
            progress(f"game {g + 1}/{games}: {result}, boards {x}-{o}, {moves} moves, "
                     f"{updates} updates; {_fmt(consts, META_KEYS)}")
    return consts


# ================================================================ seed 001: ultimate

@lru_cache(maxsize=1)
def _piece_terms() -> tuple[list[Any], list[Any]]:
    """Per seat, per board int: (centre, other centre, corner, other corner, adjacent, other
    adjacent) pieces of that seat in that board; built once."""
    tables: tuple[list[Any], list[Any]] = ([None] * BOARD_SPACE, [None] * BOARD_SPACE)
    for v in VALID_BOARDS:
        x, o = v & FULL, v >> 9
        tx = (x >> CENTRE & 1, o >> CENTRE & 1, POPCOUNT[x & CORNER_MASK], POPCOUNT[o & CORNER_MASK],
              ADJACENT[x], ADJACENT[o])
        tables[0][v] = tx
        tables[1][v] = (tx[1], tx[0], tx[3], tx[2], tx[5], tx[4])
    return tables


#: index of each weight in FEATURES
_F = {k: i for i, k in enumerate(FEATURES)}
_PIECE_FEATURES = ("numCenterPieces", "numOtherCenterPieces", "numCornerPieces", "numOtherCornerPieces",
                   "numAdjacentPieces", "numOtherAdjacentPieces")


class UltimateRollouts:
    """Seed 001's simulated games from a position, and the TD update over their history."""

    def __init__(self, state: BigBoardState) -> None:
        zero = BoardEval([0] * BOARD_SPACE, [0] * 512, [0] * 512, None, win=1, depth_bonus=False)
        self.s9 = Search9(state, zero, 0)   # only its rules (child) and board list are used
        self.pieces = _piece_terms()

    def features(self, boards: Sequence[int], side: int, target: int, xw: int, ow: int,
                 agent: int, over: bool = False) -> list[float]:
        """phi of a position for `agent`, in FEATURES order (advanced_features, from raw ints)."""
        table = self.pieces[agent]
        sums = [0] * 6
        for v in boards:
            for i, t in enumerate(table[v]):
                sums[i] += t
        mine, theirs = (xw, ow) if agent == 0 else (ow, xw)
        nxt = 0
        if target >= 0 and not over:
            nxt = ADJACENT[boards[target] >> 9 * agent & FULL] * (1 if side == agent else -1)
        pm, pt, am, at = POPCOUNT[mine], POPCOUNT[theirs], ADJACENT[mine], ADJACENT[theirs]
        return [pm, pt, pm - pt, *sums, am, at, am - at, nxt]

    def rollout(self, state: BigBoardState, weights: list[float], rng: random.Random
                ) -> list[tuple[list[float], float, list[float] | None]]:
        """One simulated game from `state` for the side to move: [(phi(s), r, phi(s') or None at the end)]."""
        s9 = self.s9
        boards = s9.boards
        boards[:] = state.boards
        agent, side, target = state.to_move, state.to_move, state.target
        closed, xw, ow = state.closed, state.xwon, state.owon
        w = [scaled(x) for x in weights]
        pieces = self.pieces[agent]
        cache: dict[int, int] = {}

        def board_value(v: int) -> int:
            got = cache.get(v)
            if got is None:
                t = pieces[v]
                got = cache[v] = (w[3] * t[0] + w[4] * t[1] + w[5] * t[2] + w[6] * t[3]
                                  + w[7] * t[4] + w[8] * t[5])
            return got

        def won_value(xw: int, ow: int) -> int:
            m, t = (xw, ow) if agent == 0 else (ow, xw)
            pm, pt, am, at = POPCOUNT[m], POPCOUNT[t], ADJACENT[m], ADJACENT[t]
            return (w[0] * pm + w[1] * pt + w[2] * (pm - pt) + w[9] * am + w[10] * at
                    + w[11] * (am - at))

        win = int(WIN_UTILITY) * SCALE
        total = sum(board_value(v) for v in boards)
        won = won_value(xw, ow)
        history: list[tuple[list[float], float, list[float] | None]] = []
        phi = self.features(boards, side, target, xw, ow, agent)
        while True:
            sign = 1 if side == agent else -1      # the agent maximises, the opponent minimises
            best: list[tuple] = []
            best_key = None
            for b in (SQUARES[FULL & ~closed] if target < 0 else (target,)):
                v = boards[b]
                for s in FREE[v]:
                    nv, term, nt, nc, nxw, now, _ = s9.child(side, target, closed, xw, ow, 0, 9 * b + s)
                    if term is not None:       # the game ends: term is 1 (mover won), 0 or -1
                        value = sign * win * term
                    else:
                        value = total + board_value(nv) - board_value(v)
                        value += won if (nxw, now) == (xw, ow) else won_value(nxw, now)
                        if nt >= 0:
                            mine = (nv if nt == b else boards[nt]) >> 9 * agent & FULL
                            value -= sign * w[12] * ADJACENT[mine]   # sign of the next mover's
                    key = sign * value
                    if best_key is None or key > best_key:
                        best_key, best = key, [(b, v, nv, term, nt, nc, nxw, now)]
                    elif key == best_key:
                        best.append((b, v, nv, term, nt, nc, nxw, now))
            b, v, nv, term, nt, nc, nxw, now = best[int(rng.random() * len(best))]
            if term is not None:
                reward = WIN_UTILITY * term * (1 if side == agent else -1)
                history.append((phi, reward, None))
                return history
            total += board_value(nv) - board_value(v)
            if (nxw, now) != (xw, ow):
                won = won_value(nxw, now)
            boards[b] = nv
            side, target, closed, xw, ow = side ^ 1, nt, nc, nxw, now
            nphi = self.features(boards, side, target, xw, ow, agent)
            history.append((phi, 0.0, nphi))
            phi = nphi


def td_update(weights: list[float], history: list[tuple[list[float], float, list[float] | None]],
              eta: float) -> None:
    """Seed 001's update over one simulated game, last transition first, in place:
    w -= eta * (phi(s).w - target) * phi(s), target = r at the end, else phi(s').w (r is 0)."""
    n = len(weights)
    for phi, reward, nxt in reversed(history):
        pred = sum(weights[i] * phi[i] for i in range(n))
        target = reward if nxt is None else reward + sum(weights[i] * nxt[i] for i in range(n))
        step = eta * (pred - target)
        if step:
            for i in range(n):
                weights[i] -= step * phi[i]
    if not all(math.isfinite(x) for x in weights):
        raise ArithmeticError("the weights diverged; try a smaller --eta")


class _TrainingMinimax(MinimaxPruning):
    """The Minimax Pruning Agent with weights that change during training (tables built fresh,
    not cached: they would pile up in advanced_eval's cache)."""

    def evaluation(self, seat: int) -> BoardEval:
        return advanced_eval.__wrapped__(seat, self.weight_items)


def train_ultimate(games: int, seed: int, rollouts: int = ULTIMATE_ROLLOUTS, eta: float = ULTIMATE_ETA,
                   depth: int = 1, init: str = "zero", progress: Progress | None = None
                   ) -> dict[str, float]:
    """Seed 001's TD learning of the advanced-feature weights over `games` self-play games."""
    if init not in ("zero", "paper"):
        raise ValueError(f"init must be 'zero' or 'paper', not {init!r}")
    rng = random.Random(seed)
    game = default_registry().create("ultimate")
    weights = [0.0 if init == "zero" else ADVANCED_WEIGHTS[k] for k in FEATURES]
    agent = _TrainingMinimax(game, rng, depth=depth)
    sims = None
    for g in range(games):
        state = game.initial_state()
        assert isinstance(state, BigBoardState)
        sims = sims or UltimateRollouts(state)
        moves = 0
        steps = 0
        while not state.is_terminal():
            for _ in range(rollouts):
                history = sims.rollout(state, weights, rng)
                steps += len(history)
                td_update(weights, history, eta)
            agent.weight_items = tuple(zip(FEATURES, weights))
            nxt = state.play(agent.choose(state, None))
            assert isinstance(nxt, BigBoardState)
            state = nxt
            moves += 1
        result = "draw" if state.winner is None else f"{'xo'[state.winner]} won"
        if progress:
            progress(f"game {g + 1}/{games}: {result} in {moves} moves; {moves * rollouts} rollouts, "
                     f"{steps} updates; {_fmt(dict(zip(FEATURES, weights)), FEATURES)}")
    return dict(zip(FEATURES, weights))


# ================================================================ command line

def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value
    return parse


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def _constants(text: str) -> dict[str, float]:
    try:
        return parse_constants(text)
    except (ValueError, SyntaxError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None


class TrainingError(ArenaError):
    """Arguments that parse but do not go together, or a directory that is not there."""


def build_parser() -> argparse.ArgumentParser:
    """`arena train`'s argument parser, on its own."""
    from .plugin import TRAIN
    parser = argparse.ArgumentParser(prog="arena train", description=TRAIN.description)
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`arena train`'s arguments: a subcommand per seed, meta and ultimate."""
    sub = parser.add_subparsers(dest="what", required=True, metavar="{meta,ultimate}")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--games", type=_count(0), required=True, help="training games to play")
        p.add_argument("--seed", type=_count(0), required=True, help="seed of every random choice")
        p.add_argument("--out", required=True, metavar="FILE", type=path_argument,
                       help="JSON file to write the weights to")
        p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")

    p = sub.add_parser(
        "meta", help="paper 000: the six constants c1..c6 of meta-minimax, by self-play",
        description="Seed 000: after each alpha-beta search, move c1..c6 so that the utility of the "
                    "position searched gets closer to that of the principal variation's leaf, then "
                    "normalise. Load the result with meta-minimax's weights option.")
    common(p)
    p.add_argument("--depth", type=_count(1), default=3, help="plies searched (default 3, as in the seed)")
    p.add_argument("--alpha", type=_positive, default=META_ALPHA,
                   help=f"step size (default {META_ALPHA})")
    p.add_argument("--start", type=_constants, default=None, metavar="CONSTANTS",
                   help="starting constants, 'c1=3,c2=2,...' or JSON (default: the seed's 3, 2, .5, .5, .5, .5)")
    p.add_argument("--opponent", choices=("self", "static"), default="self",
                   help="self: the learner plays both sides (default); static: it plays the seed's "
                        "default constants, alternating seats (the seed's Figure 1)")
    p.add_argument("--learner-seat", choices=("alternate", "first"), default="alternate",
                   help="with --opponent static: alternate seats (default) or always move first, "
                        "as the author's trainer does")
    p.add_argument("--static", type=_constants, default=None, metavar="CONSTANTS",
                   help="with --opponent static: the static AI's constants, e.g. c2=1 as in the "
                        "author's trainer (missing keys keep the seed's 3, 2, .5, .5, .5, .5)")
    p.add_argument("--draws", choices=("draws", "static"), default="draws",
                   help="with --opponent static, in the tally: a draw is a draw (default) or a win of "
                        "the static AI, as the author's trainer counts it")

    p = sub.add_parser(
        "ultimate", help="paper 001: the 13 advanced-feature weights, by TD updates over simulated rollouts",
        description="Seed 001: for every move of a self-play game, simulate ROLLOUTS games to the end "
                    "with the current evaluation and apply the TD update over each, last transition "
                    "first. Load the result with the weights option of uttt-minimax, "
                    "uttt-minimax-pruning, uttt-advanced-perceptron or uttt-expectimax.")
    common(p)
    p.add_argument("--rollouts", type=_count(1), default=ULTIMATE_ROLLOUTS,
                   help=f"simulated games per move (default {ULTIMATE_ROLLOUTS}, as in the paper)")
    p.add_argument("--eta", type=_positive, default=ULTIMATE_ETA,
                   help=f"step size (default {ULTIMATE_ETA:g}, as in the paper)")
    p.add_argument("--depth", type=_count(0), default=1,
                   help="search depth d of the moves actually played (default 1; 0 = Advanced Perceptron)")
    p.add_argument("--init", choices=("zero", "paper"), default="zero",
                   help="starting weights: all zero (default) or the paper's learned weights")


def main(argv: Sequence[str] | None = None, stderr: TextIO | None = None) -> int:
    """`arena train ...` with its own parser: parse, train, write the weights file; 0 on success."""
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        return run(args, stderr)
    except TrainingError as exc:
        parser.error(str(exc))


def run(args: argparse.Namespace, stderr: TextIO | None = None) -> int:
    """Train as the parsed arguments say and write the weights file; 0 on success,
    TrainingError for arguments that do not go together."""
    out = Path(args.out)
    if not out.parent.is_dir():
        raise TrainingError(f"argument --out: directory {str(out.parent)!r} does not exist")
    err = stderr or sys.stderr

    def say(line: str) -> None:
        if not args.quiet:
            print(line, file=err, flush=True)

    try:
        if args.what == "meta":
            if args.opponent != "static" and (args.learner_seat != "alternate" or args.static is not None
                                              or args.draws != "draws"):
                raise TrainingError("--learner-seat, --static and --draws apply to --opponent static only")
            tally: list[int] = []
            weights = train_meta(args.games, args.seed, depth=args.depth, alpha=args.alpha,
                                 start=args.start, opponent=args.opponent, progress=say,
                                 learner_seat=args.learner_seat, static=args.static, draws=args.draws,
                                 tally=tally)
            if args.opponent == "static":
                say(f"learner against the static AI: won {tally[0]}, drew {tally[1]}, lost {tally[2]}"
                    + (" (draws counted as the static AI's wins)" if args.draws == "static" else ""))
            keys: Sequence[str] = META_KEYS
        else:
            weights = train_ultimate(args.games, args.seed, rollouts=args.rollouts, eta=args.eta,
                                     depth=args.depth, init=args.init, progress=say)
            keys = FEATURES
    except ArithmeticError as exc:
        print(f"arena train: error: {exc}", file=err)
        return 1
    write_weights(out, weights, keys)
    say(f"wrote {out}")
    say(usage_hint(args.what, str(out)))
    return 0


#: a registered bot that reads each kind of weights file, and a fair first opponent
USES = {"meta": ("meta-minimax", "meta-minimax"), "ultimate": ("uttt-minimax-pruning", "uttt-minimax-pruning")}


def usage_hint(what: str, out: str) -> str:
    """How to use a weights file just written: the bot option, in a league and in a match."""
    bot, rival = USES[what]
    full = Path(out).resolve()
    return (f"use it: the option weights of the bot {bot}; in a league config's bots:\n"
            f"  - {{name: trained, bot: {bot}, options: {{weights: {full}}}}}\n"
            f"or play it against the paper's weights:\n"
            f"  arena match {bot}:weights={out} {rival} --game {what} --games 10")


__all__ = ["FEATURES", "TrainingError", "UltimateRollouts", "add_arguments", "build_parser", "main",
           "meta_board_eval", "meta_search", "meta_td_update", "meta_utility", "normalize", "run", "td_update",
           "train_meta", "train_ultimate", "write_weights"]
