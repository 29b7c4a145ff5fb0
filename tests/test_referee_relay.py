"""Games played by a referee process (docs/referees.md), relayed between real sandboxed
processes: the shipped Python referee with real bots, the record as a transcript, input
written when a seat is asked, seeds told only to a referee that takes them, each hostile
referee a void game charged to no bot with nothing left behind, and bots faulting under a
referee as they would in a built-in game."""

import sys
import uuid
from pathlib import Path

import pytest
from test_referee_hostile import processes_with

from arena.games import default_registry
from arena.games.external import ExternalGame, RefereeSpec
from arena.protocol.brutaltester import referee_seed
from arena.record import GameRecord, Termination
from arena.recordcheck import transcript_problem
from arena.referee import BotSpec, MatchSettings, TimeControl, play_game
from arena.referee.relay import TRANSCRIPT_CHARS
from arena.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parent.parent
TTT = ROOT / "examples" / "referee-tictactoe"
FIXTURES = ROOT / "tests" / "fixture_referees"
SETTINGS = MatchSettings(time=TimeControl(move_ms=2000, startup_ms=5000))
#: the referee's clocks: ample (but where a test runs one out), as no load may fail a referee
HOSTILE_LIMITS = {"startup_ms": 10_000, "step_ms": 10_000, "game_ms": 60_000}


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(limits=Limits(memory_mb=256, cpu_seconds=20, processes=64))


def referee(argv, directory, players=2, **limits):
    return ExternalGame(RefereeSpec(name="test-referee", command=" ".join(argv), argv=tuple(argv),
                                    dir=str(directory), players=players, **limits))


def hostile(behaviour, arg="", players=2, **limits):
    return referee(("python3", "hostile_referee.py", behaviour, arg), FIXTURES, players,
                   **{**HOSTILE_LIMITS, **limits})


def echo(*how):
    return BotSpec(name="echo-" + "-".join(how) if how else "echo",
                   argv=(sys.executable, str(FIXTURES / "echo_bot.py"), *how), readable=(str(FIXTURES),))


def ttt_bot(folder, *args):
    return BotSpec(name=f"{folder}{''.join(args)}", argv=(sys.executable, str(TTT / folder / "bot.py"), *args),
                   readable=(str(TTT / folder),))


def test_the_python_referee_plays_real_bots_and_the_record_is_its_transcript(sandbox):
    game = referee(("python3", "referee.py"), TTT / "referee")
    record = play_game(game, [ttt_bot("first-free"), ttt_bot("random", "3")], 5, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL, record.reason
    assert sorted(record.ranking) in ([0, 0], [0, 1])
    assert record.referee["name"] == "test-referee" and record.referee["seed"] is None
    first = record.moves[0]
    assert first.seat == 0 and first.input[:2] == ["-1 -1", "9"] and len(first.input) == 11
    assert first.move == "0 0"            # the first free cell, as the referee listed them
    assert record.moves[1].input[0] == "0 0"   # seat 1 is told seat 0's move
    again = GameRecord.from_json(record.to_json())
    assert again.to_dict() == record.to_dict() and transcript_problem(again) is None
    assert record.version == 4


def test_the_python_referee_tells_its_bots_what_the_built_in_games_codingame_dialect_does(sandbox):
    # the same CodinGame bots (random, seeded) play the same moves through the referee
    # process and through the built-in tic-tac-toe: their input was the same, line for line
    bots = [BotSpec(name=f"cg{seed}", argv=(sys.executable, str(ROOT / "tests" / "fixture_bots" / "codingame_bot.py"),
                                            str(seed)), dialect="codingame",
                    readable=(str(ROOT / "tests" / "fixture_bots"),)) for seed in (1, 2)]
    relayed = play_game(referee(("python3", "referee.py"), TTT / "referee"), bots, 3, sandbox, SETTINGS)
    built_in = play_game(default_registry().create("tictactoe"), bots, 3, sandbox, SETTINGS)
    cells = [f"{int(move.move) // 3} {int(move.move) % 3}" for move in built_in.moves]
    assert [move.move.split()[:2] for move in relayed.moves] == [cell.split() for cell in cells]
    assert relayed.ranking == built_in.rank_of()


def test_a_seats_input_is_written_when_it_is_asked_so_its_clock_runs_on_its_own_time(sandbox):
    # the referee writes ###Input 1 before asking seat 0, who thinks half a second; seat 1's
    # bot answers the moment it reads a line: had its input been written then, it would have
    # answered unasked while seat 0 thought (a fault), and been timed from then
    record = play_game(hostile("error"), [echo("slow", "1"), echo()], 1, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL, record.reason
    assert [m.seat for m in record.moves] == [0, 1, 0]
    assert record.moves[2].input == ["2"] and record.moves[2].move == "ok 2\nok 2"   # two lines owed
    # its ###Error lines, on stdout and stderr, kept where they came: after the second answer
    assert sorted((e["move"], e["seat"], e["message"]) for e in record.referee["errors"]) == \
        [(2, 1, "stderr complaint"), (2, 1, "stdout complaint")]


@pytest.mark.parametrize("seeded", [True, False])
def test_a_seed_is_told_only_to_a_referee_that_takes_one(sandbox, seeded):
    record = play_game(hostile("seed", seed=seeded), [echo(), echo()], 2**40 + 3, sandbox, SETTINGS)
    told = referee_seed(2**40 + 3)
    assert record.moves[-1].input == ([f"seed {told}"] if seeded else ["no seed"])
    assert record.referee["seed"] == (told if seeded else None)
    assert record.seed == 2**40 + 3


HOSTILE = [
    # behaviour, its argument, words of the reason
    ("crash_start", "", "exited (exit code 1) before ###End"),
    ("crash_mid", "", "exited (exit code 1) before ###End"),
    ("hang", "MARK", "wrote no command for 500 ms (step_ms)"),
    ("long_line", "", "a line longer than 1048576 bytes"),
    ("seat", "2", "seat 2 is none of the game's 2 seats"),
    ("no_end", "", "exited (exit code 0) before ###End"),
    ("bad_end", "", "it does not place seat 1"),
    ("garbage", "", "'the referee says hello' where a command"),
    ("read", "STORE", "exited (exit code 1) before ###End"),
]


@pytest.mark.parametrize(("behaviour", "arg", "words"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_hostile_referee_makes_a_void_game_charged_to_no_bot_and_leaves_nothing(
        sandbox, tmp_path, behaviour, arg, words):
    marker = f"arena-referee-{uuid.uuid4().hex}"
    store = tmp_path / "league.sqlite"
    store.write_bytes(b"SQLite format 3\0 every result")
    arg = {"MARK": marker, "STORE": str(store)}.get(arg, arg)
    limits = {"step_ms": 500} if behaviour == "hang" else {}    # a hang is found in half a second
    record = play_game(hostile(behaviour, arg, **limits), [echo(), echo()], 1, sandbox, SETTINGS)
    assert record.termination is Termination.REFEREE_FAULT
    assert record.reason == f"referee test-referee: {words}" or words in record.reason, record.reason
    assert record.faulted is None and record.winner is None and record.ranking is None
    assert record.outcome.result(0) is None and record.outcome.result(1) is None   # counted for no one
    assert transcript_problem(record) is None
    assert processes_with(marker) == []
    if behaviour == "read" and sandbox.mode == "bwrap":   # it shows the referee its own directory only
        assert f"cannot read {store}: No such file or directory" in record.referee["stderr"]
    if behaviour.startswith("crash"):
        assert "Error" in record.referee["stderr"]     # its trace, for the terminal's line


def test_a_referee_past_its_game_ms_is_void(sandbox):
    record = play_game(hostile("late", "30", step_ms=60_000, game_ms=800), [echo(), echo()], 1, sandbox,
                       SETTINGS)
    assert record.termination is Termination.REFEREE_FAULT
    assert record.reason == "referee test-referee: the game went past its game_ms (800 ms)"


BOT_FAULTS = [
    # how the bot in seat 0 misbehaves, at its answer number, the termination, words
    ("hang", "1", Termination.TIMEOUT, "no reply to turn 1 within 700 ms"),
    ("crash", "1", Termination.STARTUP_FAILURE, "before replying to turn 1"),
    ("crash", "2", Termination.CRASH, "exited (exit code 1) before replying to turn 2"),
    ("extra", "1", Termination.MALFORMED, "printed 'one line too many' when nothing was asked"),
    ("bytes", "1", Termination.MALFORMED, "turn 1: its answer is not UTF-8"),
]


@pytest.mark.parametrize(("how", "when", "termination", "words"), BOT_FAULTS,
                         ids=[f"{case[0]}-{case[1]}" for case in BOT_FAULTS])
def test_a_bot_faulting_under_a_referee_loses_as_in_a_built_in_game(sandbox, how, when, termination, words):
    # CodinGame's shape of clock: the first answer (its start-up in it) 700 ms, 200 after
    settings = MatchSettings(time=TimeControl(move_ms=200, first_move_ms=700))
    record = play_game(hostile("error"), [echo(how, when), echo()], 1, sandbox, settings)
    assert record.termination is termination, record.reason
    assert record.faulted == 0 and record.winner == 1 and record.ranking == [1, 0]
    assert words in record.reason, record.reason
    assert transcript_problem(record) is None


def test_a_fault_in_a_game_of_three_ranks_the_faulted_seat_last_and_the_others_tie(sandbox):
    record = play_game(hostile("error", players=3), [echo(), echo("crash", "1"), echo()], 1, sandbox, SETTINGS)
    assert record.faulted == 1 and record.ranking == [0, 2, 0] and record.winner is None
    assert record.scores == (0.75, 0.0, 0.75)


def test_a_long_transcript_is_capped_in_the_record(sandbox):
    record = play_game(hostile("flood", "14"), [echo(), echo()], 1, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL, record.reason
    cut = record.referee["cut"]
    assert 2 < cut < len(record.moves)
    assert all(move.input is None for move in record.moves[cut:])
    assert len(record.to_json()) < TRANSCRIPT_CHARS + 50_000
