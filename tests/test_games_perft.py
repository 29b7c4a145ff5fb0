"""Perft counts against independently computed values (DESIGN.md).

Ultimate's depth 7 (33,782,544; 7-13 s of one core) is counted by benchmarks/perft_deep.py,
not here: depth 6 of ultimate and nineboard stays in the suite."""

import pytest

from arena.games import default_registry, perft

KNOWN = {
    "tictactoe": [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872],
    "ultimate": [81, 720, 6336, 55080, 473256, 4020960],
    "meta": [9, 80, 704, 6120],
    "nineboard": [81, 720, 6336, 55080, 473256, 4015008],
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_perft_from_the_start(name):
    state = default_registry().create(name).initial_state()
    assert [perft(state, d) for d in range(1, len(KNOWN[name]) + 1)] == KNOWN[name]


def test_perft_depth_zero_is_one():
    assert perft(default_registry().create("ultimate").initial_state(), 0) == 1


def test_tictactoe_game_and_position_counts():
    game = default_registry().create("tictactoe")
    positions, games = set(), 0
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        if state in positions:
            continue
        positions.add(state)
        stack.extend(state.play(m) for m in state.legal_moves())

    def count(state):
        if state.is_terminal():
            return 1
        return sum(count(state.play(m)) for m in state.legal_moves())

    games = count(game.initial_state())
    assert len(positions) == 5478
    assert games == 255168
