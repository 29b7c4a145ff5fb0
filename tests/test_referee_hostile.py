"""Hostile bots, as real sandboxed processes: each misbehaviour ends its game with the
right termination and reason, the other bot wins, no process is left behind, and
the next game runs normally."""

import dataclasses
import os
import socket
import sys
import uuid
from pathlib import Path

import pytest

from arena.games import default_registry
from arena.record import Termination
from arena.referee import BotSpec, MatchSettings, OutputLimits, TimeControl, TimeoutPolicy, play_game
from arena.referee.botspec import ARENA_PACKAGE_DIR
from arena.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "fixture_bots"
GOOD = BotSpec(name="good", argv=(sys.executable, str(ROOT / "examples" / "first_move_bot.py")),
               readable=(str(ROOT / "examples"), ARENA_PACKAGE_DIR))
SETTINGS = MatchSettings(time=TimeControl(move_ms=400, startup_ms=3000, overhead_ms=50),
                         output=OutputLimits(max_stderr_bytes=1 << 20))
GENEROUS = dataclasses.replace(SETTINGS, time=TimeControl(move_ms=10000, startup_ms=10000))
ULTIMATE = default_registry().create("ultimate")
TTT = default_registry().create("tictactoe")


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(limits=Limits(memory_mb=256, cpu_seconds=20, processes=64))


def hostile(behaviour, arg="", marker=""):
    return BotSpec(name=f"hostile-{behaviour}",
                   argv=(sys.executable, str(BOTS / "hostile.py"), behaviour, arg or "-", marker),
                   readable=(str(BOTS),))


def processes_with(marker):
    """PIDs of live processes whose command line or environment holds marker."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read()
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read()
            with open(f"/proc/{entry}/stat") as fh:
                zombie = fh.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if not zombie and (marker.encode() in cmdline or marker.encode() in environ):
            found.append(int(entry))
    return found


CASES = [
    # behaviour, arg, termination, words in the reason
    ("hang_start", "", Termination.STARTUP_FAILURE, "handshake"),
    ("crash_start", "", Termination.STARTUP_FAILURE, "exit code 3"),
    ("hang_mid", "", Termination.TIMEOUT, "no reply to move 3"),
    ("late", "650", Termination.TIMEOUT, "within 400 ms"),
    ("crash_mid", "", Termination.CRASH, "exit code 3"),
    ("signal", "", Termination.CRASH, "SIGSEGV"),
    ("garbage", "", Termination.MALFORMED, "hello referee"),
    ("illegal", "", Termination.ILLEGAL_MOVE, "not legal"),
    ("huge_line", "", Termination.OUTPUT_CAP, "longer than 65536 bytes"),
    ("no_newline", "", Termination.TIMEOUT, "no newline"),
    ("flood_stderr", "", Termination.OUTPUT_CAP, "stderr"),
    ("memory", "", Termination.RESOURCE_LIMIT, "memory"),
    ("fork", "", Termination.RESOURCE_LIMIT, "process limit"),
    ("escape", "", Termination.CRASH, "exit code 4"),
    # closing stdout while alive is a crash in every sandbox mode, as protocol.md says
    # (the namespace's init keeps no copy of the bot's stdout)
    ("close_stdout", "", Termination.CRASH, "closed its standard output"),
    ("spin", "", Termination.TIMEOUT, "no reply to move 3"),
]


@pytest.mark.parametrize(("behaviour", "arg", "termination", "words"), CASES,
                         ids=[c[0] for c in CASES])
def test_hostile_bot_loses_with_reason_and_leaves_nothing(sandbox, behaviour, arg, termination, words):
    marker = f"arena-test-{uuid.uuid4().hex}"
    # a bot that ends its game by itself gets ample time, so a loaded machine cannot turn
    # its fault into a timeout; the time-related cases keep the short limit (a bot hanging
    # before its handshake waits out the start-up limit: 3 s, not 10)
    timed = termination is Termination.TIMEOUT or behaviour in ("close_stdout", "hang_start")
    settings = SETTINGS if timed else GENEROUS
    record = play_game(ULTIMATE, (hostile(behaviour, arg, marker), GOOD), 7, sandbox, settings)
    expected = termination if isinstance(termination, tuple) else (termination,)
    assert record.termination in expected, record.reason
    assert record.faulted == 0 and record.winner == 1 and record.scores == (0.0, 1.0)
    assert words in record.reason, record.reason
    assert record.reason.startswith("hostile-")
    assert processes_with(marker) == []
    # the next game runs normally in the same sandbox
    after = play_game(TTT, (GOOD, GOOD), 1, sandbox, SETTINGS)
    assert after.termination is Termination.NORMAL, after.reason


def test_network_is_closed(sandbox):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    marker = f"arena-test-{uuid.uuid4().hex}"
    port = str(listener.getsockname()[1])
    record = play_game(ULTIMATE, (hostile("network", port, marker), GOOD), 7, sandbox, GENEROUS)
    # the game is over and the bot gone: a connection it made would wait in the listener's
    # backlog (the kernel completes the handshake before accept), so one look, not a wait
    listener.setblocking(False)
    try:
        conn, _ = listener.accept()
    except BlockingIOError:
        got = None
    else:
        conn.close()
        got = "connected"
    listener.close()
    assert got is None, "the bot reached a listener on the host"
    assert record.termination is Termination.CRASH and record.faulted == 0
    assert processes_with(marker) == []


def test_store_file_is_out_of_sight(sandbox, tmp_path):
    store = tmp_path / "league.sqlite"
    store.write_bytes(b"SQLite format 3\x00secret results")
    record = play_game(ULTIMATE, (hostile("read_store", str(store)), GOOD), 7, sandbox, GENEROUS)
    assert record.termination is Termination.CRASH and record.faulted == 0
    assert "read the store" not in record.stderr_tails[0]
    assert "No such file" in record.stderr_tails[0] or "Permission" in record.stderr_tails[0]


def test_an_answer_just_inside_the_limit_is_not_a_timeout(sandbox):
    record = play_game(TTT, (hostile("late", "150"), GOOD), 7, sandbox, SETTINGS)
    # the 'late' bot answers its move at ply 2 after 150 ms of a 400 ms limit, then every
    # move the same way: plies 2, 4 and 6, where it wins (ultimate's ~25 such moves took 3.8 s)
    assert record.termination is Termination.NORMAL, record.reason
    assert [m.seat for m in record.moves][2::2] == [0, 0, 0] and record.winner == 0


def test_strikes_policy_substitutes_random_moves_then_forfeits(sandbox):
    settings = MatchSettings(time=TimeControl(move_ms=200, startup_ms=3000),
                             timeout_policy=TimeoutPolicy(mode="strikes", strikes=2))
    # 3 s against 200 ms: no load grace (the referee's own run-queue waits) can make it in time
    record = play_game(ULTIMATE, (hostile("late", "3000"), GOOD), 7, sandbox, settings)
    substituted = [m for m in record.moves if m.substituted]
    assert [m.seat for m in substituted] == [0, 0]
    assert "strike 1 of 2" in substituted[0].substituted
    assert record.termination is Termination.TIMEOUT and record.faulted == 0
    state = ULTIMATE.initial_state()
    for m in record.moves:  # every recorded move, substituted or not, was legal in turn
        state = state.play(int(m.move))


def test_a_late_reply_given_up_on_is_dropped_not_read_as_the_next_moves(sandbox, tmp_path):
    # tests/fixture_bots/late_once_bot.py: x waits at a gate on its move 2 (ply 2) that o opens
    # when asked its move (ply 3), after x's strike; x's late answer is in the referee's pipe
    # before o answers, so it is read before x is asked again (ply 4)
    gates = []
    for name in ("go", "sent"):
        os.mkfifo(tmp_path / name, 0o666)
        (tmp_path / name).chmod(0o666)     # a bot runs as a uid of its own
        gates.append(str(tmp_path / name))
    tmp_path.chmod(0o755)
    bots = tuple(BotSpec(name=role, argv=(sys.executable, str(BOTS / "late_once_bot.py"), f"{role}:1", *gates),
                         readable=(str(BOTS), str(tmp_path))) for role in ("late", "opener"))
    settings = MatchSettings(time=TimeControl(move_ms=300, startup_ms=3000),
                             timeout_policy=TimeoutPolicy(mode="strikes", strikes=3))
    record = play_game(TTT, bots, 7, sandbox, settings)
    assert record.termination is Termination.NORMAL, record.reason
    assert [(ply, m.substituted) for ply, m in enumerate(record.moves) if m.substituted] == \
        [(2, "timeout strike 1 of 3")]
    answers = record.stderr_tails[0].splitlines()
    assert answers[1].startswith("late > ")
    # x's moves are its answers in time, each to its own request: the late one is in none
    assert [m.move for m in record.moves if m.seat == 0 and not m.substituted] == \
        [a[2:] for a in answers if a.startswith("> ")]


def test_an_unstartable_command_is_a_startup_failure(sandbox):
    ghost = BotSpec(name="ghost", argv=("/nonexistent/bot",))
    record = play_game(ULTIMATE, (GOOD, ghost), 3, sandbox, SETTINGS)
    assert record.termination is Termination.STARTUP_FAILURE and record.faulted == 1
    assert record.winner == 0
