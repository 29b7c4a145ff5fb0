"""One test per rule clause of every variant."""

import random

import pytest

from arena.games import IllegalMoveError, default_registry, random_game
from arena.games.grid import HAS_LINE

R = default_registry()
ULTIMATE, META, NINEBOARD, TTT = (R.create(n) for n in ("ultimate", "meta", "nineboard", "tictactoe"))
ULTIMATE_TB = R.create("ultimate", tiebreak="boards")

# o wins board 0 with squares 3, 4, 5; the last o move (5) sends x to board 5,
# and x's reply 45 (board 5, square 0) sends o to the won board 0.
O_WINS_BOARD_0 = [0, 3, 27, 4, 36, 5]


def cells_of_board(board):
    return set(range(9 * board, 9 * board + 9))


def test_tictactoe_line_wins_and_full_board_draws():
    assert TTT.replay([0, 3, 1, 4, 2]).winner == 0
    assert TTT.replay([0, 3, 1, 4, 8, 5]).winner == 1
    drawn = TTT.replay([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert drawn.is_terminal() and drawn.winner is None and drawn.returns() == (0.5, 0.5)
    assert TTT.replay([0, 3, 1, 4, 2]).legal_moves() == ()


@pytest.mark.parametrize("game", [ULTIMATE, NINEBOARD])
def test_first_move_anywhere(game):
    assert game.initial_state().legal_moves() == tuple(range(81))


def test_meta_first_move_in_the_centre_board():
    assert META.initial_state().legal_moves() == tuple(range(36, 45))
    with pytest.raises(IllegalMoveError, match="board 4"):
        META.initial_state().play(0)


@pytest.mark.parametrize("game", [ULTIMATE, META, NINEBOARD])
def test_sent_to_the_board_of_the_square_played(game):
    state = game.initial_state().play(40).play(38)  # board 4 square 4, then board 4 square 2
    assert set(state.legal_moves()) == cells_of_board(2)
    with pytest.raises(IllegalMoveError, match="must be in board 2"):
        state.play(0)


# meta: x wins board 0 (squares 3, 5, 4); o then sends x to board 1, whose
# square 0 sends o to the won board 0.
X_WINS_BOARD_0_META = [40, 36, 3, 27, 5, 45, 4, 37, 9]


@pytest.mark.parametrize(("game", "moves"), [(ULTIMATE, O_WINS_BOARD_0 + [45]),
                                             (META, X_WINS_BOARD_0_META)])
def test_a_won_board_is_closed_and_sending_there_frees_the_choice(game, moves):
    state = game.replay(moves)
    assert (state.xwon | state.owon) == 1 and state.closed == 1
    assert state.target == -1
    legal = set(state.legal_moves())
    assert legal == {c for c in range(9, 81) if state.cell(c) < 0}
    with pytest.raises(IllegalMoveError, match="closed"):
        state.play(8)


def test_nineboard_first_small_line_wins_the_game():
    state = NINEBOARD.replay(O_WINS_BOARD_0)
    assert state.is_terminal() and state.winner == 1 and state.legal_moves() == ()


def _find_random_game(game, predicate, tries=3000):
    for seed in range(tries):
        moves = random_game(game, random.Random(seed))
        end = game.replay(moves)
        if predicate(end):
            return moves, end
    raise AssertionError("no such game found")


def test_ultimate_three_boards_in_a_row_wins():
    moves, end = _find_random_game(ULTIMATE, lambda s: s.winner is not None)
    won = end.xwon if end.winner == 0 else end.owon
    assert HAS_LINE[won]
    before = ULTIMATE.replay(moves[:-1])
    assert not before.is_terminal()


def test_ultimate_no_move_left_and_no_line_is_a_draw_but_tiebreak_counts_boards():
    moves, end = _find_random_game(
        ULTIMATE, lambda s: s.is_terminal() and s.winner is None
        and s.boards_won()[0] != s.boards_won()[1])
    assert end.closed == 0b111111111 and not HAS_LINE[end.xwon] and not HAS_LINE[end.owon]
    tb = ULTIMATE_TB.replay(moves)
    nx, no = end.boards_won()
    assert tb.winner == (0 if nx > no else 1)
    _, equal = _find_random_game(
        ULTIMATE_TB, lambda s: s.is_terminal() and s.boards_won()[0] == s.boards_won()[1]
        and not HAS_LINE[s.xwon] and not HAS_LINE[s.owon])
    assert equal.winner is None


def test_ultimate_sent_to_a_full_board_plays_any_open_board():
    def sends_to_full(moves):
        state = ULTIMATE.initial_state()
        for move in moves:
            state = state.play(move)
            b = move % 9
            full = (state.boards[b] | state.boards[b] >> 9) & 511 == 511
            if not state.is_terminal() and full and not (state.xwon | state.owon) >> b & 1:
                return state, b
        return None

    for seed in range(3000):
        found = sends_to_full(random_game(ULTIMATE, random.Random(seed)))
        if found:
            state, board = found
            assert state.target == -1
            assert set(state.legal_moves()) == {c for c in range(81)
                                                if not state.closed >> (c // 9) & 1 and state.cell(c) < 0}
            return
    raise AssertionError("no game sent a player to a full board")


def test_meta_goes_on_after_three_boards_in_a_row_and_most_boards_wins():
    moves, end = _find_random_game(META, lambda s: HAS_LINE[s.xwon] or HAS_LINE[s.owon])
    assert end.closed == 0b111111111
    nx, no = end.boards_won()
    assert end.winner == (None if nx == no else 0 if nx > no else 1)
    for n in range(1, len(moves)):
        assert not META.replay(moves[:n]).is_terminal()
    _, equal = _find_random_game(META, lambda s: s.boards_won()[0] == s.boards_won()[1])
    assert equal.winner is None and equal.returns() == (0.5, 0.5)


def test_nineboard_sent_to_a_full_board_is_a_tie():
    moves, end = _find_random_game(NINEBOARD, lambda s: s.is_terminal() and s.winner is None)
    b = moves[-1] % 9
    assert (end.boards[b] | end.boards[b] >> 9) & 511 == 511
    assert not any(HAS_LINE[v & 511] or HAS_LINE[v >> 9] for v in end.boards)


def test_illegal_move_messages_say_why():
    state = ULTIMATE.initial_state().play(40)
    with pytest.raises(IllegalMoveError, match="taken"):
        state.play(40)
    with pytest.raises(IllegalMoveError, match="0..80"):
        state.play(81)
    over = ULTIMATE.replay(_find_random_game(ULTIMATE, lambda s: s.winner is not None)[0])
    with pytest.raises(IllegalMoveError, match="over"):
        over.play(over.legal_moves()[0] if over.legal_moves() else 0)
