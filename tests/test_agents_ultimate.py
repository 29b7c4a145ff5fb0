"""Ultimate agents of seed 001, and the raw-int searcher and feature tables under them."""

import random

import pytest

from arena.games import default_registry, random_positions
from bots import agent_class
from bots.features import (
    ADVANCED_WEIGHTS,
    META_CONSTANTS,
    SCALE,
    advanced_eval,
    advanced_features,
    meta_basis,
    meta_eval,
    nineboard_eval,
    nineboard_twos,
    scaled,
)
from bots.search9 import Search9

REGISTRY = default_registry()
ULTIMATE = REGISTRY.create("ultimate")


def positions(name, count, seed, most=50, **options):
    return random_positions(REGISTRY.create(name, **options), count, random.Random(seed), (0, most))


# ------------------------------------------------------------------ tables agree with the features

def test_advanced_eval_tables_equal_the_dot_product_of_the_features():
    weights = {k: scaled(w) for k, w in ADVANCED_WEIGHTS.items()}
    for state in positions("ultimate", 60, 1):
        for seat in (0, 1):
            ev = advanced_eval(seat)
            f = advanced_features(state, seat)
            expected = sum(f[k] * w for k, w in weights.items())
            assert ev.static(state.boards, state.xwon, state.owon, state.target, state.to_move == seat) == expected


def test_meta_and_nineboard_tables_equal_their_basis_functions():
    consts = tuple(META_CONSTANTS.values())
    for state in positions("meta", 40, 2):
        for seat in (0, 1):
            f = meta_basis(state, seat)
            expected = sum(scaled(c) * x for c, x in zip(consts, f))
            assert meta_eval(seat, consts).static(state.boards, state.xwon, state.owon, -1, True) == expected
    for state in positions("nineboard", 40, 3, most=20):
        x, o = nineboard_twos(state)
        assert nineboard_eval(0).static(state.boards, 0, 0, -1, True) == 5 * (x - o)
        assert nineboard_eval(1).static(state.boards, 0, 0, -1, True) == 5 * (o - x)


# ------------------------------------------------------------------ the searcher against a slow reference

def reference_negamax(state, depth, ev, agent):
    """Negamax through the public State API with the same evaluation (value for the side to move)."""
    side = state.to_move
    best = -float("inf")
    for m in state.legal_moves():
        child = state.play(m)
        if child.is_terminal():
            win = ev.win + (depth if ev.depth_bonus else 0)
            val = 0 if child.winner is None else win if child.winner == side else -win
        elif depth == 1:
            a = ev.static(child.boards, child.xwon, child.owon, child.target, child.to_move == agent)
            val = a if side == agent else -a
        else:
            val = -reference_negamax(child, depth - 1, ev, agent)
        best = max(best, val)
    return best


@pytest.mark.parametrize(("name", "options", "make_eval"), [
    ("ultimate", {}, advanced_eval),
    ("ultimate", {"tiebreak": "boards"}, advanced_eval),
    ("meta", {}, lambda seat: meta_eval(seat, tuple(META_CONSTANTS.values()))),
    ("nineboard", {}, nineboard_eval),
])
def test_raw_int_alpha_beta_matches_a_negamax_through_the_state_api(name, options, make_eval):
    rng = random.Random(7)
    for state in positions(name, 12, 4, most=60 if name != "nineboard" else 25, **options):
        agent = rng.randrange(2)
        ev = make_eval(agent)
        search = Search9(state, ev, agent)
        for depth in (1, 2, 3):
            values = search.root_values(depth)
            assert [m for m, _ in values] == list(state.legal_moves())
            assert max(v for _, v in values) == reference_negamax(state, depth, ev, agent)
        assert search.boards == list(state.boards)  # every move was unmade


def reference_alphabeta(state, depth, alpha, beta, ev, agent, counter):
    """Fail-soft negamax alpha-beta through the State API, counting every child it makes."""
    side = state.to_move
    best = -float("inf")
    for m in state.legal_moves():
        child = state.play(m)
        counter[0] += 1
        if child.is_terminal():
            win = ev.win + (depth if ev.depth_bonus else 0)
            val = 0 if child.winner is None else win if child.winner == side else -win
        elif depth == 1:
            a = ev.static(child.boards, child.xwon, child.owon, child.target, child.to_move == agent)
            val = a if side == agent else -a
        else:
            val = -reference_alphabeta(child, depth - 1, -beta, -alpha, ev, agent, counter)
        if val > best:
            best = val
            if val > alpha:
                alpha = val
                if alpha >= beta:
                    break
    return best


def test_nodes_counted_are_the_positions_an_alpha_beta_makes():
    for state in positions("ultimate", 10, 6, most=40):
        ev = advanced_eval(state.to_move)
        search = Search9(state, ev, state.to_move)
        search.reset_nodes()
        got = max(v for _, v in search.root_values(4))
        counter = [1]  # the root
        assert reference_alphabeta(state, 4, -float("inf"), float("inf"), ev, state.to_move, counter) == got
        assert search.nodes == counter[0]


def test_alpha_beta_with_ties_keeps_every_best_move_exact():
    for state in positions("ultimate", 15, 5):
        ev = advanced_eval(state.to_move)
        search = Search9(state, ev, state.to_move)
        exact = {}
        for m in state.legal_moves():
            exact[m] = search.root_values(3, moves=[m])[0][1]
        values = dict(search.root_values(3, ties=True))
        best = max(exact.values())
        assert max(values.values()) == best
        assert {m for m, v in values.items() if v == best} == {m for m, v in exact.items() if v == best}


# ------------------------------------------------------------------ seed 001 agents

def minimax_values(agent, state, depth):
    agent.nodes = 0
    agent.deadline = float("inf")
    return agent._root_values(state, depth)


@pytest.mark.parametrize("depth", [1, 2])
def test_minimax_with_and_without_pruning_pick_moves_of_equal_value(depth):
    minimax = agent_class("uttt-minimax")(ULTIMATE, random.Random(0), depth=depth)
    pruning = agent_class("uttt-minimax-pruning")(ULTIMATE, random.Random(0), depth=depth)
    fewer = 0
    for i, state in enumerate(positions("ultimate", 40, 10 + depth, most=45)):
        values = dict(minimax_values(minimax, state, depth))
        best = max(values.values())
        minimax.rng, pruning.rng = random.Random(i), random.Random(i)
        a, b = minimax.choose(state, None), pruning.choose(state, None)
        assert values[a] == values[b] == best
        assert a == b  # same ties, same rng: the same move
        assert pruning.last_stats["nodes"] <= minimax.last_stats["nodes"]
        fewer += pruning.last_stats["nodes"] < minimax.last_stats["nodes"]
    if depth == 2:  # at depth 1 every successor is evaluated anyway, to rank them for the filter
        assert fewer > 20


def test_minimax_depth_semantics_and_top3_filter():
    """Depth 1 = the agent's move and the opponent's best reply among its 3 lowest-Eval successors."""
    agent = agent_class("uttt-minimax")(ULTIMATE, random.Random(0), depth=1)
    weights = {k: scaled(w) for k, w in ADVANCED_WEIGHTS.items()}

    def ev(s, seat):
        if s.is_terminal():
            return 0 if s.winner is None else (100 if s.winner == seat else -100) * SCALE
        f = advanced_features(s, seat)
        return sum(f[k] * w for k, w in weights.items())

    for state in positions("ultimate", 10, 21):
        seat = state.to_move
        expected = {}
        for m in state.legal_moves():
            child = state.play(m)
            if child.is_terminal():
                expected[m] = ev(child, seat)
            else:
                replies = sorted(ev(child.play(r), seat) for r in child.legal_moves())[:3]
                expected[m] = min(replies)
        assert dict(minimax_values(agent, state, 1)) == expected


def test_advanced_perceptron_is_minimax_at_depth_zero():
    ap = agent_class("uttt-advanced-perceptron")(ULTIMATE, random.Random(0))
    m0 = agent_class("uttt-minimax")(ULTIMATE, random.Random(0), depth=0)
    for i, state in enumerate(positions("ultimate", 20, 22)):
        ap.rng, m0.rng = random.Random(i), random.Random(i)
        assert ap.choose(state, None) == m0.choose(state, None)


def test_expectimax_depth_one_averages_every_reply():
    agent = agent_class("uttt-expectimax")(ULTIMATE, random.Random(0), depth=1)
    for state in positions("ultimate", 6, 23):
        seat = state.to_move
        ev = advanced_eval(seat)
        values = dict(minimax_values(agent, state, 1))
        for m, got in values.items():
            child = state.play(m)
            if child.is_terminal():
                continue
            leaves = []
            for r in child.legal_moves():
                g = child.play(r)
                if g.is_terminal():
                    leaves.append(0 if g.winner is None else ev.win * (1 if g.winner == seat else -1))
                else:
                    leaves.append(ev.static(g.boards, g.xwon, g.owon, g.target, g.to_move == seat))
            assert got == pytest.approx(sum(leaves) / len(leaves))


def test_perceptron_plays_a_best_scoring_move():
    from bots.features import SIMPLE_WEIGHTS, simple_features
    agent = agent_class("uttt-perceptron")(ULTIMATE, random.Random(0))
    for state in positions("ultimate", 20, 24):
        seat = state.to_move
        score = {m: sum(simple_features(state.play(m), seat)[k] * w for k, w in SIMPLE_WEIGHTS.items())
                 for m in state.legal_moves()}
        assert score[agent.choose(state, None)] == pytest.approx(max(score.values()))


def test_reflex_avoids_moves_that_let_the_opponent_win_a_board():
    agent = agent_class("uttt-reflex")(ULTIMATE, random.Random(0))

    def gives_a_board(state, m):
        nxt = state.play(m)
        if nxt.is_terminal():
            return False
        opp = nxt.to_move
        before = nxt.boards_won()[opp]
        return any(nxt.play(r).boards_won()[opp] > before for r in nxt.legal_moves())

    checked = 0
    for state in positions("ultimate", 40, 25):
        safe = [m for m in state.legal_moves() if not gives_a_board(state, m)]
        move = agent.choose(state, None)
        if safe:
            assert move in safe
            checked += 1
    assert checked > 10
