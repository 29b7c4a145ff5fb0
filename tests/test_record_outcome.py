"""A record's Outcome, read from what every record version stores, and the one Tally that
counts results from it."""

import json

import pytest

from arena.league.pairs import Tally, match_results
from arena.record import RECORD_VERSION, BotEntry, GameRecord, MoveRecord, Outcome, Result, SeatOut, Termination

#: a game as record version 1 stored it: no `opening`, `scores` written beside the winner
VERSION_1 = json.dumps({
    "game": "tictactoe", "rule_options": {}, "seed": 5,
    "bots": [{"name": "a", "spec": "random", "options": {}}, {"name": "b", "spec": "random", "options": {}}],
    "moves": [{"seat": 0, "move": "4", "wall_ms": 1.0, "cpu_ms": None, "substituted": None, "wait_ms": None},
              {"seat": 1, "move": "0", "wall_ms": 1.0, "cpu_ms": None, "substituted": None, "wait_ms": None}],
    "winner": 0, "termination": "crash", "faulted": 1, "reason": "b (seat 1): exited (exit code 3)",
    "scores": [1.0, 0.0], "stderr_tails": ["", "boom"], "started_at": "", "duration_ms": 3.0,
    "startup_ms": 1.0, "play_ms": 2.0, "version": 1})


def record(a: str, b: str, seed: int, winner: int | None, termination=Termination.NORMAL,
           faulted: int | None = None) -> GameRecord:
    return GameRecord(game="tictactoe", rule_options={}, seed=seed, bots=[BotEntry(a), BotEntry(b)],
                      moves=[MoveRecord(0, "4", 1.0)], winner=winner, termination=termination,
                      faulted=faulted, reason="r")


def test_an_outcome_gives_each_seat_its_result_as_the_standings_count_it():
    assert [Outcome(0).result(s) for s in (0, 1)] == [Result.WIN, Result.LOSS]
    assert [Outcome(None).result(s) for s in (0, 1)] == [Result.DRAW, Result.DRAW]
    fault = Outcome(1, Termination.TIMEOUT, faulted=0)
    assert fault.points() == (0.0, 1.0) and fault.points(faults_count_as_losses=False) is None
    assert fault.result(0, faults_count_as_losses=False) is None
    # a fault is the faulting seat's loss whatever the winner field says
    assert Outcome(None, Termination.CRASH, faulted=1).points() == (1.0, 0.0)
    assert Outcome(None, Termination.ABORTED).points() is None
    assert Outcome(None, Termination.ABORTED).text(["a", "b"]) == "aborted"
    assert fault.text(["a", "b"]) == "a faulted (timeout); b wins"
    assert Outcome(None).text(["a", "b"]) == "draw" and Outcome(1).text(["a", "b"]) == "b wins"


def test_a_version_1_record_reads_and_its_scores_come_from_its_outcome():
    old = GameRecord.from_json(VERSION_1)
    assert old.version == 1 and old.opening == 0
    assert old.outcome == Outcome(0, Termination.CRASH, 1)
    assert old.result("b") is Result.LOSS and old.result("a") is Result.WIN
    assert old.scores == (1.0, 0.0)
    again = GameRecord.from_json(old.to_json())
    assert again.to_dict() == old.to_dict() and again.to_dict()["scores"] == [1.0, 0.0]
    assert old.summary() == "a (x) vs b (o): b faulted (crash); a wins, exited (exit code 3), 2 moves, seed 5"
    with pytest.raises(ValueError):
        old.seat_of("c")
    new = record("a", "b", 1, None)
    assert new.version == RECORD_VERSION and new.scores == (0.5, 0.5)
    assert new.summary() == "a (x) vs b (o): draw, normal, 1 move, seed 1"


def test_the_tally_pairs_seat_swapped_games_as_they_come():
    tally = Tally()
    assert tally.add(record("a", "b", 1, 0)) is False          # a wins as x
    assert tally.add(record("b", "a", 2, None)) is False       # another seed: no partner
    assert tally.add(record("b", "a", 1, 0)) is True           # b wins as x: pair 1 is 1-1
    assert tally.add(record("a", "a", 3, 0)) is False          # a bot against itself: not counted
    tally.add(record("b", "c", 4, 1, Termination.CRASH, faulted=0))
    a_vs_b = tally.between("a", "b")
    assert (a_vs_b.games.wins, a_vs_b.games.draws, a_vs_b.games.losses) == (1, 1, 1)
    assert a_vs_b.pairs.counts == (0, 0, 1, 0, 0) and a_vs_b.unpaired.draws == 1
    assert tally.between("b", "a").games.wins == 1 and tally.between("c", "b").games.wins == 1
    assert list(tally.results()) == [("a", "b"), ("b", "c")]
    left_out = Tally(faults_count_as_losses=False)
    left_out.add(record("b", "c", 4, 1, Termination.CRASH, faulted=0))
    assert left_out.results() == {}
    games = [("k", 0, record("a", "b", 1, 0)), ("k", 1, record("c", "b", 1, 0))]
    assert list(match_results(games, bots=["a", "b"])) == [("a", "b")]


def test_the_records_of_a_stored_league_read_and_write_back_as_stored():
    # tests/data/stored_league holds records of versions 1 and 2; version 3 added fields that
    # are written only where set (ranking, out, a move's turn), so the older ones write back
    # as they were stored (version 1's without an opening gain "opening": 0, as before)
    import sqlite3
    from pathlib import Path
    sql = (Path(__file__).resolve().parent / "data" / "stored_league" / "league.sql").read_text()
    with sqlite3.connect(":memory:") as db:
        db.executescript(sql)
        stored = [row[0] for row in db.execute("SELECT record FROM games ORDER BY id")]
    versions = {1: 0, 2: 0}
    for text in stored:
        read = GameRecord.from_json(text)
        versions[read.version] += 1
        data = json.loads(text)
        if read.version == 1:
            data["opening"] = 0
        assert read.to_dict() == data
        if read.version == 2:
            assert read.to_json() == text
        points = read.outcome.points()
        assert read.ranking is None
        assert read.rank_of() == (None if points is None else [int(points[0] < points[1]), int(points[1] < points[0])])
        assert read.turns() == [[m] for m in read.moves]
    assert versions == {1: 5, 2: 31}


def test_arena_replay_prints_the_games_of_versions_1_and_2_as_before(tmp_path, capsys):
    """Every game of tests/data/stored_league (records of versions 1 and 2), replayed by
    `arena replay STORE --game N`, prints what the arena of record version 2 printed
    (expected/replays.txt was written by the commit before records went to version 3, and
    compared equal with the code after)."""
    import sqlite3
    from pathlib import Path

    from arena.cli import main
    data = Path(__file__).resolve().parent / "data" / "stored_league"
    store = tmp_path / "league.sqlite"
    with sqlite3.connect(store) as db:
        db.executescript((data / "league.sql").read_text())
    db.close()
    printed = []
    for number in range(1, 25):
        assert main(["replay", str(store), "--game", str(number)]) == 0
        printed.append(capsys.readouterr().out)
    assert "".join(printed) == (data / "expected" / "replays.txt").read_text()
    # version 1 records among them (blind and random's games are of their first version)
    assert any("fixture blind|random|0|0)" in text for text in printed)


def _tron(bots: list[str], turns: list[list[str]], **fields) -> GameRecord:
    """A hand-made record of a tron game: each turn's moves by seat."""
    moves = [MoveRecord(seat, move, 1.0, turn=number)
             for number, turn in enumerate(turns) for seat, move in enumerate(turn) if move]
    return GameRecord(game="tron", rule_options={"players": len(bots)}, seed=3,
                      bots=[BotEntry(name) for name in bots], moves=moves, **fields)


def test_a_summary_of_seats_moving_at_once_names_every_seat_its_bot_and_place():
    """Two cycles were summed up as 'a (x) vs b (o): b wins': tron has no x and o, and the
    places, turns and a fault's reason belong to the seats."""
    won = _tron(["a", "b"], [["u", "d"], ["l", "l"]], winner=1, ranking=[1, 0])
    assert won.summary() == "a, b by seat: b 1st, a 2nd, normal, 2 turns, 4 moves, seed 3"
    tie = _tron(["a", "b"], [["r", "l"]], ranking=[0, 0])
    assert tie.summary() == "a, b by seat: a 1st, b 1st, normal, 1 turn, 2 moves, seed 3"
    late = _tron(["a", "b"], [["u", "d"]], winner=0, ranking=[0, 1], termination=Termination.TIMEOUT,
                 faulted=1, reason="b (seat 1): replied too late to move on turn 2 within 100 ms")
    assert late.summary() == ("a, b by seat: a 1st, b 2nd, b faulted (timeout): replied too late to "
                              "move on turn 2 within 100 ms, 1 turn, 2 moves, seed 3")
    three = _tron(["a", "b", "c"], [["u", "d", "l"], ["u", "d", ""]], winner=1, ranking=[1, 0, 2],
                  out=[SeatOut(2, 1, Termination.CRASH, "c (seat 2): exited (exit code 1)")])
    assert three.summary() == ("a, b, c by seat: b 1st, a 2nd, c 3rd, normal (c out on turn 2 (crash)), "
                               "2 turns, 5 moves, seed 3")
    # a cycle that did not start: no move tells the seats moved at once; the game does
    unborn = _tron(["a", "b"], [], winner=0, ranking=[0, 1], termination=Termination.STARTUP_FAILURE,
                   faulted=1, reason="b (seat 1): could not start: no such file")
    assert unborn.summary(at_once=True) == ("a, b by seat: a 1st, b 2nd, b faulted (start-up failure): "
                                            "could not start: no such file, 0 turns, 0 moves, seed 3")
    # two seats taking turns read as before, x and o
    assert record("a", "b", 1, 0).summary() == "a (x) vs b (o): a wins, normal, 1 move, seed 1"
