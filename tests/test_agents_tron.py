"""The tron agents in-process: random avoids crashing, territory counts and wins, mcts
searches joint moves and beats random."""

import random

from arena.games import default_registry
from bots import agent_class
from bots.tron_agents import safe_moves, territory

REGISTRY = default_registry()
U, D, L, R = 0, 1, 2, 3


def play(game, agents):
    """The final state of a game where agents[seat] moves for seat."""
    state = game.initial_state()
    for agent in agents:
        agent.new_game()
    while not state.is_terminal():
        state = state.play_joint([agents[seat].choose_for(state, seat, None) for seat in state.movers()])
    return state


def score(game, name, options, opponent, games):
    """name's summed score over games against opponents in every other seat, seats rotating."""
    total = 0.0
    for g in range(games):
        seat = g % game.seats
        agents = [agent_class(opponent)(game, random.Random(1000 + 10 * g + s)) for s in range(game.seats)]
        agents[seat] = agent_class(name)(game, random.Random(g), **options)
        total += play(game, agents).returns()[seat]
    return total


def test_random_moves_into_a_free_cell_while_there_is_one():
    game = REGISTRY.create("tron", width=5, height=3)
    # A went up and left from (1, 1): at (0, 0) the border and its trail leave it down
    state = game.parse_state("Aa.../.a.b./...bB 2 -,-")
    assert safe_moves(state, 0) == (D,)
    agent = agent_class("tron-random")(game, random.Random(0))
    assert {agent.choose_for(state, 0, None) for _ in range(20)} == {D}
    # on a 3x3 board both cycles run into a corner where every move crashes: any is made
    boxed = play_turns(REGISTRY.create("tron", width=3, height=3), (U, D), (R, L), (R, L))
    assert boxed.movers() == (0, 1) and safe_moves(boxed, 0) == safe_moves(boxed, 1) == ()
    assert agent.choose_for(boxed, 0, None) in (U, D, L, R)


def play_turns(game, *turns):
    state = game.initial_state()
    for moves in turns:
        state = state.play_joint(moves)
    return state


def _nearest(state, seat):
    """Steps from seat's head to each free cell it can reach, searched cell by cell."""
    board = state.board
    free = {(r, c) for r, row in enumerate(state.rows()) for c, ch in enumerate(row) if ch == "."}
    head = divmod(state.heads[seat], board.stride)
    start = (head[0] - 1, head[1] - 1)
    steps, frontier, n = {}, [start], 0
    while frontier:
        n += 1
        nxt = []
        for r, c in frontier:
            for cell in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if cell in free and cell not in steps:
                    steps[cell] = n
                    nxt.append(cell)
        frontier = nxt
    return steps


def test_territory_gives_each_cell_to_the_cycle_that_reaches_it_first():
    game = REGISTRY.create("tron", width=5, height=3)
    assert territory(game.initial_state()) == {0: 5, 1: 5}     # the middle column is as near to both
    for players, width, height in ((2, 7, 5), (3, 8, 6), (4, 9, 9)):
        game = REGISTRY.create("tron", width=width, height=height, players=players)
        for seed in range(40):
            rng = random.Random(seed)
            state = game.initial_state()
            for _ in range(rng.randrange(12)):
                if state.is_terminal():
                    break
                state = state.play_joint([rng.randrange(4) for _ in state.movers()])
            live = [s for s in range(players) if state.out[s] < 0]
            near = {s: _nearest(state, s) for s in live}
            expected = {s: 0 for s in live}
            for cell in set().union(*near.values()):
                best = min(near[s].get(cell, 999) for s in live)
                first = [s for s in live if near[s].get(cell) == best]
                if len(first) == 1:
                    expected[first[0]] += 1
            assert territory(state) == expected, state.encode()


def test_territory_beats_random_in_most_games():
    game = REGISTRY.create("tron", width=10, height=10)
    assert score(game, "tron-territory", {}, "tron-random", 10) >= 9


def test_territory_wins_most_four_player_games():
    game = REGISTRY.create("tron", width=10, height=10, players=4)
    # a win scores 1, a last place 0: a third of the games' points is chance
    assert score(game, "tron-territory", {}, "tron-random", 8) >= 6


def test_mcts_beats_random():
    game = REGISTRY.create("tron", width=8, height=8)
    assert score(game, "mcts", {"time_ms": 0, "iterations": 300}, "tron-random", 8) >= 6


def test_mcts_keeps_per_seat_statistics_and_its_subtree():
    game = REGISTRY.create("tron", width=6, height=6)
    mcts = agent_class("mcts")(game, random.Random(3), time_ms=0, iterations=200)
    state = game.initial_state()
    move = mcts.choose_for(state, 1, None)
    root = mcts._joint_root
    assert root.movers == (0, 1) and sum(root.counts[0]) == sum(root.counts[1]) == root.visits == 200
    assert move == root.moves[1][max(range(4), key=lambda k: (root.counts[1][k], root.scores[1][k]))]
    after = state.play_joint((U, move))
    mcts.choose_for(after, 1, None)
    assert mcts.last_stats["reused"] > 0          # the tree under the joint move played was kept


def test_territory_searches_deeper_when_asked():
    game = REGISTRY.create("tron", width=8, height=8)
    shallow = agent_class("tron-territory")(game, random.Random(0))
    deep = agent_class("tron-territory")(game, random.Random(0), depth=2)
    state = game.initial_state()
    shallow.choose_for(state, 0, None)
    deep.choose_for(state, 0, None)
    assert deep.last_stats["evaluated"] > shallow.last_stats["evaluated"] == 16


def test_territory_with_time_plays_what_its_depth_alone_plays_where_that_fits():
    # the time-bounded search deepens from 1 to `depth` and plays the deepest it finished:
    # given ample time, the same moves and values as the search of `depth` alone
    from arena.games import random_positions
    game = REGISTRY.create("tron", width=8, height=8)
    for state in random_positions(game, 6, random.Random(3), (0, 8)):
        for depth in (1, 2, 3):
            alone = agent_class("tron-territory")(game, random.Random(7), depth=depth)
            timed = agent_class("tron-territory")(game, random.Random(7), depth=depth)
            seat = state.movers()[0]
            assert timed.choose_for(state, seat, 600_000.0) == alone.choose_for(state, seat, None)
            assert timed.last_stats["value"] == alone.last_stats["value"]
            assert timed.last_stats["depth"] == depth
