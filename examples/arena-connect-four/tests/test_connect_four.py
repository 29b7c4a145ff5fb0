"""The plugin's own tests: the rules, the bots, and a game through the SDK's protocol loop."""

import io
import random

import pytest
from arena_connect_four.bots import RandomBot, SearchBot
from arena_connect_four.game import ConnectFour

from arena.games import IllegalMoveError, InvalidStateError, random_game
from arena.sdk import run

GAME = ConnectFour()


def play(moves):
    return GAME.replay(moves)


def test_a_disc_falls_to_the_lowest_empty_square():
    state = play([3, 3])
    assert state.grid().mark(5, 3) == "x" and state.grid().mark(4, 3) == "o"
    assert state.grid().rows == 6 and state.grid().columns == 7


@pytest.mark.parametrize("moves", [
    [0, 1, 0, 1, 0, 1, 0],            # vertical
    [0, 0, 1, 1, 2, 2, 3],            # horizontal
    [0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3],  # diagonal up to the right
])
def test_four_in_a_line_wins_for_the_mover(moves):
    state = play(moves)
    assert state.is_terminal() and state.winner == 0 and state.returns() == (1.0, 0.0)
    assert not play(moves[:-1]).is_terminal()


def test_a_full_column_is_illegal_and_a_full_board_is_a_draw():
    state = play([0] * 6)
    assert 0 not in state.legal_moves()
    with pytest.raises(IllegalMoveError):
        state.play(0)
    drawn = [int(c) for c in "324234505025062320535365620606613444411111"]  # found by random play
    final = play(drawn)
    assert final.legal_moves() == () and "." not in final.grid().marks
    assert final.is_terminal() and final.winner is None and final.returns() == (0.5, 0.5)


def test_states_encode_and_parse_back_and_nonsense_is_refused():
    rng = random.Random(3)
    for _ in range(20):
        moves = random_game(GAME, rng)
        for k in range(len(moves) + 1):
            state = play(moves[:k])
            again = GAME.parse_state(state.encode())
            assert again == state and again.winner == state.winner
    for text in ("x", "." * 41 + "x x", "." * 35 + "x" + "." * 6 + " x", "." * 42 + " o"):
        with pytest.raises(InvalidStateError):
            GAME.parse_state(text)


def test_the_search_bot_takes_a_win_and_blocks_a_loss():
    bot = SearchBot(GAME, random.Random(1), depth=2)
    assert bot.choose(play([0, 1, 0, 1, 0, 2]), None) == 0          # x completes its column
    assert bot.choose(play([0, 1, 0, 1, 0]), None) == 0             # o blocks x's column


def test_the_search_bot_beats_the_random_bot():
    wins = 0
    for seed in range(6):
        seats = (SearchBot(GAME, random.Random(seed), depth=3), RandomBot(GAME, random.Random(seed)))
        state = GAME.initial_state()
        while not state.is_terminal():
            state = state.play(seats[state.to_move].choose(state, None))
        wins += state.winner == 0
    assert wins >= 5


def test_bots_play_through_the_sdk_protocol():
    state = GAME.initial_state()
    lines = ["arena 1 connect-four 0 7",
             f"turn 1000 0 - 0,1,2,3,4,5,6 {state.encode()}", "quit"]
    out = io.StringIO()
    assert run(SearchBot, {"depth": 2}, io.StringIO("\n".join(lines) + "\n"), out,
               games=lambda name, rules: ConnectFour(**rules)) == 0
    ready, move = out.getvalue().split()
    assert ready == "ready" and 0 <= int(move) < 7
