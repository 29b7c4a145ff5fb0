"""Protocol pieces without processes: framing, dialect translation, the SDK loop, clocks."""

import io

import pytest

from arena.games import InvalidMoveError, default_registry
from arena.plugins import loaded_plugins
from arena.protocol import LineBuffer, LineTooLongError, TurnInfo
from arena.protocol.dialects import cell_to_row_col, format_turn, row_col_to_cell
from arena.referee import Clock, TimeControl, TimeoutPolicy
from arena.sdk import SDKError, run


def dialect_named(name):
    """A dialect of the loaded registry, as the referee finds it."""
    return loaded_plugins().dialects.require(name)


R = default_registry()


def test_line_buffer_splits_strips_cr_and_keeps_partials():
    buf = LineBuffer(max_line=10)
    assert buf.feed(b"12\r\n3") == [b"12"]
    assert buf.pending == 1
    assert buf.feed(b"4\n\n56\n") == [b"34", b"", b"56"]
    assert buf.pending == 0


def test_line_buffer_refuses_a_long_line_before_it_ends():
    buf = LineBuffer(max_line=10)
    buf.feed(b"123456")
    with pytest.raises(LineTooLongError):
        buf.feed(b"78901")
    with pytest.raises(LineTooLongError):
        LineBuffer(max_line=4).feed(b"12345678\n")


@pytest.mark.parametrize("name", ["tictactoe", "ultimate"])
def test_row_col_round_trip(name):
    game = R.create(name)
    for cell in range(game.info.move_count):
        assert row_col_to_cell(game, *cell_to_row_col(game, cell)) == cell
    assert row_col_to_cell(game, 9, 0) is None and row_col_to_cell(game, 0, -1) is None   # off the grid


def _turn(game, moves, seat_ms=(100, 0)):
    state = game.replay(moves)
    return TurnInfo(state=state, last_move=moves[-1] if moves else None, legal=state.legal_moves(),
                    move_ms=seat_ms[0], bank_ms=seat_ms[1], ply=len(moves), seat=len(moves) % 2)


def test_arena_turn_line_carries_everything_a_stateless_bot_needs():
    game = R.create("ultimate")
    line = format_turn(game, _turn(game, [40, 36]))
    words = line.split()
    assert words[:4] == ["turn", "100", "0", "36"]
    assert words[4] == ",".join(map(str, game.replay([40, 36]).legal_moves()))
    assert game.parse_state(" ".join(words[5:])) == game.replay([40, 36])


def test_codingame_turn_and_reply():
    game = R.create("ultimate")
    dialect = dialect_named("codingame")
    first = dialect.turn_lines(game, _turn(game, []))
    assert first[0] == "-1 -1" and first[1] == "81" and len(first) == 83
    lines = dialect.turn_lines(game, _turn(game, [40]))  # board 4 square 4 = row 4 col 4
    assert lines[0] == "4 4" and lines[1] == "8"
    assert "3 3" in lines[2:] and "4 4" not in lines[2:]
    turn = _turn(game, [40])
    assert dialect.parse_move(game, turn, "3 3 gl hf") == 36
    for bad in ("33", "row col", "", "3"):
        with pytest.raises(InvalidMoveError):
            dialect.parse_move(game, turn, bad)


@pytest.mark.parametrize("flavour", ["theaigames", "riddles"])
def test_theaigames_field_and_macroboard(flavour):
    game = R.create("ultimate")
    dialect = dialect_named(flavour)
    start = dialect.start_lines(game, 1, 5, 100, 900)
    me = "1" if flavour == "riddles" else "2"
    assert f"settings your_botid {me}" in start and "settings timebank 1000" in start
    lines = dialect.turn_lines(game, _turn(game, [40]))
    field = next(x for x in lines if x.startswith("update game field")).split()[3].split(",")
    macro = next(x for x in lines if x.startswith("update game macroboard")).split()[3].split(",")
    x_id = "0" if flavour == "riddles" else "1"
    assert field[4 * 9 + 4] == x_id and field.count(x_id) == 1
    assert macro[4] == "-1" and macro.count("-1") == 1
    assert lines[-1] == "action move 100"
    assert dialect.parse_move(game, _turn(game, [40]), "place_move 3 5") == row_col_to_cell(game, 5, 3)
    assert dialect.parse_move(game, _turn(game, [40]), "place_disc 3 5") == row_col_to_cell(game, 5, 3)
    with pytest.raises(InvalidMoveError):
        dialect.parse_move(game, _turn(game, [40]), "3 5")


def test_dialects_refuse_games_they_cannot_express():
    assert dialect_named("theaigames").supports(R.create("tictactoe"))
    assert dialect_named("codingame").supports(R.create("tictactoe")) is None
    assert dialect_named("arena").supports(R.create("meta")) is None


class FirstLegal:
    def __init__(self, game, rng, **options):
        self.options = options

    def choose(self, state, time_left_ms):
        assert time_left_ms == 1500.0
        return state.legal_moves()[0]


def test_sdk_plays_the_protocol_loop():
    game = R.create("ultimate")
    turn = format_turn(game, _turn(game, [40], (1000, 500)))
    stdin = io.StringIO(f"arena 1 ultimate 1 42 tiebreak=none\n{turn}\nover loss normal\nquit\n")
    stdout = io.StringIO()
    assert run(FirstLegal, stdin=stdin, stdout=stdout) == 0
    assert stdout.getvalue().splitlines() == ["ready", "36"]


def test_sdk_refuses_an_unknown_protocol_version():
    with pytest.raises(SDKError, match="protocol 1"):
        run(FirstLegal, stdin=io.StringIO("arena 2 ultimate 0 1\n"), stdout=io.StringIO())


def test_clock_bank_and_increment():
    clock = Clock(TimeControl(move_ms=100, bank_ms=50, increment_ms=10))
    assert clock.allowed_ms() == 150
    assert clock.charge(130)          # 30 over: bank 50 -> 20, +10
    assert clock.bank_ms == 30
    assert clock.charge(20) and clock.bank_ms == 40
    assert not clock.charge(141)


def test_bad_time_settings_are_refused():
    with pytest.raises(ValueError, match="move_ms"):
        TimeControl(move_ms=0)
    with pytest.raises(ValueError, match="strikes"):
        TimeoutPolicy(mode="strikes", strikes=0)
    with pytest.raises(ValueError, match="forfeit"):
        TimeoutPolicy(mode="lenient")


def test_protocol_doc_transcript_is_a_real_game():
    text = open("docs/protocol.md").read()
    game = R.create("ultimate")
    moves, turns = [], 0
    for line in text.splitlines():
        if line.startswith("> turn "):
            words = line[2:].split()
            if words[3] != "-":
                moves.append(int(words[3]))
            state = game.parse_state(" ".join(words[5:]))
            assert state == game.replay(moves)
            assert words[4] == ",".join(map(str, state.legal_moves()))
            turns += 1
        elif line.startswith("< ") and line[2:].isdigit():
            moves.append(int(line[2:]))
    assert turns >= 2


class _CountingGame:
    """The ultimate game, counting how often the SDK builds a state from text."""

    def __init__(self):
        self.game = R.create("ultimate")
        self.parsed = 0
        real_parse = self.game.parse_state

        def parse_state(text):
            self.parsed += 1
            return real_parse(text)

        self.game.parse_state = parse_state

    def __call__(self, name, rules):
        return self.game


class Looks:
    """Plays the first legal move; looks at the state's board only if told to."""

    seen: list = []

    def __init__(self, game, rng, look=False):
        self.look = look

    def choose(self, state, time_left_ms):
        from arena.games.bigboard import BigBoardState
        if self.look:
            assert isinstance(state, BigBoardState)
            Looks.seen.append((state.target, state.to_move, state.encode(), state.is_terminal()))
            assert state.play(state.legal_moves()[0]).to_move == 1 - state.to_move
        return state.legal_moves()[0]


def _turns(game, plies):
    state, lines = game.initial_state(), []
    for ply in range(plies):
        legal = state.legal_moves()
        lines.append(format_turn(game, TurnInfo(state=state, last_move=None, legal=legal, move_ms=100,
                                                bank_ms=0, ply=ply, seat=state.to_move)))
        state = state.play(legal[len(legal) // 2])
    return lines


def test_sdk_builds_no_state_for_a_bot_that_only_reads_legal_moves():
    games = _CountingGame()
    turns = _turns(games.game, 6)
    stdout = io.StringIO()
    run(Looks, stdin=io.StringIO("arena 1 ultimate 0 1\n" + "\n".join(turns) + "\nquit\n"),
        stdout=stdout, games=games)
    assert games.parsed == 0
    assert stdout.getvalue().split()[1:] == [t.split()[4].split(",")[0] for t in turns]


def test_sdk_state_read_on_first_look_is_the_games_own_state():
    games = _CountingGame()
    turns = _turns(games.game, 6)
    Looks.seen = []
    run(Looks, {"look": True}, stdin=io.StringIO("arena 1 ultimate 0 1\n" + "\n".join(turns) + "\nquit\n"),
        stdout=io.StringIO(), games=games)
    assert games.parsed == 6    # once a turn, however much the bot looks
    assert [seen[2] for seen in Looks.seen] == [t.split(" ", 5)[5] for t in turns]
    assert [seen[1] for seen in Looks.seen] == [0, 1, 0, 1, 0, 1]


def test_sdk_state_copies_and_pickles_as_the_games_own_state():
    import copy
    import pickle

    from arena.sdk import lazy_state
    game = R.create("ultimate")
    turn = _turns(game, 5)[-1].split(" ", 5)
    for fresh in (True, False):
        state = lazy_state(game, turn[4], turn[5])
        if not fresh:
            assert state.target >= -1    # filled before it is copied
        for twin in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
            assert type(twin) is type(game.initial_state())
            assert twin == game.parse_state(turn[5]) and twin.legal_moves() == state.legal_moves()


def test_sdk_reads_a_turn_at_once_for_a_state_class_whose_fields_have_class_level_defaults():
    # a plugin's frozen dataclass keeps `stones: int = 21` on the class: a state filled only
    # on first use would show the default, not the turn's position, to the bot
    from dataclasses import dataclass

    from arena.games import Game, GameInfo, State
    from arena.sdk import lazy_state

    @dataclass(frozen=True)
    class PileState(State):
        stones: int = 21
        to_move: int = 0

        def legal_moves(self):
            return tuple(range(1, min(3, self.stones) + 1))

        def play(self, move):
            return PileState(self.stones - move, 1 - self.to_move)

        def is_terminal(self):
            return self.stones == 0

        @property
        def winner(self):
            return None if self.stones else 1 - self.to_move

        def encode(self):
            return f"{self.stones} {self.to_move}"

        def render(self):
            return self.encode()

    class Pile(Game):
        info = GameInfo(name="pile", summary="a pile", rules="take 1 to 3", max_length=21, move_count=4)

        def initial_state(self):
            return PileState()

        def parse_state(self, text):
            stones, mover = text.split()
            return PileState(int(stones), int(mover))

    state = lazy_state(Pile(), "1,2,3", "7 1")
    assert (state.stones, state.to_move) == (7, 1)
    assert state == PileState(7, 1) and state.play(3) == PileState(4, 0)
