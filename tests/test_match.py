"""`arena match` as a test runner, as a user runs it: the real command, real sandboxed bots,
the league's worker processes, a real SQLite store killed mid-run and resumed."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from arena.league import Store
from arena.league.pairs import between, match_results

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena"]


def arena(*args, cwd=ROOT):
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=600, cwd=cwd,
                          check=False)


def lines_of(stdout: str):
    *games, summary = [json.loads(line) for line in stdout.splitlines()]
    return games, summary["summary"]


def test_sprt_accepts_h1_for_mcts_over_random_long_before_the_cap():
    # mcts with a fixed number of simulations: strong and fast, whatever the machine's load
    out = arena("match", "mcts:time_ms=0,iterations=100", "uttt-random", "--game", "ultimate",
                "--sprt", "elo0=0,elo1=100", "--concurrency", "2", "--name", "A=mcts",
                "--seed", "1", "--json")
    assert out.returncode == 0, out.stderr
    games, summary = lines_of(out.stdout)
    assert summary["result"] == "H1 accepted: mcts is stronger"
    assert summary["sprt"]["decision"] == "H1 accepted"
    assert summary["sprt"]["llr"] >= summary["sprt"]["upper"] > 2.9
    assert summary["cap"] == 2000 and summary["games"] < 100      # far before the cap
    assert summary["a"] == "mcts"
    # the test counts the pairs it read, in order; games of later pairs that finished (on
    # the other worker, while the deciding pair's last game went on: as many as that worker
    # plays meanwhile, 2 in 1 run of 18) are printed and stored, not counted
    assert summary["games"] == 2 * summary["sprt"]["pairs"] <= len(games)
    assert sum(summary["pentanomial"]) == summary["sprt"]["pairs"] == summary["pairs"]
    # pairs share a seed, with the seats swapped
    by_seed = {}
    for g in games:
        by_seed.setdefault(g["seed"], []).append([b["name"] for b in g["bots"]])
    assert all(sorted(seats) == [["mcts", "uttt-random"], ["uttt-random", "mcts"]]
               for seats in by_seed.values() if len(seats) == 2)
    assert "H1 accepted: mcts is stronger" in out.stderr    # the closing status line too


def test_equal_bots_with_names_never_accept_h1_and_stop_at_the_cap():
    out = arena("match", "uttt-random", "uttt-random", "--game", "ultimate", "--games", "24",
                "--name", "A=new", "--name", "b=old", "--sprt", "elo0=0,elo1=20",
                "--concurrency", "2", "--seed", "2", "--status-every", "4")
    assert out.returncode == 0, out.stderr
    assert "H1" not in out.stdout
    result = next(line for line in out.stdout.splitlines() if line.startswith("result: "))
    assert result in ("result: game cap reached (24 games) without a decision",
                      "result: H0 accepted: new is not 20 Elo stronger than old (elo0=0 holds)")
    assert out.stdout.splitlines()[-2].startswith("new: ") and out.stdout.splitlines()[-1].startswith("old: ")
    assert "new vs old: 24 games, 12 seat-swapped pairs" in out.stdout
    # piped: a status line every 4 games, with W/D/L, score, Elo [its interval], LOS and the LLR
    status = [line for line in out.stderr.splitlines() if line.startswith("[")]
    assert len(status) == 6, out.stderr
    assert all("new W" in line and "Elo " in line and "LOS " in line and "LLR " in line
               and "[-2.94, 2.94]" in line for line in status)
    same = arena("match", "uttt-random", "uttt-random", "--game", "ultimate", "--name", "A=x",
                 "--name", "B=x")
    assert same.returncode == 2 and "give them different names" in same.stderr
    bad = arena("match", "uttt-random", "random", "--game", "ultimate", "--sprt", "elo0=5,elo1=5")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "elo1 must be above elo0" in bad.stderr


def stored(db: Path):
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT fixture_key, record FROM games"))


def test_a_killed_match_resumes_from_its_store_and_a_changed_one_is_refused(tmp_path):
    # bot A is a gate (tests/fixture_bots/gate_bot.py): each of its processes plays 3 games,
    # then waits until the gate opens, so the match is killed mid-way after 6 games (2
    # workers), however fast or loaded the machine; the time per move outlasts the wait
    gate = tmp_path / "gate"
    gate.mkdir()
    shutil.copy(ROOT / "tests" / "fixture_bots" / "gate_bot.py", gate / "gate_bot.py")
    db = tmp_path / "test.sqlite"
    args = ["match", f"arena:python3 {gate}/gate_bot.py 3", "uttt-random", "--name", "A=gate",
            "--game", "ultimate", "--games", "60", "--move-ms", "3600000", "--concurrency", "2",
            "--store", str(db), "--sprt", "elo0=0,elo1=20", "--json"]
    proc = subprocess.Popen([*ARENA, *args, "--seed", "9"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        for seen, _line in enumerate(proc.stdout, 1):   # six games reported (so stored)
            if seen == 6:
                break
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)   # the command and its workers
        except ProcessLookupError:                # it failed: the asserts below say how
            pass
        proc.wait()
        proc.stdout.close()
    before = stored(db)
    assert len(before) == 6
    (gate / "open").mkdir()
    again = arena(*args)           # no --seed: the stored match's seed
    assert again.returncode == 0, again.stderr
    assert f"resuming with {len(before)} games" in again.stderr and "seed 9" in again.stderr
    games, summary = lines_of(again.stdout)
    after = stored(db)
    assert all(after[key] == record for key, record in before.items())   # kept as they were
    assert len(after) == len(before) + len(games) == summary["games"]
    assert summary["stored_before"] == len(before) and summary["played"] == len(games)
    assert summary["result"] in ("game cap reached (60 games) without a decision",
                                 "H0 accepted: gate is not 20 Elo stronger than uttt-random (elo0=0 holds)")
    # the summary's counts are the league's pair statistics of the stored games
    with Store(db) as store:
        results = between(match_results(store.records()), "gate", "uttt-random")
    assert list(results.pairs.counts) == summary["pentanomial"]
    assert (results.games.wins, results.games.draws, results.games.losses) == \
        (summary["wins"], summary["draws"], summary["losses"])
    # a finished test plays nothing more
    done = arena(*args)
    assert done.returncode == 0 and lines_of(done.stdout)[1]["played"] == 0
    # another bot option, another test: refused in one line, the store untouched
    changed = arena("match", args[1], "uttt-random:seed=3", *args[3:])
    assert changed.returncode == 2 and changed.stderr.count("\n") == 1
    assert 'holds another match: match.bots[1].name is "uttt-random" there, "uttt-random:seed=3" here' \
        in changed.stderr, changed.stderr
    other = arena(*args[:-3], "--sprt", "elo0=0,elo1=10")
    assert other.returncode == 2
    assert "match.sprt is 'elo0=0,elo1=20,alpha=0.05,beta=0.05,model=logistic' there" in other.stderr
    assert stored(db) == after
    board = arena("leaderboard", str(db), "--format", "json")   # a match store is a store
    assert board.returncode == 0, board.stderr


def versions_of(db: Path):
    """(seat0, v0, seat1, v1) -> how many games, of every game stored."""
    with sqlite3.connect(db) as conn:
        return {tuple(row[:4]): row[4] for row in conn.execute(
            "SELECT seat0, v0, seat1, v1, count(*) FROM games GROUP BY 1, 2, 3, 4")}


def test_a_stored_match_counts_only_the_games_of_the_bots_current_versions(tmp_path):
    # a bot of the user's own (the SDK's first-legal-move example) in a directory of its own
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(ROOT / "examples" / "first_move_bot.py", mine / "bot.py")
    db = tmp_path / "m.sqlite"
    args = ["match", f"arena:python3 {mine}/bot.py", "random", "--name", "A=mine", "--game",
            "tictactoe", "--games", "4", "--seed", "3", "--store", str(db), "--json",
            "--save", str(mine / "games.jsonl")]      # beside the bot, but never part of it
    first = arena(*args)
    assert first.returncode == 0, first.stderr
    assert lines_of(first.stdout)[1]["played"] == 4
    same = arena(*args)                  # nothing changed: the stored games count
    assert same.returncode == 0, same.stderr
    assert lines_of(same.stdout)[1]["played"] == 0 and lines_of(same.stdout)[1]["games"] == 4
    assert "changed" not in same.stderr
    # the bot's script edited: its 4 old games are not counted, its new version plays 4
    (mine / "bot.py").write_text((mine / "bot.py").read_text() + "# tuned\n")
    edited = arena(*args)
    assert edited.returncode == 0, edited.stderr
    assert "bot 'mine' changed since the stored games (files changed (bot.py)): its 4 old " \
        "games are not counted" in edited.stderr, edited.stderr
    games, summary = lines_of(edited.stdout)
    assert len(games) == 4 and summary["played"] == 4 and summary["stored_before"] == 0
    assert summary["games"] == 4          # not 8: the old version's games are left out
    assert sum(versions_of(db).values()) == 8     # both versions' games stay in the store
    assert {key: n for key, n in versions_of(db).items() if 2 in (key[1], key[3])} == {
        ("mine", 2, "random", 1): 2, ("random", 1, "mine", 2): 2}
    again = arena(*args)                  # the new version's games are reused
    assert again.returncode == 0 and lines_of(again.stdout)[1]["played"] == 0
    assert "changed" not in again.stderr
    # the same name with another command is another version too, as in a league
    shutil.copy(mine / "bot.py", mine / "other.py")
    moved = arena(args[0], f"arena:python3 {mine}/other.py", *args[2:])
    assert moved.returncode == 0, moved.stderr
    assert "bot 'mine' changed since the stored games (files changed (other.py); command " \
        f"changed (python3 {mine}/bot.py -> python3 {mine}/other.py))" in moved.stderr, moved.stderr
    assert "its 8 old games are not counted" in moved.stderr   # of versions 1 and 2
    assert lines_of(moved.stdout)[1]["played"] == 4
    versions = arena("versions", str(db))
    assert versions.returncode == 0, versions.stderr
    assert "mine" in versions.stdout


def test_a_match_store_from_before_bot_versions_still_resumes_and_says_so(tmp_path):
    # as an older arena wrote it: the bots' commands in the match's identity, no versions
    db = tmp_path / "old.sqlite"
    args = ["match", "random", "ttt-blind", "--game", "tictactoe", "--games", "4", "--seed", "5",
            "--store", str(db), "--json"]
    assert arena(*args).returncode == 0
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM versions")
        conn.execute("UPDATE league SET value = ? WHERE key = 'match.bots'", (json.dumps(
            [{"name": name, "spec": name, "dialect": "arena", "argv": ["python3"], "options": {},
              "readable": []} for name in ("random", "ttt-blind")], sort_keys=True),))
    resumed = arena(*args)
    assert resumed.returncode == 0, resumed.stderr
    games, summary = lines_of(resumed.stdout)
    assert summary["played"] == 0 and summary["stored_before"] == 4 and not games
    assert "bot 'random': its 4 stored games were played before arena recorded bot versions" \
        in resumed.stderr, resumed.stderr


# --- the stopping rule, on games whose order of arrival is set by the test ----------------

def _record(fixture, a_points: float):
    from arena.record import BotEntry, GameRecord
    seat_a = 0 if fixture.seat0 == "a" else 1
    winner = None if a_points == 0.5 else seat_a if a_points == 1 else 1 - seat_a
    return GameRecord(game="ultimate", rule_options={}, seed=fixture.seed,
                      bots=[BotEntry(fixture.seat0), BotEntry(fixture.seat1)], winner=winner)


def test_the_sprt_is_checked_when_each_pair_completes_and_the_rest_is_discarded():
    """a wins every game; games arrive with each pair's partner two games late (as from two
    workers): the test stops at the first completed pair whose counts cross the bound, the
    games not yet read are never asked for, and the lone game of the next pair that came
    before the deciding one is not counted (an uninterrupted run in order never has it)."""
    from arena.match import MatchTally, match_fixtures, run_match
    from arena.stats import Decision, Pentanomial, SprtSpec, check
    spec = SprtSpec.parse("elo0=0,elo1=100")
    needed = next(n for n in range(1, 50) if check(spec, Pentanomial((0, 0, 0, 0, n))).decision
                  is Decision.H1)
    fixtures = match_fixtures("a", "b", 200, seed=1)
    order = [f for k in range(0, 100, 2) for f in (fixtures[2 * k], fixtures[2 * k + 2],
                                                   fixtures[2 * k + 1], fixtures[2 * k + 3])]
    handed: list[int] = []
    closed: list[bool] = []

    def play(job, todo, workers):
        assert todo == fixtures and workers == 2
        try:
            for fixture in order:
                handed.append(fixture.index)
                yield fixture, _record(fixture, 1.0)
        finally:
            closed.append(True)

    seen = []
    outcome = run_match(None, fixtures, 2, MatchTally("a", "b"), spec,
                        on_game=lambda f, r: seen.append(f.index), play=play)
    assert outcome.sprt.decision is Decision.H1 and outcome.sprt.samples == needed
    assert outcome.results.pairs.counts == (0, 0, 0, 0, needed)
    assert closed == [True] and handed == seen      # stopped reading at the deciding game
    assert len(seen) == outcome.played >= 2 * needed
    assert outcome.results.games.games == 2 * needed and outcome.results.unpaired.games == 0


def test_a_one_game_match_says_so_in_the_singular(tmp_path):
    out = arena("match", "ttt-master", f"arena:{ROOT / 'examples' / 'first_move_bot.py'}",
                "--game", "tictactoe", "--games", "1", "--seed", "1", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "result: 1 game played" in out.stdout
    assert "ttt-master: 1 win, 0 draws, 0 losses" in out.stdout and ": 0 wins, 0 draws, 1 loss" in out.stdout


def test_the_elo_interval_is_shown_by_its_ends_as_it_is_lopsided():
    """The user's match: a score of 0.850 [0.589, 0.994] and LOS 99.8% printed 'Elo +301.3
    +- 416.1', which reads as an interval holding 0; its ends are +62.6 and +894.7."""
    lookahead = "arena:examples/lookahead_bot.py"    # its name seeds its moves: run from ROOT
    out = arena("match", lookahead, "ttt-blind", "--game", "tictactoe", "--games", "10",
                "--seed", "21", "--status-every", "5")
    assert out.returncode == 0, out.stderr
    assert "examples/lookahead_bot.py: score 0.850 [0.589, 0.994], Elo +301.3 [+62.6, +894.7] (95%), LOS 99.8%, " \
        "draws 10.0%" in out.stdout.splitlines()
    status = [line for line in out.stderr.splitlines() if line.startswith("[")]
    assert status and all(" Elo +" in line and "+-" not in line for line in status), out.stderr
    assert "score 0.850, Elo +301 [+63, +895], LOS 99.8%" in status[-1]
    swept = arena("match", lookahead, "ttt-blind", "--game", "tictactoe", "--games", "10",
                  "--seed", "2", "--json")    # won every game: infinite Elo, the JSON's null
    _games, summary = lines_of(swept.stdout)
    assert summary["elo"] is None and summary["elo_high"] is None and summary["elo_error"] is None
    assert round(summary["elo_low"], 1) == 195.0 and summary["score"] == 1.0
    plain = arena("match", lookahead, "ttt-blind", "--game", "tictactoe", "--games", "10",
                  "--seed", "2")
    assert "Elo +inf [+195.0, +inf] (95%)" in plain.stdout


def test_a_game_of_one_move_and_a_run_of_one_game_are_said_in_the_singular():
    """x answers 'hello' to its first request: the game has that one move (was '1 moves'),
    the summary and status lines say '1 game' (were '1 games')."""
    garbage = f"codingame:python3 {ROOT / 'tests' / 'fixture_bots' / 'fixed_reply_bot.py'} codingame hello"
    out = arena("match", garbage, "random", "--game", "tictactoe", "--games", "1", "--seed", "1",
                "--name", "A=junk", "--status-every", "1")
    assert out.returncode == 0, out.stderr
    assert "junk faulted (malformed output); random wins" in out.stdout
    assert ", 1 move, seed 1" in out.stdout
    assert "junk vs random: 1 game, 0 seat-swapped pairs (" in out.stdout
    assert "junk vs random: up to 1 game, " in out.stderr and "finished: 1 game played; " in out.stderr


# --- a stopped and resumed test reports what an uninterrupted one does -----------------------

def _outcome_facts(outcome):
    from arena.stats import summarize
    s = summarize(outcome.results)
    return (s.wins, s.draws, s.losses, s.games, s.pentanomial, s.elo, outcome.sprt.llr,
            outcome.sprt.samples, outcome.sprt.decision)


def test_a_stopped_and_resumed_test_reads_the_same_pairs_as_an_uninterrupted_one(tmp_path):
    """a loses pair 0 and wins every other game. Uninterrupted, in order, the test decides at
    the pair where pairs 0..k cross the bound. Stopped (Ctrl-C) while pair 0's second game is
    still out and many later pairs are stored, then resumed: the same pairs, the same LLR
    and the same W/D/L (the test read the later pairs without pair 0, and decided on them)."""
    from arena.match import MatchTally, match_fixtures, run_match
    from arena.stats import Decision, SprtSpec
    spec = SprtSpec.parse("elo0=0,elo1=100")
    fixtures = match_fixtures("a", "b", 200, seed=1)

    def record(fixture):
        return _record(fixture, 0.0 if fixture.index < 2 else 1.0)

    def playing(order, stop=False):
        def play(job, todo, workers):
            for fixture in order:
                if fixture in todo:
                    yield fixture, record(fixture)
            if stop:
                raise KeyboardInterrupt
        return play

    with Store(tmp_path / "whole.sqlite") as store:
        whole = run_match(None, fixtures, 2, MatchTally("a", "b"), spec, store,
                          play=playing(fixtures))
    assert whole.sprt.decision is Decision.H1 and whole.results.pairs.counts[0] == 1

    late = [fixtures[0], *fixtures[2:60], fixtures[1], *fixtures[60:]]   # pair 0 waits
    with Store(tmp_path / "stopped.sqlite") as store:
        first = run_match(None, fixtures, 2, MatchTally("a", "b"), spec, store,
                          play=playing(late[:59], stop=True))
        assert first.interrupted and first.played == 59
    with Store(tmp_path / "stopped.sqlite") as store:
        resumed = run_match(None, fixtures, 2, MatchTally("a", "b"), spec, store,
                            play=playing(late))
    assert resumed.already == 59
    assert _outcome_facts(resumed) == _outcome_facts(whole)


def test_a_match_killed_at_a_gate_and_resumed_reports_what_an_uninterrupted_one_does(tmp_path):
    # the gate bot (tests/fixture_bots/gate_bot.py) plays random moves seeded by the game,
    # uttt-reflex by the game's seed too: every game has one result, whoever plays it when.
    # Each gate process plays 3 games, then waits: the match is killed (SIGKILL) after 6
    # games, mid-pair on both workers, then resumed; and played through uninterrupted with
    # 1 and 2 workers. All three report the same pairs, W/D/L, Elo and LLR.
    gate = tmp_path / "gate"
    gate.mkdir()
    shutil.copy(ROOT / "tests" / "fixture_bots" / "gate_bot.py", gate / "gate_bot.py")
    args = ["match", f"arena:python3 {gate}/gate_bot.py 3", "uttt-reflex", "--name", "A=gate",
            "--game", "ultimate", "--games", "400", "--move-ms", "3600000", "--seed", "9",
            "--sprt", "elo0=-100,elo1=0", "--json"]
    killed = tmp_path / "killed.sqlite"
    proc = subprocess.Popen([*ARENA, *args, "--concurrency", "2", "--store", str(killed)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        for seen, _line in enumerate(proc.stdout, 1):   # six games reported (so stored)
            if seen == 6:
                break
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        proc.stdout.close()
    assert len(stored(killed)) == 6
    (gate / "open").mkdir()
    reports = {}
    for name, extra in (("resumed", ["--concurrency", "2", "--store", str(killed)]),
                        ("whole, 1 worker", ["--concurrency", "1", "--store", str(tmp_path / "one.sqlite")]),
                        ("whole, 2 workers", ["--concurrency", "2", "--store", str(tmp_path / "two.sqlite")])):
        out = arena(*args, *extra)
        assert out.returncode == 0, out.stderr
        summary = lines_of(out.stdout)[1]
        reports[name] = {key: summary[key] for key in ("wins", "draws", "losses", "games", "pairs",
                                                       "pentanomial", "elo", "sprt", "result")}
    assert reports["resumed"]["sprt"]["decision"] != "continue", reports
    assert reports["resumed"] == reports["whole, 1 worker"] == reports["whole, 2 workers"], reports


def test_an_sprt_of_two_tron_cycles_decides_resumes_and_refuses_more_seats(tmp_path):
    """arena match plays any game of two seats, seats moving at once included: tron's
    territory bot against its random one is decided by the SPRT, each game line names the
    seats and their places, the games are stored turn by turn, and the store resumes the
    decided test without a game more. Three or four cycles are refused in one line: the SPRT
    counts seat-swapped pairs of two bots."""
    store = tmp_path / "tron.sqlite"
    args = ("match", "tron-territory", "tron-random", "--game", "tron", "--rule", "width=8",
            "--rule", "height=8", "--sprt", "elo0=0,elo1=200", "--games", "60", "--concurrency", "2",
            "--seed", "3", "--store", str(store))
    first = arena(*args)
    assert first.returncode == 0, first.stderr
    assert "result: H1 accepted: tron-territory is stronger" in first.stdout
    game_lines = [line for line in first.stdout.splitlines() if line.startswith("game ")]
    assert game_lines and all(" by seat: " in line and "(x)" not in line for line in game_lines)
    assert any("tron-territory 1st, tron-random 2nd" in line for line in game_lines)
    with Store(store, readonly=True) as stored:
        records = [g.record for g in stored.records()]
    assert records and all(r.ranking is not None and r.moves_at_once for r in records)
    again = arena(*args, "--json")
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout.splitlines()[-1])["summary"]
    assert summary["played"] == 0 and summary["stored_before"] == len(records)
    assert summary["result"] == "H1 accepted: tron-territory is stronger"
    for players in ("3", "4"):
        refused = arena("match", "tron-territory", "tron-random", "--game", "tron", "--rule",
                        f"players={players}", "--sprt", "elo0=0,elo1=200")
        assert refused.returncode == 2 and refused.stdout == ""
        assert refused.stderr.strip() == (f"arena match: error: game 'tron' has {players} seats: arena match "
                                          "plays two bots (give --rule players=2, or play more in a league)")
