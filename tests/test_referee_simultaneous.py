"""The referee where seats move at once (tron): real bot processes asked in one batch, each
on its own clock; a seat that faults is out while the others play on (more than two seats),
and no bot hears another's move of a turn before its own is in."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import GameError, InvalidMoveError, default_registry
from arena.record import GameRecord, Termination
from arena.referee import MatchSettings, TimeControl, play_game
from arena.referee.botspec import command_spec
from arena.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parent.parent
LOG_BOT = ROOT / "tests" / "fixture_bots" / "tron_log_bot.py"
# generous: the held bot waits at a gate within its move; only the sleeper is ever late
SETTINGS = MatchSettings(time=TimeControl(move_ms=1500, startup_ms=10000))
# without a held bot: every bot but the sleeper replies at once, and a reply the machine's
# load keeps waiting for a CPU is excused that wait (load_grace), so the sleeper's timeout,
# waited out once or twice a test, need not be long
QUICK = MatchSettings(time=TimeControl(move_ms=500, startup_ms=10000))


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(limits=Limits(memory_mb=256, cpu_seconds=60))


def log_bots(folder: Path, *roles: str):
    """Bots of tron_log_bot.py in these roles; with a held one, it and the first meet at a
    FIFO in folder."""
    gate = ""
    if "held" in roles:
        fifo = folder / "gate"
        os.mkfifo(fifo, 0o666)
        fifo.chmod(0o666)       # a bot runs as a uid of its own
        folder.chmod(0o755)
        gate = str(fifo)
    return tuple(command_spec(f"{role.replace(':', '')}{seat}", "arena",
                              f"{sys.executable} {LOG_BOT} {role} {gate}",
                              readable=(str(folder),) if gate else ())
                 for seat, role in enumerate(roles))


def read_log(record: GameRecord, seat: int) -> list[str]:
    return record.stderr_tails[seat].splitlines()


def test_a_bot_past_its_deadline_times_out_alone_and_no_bot_hears_a_move_of_its_turn_early(sandbox, tmp_path):
    tron = default_registry().create("tron", width=8, height=8, players=3)
    record = play_game(tron, log_bots(tmp_path, "first", "held", "sleep:1"), 5, sandbox, SETTINGS)

    # seat 2 slept through turn 2 (index 1): it alone is out, there, for a timeout
    assert [(o.seat, o.turn, o.termination) for o in record.out] == [(2, 1, Termination.TIMEOUT)]
    assert record.termination is Termination.NORMAL and record.faulted is None
    turns = record.turns()
    assert [m.seat for m in turns[0]] == [0, 1, 2]
    assert [m.seat for m in turns[1]] == [0, 1]          # the others' moves of that turn stand
    assert len(turns) > 2 and all([m.seat for m in t] == [0, 1] for t in turns[2:])
    assert record.ranking is not None and record.ranking[2] == 2   # below both still in then
    assert sorted(record.ranking[:2]) in ([0, 1], [0, 0])

    # every turn's request carried the last turn's moves, seat 2 '-' once out; and the held
    # bot, waiting at each turn until seat 0's reply was written, found nothing more to read
    held = read_log(record, 1)
    assert not [line for line in held if line.startswith(("early", "gate"))]
    requests = [line.split()[1] for line in held if line.startswith("<")]
    expected = ["-"] + ["+".join(m.move for m in t) + ("+-" if len(t) == 2 else "") for t in turns[:-1]]
    assert requests == expected
    for seat in (0, 1):     # a request, its reply, the next request: never two requests in a row
        kinds = [line[0] for line in read_log(record, seat)]
        assert kinds == ["<", ">"] * len(turns)


def test_in_a_game_of_two_a_bot_past_its_deadline_loses(sandbox, tmp_path):
    tron = default_registry().create("tron", width=8, height=8)
    record = play_game(tron, log_bots(tmp_path, "first", "sleep:2"), 5, sandbox, QUICK)
    assert (record.termination, record.faulted, record.winner) == (Termination.TIMEOUT, 1, 0), record.reason
    assert record.ranking == [0, 1] and record.out == []
    assert [len(t) for t in record.turns()] == [2, 2]     # the late turn's other move is not played
    assert "no reply to move on turn 3 within 500 ms" in record.reason


def test_a_record_of_a_game_of_three_reads_back_and_an_older_record_reads_as_before(sandbox, tmp_path):
    tron = default_registry().create("tron", width=6, height=6, players=3)
    record = play_game(tron, log_bots(tmp_path, "first", "first", "sleep:0"), 3, sandbox, QUICK)
    back = GameRecord.from_json(record.to_json())
    assert back == record and back.version == 3
    assert back.to_dict()["out"][0]["termination"] == "timeout"
    assert back.scores[2] == 0.0 and sum(back.scores) == 1.5     # last of three; the share of others beaten
    assert "sleep02 3rd, normal (sleep02 out on turn 1 (timeout))" in back.summary()

    old = {"game": "tictactoe", "rule_options": {}, "seed": 1, "version": 2, "opening": 0,
           "bots": [{"name": "a", "spec": "", "options": {}}, {"name": "b", "spec": "", "options": {}}],
           "moves": [{"seat": 0, "move": "4", "wall_ms": 1.0, "cpu_ms": None, "substituted": None,
                      "wait_ms": None}],
           "winner": None, "termination": "crash", "faulted": 1, "reason": "b crashed", "scores": [1.0, 0.0],
           "stderr_tails": ["", ""], "started_at": "", "duration_ms": 0.0, "startup_ms": 0.0, "play_ms": 0.0}
    read = GameRecord.from_dict(old)
    assert read.to_dict() == old           # written again as it was: nothing version 3 added
    assert read.ranking is None and read.rank_of() == [0, 1] and read.turns() == [read.moves]


def test_a_codingame_bot_plays_tron_as_on_codingame(sandbox, tmp_path):
    # every turn each player still in reads "N P" and a line per player, and prints a word
    tron = default_registry().create("tron", width=10, height=8, players=3)
    codingame = command_spec("cg", "codingame", f"{sys.executable} {ROOT / 'tests' / 'fixture_bots'}"
                                                "/tron_codingame_bot.py 10 8")
    bots = (*log_bots(tmp_path, "first", "first"), codingame)[::-1]     # the CodinGame bot in seat 0
    record = play_game(tron, bots, 9, sandbox, SETTINGS)
    assert record.termination is Termination.NORMAL and record.out == [], record.reason
    mine = [m for m in record.moves if m.seat == 0]
    assert mine and all(m.move in "udlr" for m in mine)
    assert record.stderr_tails[0].splitlines() == ["3 0"] * len(mine)   # one turn's input per move


def test_the_codingame_tron_turn_gives_first_cells_and_heads_and_reads_words():
    from arena.protocol.dialects import CodinGameDialect, TurnInfo
    tron = default_registry().create("tron", width=8, height=6, players=3)
    state = tron.initial_state().play_without([0, 3, 0], [1])    # A up, B out, C up
    turn = TurnInfo(state=state, last_move=None, legal=state.moves_of(2), move_ms=100, bank_ms=0, ply=1, seat=2)
    dialect = CodinGameDialect()
    # starts (row, col): A (1, 2), B (1, 5), C (4, 4); x is the column, y the row
    assert dialect.turn_lines(tron, turn) == ["3 2", "2 1 2 0", "-1 -1 -1 -1", "4 4 4 3"]
    assert [dialect.parse_move(tron, turn, word) for word in ("UP", "down", "LEFT hi", "Right")] == [0, 1, 2, 3]
    with pytest.raises(InvalidMoveError, match="expected UP, DOWN, LEFT or RIGHT"):
        dialect.parse_move(tron, turn, "u")


def test_the_protocol_pages_three_player_game_is_what_the_referee_sends(sandbox):
    # docs/protocol.md's whole 3-player game, played by bots replying its moves
    page = (ROOT / "docs" / "protocol.md").read_text()
    block = page.split("#### A whole 3-player game")[1].split("```")[1].strip().splitlines()
    sent = {seat: [line[3:] for line in block if line.startswith(f"{seat}> ")] for seat in range(3)}
    replies = {seat: [line[3:] for line in block if line.startswith(f"{seat}< ")][1:] for seat in range(3)}
    bots = tuple(command_spec(name, "arena", f"{sys.executable} {ROOT / 'tests' / 'fixture_bots'}/script_bot.py "
                                             f"{','.join(replies[seat])}")
                 for seat, name in enumerate("abc"))
    tron = default_registry().create("tron", width=5, height=5, players=3)
    record = play_game(tron, bots, 7, sandbox, MatchSettings(time=TimeControl(move_ms=100, startup_ms=10000)))
    assert [record.stderr_tails[seat].splitlines() for seat in range(3)] == [sent[0], sent[1], sent[2]]
    assert record.ranking == [2, 1, 0] and record.winner == 2


def test_seats_out_for_faults_rank_by_when_they_went_out(sandbox, tmp_path):
    # seat 3 sleeps through turn 2, seat 2 writes a line nobody asked for with its reply on
    # turn 1: that reply stands, the line puts it out before turn 2 is asked, so both go out
    # on turn 2; seat 1 sleeps through turn 4. The two left play on.
    tron = default_registry().create("tron", width=10, height=10, players=4)
    bots = log_bots(tmp_path, "first", "sleep:3", "chatty:0", "sleep:1")
    record = play_game(tron, bots, 11, sandbox, QUICK)
    assert [(o.seat, o.turn, o.termination) for o in record.out] == [
        (2, 1, Termination.MALFORMED), (3, 1, Termination.TIMEOUT), (1, 3, Termination.TIMEOUT)]
    assert "printed 'hello' when nothing was asked" in record.out[0].reason
    assert [m.seat for m in record.turns()[0]] == [0, 1, 2, 3]     # seat 2's reply of turn 1 was played
    assert [m.seat for m in record.turns()[1]] == [0, 1]
    assert record.ranking == [0, 1, 2, 2] and record.winner == 0     # going out together: a tie
    assert record.termination is Termination.NORMAL


def test_with_strikes_a_late_seat_is_played_for_until_its_strikes_are_spent(sandbox, tmp_path):
    from arena.referee import TimeoutPolicy
    settings = MatchSettings(time=QUICK.time, timeout_policy=TimeoutPolicy(mode="strikes", strikes=2))
    tron = default_registry().create("tron", width=12, height=12, players=3)
    record = play_game(tron, log_bots(tmp_path, "first", "first", "sleep:1"), 4, sandbox, settings)
    # turns 2 and 3 are played for it (a move of its own, drawn by the game's seed), turn 4 puts it out
    late = [(m.turn, m.substituted) for m in record.moves if m.seat == 2][1:]
    assert late == [(1, "timeout strike 1 of 2"), (2, "timeout strike 2 of 2")]
    assert [(o.seat, o.turn, o.termination) for o in record.out] == [(2, 3, Termination.TIMEOUT)]
    assert record.ranking is not None and record.ranking[2] == 2 and record.termination is Termination.NORMAL


def test_bots_that_do_not_fill_the_seats_are_refused_before_any_starts(sandbox, tmp_path):
    tron = default_registry().create("tron", width=8, height=8, players=3)
    with pytest.raises(GameError, match=r"game 'tron' with rules .* has 3 seats, not the 2 of the bots given"):
        play_game(tron, log_bots(tmp_path, "first", "first"), 1, sandbox, SETTINGS)


def test_where_the_rules_cannot_go_on_without_a_seat_its_fault_ends_the_game(sandbox, tmp_path, monkeypatch):
    # a game whose rules cannot put a seat out (play_without's default): tron's, as if so
    from arena.games.tron import TronState
    monkeypatch.setattr(TronState, "play_without", lambda self, moves, out: None)
    tron = default_registry().create("tron", width=8, height=8, players=4)
    record = play_game(tron, log_bots(tmp_path, "first", "first", "sleep:4", "down"), 2, sandbox, QUICK)
    # seat 3 ran into the border on turn 3; seat 2 slept through turn 5 and ends the game:
    # below the two still in, which tie, above the one out before
    assert (record.termination, record.faulted, record.winner, record.out) == (Termination.TIMEOUT, 2, None, [])
    assert record.ranking == [0, 0, 2, 3]
    assert len(record.turns()) == 4 and [m.seat for m in record.turns()[3]] == [0, 1, 2]


def test_a_fault_and_a_crash_of_one_turn_tie_in_the_record_the_replay_and_its_board(sandbox, tmp_path):
    # seat 2 runs down into the border on turn 3, the turn seat 1 sleeps through: both go out
    # on turn 3 and, by the one rule (docs/protocol.md, "Faults and the ranking"), tie; the
    # stored ranking, arena replay's board line and its result line all say so
    tron = default_registry().create("tron", width=10, height=10, players=4)
    record = play_game(tron, log_bots(tmp_path, "first", "sleep:2", "down", "first"), 11, sandbox, QUICK)
    assert [(o.seat, o.turn, o.termination) for o in record.out] == [(1, 2, Termination.TIMEOUT)]
    assert record.ranking[1] == record.ranking[2] == 2
    saved = tmp_path / "game.jsonl"
    saved.write_text(record.to_json() + "\n")
    out = subprocess.run([sys.executable, "-m", "arena", "replay", str(saved), "--game", "1"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    board = [line for line in out.stdout.splitlines() if line.startswith("ranking: ")][-1]
    result = [line for line in out.stdout.splitlines() if line.startswith("result: ")][-1]
    ranks = [int(word.split("=")[1]) - 1 for word in board.removeprefix("ranking: ").split()]
    assert ranks == record.ranking
    names = [b.name for b in record.bots]
    assert all(f"{names[seat]} {rank + 1}{'st' if rank == 0 else 'rd'}" in result
               for seat, rank in enumerate(record.ranking) if rank in (0, 2))


def test_two_seat_tron_names_its_seats_a_and_b_never_x_and_o(tmp_path):
    # a league of two-seat tron as a user runs it: a bot that exits at once faults (its fault
    # line names the seats by tron's letters), and a game that ends normally is stored as
    # "A wins" or "B wins"
    bots = tmp_path / "bots" / "gone"
    bots.mkdir(parents=True)
    (bots / "gone.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "league.yaml").write_text(
        "name: letters\ngame: tron\nrules: {width: 6, height: 6}\nbots:\n"
        "  - {name: gone, command: python3 bots/gone/gone.py, dialect: codingame}\n"
        "  - {name: r1, bot: tron-random}\n  - {name: r2, bot: tron-random}\n"
        "games_per_pairing: 2\nworkers: 1\nstore: results/letters.sqlite\n")
    out = subprocess.run([sys.executable, "-m", "arena", "run", str(tmp_path / "league.yaml"), "--keep-going"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    faults = [line for line in (out.stdout + out.stderr).splitlines() if "fault:" in line]
    assert faults and not any("(x)" in line or "(o)" in line for line in faults), faults
    with sqlite3.connect(tmp_path / "results" / "letters.sqlite") as db:
        reasons = {row[0] for row in db.execute("SELECT reason FROM games WHERE termination = 'normal'")}
    db.close()
    assert reasons and reasons <= {"A wins", "B wins", "draw"}, reasons
