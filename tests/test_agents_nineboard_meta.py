"""Seed 004's nine-board agent and seed 000's meta agent on positions with a clear best move."""

import random

from arena.games import default_registry
from bots import agent_class

REGISTRY = default_registry()


def position(game_name, x_cells, o_cells, to_move, target):
    cells = ["."] * 81
    for c in x_cells:
        cells[c] = "x"
    for c in o_cells:
        cells[c] = "o"
    game = REGISTRY.create(game_name)
    return game, game.parse_state(f"{''.join(cells)} {'xo'[to_move]} {target}")


def test_nineboard_negamax_completes_a_line_when_it_can():
    game, state = position("nineboard", [0, 1], [40, 44], 0, "0")
    agent = agent_class("nineboard-negamax")(game, random.Random(0), time_ms=50)
    assert agent.choose(state, None) == 2
    assert agent.last_stats["value"] >= 100


def test_nineboard_negamax_does_not_send_the_opponent_to_a_board_it_wins():
    # x must play in board 0; o has two in a row in board 4 (squares 0 and 1 -> cell 38 wins);
    # x's square 4 would send o to board 4
    game, state = position("nineboard", [9, 18], [36, 37], 0, "0")
    agent = agent_class("nineboard-negamax")(game, random.Random(0), time_ms=50)
    move = agent.choose(state, None)
    assert move // 9 == 0 and move % 9 != 4
    assert agent.last_stats["depth"] >= 2


def test_nineboard_negamax_searches_deeper_with_more_time():
    game = REGISTRY.create("nineboard")
    state = game.initial_state().play(40)
    shallow = agent_class("nineboard-negamax")(game, random.Random(0), max_depth=3)
    shallow.choose(state, None)
    assert shallow.last_stats["depth"] == 3
    deep = agent_class("nineboard-negamax")(game, random.Random(0), time_ms=200)
    deep.choose(state, None)
    assert deep.last_stats["depth"] >= 6


def test_meta_minimax_wins_a_board_when_the_score_weighs_most():
    # x to move in board 2 with x on squares 0 and 1 there: cell 20 wins the board
    game, state = position("meta", [18, 19, 5], [40, 41, 12], 0, "2")
    agent = agent_class("meta-minimax")(game, random.Random(0), depth=1, constants="c1=10")
    assert agent.choose(state, None) == 20
    # with the seed's constants (c2 = 2 per centre piece) one ply prefers the centre of board 2
    agent = agent_class("meta-minimax")(game, random.Random(0), depth=1)
    assert agent.choose(state, None) == 22


def test_meta_minimax_searches_the_requested_depth():
    game = REGISTRY.create("meta")
    agent = agent_class("meta-minimax")(game, random.Random(0), depth=4)
    agent.choose(game.initial_state(), None)
    assert agent.last_stats["depth"] == 4 and agent.last_stats["nodes"] > 100
