"""The arena command as a user runs it: a real subprocess."""

import json
import subprocess
import sys


def arena(*args):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=120)


def arena_input(text, *args):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=120, input=text)


def test_perft_prints_the_count_last():
    out = arena("perft", "ultimate", "6")        # README's line, as written
    assert out.returncode == 0
    assert out.stdout.strip().splitlines()[-1] == "4020960"
    # the game named is the game counted, where the two differ: x holds squares 1 and 4 of
    # board 8 and is sent there; in nineboard 79 wins, so of x's 7 moves 6 send o to a board
    # of 9, 9, 9, 9, 9 and 6 open squares (51), in ultimate 79 also sends o to board 7 (60).
    # (Their counts from the start, 4015008 at depth 6, are tests/test_games_perft.py's.)
    out = arena("perft", "nineboard", "2", "--moves", "73,17,76,44")
    assert out.returncode == 0
    assert out.stdout.strip().splitlines()[-1] == "51"
    assert arena("perft", "ultimate", "2", "--moves", "73,17,76,44").stdout.strip().splitlines()[-1] == "60"


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
    assert names == ["tictactoe", "ultimate", "meta", "nineboard", "tron"]


def test_tron_is_listed_counted_and_played_from_the_command_line():
    verbose = arena("games", "-v").stdout
    assert "seats move at once" in verbose and "option width: 3..64 (default 16)" in verbose
    assert "option players: 2 | 3 | 4 (default 2)" in verbose
    rules = ("--rule", "width=4", "--rule", "height=3")
    out = arena("perft", "tron", "2", "--divide", *rules)
    lines = out.stdout.strip().splitlines()
    assert out.returncode == 0 and len(lines) == 16 + 1 and lines[0] == "u+u: 16"
    assert lines[-1] == str(sum(int(line.split(": ")[1]) for line in lines[:-1]))
    assert arena("perft", "tron", "1", "--moves", "u+d,l+r", *rules).stdout.strip() == "16"
    game = arena("random-game", "tron", "--seed", "5", "--rule", "players=3").stdout
    assert game.splitlines()[-1].startswith("result: ranks ") and "turn 1: seat 0 plays" in game
    short = arena("random-game", "tron", "--seed", "1", "--rule", "width=3", "--rule", "height=3").stdout
    assert short.splitlines()[-1].endswith(" after 1 turn")      # was "after 1 turns"
    _one_line_error(arena("perft", "tron", "1", "--moves", "u"), "expected one of 0..3 for each seat")
    _one_line_error(arena("perft", "tron", "1", "--rule", "width=2"), "'width' cannot be '2' (allowed: 3..64)")


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


def test_commands_that_play_by_turns_refuse_tron_in_one_line():
    """Opening books play games of turns only."""
    _one_line_error(arena("openings", "tron", "--plies", "2", "--count", "2", "--out", "unused.json"),
                    "game 'tron': its seats move at once")


#: a tron bot (arena protocol) that writes the LAST field of every request to a FIFO, then goes down
DOWN_BOT = """import sys
log = open(sys.argv[1], "w")
for line in sys.stdin:
    words = line.split()
    if words and words[0] == "arena":
        print("ready", flush=True)
    elif words and words[0] == "turn":
        log.write(words[3] + "\\n")
        log.flush()
        print("d", flush=True)
    elif words and words[0] == "quit":
        break
"""


def test_arena_play_tron_asks_you_after_the_bots_of_the_same_turn(tmp_path, monkeypatch, capsys):
    """arena play refused tron. Now each turn the bots are asked first, in the turn's batch,
    then you: when you are asked the bot has had its request of the turn (one per turn so
    far, read from the FIFO it writes them to) and it carries the turn before's moves, yours
    included, never this turn's; you see its move only with the next board."""
    import builtins
    import os

    from arena.cli import main
    bot, fifo = tmp_path / "down.py", tmp_path / "requests"
    bot.write_text(DOWN_BOT)
    os.mkfifo(fifo, 0o666)
    fifo.chmod(0o666)        # the bot runs as a uid of its own
    tmp_path.chmod(0o755)
    heard = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    requests: list[str] = []
    asked = 0

    def you(prompt: str) -> str:
        nonlocal asked
        asked += 1
        requests.extend(os.read(heard, 65536).decode().split())
        assert prompt == "your move (u d l r; q to leave): "
        assert len(requests) == asked    # this turn's request is in before you are asked
        assert requests[-1] == ("-" if asked == 1 else "r+d")
        return "r"
    monkeypatch.setattr(builtins, "input", you)
    try:
        # you at row 2 column 1 go right; the bot at row 2 column 5 goes down into the border on turn 3
        assert main(["play", "tron", "--against", f"arena:{sys.executable} {bot} {fifo}", "--rule", "width=7",
                     "--rule", "height=5", "--seed", "1"]) == 0
    finally:
        os.close(heard)
    out = capsys.readouterr().out
    assert asked == 3 and requests == ["-", "r+d", "r+d"], out
    assert "You are seat 0 (A on the board)" in out
    assert ".A...B.\n" in out and "turn 1: you r, " in out and ".aaaAb.\n" in out
    assert out.strip().splitlines()[-1].startswith("result: you, ")
    assert "by seat: you 1st, " in out and "normal, 3 turns, 6 moves, seed 1" in out


def test_arena_play_seats_you_among_more_cycles_and_says_what_makes_no_sense():
    """One bot named plays every other seat, told apart by number; your seat is any of the
    game's; a seat it has not, or a bot count that fits no seats, is one line."""
    rules = ("--rule", "width=7", "--rule", "height=7", "--rule", "players=3")
    out = subprocess.run([sys.executable, "-m", "arena", "play", "tron", "--against", "tron-random",
                          "--seat", "1", "--seed", "4", *rules], input="u\n" * 10 + "q\n",
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "You are seat 1 (B on the board); tron-random#1, tron-random#2 have 1000 ms a move." in out.stdout
    assert ".A...B.\n" in out.stdout and "turn 1: tron-random#1 " in out.stdout
    last = out.stdout.strip().splitlines()[-1]
    assert last == "you left the game" or last.startswith("result: tron-random#1, you, tron-random#2 by seat: ")
    _one_line_error(arena("play", "tron", "--against", "tron-random", "--seat", "2"),
                    "--seat 2: tron has seats 0-1")
    _one_line_error(arena("play", "tron", "--against", "tron-random", "--against", "tron-random", *rules[:-2],
                          "--rule", "players=4"),
                    "--against given 2 times: tron with width=7 height=7 players=4 has 4 seats, so give one "
                    "bot (it plays every seat but yours) or 3")
    _one_line_error(arena("play", "tictactoe", "--against", "random", "--against", "random"),
                    "tictactoe has 2 seats, yours and one bot's: give --against once")


def test_arena_match_plays_tron_and_refuses_more_than_two_seats(tmp_path):
    """The referee asks both cycles at once: before, the match was refused (and before the
    refusal every game ended in an illegal move). A saved game replays turn by turn."""
    saved = tmp_path / "games.jsonl"
    out = arena("match", "tron-random", "tron-territory", "--game", "tron", "--rule", "width=8",
                "--rule", "height=8", "--games", "2", "--save", str(saved))
    assert out.returncode == 0, out.stderr
    assert "2 games played" in out.stdout
    records = [json.loads(line) for line in saved.read_text().splitlines()]
    assert all(r["termination"] == "normal" and r["version"] == 3 and r["ranking"] for r in records)
    assert all(m["turn"] is not None for r in records for m in r["moves"])
    replay = arena("replay", str(saved), "--game", "1")
    assert replay.returncode == 0, replay.stderr
    first = records[0]["moves"][:2]
    assert f"turn 1: tron-random {first[0]['move']} (" in replay.stdout
    assert f", tron-territory {first[1]['move']} (" in replay.stdout
    # every seat named with its bot, and at the end its place (no x and o: the seats move at once)
    assert "tron: tron-random (seat 0), tron-territory (seat 1), seed " in replay.stdout
    places = {r["bots"][seat]["name"]: f"{r['ranking'][seat] + 1}" for r in records[:1] for seat in (0, 1)}
    result = replay.stdout.strip().splitlines()[-1]
    assert result.startswith("result: tron-random, tron-territory by seat: ") and "(x)" not in result
    assert all(f"{name} {place}" in result for name, place in places.items())
    assert f"{len(records[0]['moves']) // 2} turns, {len(records[0]['moves'])} moves" in result
    assert "game 1: tron-random, tron-territory by seat: " in out.stdout
    stepped = arena_input("\nq\n", "replay", str(saved), "--game", "1", "--step")
    assert stepped.returncode == 0 and stepped.stdout.count("[Enter: next turn, q: quit] ") == 2
    assert "turn 1: " in stepped.stdout and "turn 2: " not in stepped.stdout
    _one_line_error(arena("match", "tron-random", "tron-random", "--game", "tron", "--rule", "players=3"),
                    "game 'tron' has 3 seats: arena match plays two bots")
