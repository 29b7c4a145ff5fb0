"""Tron's rules: collisions, rankings, starts, text, and counts against a brute force written here."""

import random

import pytest

from arena.games import GameError, IllegalMoveError, InvalidStateError, default_registry, perft

REGISTRY = default_registry()
U, D, L, R = 0, 1, 2, 3


def tron(**options):
    return REGISTRY.create("tron", **options)


def play(game, *turns):
    state = game.initial_state()
    for moves in turns:
        state = state.play_joint(moves)
    return state


def test_heads_meeting_on_one_cell_both_go_out_and_draw():
    game = tron(width=5, height=3)          # A at (1, 1), B at (1, 3): (1, 2) between them
    end = play(game, (R, L))
    assert end.is_terminal() and end.out == (1, 1)
    assert end.returns() == (0.5, 0.5) and end.ranking() == (0, 0) and end.winner is None
    assert end.rows()[1] == ".A.B."          # neither entered the cell they met on


def test_swapping_cells_head_on_puts_both_out():
    game = tron(width=4, height=3)          # A at (1, 1), B at (1, 2): next to each other
    end = play(game, (R, L))
    assert end.out == (1, 1) and end.returns() == (0.5, 0.5)


def test_border_own_trail_and_other_trails_put_a_cycle_out():
    game = tron(width=5, height=3)
    assert play(game, (U, D), (U, D)).out == (2, 2)                   # both leave the board
    state = play(game, (U, U))
    end = state.play_joint((D, U))                                   # A back onto its own trail
    assert end.out == (2, 2)                                         # B left the board too: a tie
    end = play(game, (D, U), (R, L), (R, L), (U, L))                  # A runs into B's trail
    assert end.out == (4, -1) and end.winner == 1 and end.returns() == (0.0, 1.0)
    assert end.ranking() == (1, 0)


def test_the_last_cycle_in_wins_and_the_others_rank_by_when_they_went_out():
    game = tron(players=4, width=8, height=8)   # starts (2, 2), (2, 5), (5, 5), (5, 2)
    state = play(game, (U, R, D, L), (U, R, D, L))    # each cycle runs to the border
    assert state.movers() == (0, 1, 2, 3)
    state = state.play_joint((U, U, R, U))     # A leaves the board
    assert state.out[0] == 3 and state.movers() == (1, 2, 3)
    state = state.play_joint((R, D, U))        # B and C leave it on turn 4, D stays in
    assert state.is_terminal() and state.out == (3, 4, 4, -1)
    assert state.ranking() == (3, 1, 1, 0) and state.winner == 3
    assert state.returns() == pytest.approx((0.0, 0.5, 0.5, 1.0))
    assert "ranking: A=4 B=2 C=2 D=1" in state.render()


def test_starts_are_symmetric():
    """Every start mirrors itself left to right (3 players: on boards of odd width), and
    four players' also top to bottom."""
    for players, width, height in ((2, 16, 16), (2, 9, 5), (3, 9, 9), (3, 7, 4), (4, 10, 7), (4, 16, 16)):
        rows = tron(players=players, width=width, height=height).initial_state().rows()
        heads = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}
        assert len(heads) == players
        assert heads == {(r, width - 1 - c) for r, c in heads}
        if players == 4:
            assert heads == {(height - 1 - r, c) for r, c in heads}


def test_moves_and_options_read_as_text():
    game = tron(width="7", height="5", players="3")     # as --rule and the bots' handshake give them
    assert game.options == {"width": 7, "height": 5, "players": 3} and game.seats == 3
    assert [game.parse_move(t) for t in ("u", "down", " L ", "Right")] == [U, D, L, R]
    assert [game.move_text(m) for m in range(4)] == ["u", "d", "l", "r"]
    with pytest.raises(GameError, match=r"option 'width' cannot be 2 \(allowed: 3\.\.64\)"):
        tron(width=2)
    with pytest.raises(GameError, match="option 'players' cannot be '5'"):
        tron(players="5")


def test_a_single_move_or_a_wrong_count_is_refused():
    state = tron().initial_state()
    with pytest.raises(IllegalMoveError, match="move at once"):
        state.play(U)
    with pytest.raises(IllegalMoveError, match=r"one of 0\.\.3 for each seat moving \[0, 1\]"):
        state.play_joint((U,))


def test_state_text_round_trips_and_nonsense_is_refused():
    game = tron(players=3, width=7, height=5)
    for seed in range(30):
        rng = random.Random(seed)
        state = game.initial_state()
        while not state.is_terminal():
            state = state.play_joint([rng.randrange(4) for _ in state.movers()])
            assert game.parse_state(state.encode()) == state
    good = game.initial_state().encode()
    assert good == "......./.A...B./......./...C.../....... 0 -,-,-"
    for text in (good.replace("A", "a"),                    # no head
                 good.replace(".", "A", 1),                 # two heads
                 good.replace(" 0 ", " 1 "),               # one cell each after a turn?
                 good.replace("-,-,-", "-,-"),              # a seat missing
                 good.replace("-,-,-", "1,-,-"),            # out on a turn not yet played
                 good.replace("C", "D"),                    # a fourth cycle in a 3-player game
                 good.replace("/", "", 1)):                 # rows run together
        with pytest.raises(InvalidStateError):
            game.parse_state(text)


# A brute force written apart from arena/games/tron.py: cycles as (row, column) lists and
# the board as a set, every joint move tried, each turn judged from the rules' words.

def _brute_start(width, height, players):
    top, bottom, left, right = height // 4, height - 1 - height // 4, width // 4, width - 1 - width // 4
    return {2: [(height // 2, left), (height // 2, right)],
            3: [(top, left), (top, right), (bottom, width // 2)],
            4: [(top, left), (top, right), (bottom, right), (bottom, left)]}[players]


def _brute_counts(width, height, players, depth):
    """Per depth 1..depth: joint-move sequences of that length, those ending the game at
    it, and the distinct positions the game ends in by then."""
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    sequences, endings = [0] * (depth + 1), [0] * (depth + 1)
    finals: list[set] = [set() for _ in range(depth + 1)]

    def walk(taken, heads, alive, out_turn, turn):
        if turn == depth:
            return
        for joint in _product(4, len(alive)):
            wanted = {seat: (heads[seat][0] + steps[m][0], heads[seat][1] + steps[m][1])
                      for seat, m in zip(alive, joint)}
            crashed = set()
            for seat, (r, c) in wanted.items():
                off = not (0 <= r < height and 0 <= c < width)
                shared = sum(1 for other in wanted.values() if other == (r, c)) > 1
                if off or (r, c) in taken or shared:
                    crashed.add(seat)
            new_heads, new_taken, new_out = dict(heads), set(taken), dict(out_turn)
            for seat in alive:
                if seat in crashed:
                    new_out[seat] = turn + 1
                else:
                    new_heads[seat] = wanted[seat]
                    new_taken.add(wanted[seat])
            left = [s for s in alive if s not in crashed]
            sequences[turn + 1] += 1
            if len(left) <= 1:
                endings[turn + 1] += 1
                for later in range(turn + 1, depth + 1):
                    finals[later].add((frozenset(new_taken), tuple(sorted(new_heads.items())),
                                       tuple(sorted(new_out.items()))))
            else:
                walk(new_taken, new_heads, left, new_out, turn + 1)

    heads = dict(enumerate(_brute_start(width, height, players)))
    walk(set(heads.values()), heads, list(range(players)), {}, 0)
    return sequences[1:], endings[1:], [len(f) for f in finals[1:]]


def _product(n, k):
    if k == 0:
        yield ()
        return
    for first in range(n):
        for rest in _product(n, k - 1):
            yield (first,) + rest


def _engine_counts(game, depth):
    sequences, endings, finals = [0] * (depth + 1), [0] * (depth + 1), [set() for _ in range(depth + 1)]

    def walk(state, turn):
        if turn == depth:
            return
        for joint in _product(4, len(state.movers())):
            child = state.play_joint(joint)
            sequences[turn + 1] += 1
            if child.is_terminal():
                endings[turn + 1] += 1
                for later in range(turn + 1, depth + 1):
                    finals[later].add(child)
            else:
                walk(child, turn + 1)

    walk(game.initial_state(), 0)
    return sequences[1:], endings[1:], [len(f) for f in finals[1:]]


@pytest.mark.parametrize(("width", "height", "players", "depth"),
                         [(4, 3, 2, 5), (5, 4, 2, 4), (4, 4, 3, 3), (4, 4, 4, 3)])
def test_counts_from_the_start_match_a_brute_force(width, height, players, depth):
    game = tron(width=width, height=height, players=players)
    expected = _brute_counts(width, height, players, depth)
    assert _engine_counts(game, depth) == expected
    assert [perft(game.initial_state(), d) for d in range(1, depth + 1)] == expected[0]
    assert expected[1][-1] > 0          # games do end within the depth counted


def test_known_counts_on_a_4x3_board():
    """The first turn worked by hand: on a 4x3 board A starts at (1, 1) and B at (1, 2), side
    by side. A going right or B going left runs into the other, so 4 + 4 - 1 of the 16
    joint moves end the game (the brute force agrees, then counts deeper)."""
    sequences, endings, _ = _brute_counts(4, 3, 2, 1)
    assert sequences == [16] and endings == [7]
    assert perft(tron(width=4, height=3).initial_state(), 1) == 16
