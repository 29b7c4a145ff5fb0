"""One conformance test over every registered game and rule variant."""

import random

import pytest

from arena.games import (
    SIMULTANEOUS,
    GameError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    default_registry,
    random_game,
    random_turns,
    ranking_from_scores,
)

REGISTRY = default_registry()
VARIANTS = [(name, {}) for name in REGISTRY.names()] + [("ultimate", {"tiebreak": "boards"})]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items())}" if o else n for n, o in VARIANTS]
TURN_BASED = [name for name in REGISTRY.names() if not REGISTRY.get(name).info.simultaneous]
#: every game through the joint-move API, the games of several seats in more shapes
JOINT_VARIANTS = VARIANTS + [("tron", {"players": 3, "width": 7, "height": 5}),
                             ("tron", {"players": 4, "width": 6, "height": 6}),
                             ("tron", {"width": 3, "height": 3})]
JOINT_IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items())}" if o else n for n, o in JOINT_VARIANTS]


def refused(play, move) -> bool:
    """Whether play(move) raises IllegalMoveError (another exception propagates), as
    pytest.raises checks it: the playouts try over a million illegal moves, and pytest.raises
    costs about 7 microseconds a call, a quarter of the module's time."""
    try:
        play(move)
    except IllegalMoveError:
        return True
    return False


@pytest.mark.parametrize(("name", "options"), JOINT_VARIANTS, ids=JOINT_IDS)
def test_joint_moves_obey_the_contract(name, options):
    """The API of seats moving at once, for every game: today's games through its defaults."""
    game = REGISTRY.create(name, **options)
    info, seats = game.info, game.seats
    assert seats >= 2
    junk_moves = (-1, info.move_count, None, "3", 2.0)
    for seed in range(40):
        rng = random.Random(seed)
        state = game.initial_state()
        turns = 0
        while True:
            assert state.seats == seats
            assert game.parse_state(state.encode()) == state
            movers = state.movers()
            assert bool(movers) == (not state.is_terminal()) == bool(state.legal_moves())
            assert list(movers) == sorted(set(movers)) and set(movers) <= set(range(seats))
            if not info.simultaneous:
                assert movers in ((state.to_move,), ())
            elif movers:
                assert state.to_move == SIMULTANEOUS
            for seat in range(seats):
                mine = state.moves_of(seat)
                assert list(mine) == sorted(set(mine)) and set(mine) <= set(range(info.move_count))
                assert bool(mine) == (seat in movers)
            if state.is_terminal():
                break
            joint = [rng.choice(state.moves_of(seat)) for seat in movers]
            for wrong in (joint[:-1], joint + [joint[0]], None, joint[0], "0" * len(joint)):
                assert refused(state.play_joint, wrong), wrong
            for junk in junk_moves:
                assert refused(state.play_joint, [junk] + joint[1:]), junk
            state = state.play_joint(joint)
            turns += 1
            assert turns <= info.max_length
        scores, ranking = state.returns(), state.ranking()
        assert len(scores) == len(ranking) == seats
        assert all(0.0 <= s <= 1.0 for s in scores) and sum(scores) == pytest.approx(seats / 2)
        assert ranking_from_scores(scores) == ranking and min(ranking) == 0
        if state.winner is not None:
            assert ranking[state.winner] == 0 and ranking.count(0) == 1 and scores[state.winner] == 1.0
        with pytest.raises(IllegalMoveError):
            state.play_joint([0])


@pytest.mark.parametrize(("name", "options"), [v for v in VARIANTS if v[0] in TURN_BASED],
                         ids=[i for i, v in zip(IDS, VARIANTS) if v[0] in TURN_BASED])
def test_random_playouts_obey_the_contract(name, options):
    game = REGISTRY.create(name, **options)
    info = game.info
    for seed in range(60):
        rng = random.Random(seed)
        state = game.initial_state()
        plies = 0
        assert game.parse_state(state.encode()) == state
        while True:
            legal = state.legal_moves()
            assert bool(legal) == (not state.is_terminal())
            assert list(legal) == sorted(set(legal))
            assert state.render()
            assert game.parse_state(state.encode()) == state
            if state.is_terminal():
                break
            for move in range(info.move_count):
                assert game.parse_move(game.move_text(move)) == move
                if move not in legal:
                    assert refused(state.play, move), move
            for junk in (-1, info.move_count, None, "3", 2.0):
                assert refused(state.play, junk), junk
            mover = state.to_move
            state = state.play(legal[int(rng.random() * len(legal))])
            assert state.to_move == 1 - mover
            plies += 1
            assert plies <= info.max_length
        scores = state.returns()
        assert scores in ((1.0, 0.0), (0.0, 1.0), (0.5, 0.5))
        assert state.winner in (0, 1, None)
        if state.winner is not None:
            assert scores[state.winner] == 1.0
        with pytest.raises(IllegalMoveError):
            state.play(0)


@pytest.mark.parametrize("name", REGISTRY.names())
def test_returns_before_the_end_is_an_error(name):
    with pytest.raises(GameError):
        REGISTRY.create(name).initial_state().returns()


@pytest.mark.parametrize("name", REGISTRY.names())
def test_bad_move_text_is_an_invalid_move(name):
    game = REGISTRY.create(name)
    for text in ("", "x", "-1", "1.5", "4 4", str(game.info.move_count), "٣"):
        with pytest.raises(InvalidMoveError):
            game.parse_move(text)


@pytest.mark.parametrize("name", REGISTRY.names())
def test_bad_state_text_is_rejected(name):
    game = REGISTRY.create(name)
    good = game.initial_state().encode()
    for text in ("", "garbage", good.replace(".", "x", 1), good + " extra", good.replace(" x", " o")):
        if text == good:    # a state text with no ' x' (tron's)
            continue
        with pytest.raises(InvalidStateError):
            game.parse_state(text)


@pytest.mark.parametrize("name", [n for n in REGISTRY.names() if n != "tictactoe"])
def test_fast_playout_plays_the_same_game_as_the_state_api(name):
    game = REGISTRY.create(name)
    for seed in range(200):
        if game.info.simultaneous:
            expected = game.replay_joint(random_turns(game, random.Random(seed)))
            end = game.random_playout(game.initial_state(), random.Random(seed))
            assert end == expected and end.returns() == expected.returns()
            continue
        moves = random_game(game, random.Random(seed))
        expected = game.replay(moves)
        assert game.random_playout(game.initial_state(), random.Random(seed)) == expected
        assert game.random_playout(game.initial_state(), random.Random(seed)).outcome == expected.outcome


def _rates(game, n, seed):
    rng = random.Random(seed)
    wins = [0, 0, 0]
    plies = 0
    start = game.initial_state()
    for _ in range(n):
        if hasattr(game, "random_playout"):
            end = game.random_playout(start, rng)
            plies += sum(1 for c in range(81) if end.cell(c) >= 0)
        else:
            moves = random_game(game, rng)
            end = game.replay(moves)
            plies += len(moves)
        wins[2 if end.winner is None else end.winner] += 1
    return [w / n for w in wins], plies / n


def test_random_tictactoe_matches_known_rates():
    (first, second, draw), _ = _rates(REGISTRY.create("tictactoe"), 20000, 1)
    assert first == pytest.approx(0.585, abs=0.012)
    assert draw == pytest.approx(0.127, abs=0.01)
    assert second == pytest.approx(0.288, abs=0.012)


def test_random_ultimate_matches_known_rates():
    (first, second, draw), plies = _rates(REGISTRY.create("ultimate"), 20000, 2)
    assert first == pytest.approx(0.412, abs=0.012)
    assert draw == pytest.approx(0.222, abs=0.01)
    assert second == pytest.approx(0.366, abs=0.012)
    assert plies == pytest.approx(58.9, abs=0.3)


def test_unknown_game_suggests_a_name():
    with pytest.raises(GameError, match="did you mean 'ultimate'"):
        REGISTRY.create("ultimat")


def test_unknown_rule_option_names_the_allowed_ones():
    with pytest.raises(GameError, match="tiebreak"):
        REGISTRY.create("ultimate", tie="boards")
    with pytest.raises(GameError, match="'none', 'boards'"):
        REGISTRY.create("ultimate", tiebreak="coin")


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_grid_shows_every_mark_where_the_move_put_it(name):
    """State.grid() is what the site and the dialects draw: marks row-major, and for the
    nine-board games each small board's status and the board to play next."""
    game = REGISTRY.create(name)
    for seed in range(20):
        state = game.initial_state()
        for move in random_game(game, random.Random(seed)):
            mover, state = state.to_move, state.play(move)
            grid = state.grid()
            assert len(grid.marks) == grid.rows * grid.columns == game.info.move_count
            if grid.regions:
                board, square = divmod(move, 9)
                row, column = 3 * (board // 3) + square // 3, 3 * (board % 3) + square % 3
                assert grid.target == state.target
                assert grid.regions == "".join(
                    "x" if state.xwon >> b & 1 else "o" if state.owon >> b & 1
                    else "-" if state.closed >> b & 1 else "." for b in range(9))
            else:
                row, column = divmod(move, 3)
            assert grid.mark(row, column) == "xo"[mover]
            assert grid.marks.count(".") == sum(state.cell(c) < 0 for c in range(game.info.move_count))
