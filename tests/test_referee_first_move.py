"""time_control.first_move_ms, CodinGame's shape of clock (its first turn 1000 ms, 50 after),
in a built-in game: a bot of a dialect without a handshake may use it for its first move,
its start-up included, and only move_ms for the next."""

import sys
from pathlib import Path

from arena.games import default_registry
from arena.record import Termination
from arena.referee import BotSpec, MatchSettings, TimeControl, play_game
from arena.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parent.parent
# a CodinGame tic-tac-toe bot that thinks 400 ms on its first move and on its second
SLOW = ("import sys, time\n"
        "moves = 0\n"
        "while sys.stdin.readline():\n"
        "    actions = [sys.stdin.readline().strip() for _ in range(int(sys.stdin.readline()))]\n"
        "    moves += 1\n"
        "    time.sleep(0.4 if moves <= 2 else 0)\n"
        "    print(actions[0], flush=True)\n")


def test_the_first_move_may_take_first_move_ms_and_the_next_only_move_ms():
    slow = BotSpec(name="slow", argv=(sys.executable, "-c", SLOW), dialect="codingame")
    quick = BotSpec(name="quick", argv=(sys.executable, str(ROOT / "tests" / "fixture_bots" / "codingame_bot.py")),
                    dialect="codingame", readable=(str(ROOT / "tests" / "fixture_bots"),))
    settings = MatchSettings(time=TimeControl(move_ms=100, startup_ms=100, first_move_ms=3000))
    record = play_game(default_registry().create("tictactoe"), [slow, quick], 1,
                       Sandbox(limits=Limits(memory_mb=256)), settings)
    assert record.termination is Termination.TIMEOUT and record.faulted == 0, record.reason
    assert record.reason == "slow (seat 0): no reply to move 3 within 100 ms" or \
        record.reason.startswith("slow (seat 0): no reply to move 3 within 100 ms"), record.reason
    assert record.moves[0].seat == 0 and record.moves[0].wall_ms >= 400     # its first move stood
