"""Every reference agent: registry facts, options, legal play in every game it supports, determinism, time."""

import gc
import json
import random

import pytest

from arena.games import default_registry
from bots import Agent, AgentOptionError, agent_class, all_agents

REGISTRY = default_registry()

#: options that keep a test game fast
FAST = {
    "mcts": {"time_ms": 0, "iterations": 40},
    "nineboard-negamax": {"time_ms": 15},
    "meta-minimax": {"depth": 2},
    "uttt-minimax": {"depth": 1},
    "uttt-minimax-pruning": {"depth": 1},
    "uttt-expectimax": {"depth": 1},
}


def supported(cls):
    return REGISTRY.names() if cls.game == "*" else [cls.game]


CASES = [(cls, game) for cls in all_agents() for game in supported(cls)]
IDS = [f"{cls.name}-{game}" for cls, game in CASES]


def test_registry_facts():
    names = [cls.name for cls in all_agents()]
    assert len(names) == len(set(names))
    assert set(names) >= {"ttt-blind", "ttt-novice", "ttt-master", "ttt-negamax", "uttt-random",
                          "uttt-perceptron", "uttt-reflex", "uttt-minimax", "uttt-minimax-pruning",
                          "uttt-advanced-perceptron", "uttt-expectimax", "meta-minimax",
                          "nineboard-negamax", "mcts", "random", "tron-random", "tron-territory"}
    for cls in all_agents():
        assert issubclass(cls, Agent)
        assert cls.game == "*" or cls.game in REGISTRY.names()
        assert cls.description and ("paper 00" in cls.description or "beyond the papers" in cls.description)
        assert cls.__doc__
        for key, (_default, help_text) in cls.options.items():
            assert help_text, (cls.name, key)


def play_game(game, agents, seed):
    """Moves (a joint move's tuple each turn where seats move at once) and the final state."""
    state = game.initial_state()
    for agent in agents:
        agent.new_game()
    moves = []
    while not state.is_terminal():
        if game.info.simultaneous:
            joint = tuple(agents[seat].choose_for(state, seat, None) for seat in state.movers())
            for seat, move in zip(state.movers(), joint):
                assert move in state.moves_of(seat), (agents[seat].name, move, state.encode())
            moves.append(joint)
            state = state.play_joint(joint)
            continue
        move = agents[state.to_move].choose(state, None)
        assert move in state.legal_moves(), (agents[state.to_move].name, move, state.encode())
        moves.append(move)
        state = state.play(move)
    return moves, state


@pytest.mark.parametrize(("cls", "game_name"), CASES, ids=IDS)
def test_agent_plays_only_legal_moves(cls, game_name):
    game = REGISTRY.create(game_name)
    for g in range(2):  # once in each seat, against a random opponent
        agent = cls(game, random.Random(g), **FAST.get(cls.name, {}))
        other = agent_class("random")(game, random.Random(100 + g))
        play_game(game, (agent, other) if g == 0 else (other, agent), g)
    agent = cls(game, random.Random(5), **FAST.get(cls.name, {}))
    play_game(game, (agent, agent), 5)  # and against itself


@pytest.mark.parametrize("name", ["uttt-minimax-pruning", "uttt-expectimax", "uttt-reflex", "mcts"])
def test_ultimate_agents_play_the_boards_tiebreak_variant(name):
    game = REGISTRY.create("ultimate", tiebreak="boards")
    for g in range(2):
        agent = agent_class(name)(game, random.Random(g), **FAST.get(name, {}))
        other = agent_class("random")(game, random.Random(100 + g))
        play_game(game, (agent, other) if g == 0 else (other, agent), g)


@pytest.mark.parametrize(("cls", "game_name"), CASES, ids=IDS)
def test_agent_is_deterministic_given_its_rng(cls, game_name):
    if cls.name == "nineboard-negamax":
        pytest.skip("time-limited search: its depth depends on the clock")
    game = REGISTRY.create(game_name)
    runs = []
    for _ in range(2):
        agent = cls(game, random.Random(42), **FAST.get(cls.name, {}))
        other = agent_class("random")(game, random.Random(7))
        runs.append(play_game(game, (agent, other), 0)[0])
    assert runs[0] == runs[1]


def test_unknown_option_names_it_and_lists_the_allowed_ones():
    game = REGISTRY.create("ultimate")
    with pytest.raises(ValueError) as err:
        agent_class("uttt-minimax")(game, random.Random(0), dpeth=2)
    assert "'dpeth'" in str(err.value) and "depth" in str(err.value) and "top" in str(err.value)
    with pytest.raises(AgentOptionError):
        agent_class("uttt-minimax")(game, random.Random(0), depth="two")
    with pytest.raises(ValueError, match="plays 'tictactoe'"):
        agent_class("ttt-master")(game, random.Random(0))


def test_options_given_as_text_are_converted():
    game = REGISTRY.create("ultimate")
    agent = agent_class("mcts")(game, random.Random(0), time_ms="0", iterations="25", reuse="false", seed="3")
    assert agent.config == {"time_ms": 0.0, "iterations": 25, "c": 0.9, "reuse": False, "seed": 3}
    agent.choose(game.initial_state(), None)
    assert agent.last_stats["simulations"] == 25


def test_seed_option_overrides_the_rng():
    game = REGISTRY.create("ultimate")
    a = agent_class("uttt-random")(game, random.Random(1), seed=9)
    b = agent_class("uttt-random")(game, random.Random(2), seed=9)
    state = game.initial_state()
    assert [a.choose(state, None) for _ in range(10)] == [b.choose(state, None) for _ in range(10)]


def test_meta_constants_from_option_and_from_a_weights_file(tmp_path):
    game = REGISTRY.create("meta")
    a = agent_class("meta-minimax")(game, random.Random(0), constants="c1=1, c5=2")
    assert a.constants == {"c1": 1.0, "c2": 2.0, "c3": 0.5, "c4": 0.5, "c5": 2.0, "c6": 0.5}
    td = tmp_path / "td.txt"
    td.write_text(str({"c1": 3.07, "c2": 1.0, "c3": 0.6, "c4": 0.61, "c5": 0.4, "c6": 0.9}))  # the seed's format
    b = agent_class("meta-minimax")(game, random.Random(0), weights=str(td))
    assert b.constants["c1"] == 3.07 and b.constants["c4"] == 0.61
    js = tmp_path / "w.json"
    js.write_text(json.dumps({"c2": 5}))
    c = agent_class("meta-minimax")(game, random.Random(0), weights=str(js))
    assert c.constants["c2"] == 5.0 and c.constants["c1"] == 3.0
    with pytest.raises(ValueError, match="c7"):
        agent_class("meta-minimax")(game, random.Random(0), constants="c7=1")
    move = b.choose(game.initial_state(), None)
    assert move in game.initial_state().legal_moves()
    assert b.last_stats["depth"] == 3


@pytest.mark.parametrize(("name", "game_name", "options"), [
    ("nineboard-negamax", "nineboard", {}),
    ("mcts", "ultimate", {}),
    ("meta-minimax", "meta", {"depth": 9}),
    ("uttt-expectimax", "ultimate", {"depth": 3}),
])
def test_time_limited_agents_answer_within_their_allowance(name, game_name, options):
    # a search deeper than the allowance allows: the agent must stop by its own clock and
    # answer a legal move (how much of the allowance it uses is measured by
    # `python benchmarks/agents.py`, never asserted here: a loaded machine would fail it)
    game = REGISTRY.create(game_name)
    agent = agent_class(name)(game, random.Random(0), **options)
    state = game.initial_state()
    for m in game.initial_state().legal_moves()[:1]:
        state = state.play(m)
    assert agent.choose(state, 200.0) in state.legal_moves()


def test_mcts_beats_uttt_random():
    game = REGISTRY.create("ultimate")
    wins = 0
    for g in range(6):
        mcts = agent_class("mcts")(game, random.Random(g), time_ms=0, iterations=150)
        rand = agent_class("uttt-random")(game, random.Random(50 + g))
        seats = (mcts, rand) if g % 2 == 0 else (rand, mcts)
        _, end = play_game(game, seats, g)
        wins += end.winner == g % 2
    assert wins >= 5


def test_mcts_finds_an_immediate_win_at_tictactoe():
    game = REGISTRY.create("tictactoe")
    state = game.initial_state()
    for m in (0, 3, 1, 4):  # x threatens 2, o threatens 5
        state = state.play(m)
    agent = agent_class("mcts")(game, random.Random(0), time_ms=0, iterations=400)
    assert agent.choose(state, None) == 2


def test_mcts_leaves_no_garbage_only_the_collector_can_free():
    # Nodes pointing back to their parents made every subtree dropped between moves a
    # cycle: only a full collection freed them, 47-124 ms inside a move of a 45 ms target.
    # Now the tree has no cycles: what a game drops is freed at once, and nothing is left
    # for the collector (it finds 0 unreachable objects; with back-pointers it found 9,005).
    game = REGISTRY.create("ultimate")
    gc.collect()
    gc.disable()
    try:
        agent = agent_class("mcts")(game, random.Random(0), time_ms=0, iterations=300)
        state = game.initial_state()
        for _ in range(6):   # each move keeps the subtree of the position reached, drops the rest
            state = state.play(agent.choose(state, None))
        agent.new_game()
        del agent
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_discarded_search_tree_leaves_no_cyclic_garbage():
    """Nodes link only to their children: once a tree is dropped reference counting frees
    it, and the cycle collector (slow on big trees) finds nothing."""
    for name, options in (("tron", {"width": 8, "height": 8}), ("ultimate", {})):
        game = REGISTRY.create(name, **options)
        gc.collect()
        gc.disable()
        try:
            mcts = agent_class("mcts")(game, random.Random(1), time_ms=0, iterations=300)
            mcts.choose_for(game.initial_state(), 0, None)
            del mcts
            assert gc.collect() == 0, name
        finally:
            gc.enable()
