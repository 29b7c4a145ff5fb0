"""What a bot sees matches its platform and docs/protocol.md: real sandboxed bots of
each dialect, with the referee's answer to each thing they may do."""

import dataclasses
import re
import select
import sys
from pathlib import Path

import pytest

from arena.games import default_registry
from arena.record import Termination
from arena.referee import BotSpec, MatchSettings, TimeControl, play_game
from arena.referee.botspec import ARENA_PACKAGE_DIR, command_spec
from arena.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "fixture_bots"
HOSTILE = ROOT / "tests" / "hostile"
SDK_BOT = BotSpec(name="sdk", argv=(sys.executable, str(ROOT / "examples" / "first_move_bot.py")),
                  readable=(str(ROOT / "examples"), ARENA_PACKAGE_DIR))
ULTIMATE = default_registry().create("ultimate")
SETTINGS = MatchSettings(time=TimeControl(move_ms=2000, startup_ms=5000, bank_ms=3000))


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(limits=Limits(memory_mb=256, cpu_seconds=30))


@pytest.mark.parametrize("flavour", ["theaigames", "riddles"])
def test_words_after_the_move_are_ignored_as_the_original_engines_did(sandbox, flavour):
    bot = command_spec(flavour, flavour, f"python3 {BOTS / 'theaigames_bot.py'} 5 place_move gl-hf")
    record = play_game(ULTIMATE, (bot, SDK_BOT), 3, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL, record.reason
    assert len([m for m in record.moves if m.seat == 0]) > 5


@pytest.mark.parametrize("seat", [0, 1])
def test_the_first_action_move_tells_the_timebank_the_bot_was_given(sandbox, seat):
    bot = command_spec("theaigames", "theaigames", f"python3 {BOTS / 'theaigames_bot.py'} 5")
    record = play_game(ULTIMATE, (bot, SDK_BOT) if seat == 0 else (SDK_BOT, bot), 3, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL, record.reason
    said = record.stderr_tails[seat]
    timebank = int(re.search(r"setting timebank = (\d+)", said)[1])
    asked = [int(n) for n in re.findall(r"asked (\d+)", said)]
    assert timebank == 2000 + 3000
    assert asked[0] == timebank, said


@pytest.mark.parametrize("dialect", ["codingame", "theaigames", "riddles"])
def test_a_bot_dying_before_its_first_move_without_a_handshake_failed_to_start(sandbox, dialect):
    bot = command_spec("dies", dialect, f"python3 {HOSTILE / 'exit_with.py'} code:3")
    for seat in (0, 1):
        record = play_game(ULTIMATE, (bot, SDK_BOT) if seat == 0 else (SDK_BOT, bot), 3, sandbox, SETTINGS)
        assert record.termination is Termination.STARTUP_FAILURE, record.reason
        assert record.faulted == seat and "exit code 3" in record.reason


def test_a_codingame_bot_dying_after_its_first_move_crashed(sandbox):
    script = "import sys; input(); n = int(input()); first = input(); [input() for _ in range(n - 1)]; " \
             "print(first, flush=True); sys.exit(3)"
    bot = BotSpec(name="dies-late", argv=(sys.executable, "-c", script), dialect="codingame")
    record = play_game(ULTIMATE, (bot, SDK_BOT), 3, sandbox, SETTINGS)
    assert record.termination is Termination.CRASH, record.reason
    # no "within N ms" in an exit, where it read as a timeout
    assert record.reason.endswith("exited (exit code 3) before replying to move 3"), record.reason


def test_a_reply_with_an_extra_line_in_the_same_write_is_played_then_malformed(sandbox):
    bot = BotSpec(name="chatty", argv=(sys.executable, str(BOTS / "hostile.py"), "two_lines"),
                  readable=(str(BOTS),))
    record = play_game(ULTIMATE, (bot, SDK_BOT), 3, sandbox, SETTINGS)
    assert record.termination is Termination.MALFORMED and record.faulted == 0, record.reason
    assert "when nothing was asked" in record.reason
    # its second move (the first line of that write) was recorded and played
    assert [m.seat for m in record.moves] == [0, 1, 0], record.moves


class _KeepsProcesses:
    """The sandbox, keeping the processes it starts so that a test can watch their output."""

    def __init__(self, sandbox):
        self.sandbox = sandbox
        self.procs = []

    def start(self, *args, **kwargs):
        proc = self.sandbox.start(*args, **kwargs)
        self.procs.append(proc)
        return proc


def test_a_line_printed_while_a_person_thinks_is_unasked_not_the_next_move(sandbox):
    # the bot prints a line once its move is read; the person at seat 0 answers only when
    # that line is waiting in the pipe: it must not be taken for the bot's next move
    keeping = _KeepsProcesses(sandbox)
    bot = BotSpec(name="chatty", argv=(sys.executable, str(BOTS / "hostile.py"), "chat_after"),
                  readable=(str(BOTS),))
    person_moves = []

    def person(state, last_move):
        if len(person_moves) == 2:
            ready, _, _ = select.select([keeping.procs[0].stdout_fd], [], [], 30)
            assert ready, "the bot never printed its unasked line"
        person_moves.append(state.legal_moves()[0])
        return person_moves[-1]

    human = BotSpec(name="person", argv=("unused",))
    record = play_game(ULTIMATE, (human, bot), 3, keeping, SETTINGS, local={0: person})
    assert record.termination is Termination.MALFORMED and record.faulted == 1, record.reason
    assert "printed 'unasked hello' when nothing was asked" in record.reason
    assert [m.seat for m in record.moves] == [0, 1, 0, 1, 0], record.moves


#: per dialect, a reply whose words are not a move's and one that names a cell off the grid
NOT_MOVES = [("arena", "hello referee", "81"), ("codingame", "4 four", "1414 4"),
             ("theaigames", "place_move -2 -1352", "place_move 4 1414"), ("riddles", "place_disc x", "place_disc 9 0")]


@pytest.mark.parametrize(("dialect", "bad_words", "off_grid"), NOT_MOVES, ids=[d for d, _, _ in NOT_MOVES])
def test_every_reply_that_is_not_a_move_is_said_one_way_naming_what_was_expected(sandbox, dialect, bad_words,
                                                                                 off_grid):
    # a reply of the wrong shape and one off the grid are one fault (malformed), and
    # read as one sentence: what came, and what the dialect expects (they were 'expected
    # 'place_move X Y', got ...' and 'row 1414 column 4 is off the 9x9 grid')
    expected = []
    for reply in (bad_words, off_grid):
        bot = BotSpec(name="fixed", argv=(sys.executable, str(BOTS / "fixed_reply_bot.py"), dialect, reply),
                      dialect=dialect, readable=(str(BOTS),))
        record = play_game(ULTIMATE, (bot, SDK_BOT), 3, sandbox, SETTINGS)
        assert record.termination is Termination.MALFORMED and record.faulted == 0, record.reason
        shape = f"fixed (seat 0): move 1: {reply!r} is not a move: expected "
        assert record.reason.startswith(shape), record.reason
        expected.append(record.reason.removeprefix(shape))
    assert expected[0] == expected[1], expected


def test_a_bot_the_host_cannot_start_loses_no_game(sandbox):
    # a launcher that will not run is the machine's failure: play_game raises it, as does
    # the preflight, and a league stops (RunError) rather than charge a bot for it
    from arena.league.preflight import preflight
    from arena.sandbox import HostError
    broken = Sandbox(limits=Limits(memory_mb=256, cpu_seconds=30))
    broken._tools = dataclasses.replace(broken._tools, prlimit="/nonexistent/prlimit")
    with pytest.raises(HostError):
        play_game(ULTIMATE, (SDK_BOT, SDK_BOT), 3, broken, SETTINGS)
    with pytest.raises(HostError):
        preflight(ULTIMATE, [SDK_BOT], broken, SETTINGS)
    missing = BotSpec(name="missing", argv=(str(BOTS / "no_such_bot"),))
    record = play_game(ULTIMATE, (missing, SDK_BOT), 3, sandbox, SETTINGS)   # the bot's own
    assert record.termination is Termination.STARTUP_FAILURE and record.faulted == 0
