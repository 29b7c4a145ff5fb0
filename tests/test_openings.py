"""Openings as a user meets them: specs and books, the referee starting from them with real
sandboxed bots in every dialect, `arena match --openings`, `arena replay`, and making books."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from redrawn import Redrawn

from arena.games import default_registry
from arena.games.tictactoe import TicTacToe
from arena.openings import (
    BOOK_DIR,
    OpeningError,
    distinct_games,
    parse_spec,
    random_opening,
    read_book,
    repeat_warning,
    shipped_books,
)
from arena.plugins import loaded_plugins
from arena.protocol import TurnInfo
from arena.record import GameRecord, Termination
from arena.referee import MatchSettings, TimeControl, play_game
from arena.referee.botspec import command_spec
from arena.sandbox import Sandbox


def dialect_named(name):
    """A dialect of the loaded registry, as the referee finds it."""
    return loaded_plugins().dialects.require(name)


ROOT = Path(__file__).resolve().parent.parent
R = default_registry()
ORDERED = f"python3 {ROOT / 'tests' / 'fixture_bots' / 'ordered_bot.py'}"
SETTINGS = MatchSettings(time=TimeControl(move_ms=2000, startup_ms=10000))


def arena(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


# --- specs and books ------------------------------------------------------------------------

def test_none_is_the_empty_board():
    openings = parse_spec("none", R.create("ultimate"))
    assert openings.is_none and openings.opening(R.create("ultimate"), 3, 99) == ()


def test_random_openings_are_fixed_by_the_seed_and_never_end_the_game():
    ttt = R.create("tictactoe")
    assert random_opening(ttt, 4, 1) == random_opening(ttt, 4, 1)
    assert len({random_opening(ttt, 4, s) for s in range(50)}) > 30
    for seed in range(300):   # 7 random plies end many tic-tac-toe games: those are redrawn
        moves = random_opening(ttt, 7, seed)
        assert len(moves) == 7 and not ttt.replay(list(moves)).is_terminal()


@pytest.mark.parametrize(("spec", "needle"), [
    ("random:0", "N >= 1"), ("random:x", "N >= 1"), ("random:81", "at most 81 plies"),
    ("book:nope", "no shipped book 'nope'"), ("missing.txt", "no file"),
])
def test_bad_specs_say_what_is_allowed(spec, needle):
    with pytest.raises(OpeningError, match=needle):
        parse_spec(spec, R.create("ultimate"))


def test_a_book_takes_move_lists_and_state_lines_and_names_a_bad_line(tmp_path):
    ttt = R.create("tictactoe")
    book = tmp_path / "book.txt"
    book.write_text("# my openings\n4,0\n\nx...o.... x   # a state line\n8, 2 ,6\n")
    assert read_book(book, ttt) == ((4, 0), (0, 4), (8, 2, 6))
    for bad, needle in [("4,4", "not legal"), ("0,3,1,4,2", "ends the game"),
                        ("xx....... o", "neither a move list"), ("4,zz", "neither a move list")]:
        book.write_text(f"4,0\n{bad}\n")
        with pytest.raises(OpeningError, match=needle) as err:
            read_book(book, ttt)
        assert str(err.value).startswith(f"{book}:2: bad opening: ")
    book.write_text("# nothing\n")
    with pytest.raises(OpeningError, match="holds no opening"):
        read_book(book, ttt)


def test_a_book_wraps_and_its_random_order_is_fixed_by_the_seed(tmp_path):
    ttt = R.create("tictactoe")
    book = tmp_path / "b.txt"
    book.write_text("\n".join(f"{a},{b}" for a in range(3) for b in range(3, 6)) + "\n")
    seq = parse_spec(str(book), ttt)
    assert [seq.opening(ttt, k, 0) for k in (0, 1, 9, 10)] == [(0, 3), (0, 4), (0, 3), (0, 4)]
    shuffled = parse_spec(str(book), ttt, order="random", shuffle_seed=5)
    again = parse_spec(str(book), ttt, order="random", shuffle_seed=5)
    other = parse_spec(str(book), ttt, order="random", shuffle_seed=6)
    assert shuffled.book == again.book != seq.book and sorted(shuffled.book) == sorted(seq.book)
    assert other.book != shuffled.book
    assert shuffled.identity() != seq.identity()


def test_shipped_books_are_distinct_legal_openings():
    names = shipped_books()
    assert {"tictactoe-2ply", "ultimate-4ply", "meta-4ply", "nineboard-4ply"} <= set(names)
    for name in names:
        game = R.create(name.split("-")[0])
        book = parse_spec(f"book:{name}", game).book
        positions = {game.replay(list(moves)).encode() for moves in book}
        assert len(positions) == len(book)
        assert len(book) == (72 if game.name == "tictactoe" else 200), name
        assert all(len(moves) == int(name.split("-")[1][0]) for moves in book)


def test_the_repeat_warning_counts_distinct_move_lists():
    assert distinct_games([["1", "2"], ["1", "2"], ["3"]]) == 2
    assert "only 2 distinct games (by move list) in 3 games that ended normally" \
        in repeat_warning([["1", "2"], ["1", "2"], ["3"]])
    assert repeat_warning([["1"], ["2"]]) is None
    assert repeat_warning([]) is None


# --- the referee and the dialects -----------------------------------------------------------

@pytest.fixture(scope="module")
def sandbox():
    return Sandbox()


def test_the_record_keeps_the_opening_and_replays_from_the_start(sandbox):
    game = R.create("ultimate")
    opening = random_opening(game, 4, 11)
    bots = (command_spec("a", "arena", ORDERED, cwd=str(ROOT)),
            command_spec("b", "arena", ORDERED + " last", cwd=str(ROOT)))
    record = play_game(game, bots, 11, sandbox, SETTINGS, opening=opening)
    assert record.termination is Termination.NORMAL, record.reason
    assert record.opening == 4 and record.opening_moves() == [str(m) for m in opening]
    assert [m.seat for m in record.moves[:4]] == [0, 1, 0, 1]
    assert all(m.cpu_ms is None and m.wall_ms == 0 for m in record.moves[:4])
    assert all(m.wall_ms > 0 for m in record.moves[4:])   # played, and timed
    final = game.replay([int(m.move) for m in record.moves])
    assert final.is_terminal() and final.winner == record.winner
    back = GameRecord.from_json(record.to_json())
    assert back.opening == 4 and back == record
    old = json.loads(record.to_json())
    del old["opening"]
    old["version"] = 1
    assert GameRecord.from_dict(old).opening == 0   # a record from before openings


@pytest.mark.parametrize(("dialect", "extra"), [("theaigames", ""), ("riddles", "place_disc")])
def test_theaigames_bots_play_on_from_the_opening_they_are_shown(sandbox, dialect, extra):
    """They are told the whole field each turn: the opening's marks are in their first one."""
    game = R.create("ultimate")
    bot = command_spec(dialect, dialect,
                       f"python3 tests/fixture_bots/theaigames_bot.py 5 {extra}".strip(),
                       cwd=str(ROOT))
    other = command_spec("first", "arena", ORDERED, cwd=str(ROOT))
    for seed in range(2):
        opening = random_opening(game, 4, seed)
        state = game.replay(list(opening))
        turn = TurnInfo(state=state, last_move=opening[-1], legal=state.legal_moves(), move_ms=1000,
                        bank_ms=0, ply=4, seat=0)
        lines = dialect_named(dialect).turn_lines(game, turn)
        field = next(line for line in lines if "field" in line).split()[-1].split(",")
        empty = "." if dialect == "riddles" else "0"
        assert sum(v != empty for v in field) == 4
        for seats in ((bot, other), (other, bot)):
            record = play_game(game, seats, seed, sandbox, SETTINGS, opening=opening)
            assert record.termination is Termination.NORMAL, record.reason
            assert record.opening == 4 and len(record.moves) > 10


def test_a_codingame_bot_is_refused_an_opening(sandbox, tmp_path):
    game = R.create("ultimate")
    bot = command_spec("cg", "codingame", "python3 tests/fixture_bots/codingame_bot.py 5",
                       cwd=str(ROOT))
    other = command_spec("first", "arena", ORDERED, cwd=str(ROOT))
    record = play_game(game, (other, bot), 3, sandbox, SETTINGS, opening=(40, 36))
    assert record.termination is Termination.STARTUP_FAILURE and record.faulted == 1
    assert "the codingame dialect cannot start from an opening" in record.reason
    plain = play_game(game, (other, bot), 3, sandbox, SETTINGS)
    assert plain.termination is Termination.NORMAL, plain.reason
    out = arena("match", "random", "codingame:python3 tests/fixture_bots/codingame_bot.py 1",
                "--game", "ultimate", "--openings", "random:2")
    assert out.returncode == 2 and "cannot start from an opening" in out.stderr
    assert out.stderr.count("\n") == 1


# --- arena match and arena replay -----------------------------------------------------------

def test_done_when_two_deterministic_bots_play_varied_games(tmp_path):
    """The issue's test: 20 games, >= 18 distinct, both games of every pair share 4 plies."""
    save = tmp_path / "games.jsonl"
    out = arena("match", f"arena:{ORDERED}", f"arena:{ORDERED} last", "--game", "ultimate",
                "--games", "20", "--seed", "4", "--openings", "random:4", "--save", str(save))
    assert out.returncode == 0, out.stderr
    records = [GameRecord.from_json(line) for line in save.read_text().splitlines()]
    assert len(records) == 20
    moves = [[m.move for m in r.moves] for r in records]
    assert distinct_games(moves) >= 18
    for first, second in zip(records[::2], records[1::2]):
        assert first.seed == second.seed and first.opening == second.opening == 4
        assert first.opening_moves() == second.opening_moves()
        assert [b.name for b in first.bots] == [b.name for b in second.bots][::-1]
    assert len({tuple(r.opening_moves()) for r in records}) == 10
    assert "WARNING" not in out.stderr
    again = arena("match", f"arena:{ORDERED}", f"arena:{ORDERED} last", "--game", "ultimate",
                  "--games", "6", "--seed", "4", "--openings", "random:4", "--json")
    assert [[m["move"] for m in json.loads(line)["moves"]] for line in again.stdout.splitlines()[:-1]] \
        == moves[:6]   # a re-run draws the same openings, and so plays the same games

    shown = arena("replay", str(save), "--game", "2")
    assert shown.returncode == 0, shown.stderr
    plies = [line for line in shown.stdout.splitlines() if line.startswith("ply ")]
    assert all(line.endswith("(opening)") for line in plies[:4])
    assert not any("(opening)" in line for line in plies[4:]) and "ms" in plies[4]
    assert f"opening: {','.join(records[1].opening_moves())} (4 plies" in shown.stdout


def test_match_warns_when_games_repeat_and_reads_books():
    out = arena("match", f"arena:{ORDERED}", f"arena:{ORDERED} last", "--game", "tictactoe",
                "--games", "4", "--seed", "1")
    assert out.returncode == 0, out.stderr
    assert "WARNING: only 2 distinct games (by move list) in 4 games that ended normally" in out.stderr
    out = arena("match", f"arena:{ORDERED}", f"arena:{ORDERED} last", "--game", "tictactoe",
                "--games", "6", "--seed", "1", "--openings", "book:tictactoe-2ply", "--json")
    assert out.returncode == 0, out.stderr
    book = read_book(BOOK_DIR / "tictactoe-2ply.txt", R.create("tictactoe"))
    starts = [[int(m["move"]) for m in json.loads(line)["moves"][:2]]
              for line in out.stdout.splitlines()[:-1]]   # the last line is the summary
    assert starts == [list(book[k // 2]) for k in range(6)]
    bad = arena("match", "random", "random", "--game", "tictactoe", "--openings", "random:zz")
    assert bad.returncode == 2 and "--openings: openings 'random:zz'" in bad.stderr


def test_match_games_a_fault_ended_are_no_repeats():
    """A bot answering garbage at its second move ends every game the same way: those are
    the bot's faults repeated, which no opening cures (before: 'only 2 distinct games (by
    move list) in 4 games ... vary the start with openings')."""
    garbage = f"python3 {ROOT / 'tests' / 'fixture_bots' / 'hostile.py'} garbage"
    out = arena("match", f"arena:{ORDERED}", f"arena:{garbage}", "--game", "tictactoe",
                "--games", "4", "--seed", "1")
    assert out.returncode == 0, out.stderr
    assert "malformed" in out.stdout and "distinct games" not in out.stderr, out.stderr


# --- making books ---------------------------------------------------------------------------

def test_arena_openings_makes_the_same_balanced_book_from_the_same_seed(tmp_path):
    args = ["openings", "nineboard", "--plies", "2", "--count", "6", "--simulations", "300",
            "--band", "0.15", "--seed", "3"]
    first = arena(*args, "--out", str(tmp_path / "a.txt"))
    assert first.returncode == 0, first.stderr
    assert arena(*args, "--out", str(tmp_path / "b.txt")).returncode == 0
    text = (tmp_path / "a.txt").read_text()
    assert text == (tmp_path / "b.txt").read_text()
    assert "# made by: arena openings nineboard --plies 2 --count 6 --seed 3" in text
    game = R.create("nineboard")
    book = read_book(tmp_path / "a.txt", game)
    assert len(book) == 6 and len({game.replay(list(m)).encode() for m in book}) == 6
    values = [float(line.split("#")[1]) for line in text.splitlines() if not line.startswith("#")]
    assert all(abs(v - 0.5) <= 0.15 for v in values)
    other = arena(*args[:-1], "4", "--out", str(tmp_path / "c.txt"))
    assert other.returncode == 0 and (tmp_path / "c.txt").read_text() != text
    hopeless = arena("openings", "tictactoe", "--plies", "1", "--count", "20", "--band", "0.2",
                     "--out", str(tmp_path / "d.txt"))
    assert hopeless.returncode == 2 and "only" in hopeless.stderr and "of 20" in hopeless.stderr
    listed = arena("openings", "--list")
    assert "book:ultimate-4ply" in listed.stdout.split()


def test_a_9x9_state_line_becomes_the_moves_that_reach_it():
    from arena.openings import parse_opening
    for name in ("ultimate", "meta", "nineboard"):
        game = R.create(name)
        for seed in range(5):
            state = game.replay(list(random_opening(game, 6, seed)))
            moves = parse_opening(game, state.encode())
            assert len(moves) == 6 and game.replay(list(moves)) == state


class _Mirrored(Redrawn):
    """A tic-tac-toe state whose grid is drawn mirrored (or not at all): its moves do not
    name its squares, as a plugin game's need not."""

    def __init__(self, inner, drawn=True):
        super().__init__(inner)
        self.drawn = drawn

    def wrap(self, inner):
        return _Mirrored(inner, self.drawn)

    def redraw(self, marks):
        return "".join(marks[row:row + 3][::-1] for row in (0, 3, 6)) if self.drawn else None


class _MirroredGame(TicTacToe):
    info = TicTacToe.info._replace(name="mirrored")
    drawn = True

    def initial_state(self):
        return _Mirrored(super().initial_state(), self.drawn)

    def parse_state(self, text):
        return _Mirrored(super().parse_state(text), self.drawn)


class _GridlessGame(_MirroredGame):
    info = TicTacToe.info._replace(name="gridless")
    drawn = False


def test_a_state_line_works_for_any_game_with_a_grid_and_is_refused_clearly_without(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("x.o.x.... o\n")        # x on 0 and 4, o on 2; x to move
    game = _MirroredGame()
    (moves,) = read_book(book, game)
    assert sorted(moves) == [0, 2, 4] and game.replay(list(moves)).encode() == "x.o.x.... o"
    with pytest.raises(OpeningError, match=r"book\.txt:1: bad opening: gridless: a state line needs a "
                                           r"game whose states have a grid; give the opening as a move list"):
        read_book(book, _GridlessGame())
    book.write_text("0,2,4\n")               # a move list needs no grid
    assert read_book(book, _GridlessGame()) == ((0, 2, 4),)


# --- games whose seats move at once -----------------------------------------------------------

def test_a_game_whose_seats_move_at_once_has_no_openings_and_says_so_in_one_line(tmp_path):
    """tron's openings were refused by `arena openings` only as a game 'arena play and opening
    books do not play yet', and `arena match --openings random:2 --game tron` stopped with
    'move 2: in tron the cycles move at once; play one move per seat ... with play_joint'.
    Every way in now names the game and why, and a book no less than random plies."""
    tron = R.create("tron")
    why = "game 'tron': its seats move at once, and openings (random:N, books) are plies of a game of turns"
    for spec in ("random:2", "book:ultimate-4ply"):
        with pytest.raises(OpeningError, match=re.escape(f"openings '{spec}': {why}")):
            parse_spec(spec, tron)
    assert parse_spec("none", tron).is_none
    match = arena("match", "tron-random", "tron-territory", "--game", "tron", "--openings", "random:2")
    assert match.returncode == 2 and match.stdout == ""
    assert match.stderr.strip() == f"arena match: error: --openings: openings 'random:2': {why}; play it " \
        "from its start (openings: none), mirrored for every seat, its games varied by the seed each bot is handed"
    config = tmp_path / "tron.yaml"
    config.write_text("name: t\ngame: tron\nbots:\n  - {name: a, bot: tron-random}\n"
                      "  - {name: b, bot: tron-territory}\nopenings: random:3\n")
    run = arena("run", str(config))
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert f"{config}:" in run.stderr and "openings 'random:3'" in run.stderr and why in run.stderr
    book = arena("openings", "tron", "--plies", "2", "--count", "2", "--out", str(tmp_path / "b.txt"))
    assert book.returncode == 2 and why in book.stderr and not (tmp_path / "b.txt").exists()
    # repeated games of such a game are told to vary by the bots' seeds, not by openings
    warning = repeat_warning([["u", "d"], ["u", "d"]], at_once=True)
    assert warning is not None and "the seed each is handed" in warning and "random:N" not in warning
