"""Tron by CodinGame's Tron Battle rules (`ruleset: codingame`): the cycles move one at a
time in seat order, a lost cycle's trail leaves the board, starts are drawn from the game's
seed; and CodinGame bots read exactly CodinGame's input, turn by turn, in real processes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import default_registry
from arena.record import Termination, play_turn
from arena.referee import MatchSettings, TimeControl, play_game
from arena.referee.botspec import command_spec
from arena.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parent.parent
LOG_BOT = ROOT / "tests" / "fixture_bots" / "tron_codingame_log_bot.py"
REGISTRY = default_registry()
U, D, L, R = 0, 1, 2, 3
SETTINGS = MatchSettings(time=TimeControl(move_ms=1000, startup_ms=10000))
STEPS = {"u": (0, -1), "d": (0, 1), "l": (-1, 0), "r": (1, 0)}


def codingame(**options):
    return REGISTRY.create("tron", ruleset="codingame", **options)


def test_the_codingame_rule_set_is_30x20_moving_in_turn_and_the_2010_rules_stay_the_default():
    assert REGISTRY.create("tron").options == {"width": 16, "height": 16, "players": 2}
    game = codingame(players=3)
    assert game.options == {"width": 30, "height": 20, "players": 3, "ruleset": "codingame"}
    assert codingame(width=10, height=8).options["width"] == 10
    assert not game.info.simultaneous and game.info.rounds and game.info.by_turn
    state = game.start(1)
    assert state.movers() == (0,) and state.legal_moves() == (U, D, L, R)


def test_a_cycle_sees_the_moves_made_before_it_and_a_lost_trail_leaves_the_board():
    game = codingame(width=5, height=3, players=3)
    state = game.parse_state("...../.A.B./..C.. 0 -,-,- 0 6,8,12")
    state = state.play(R)                       # A takes (1, 2), the cell between A and B
    assert state.to_move == 1 and state.rows() == [".....", ".aAB.", "..C.."]
    state = state.play(L)                       # B moves into A's new head: B goes out, its trail with it
    assert state.out == (-1, 1, -1) and state.rows() == [".....", ".aA..", "..C.."]
    assert state.to_move == 2 and state.turn == 0
    state = state.play(U)                       # C moves up into A's trail: out; A is left, first
    assert state.is_terminal() and state.out == (-1, 1, 1) and state.rows() == [".....", ".aA..", "....."]
    assert state.ranking() == (0, 2, 1)         # B went out before C in the same turn: nothing ties
    assert game.parse_state(state.encode()) == state


def test_two_cycles_entering_one_cell_the_first_takes_it_and_a_duel_has_no_draw():
    game = codingame(width=5, height=3)
    state = game.parse_state("...../.A.B./..... 0 -,- 0 6,8")
    end = state.play(R).play(L)                 # A takes the middle cell, B runs into it
    assert end.is_terminal() and end.winner == 0 and end.returns() == (1.0, 0.0)
    both_crash = state.play(U).play(U).play(U)  # A up and up: off the board, B wins still in
    assert both_crash.is_terminal() and both_crash.winner == 1


def test_starts_are_drawn_from_the_seed_and_a_pair_of_one_seed_shares_them():
    game = codingame(players=4)
    starts = {seed: game.start(seed).starts for seed in range(50)}
    assert starts[7] == game.start(7).starts and len(set(starts.values())) == 50
    assert all(len(set(cells)) == 4 for cells in starts.values())


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(limits=Limits(memory_mb=256, cpu_seconds=60))


def expected_inputs(game, seed, record):
    """Each seat's input on each of its turns, worked out here from the record's moves by
    CodinGame's statement: 'N P', then per player 'X0 Y0 X1 Y1' (its start and head; -1 x4
    once lost, its trail gone), the moves made before it this turn seen."""
    width = game.board.stride
    starts = [(cell % width - 1, cell // width - 1) for cell in game.start(seed).starts]
    heads, trails, lost = list(starts), [{cell} for cell in starts], set()
    seen: dict[int, list[str]] = {seat: [] for seat in range(len(starts))}
    entered_cleared = False
    cleared: set = set()
    for move in record.moves:
        seat = move.seat
        lines = [f"{len(starts)} {seat}"] + [
            "-1 -1 -1 -1" if s in lost else f"{starts[s][0]} {starts[s][1]} {heads[s][0]} {heads[s][1]}"
            for s in range(len(starts))]
        seen[seat].append("|".join(lines))
        dx, dy = STEPS[move.move]
        x, y = heads[seat][0] + dx, heads[seat][1] + dy
        taken = set().union(*trails)
        if not (0 <= x < game.board.width and 0 <= y < game.board.height) or (x, y) in taken:
            lost.add(seat)
            cleared |= trails[seat]
            trails[seat] = set()
        else:
            entered_cleared |= (x, y) in cleared
            heads[seat] = (x, y)
            trails[seat].add((x, y))
    return seen, entered_cleared, lost


def test_codingame_bots_read_codingame_input_every_turn_and_drive_into_a_cleared_trail(sandbox):
    # three CodinGame bots that log their input and keep the board as CodinGame's rules leave
    # it (a lost player's cells free): seed 0's game has one of them enter a cell of a trail
    # that left the board, which it survives
    game = codingame(width=6, height=5, players=3)
    bots = [command_spec(f"cg{seat}", "codingame", f"{sys.executable} {LOG_BOT} 6 5") for seat in range(3)]
    record = play_game(game, bots, 0, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL and record.out == [], record.reason
    seen, entered_cleared, lost = expected_inputs(game, 0, record)
    assert entered_cleared and len(lost) == 2
    for seat in range(3):
        assert record.stderr_tails[seat].splitlines() == seen[seat]
    turn1 = [seen[seat][0].split("|")[1:] for seat in range(2)]
    assert all(line.split()[:2] == line.split()[2:] for line in turn1[0])   # seat 0: every head on its start
    assert turn1[1][0] != turn1[0][0] and turn1[1][1:] == turn1[0][1:]      # seat 1 sees seat 0's first move
    # the moves go in seat order, a turn (round) at a time, and the ranking ties nobody
    assert [m.turn for m in record.moves] == sorted(m.turn for m in record.moves)
    assert sorted(record.ranking) == [0, 1, 2]
    assert "ranking: " in record.reason


def test_a_seat_swapped_pair_shares_its_starts_and_pairs_differ(tmp_path):
    # arena match, as a user runs it: pair k's two games share seed k, so seat 0 of both
    # starts where seat 0 of the other did; the next pair starts elsewhere
    bot = f"codingame:{sys.executable} {LOG_BOT} 8 6"
    out = subprocess.run([sys.executable, "-m", "arena", "match", bot, bot, "--game", "tron", "--rule",
                          "ruleset=codingame", "--rule", "width=8", "--rule", "height=6", "--games", "4",
                          "--save", str(tmp_path / "g.jsonl"), "--move-ms", "500"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    firsts = [r["stderr_tails"][0].splitlines()[0] if r["stderr_tails"][0] else "" for r in records]
    assert [r["seed"] for r in records][0] == records[1]["seed"] != records[2]["seed"] == records[3]["seed"]
    assert firsts[0] == firsts[1] and firsts[2] == firsts[3] and firsts[0] != firsts[2]
    assert all(r["rule_options"]["ruleset"] == "codingame" for r in records)


def test_a_fault_puts_its_cycle_out_at_its_move_and_the_others_play_on(sandbox):
    # of four, seat 1 exits on its third turn: it is out there, its trail gone, and the three
    # left play on; it ranks as a cycle that went out at that move does
    game = codingame(width=8, height=6, players=4)
    bots = [command_spec(f"cg{seat}", "codingame", f"{sys.executable} {LOG_BOT} 8 6 "
                                                  + ("DOWN,LEFT,UP,RIGHT 2" if seat == 1 else ""))
            for seat in range(4)]
    record = play_game(game, bots, 3, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL, record.reason
    assert [(o.seat, o.turn, o.termination) for o in record.out] == [(1, 2, Termination.CRASH)]
    later = [m for m in record.moves if m.turn >= 2]
    assert {m.seat for m in later} - {1} and 1 not in {m.seat for m in later}
    # every other seat's next input shows seat 1 as lost: -1 -1 -1 -1
    after = [line for seat in (0, 2, 3) for line in record.stderr_tails[seat].splitlines()[3:4]]
    assert after and all(line.split("|")[2] == "-1 -1 -1 -1" for line in after)
    state = game.start(3)
    for number, moves in enumerate(record.turns()):
        state = play_turn(game, state, moves, [o.seat for o in record.out if o.turn == number])
    assert state.is_terminal() and list(state.ranking()) == record.ranking
    assert not any(ch in "bB" for row in state.rows() for ch in row)


# --- the 2010 Google AI Challenge's protocol, and maps with walls ------------------------------

MAP = ROOT / "tests" / "data" / "tron_maps" / "pillar.txt"
AI_BOT = ROOT / "tests" / "fixture_bots" / "tron_aichallenge_bot.py"


def test_a_2010_bot_reads_the_whole_map_as_itself_1_and_answers_1_to_4(sandbox):
    # the map's walls, each bot seeing itself as '1'; seat 0 scripted east, south (2, 3):
    # the record keeps them as r, d; seat 1 scripted west, north (4, 1): l, u
    from arena.games.tron import read_map
    game = REGISTRY.create("tron", map=read_map(MAP.read_text()))
    assert game.options["width"] == 7 and game.options["height"] == 6
    bots = [command_spec("east", "aichallenge2010", f"{sys.executable} {AI_BOT} 2,3"),
            command_spec("west", "aichallenge2010", f"{sys.executable} {AI_BOT} 4,1")]
    record = play_game(game, bots, 1, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL, record.reason
    assert [m.move for m in record.moves[:4]] == ["r", "l", "d", "u"]
    rows = MAP.read_text().splitlines()[1:]
    seen = [record.stderr_tails[seat].splitlines()[0] for seat in (0, 1)]
    assert seen[0] == "|".join(rows)
    assert seen[1] == "|".join(rows).translate(str.maketrans("12", "21"))
    second = record.stderr_tails[0].splitlines()[1].split("|")
    assert second[1] == "##1   #" and second[4] == "#   2##"     # the trails are walls
    assert record.rule_options["map"] == read_map(MAP.read_text())


def test_a_map_is_a_file_checked_as_every_user_file_and_a_bad_one_is_one_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("5 3\n#####\n#1 2\n#####\n")
    out = subprocess.run([sys.executable, "-m", "arena", "match", "tron-random", "tron-random", "--game", "tron",
                          "--rule", f"map={bad}", "--games", "2"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert f"{bad}:3: not a map file in the 2010 Google AI Challenge's format: a row of 4 cells, not 5" in out.stderr
    (tmp_path / "league.yaml").write_text(f"name: m\ngame: tron\nrules: {{map: {tmp_path / 'none.txt'}}}\n"
                                          "bots:\n  - {name: a, bot: tron-random}\n  - {name: b, bot: tron-random}\n")
    out = subprocess.run([sys.executable, "-m", "arena", "run", str(tmp_path / "league.yaml")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "none.txt: cannot read the map file in the 2010 Google AI Challenge's format: No such file" in out.stderr
    out = subprocess.run([sys.executable, "-m", "arena", "match", "tron-random", "tron-territory", "--game", "tron",
                          "--rule", f"map={MAP}", "--games", "2"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
