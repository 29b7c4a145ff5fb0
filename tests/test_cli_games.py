"""The arena command as a user runs it: a real subprocess."""

import subprocess
import sys


def arena(*args):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=120)


def test_perft_prints_the_count_last():
    out = arena("perft", "ultimate", "6")
    assert out.returncode == 0
    assert out.stdout.strip().splitlines()[-1] == "4020960"
    out = arena("perft", "nineboard", "6")
    assert out.stdout.strip().splitlines()[-1] == "4015008"


def test_perft_after_moves_and_divide():
    out = arena("perft", "ultimate", "2", "--moves", "40,36", "--divide")
    lines = out.stdout.strip().splitlines()
    assert out.returncode == 0 and lines[-1] == "78"
    assert len(lines) == 1 + 9
    assert sum(int(line.split(": ")[1]) for line in lines[:-1]) == 78


def test_games_lists_every_game_with_its_rules():
    out = arena("games")
    assert out.returncode == 0
    names = [line.split()[0] for line in out.stdout.splitlines()]
    assert names == ["tictactoe", "ultimate", "meta", "nineboard"]


def test_random_game_is_reproducible_by_seed():
    first, second = arena("random-game", "ultimate", "--seed", "7"), arena("random-game", "ultimate", "--seed", "7")
    assert first.returncode == 0 and first.stdout == second.stdout
    assert "result:" in first.stdout.splitlines()[-1]


def _one_line_error(out, *needles):
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "Traceback" not in out.stderr
    for needle in needles:
        assert needle in out.stderr


def test_bad_arguments_give_one_clear_line():
    _one_line_error(arena("perft", "ultimat", "3"), "unknown game 'ultimat'", "did you mean 'ultimate'")
    _one_line_error(arena("perft", "ultimate", "2", "--moves", "40,40"), "move 40", "taken")
    _one_line_error(arena("perft", "ultimate", "2", "--moves", "40,x"), "'x' is not a move")
    _one_line_error(arena("perft", "ultimate", "-1"), "depth")
    _one_line_error(arena("random-game", "ultimate", "--rule", "tiebreak=coin"), "tiebreak", "'boards'")
