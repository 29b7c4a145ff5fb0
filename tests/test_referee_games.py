"""Whole games through the sandboxed referee: bots in other languages, other
platforms' dialects, the SDK, the records, and the match/replay commands."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import default_registry
from arena.record import GameRecord, Termination
from arena.referee import BotSpec, MatchSettings, TimeControl, play_game
from arena.referee.botspec import ARENA_PACKAGE_DIR, command_spec
from arena.referee.timecontrol import QUICK_S
from arena.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
SDK_BOT = BotSpec(name="sdk", argv=(sys.executable, str(ROOT / "examples" / "first_move_bot.py")),
                  readable=(str(ROOT / "examples"), ARENA_PACKAGE_DIR))
SETTINGS = MatchSettings(time=TimeControl(move_ms=1000, startup_ms=5000))
R = default_registry()


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox()


def replay_is_legal(game, record):
    state = game.initial_state()
    for move in record.moves:
        assert move.seat == state.to_move
        state = state.play(int(move.move))
    return state


def test_bash_example_bot_plays_whole_games(sandbox):
    bash_bot = command_spec("bash", "arena", "examples/random_bot.sh", cwd=str(ROOT))
    for name in ("tictactoe", "ultimate", "meta", "nineboard"):
        game = R.create(name)
        for seats in ((bash_bot, SDK_BOT), (SDK_BOT, bash_bot)):
            record = play_game(game, seats, 11, sandbox, SETTINGS)
            assert record.termination is Termination.NORMAL, record.reason
            final = replay_is_legal(game, record)
            assert final.is_terminal() and final.winner == record.winner
            # every move timed; measured unless it was too quick to cost anything
            assert all(m.wall_ms > 0 and (m.cpu_ms is not None or m.wall_ms <= QUICK_S * 1000)
                       for m in record.moves)
    assert "bash random bot playing" in record.stderr_tails[1]


@pytest.mark.parametrize(("dialect", "script", "extra"), [
    ("codingame", "codingame_bot.py", ""),
    ("theaigames", "theaigames_bot.py", ""),
    ("riddles", "theaigames_bot.py", "place_disc"),
])
@pytest.mark.parametrize("game_name", ["ultimate", "meta"])
def test_other_platforms_bots_play_unchanged(sandbox, dialect, script, extra, game_name):
    game = R.create(game_name)
    bot = command_spec(dialect, dialect, f"python3 tests/fixture_bots/{script} 5 {extra}".strip(), cwd=str(ROOT))
    for seats in ((bot, SDK_BOT), (SDK_BOT, bot)):
        record = play_game(game, seats, 3, sandbox, SETTINGS)
        assert record.termination is Termination.NORMAL, record.reason
        replay_is_legal(game, record)
        assert len(record.moves) > 20


def test_same_seed_same_game(sandbox):
    bash_bot = command_spec("bash", "arena", "examples/random_bot.sh", cwd=str(ROOT))
    game = R.create("ultimate")
    first = play_game(game, (bash_bot, SDK_BOT), 99, sandbox, SETTINGS)
    second = play_game(game, (bash_bot, SDK_BOT), 99, sandbox, SETTINGS)
    assert [m.move for m in first.moves] == [m.move for m in second.moves]


def test_record_round_trips_through_json(sandbox):
    record = play_game(R.create("tictactoe"), (SDK_BOT, SDK_BOT), 1, sandbox, SETTINGS)
    again = GameRecord.from_json(record.to_json())
    assert again == record


def test_an_sdk_bot_starts_its_moves_with_what_start_up_made_frozen(sandbox):
    # A full collection inside a move goes through every object the collector tracks:
    # the SDK freezes what start-up left (modules, the game) at the first handshake, so
    # those are never gone through again; what the agent makes stays collectable.
    bot = BotSpec(name="gc-report", argv=(sys.executable, str(ROOT / "tests" / "fixture_bots" / "gc_report_bot.py")),
                  readable=(str(ROOT / "tests" / "fixture_bots"), ARENA_PACKAGE_DIR))
    record = play_game(R.create("ultimate"), (bot, SDK_BOT), 1, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL, record.reason
    reports = [line.split() for line in record.stderr_tails[0].splitlines() if line.startswith("frozen ")]
    assert len(reports) == len([m for m in record.moves if m.seat == 0]) > 0
    for _, frozen, _, tracked in reports:
        assert int(frozen) > int(tracked) >= 100, reports   # the agent's 100 tables are not frozen


def arena(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_match_command_json_alternates_seats(tmp_path):
    saved = tmp_path / "games.jsonl"
    out = arena("match", "arena:examples/random_bot.sh", "codingame:python3 tests/fixture_bots/codingame_bot.py 1",
                "--game", "ultimate", "--games", "4", "--move-ms", "500", "--json", "--seed", "5",
                "--save", str(saved))
    assert out.returncode == 0, out.stderr
    *games, summary = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(games) == 4 and summary["summary"]["games"] == 4   # --json ends with a summary
    for i, g in enumerate(games):
        assert {"winner", "termination", "faulted", "reason", "moves"} <= set(g)
        assert g["winner"] in (0, 1, None) and g["termination"] == "normal" and g["faulted"] is None
        first = g["bots"][0]["name"]
        assert first.endswith("random_bot.sh") == (i % 2 == 0)
    assert games[0]["seed"] == games[1]["seed"] == 5 and games[2]["seed"] == 6
    replay = arena("replay", str(saved), "--game", "2")
    assert replay.returncode == 0, replay.stderr
    final = GameRecord.from_json(saved.read_text().splitlines()[1])
    game = R.create("ultimate")
    end = game.replay([int(m.move) for m in final.moves])
    assert end.render() in replay.stdout
    assert replay.stdout.rstrip().splitlines()[-1].startswith("result:")


def test_match_command_reports_a_faulty_bot_and_goes_on():
    out = arena("match", "arena:python3 tests/fixture_bots/hostile.py garbage", "arena:examples/random_bot.sh",
                "--game", "ultimate", "--games", "2", "--move-ms", "500")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "malformed" in lines[0] or "hello referee" in lines[0]
    assert lines[-2].endswith("0 wins, 0 draws, 2 losses")


@pytest.mark.parametrize(("args", "needle"), [
    (("nosuchbot", "arena:examples/random_bot.sh", "--game", "ultimate"), "neither a registered bot"),
    (("arena:./nope.sh", "arena:examples/random_bot.sh", "--game", "ultimate"), "does not exist"),
    (("klingon:./x", "arena:examples/random_bot.sh", "--game", "ultimate"), "neither a registered bot"),
    (("arena:examples/random_bot.sh", "arena:examples/random_bot.sh", "--game", "ultimat"), "did you mean"),
    (("arena:examples/random_bot.sh", "arena:examples/random_bot.sh", "--game", "ultimate",
      "--move-ms", "0"), "move_ms"),
])
def test_match_command_bad_arguments(args, needle):
    out = arena("match", *args)
    assert out.returncode == 2
    assert needle in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_play_command_lets_a_person_play(tmp_path):
    # the person types a bad move, an illegal one, then legal moves; the bot is the bash example
    moves = "hello\n9\n" + "\n".join(str(c) for c in range(9)) + "\n"
    out = subprocess.run([sys.executable, "-m", "arena", "play", "tictactoe", "--against",
                          "arena:examples/random_bot.sh", "--seed", "3"], input=moves,
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "'hello' is not a move" in out.stdout
    assert "result:" in out.stdout


def test_a_bot_using_half_its_time_is_not_late_on_a_busy_machine(sandbox):
    half = BotSpec(name="half", argv=(sys.executable, str(ROOT / "benchmarks" / "fixture_bots" /
                                                          "half_time_bot.py")),
                   readable=(str(ROOT / "benchmarks" / "fixture_bots"),))
    settings = MatchSettings(time=TimeControl(move_ms=40, startup_ms=5000))
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        records = [play_game(R.create("ultimate"), (half, half), seed, sandbox, settings)
                   for seed in range(3)]
    finally:
        for hog in hogs:
            hog.kill()
    for record in records:
        assert record.termination is Termination.NORMAL, record.reason
        assert all(m.wait_ms is not None and m.cpu_ms >= 0 for m in record.moves)
