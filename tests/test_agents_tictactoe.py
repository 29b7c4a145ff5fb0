"""Tic-tac-toe agents: seed 002's master and novice, seed 004's negamax."""

import random

import pytest

from arena.games import default_registry
from arena.games.grid import POPCOUNT
from bots import agent_class
from bots.tictactoe_agents import negamax, ranked_moves, solved_table

GAME = default_registry().create("tictactoe")


def test_solved_table_covers_every_reachable_position_and_the_game_is_a_draw():
    table = solved_table()
    assert len(table) == 5478
    assert table[(0, 0)] == 0


def _never_loses(agent, state, seat):
    """Explore every sequence of opponent replies against a deterministic agent in `seat`."""
    if state.is_terminal():
        assert state.winner != 1 - seat, state.render()
        return 1
    if state.to_move == seat:
        move = agent.choose(state, None)
        assert move in state.legal_moves()
        return _never_loses(agent, state.play(move), seat)
    return sum(_never_loses(agent, state.play(m), seat) for m in state.legal_moves())


@pytest.mark.parametrize("name", ["ttt-master", "ttt-negamax"])
@pytest.mark.parametrize("seat", [0, 1])
def test_perfect_agents_never_lose_against_any_sequence_of_replies(name, seat):
    agent = agent_class(name)(GAME, random.Random(0))
    games = _never_loses(agent, GAME.initial_state(), seat)
    assert games > 1


def test_negamax_and_master_agree_on_every_reachable_position():
    table = solved_table()
    for (x, o), value in table.items():
        counter = [0]
        got = negamax(x, o, -100, 100, counter)
        # negamax values are for the side to move, the master's for x (ended games included)
        x_to_move = POPCOUNT[x] == POPCOUNT[o]
        assert (got if x_to_move else -got) == value, (x, o)


def test_negamax_counts_states_like_seed_004():
    empty = GAME.initial_state()
    plain = agent_class("ttt-negamax")(GAME, random.Random(0), pruning=False)
    plain.choose(empty, None)
    assert plain.last_stats["nodes"] == 549_946  # seed 004: the whole game tree
    pruned = agent_class("ttt-negamax")(GAME, random.Random(0))
    pruned.choose(empty, None)
    assert 10_000 < pruned.last_stats["nodes"] < 30_000  # seed 004: about 18,000
    assert pruned.last_stats["value"] == plain.last_stats["value"] == 0


def test_negamax_and_master_choose_moves_of_optimal_value():
    table = solved_table()
    negamax_agent = agent_class("ttt-negamax")(GAME, random.Random(0))
    master = agent_class("ttt-master")(GAME, random.Random(0))
    rng = random.Random(3)
    for _ in range(150):
        state = GAME.initial_state()
        for _ in range(rng.randrange(8)):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_moves()))
        if state.is_terminal():
            continue
        best = ranked_moves(*state.masks)[0][1]
        for agent in (negamax_agent, master):
            x, o = state.play(agent.choose(state, None)).masks
            assert table[(x, o)] == best


def test_master_takes_the_lowest_square_among_equal_best_moves():
    master = agent_class("ttt-master")(GAME, random.Random(0))
    assert master.choose(GAME.initial_state(), None) == 0  # every first move draws


def test_novice_takes_the_best_ranked_move_40_percent_of_the_time():
    novice = agent_class("ttt-novice")(GAME, random.Random(12345))
    rng = random.Random(99)
    first = second = 0
    for _ in range(4000):
        state = GAME.initial_state()
        for _ in range(rng.randrange(7)):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_moves()))
        if len(state.legal_moves()) < 2:
            continue
        ranking = ranked_moves(*state.masks)
        move = novice.choose(state, None)
        if move == ranking[0][0]:
            first += 1
        else:
            assert move == ranking[1][0]  # "the first suboptimal action": the second of the ranking
            second += 1
    share = first / (first + second)
    assert first + second > 3000
    assert abs(share - 0.40) < 0.03  # about 3.5 standard deviations


def test_novice_with_one_legal_move_plays_it():
    state = GAME.initial_state()
    for m in (0, 1, 2, 4, 3, 5, 7, 6):
        state = state.play(m)
    novice = agent_class("ttt-novice")(GAME, random.Random(1))
    assert novice.choose(state, None) == 8
