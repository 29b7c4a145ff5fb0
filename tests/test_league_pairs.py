"""Stored games as pairwise statistics: pairs found in a real store, and the leaderboard's Elo
columns, through the API and the arena command."""

import csv
import io
import json
import subprocess
import sys

import pytest

from arena.league import RatingConfig, Store, build_leaderboard, make_fixtures, render
from arena.league.pairs import between, match_results
from arena.record import BotEntry, GameRecord, Termination
from arena.stats import Pentanomial, Trinomial, summarize


def record(fixture, winner, termination=Termination.NORMAL, faulted=None):
    return GameRecord(game="ultimate", rule_options={}, seed=fixture.seed,
                      bots=[BotEntry(fixture.seat0), BotEntry(fixture.seat1)], winner=winner,
                      termination=termination, faulted=faulted)


def stored(path, results):
    with Store(path) as store:
        for fixture, rec in results:
            assert store.add_game(fixture, rec)
        return list(store.records())


def winner_seat(fixture, name):
    """The seat `name` sits in, i.e. the winner value that makes it win."""
    return fixture.seats.index(name)


def test_pairs_of_one_seed_become_pentanomial_counts(tmp_path):
    # counts are from ann's side: "ann" sorts before "bob" (the config lists bob first)
    fixtures = make_fixtures(["bob", "ann"], 10, seed=3)
    by_pair = {}
    for f in fixtures:
        by_pair.setdefault(f.seed, []).append(f)
    plan = {  # pair number -> ann's result in (ann first, bob first) order: W, D or L
        0: "WW", 1: "WD", 2: "WL", 3: "DD", 4: "LD",
    }
    results = []
    for k, pair in enumerate(sorted(by_pair.values(), key=lambda fs: fs[0].key)):
        pair.sort(key=lambda f: f.seat0 != "ann")       # ann first, then bob first
        for fixture, outcome in zip(pair, plan[k]):
            winner = (None if outcome == "D" else winner_seat(fixture, "ann") if outcome == "W"
                      else winner_seat(fixture, "bob"))
            results.append((fixture, record(fixture, winner)))
    table = match_results(stored(tmp_path / "s.sqlite", results))
    assert list(table) == [("ann", "bob")]
    ann = table["ann", "bob"]
    assert ann.pairs.counts == (0, 1, 2, 1, 1)       # LD, WL and DD, WD, WW
    assert ann.games == Trinomial(wins=4, draws=4, losses=2) and ann.unpaired == Trinomial()
    bob = between(table, "bob", "ann")
    assert bob.first == "bob" and bob.pairs.counts == (1, 1, 2, 1, 0)
    assert between(table, "ann", "zed").games.games == 0


def test_a_game_without_its_partner_counts_alone(tmp_path):
    fixtures = make_fixtures(["a", "b", "c"], 4, seed=9)
    # every game won by the first seat, except the a-b games whose partner is left out
    results = [(f, record(f, 0)) for f in fixtures]
    dropped = next(f for f in fixtures if f.pairing == "a|b" and f.round == 1)
    faulted = next(f for f in fixtures if f.pairing == "b|c" and f.round == 3)
    results = [(f, record(f, 1, Termination.TIMEOUT, faulted=0) if f is faulted else r)
               for f, r in results if f is not dropped]
    games = stored(tmp_path / "s.sqlite", results)
    table = match_results(games)
    ab, bc, ac = table["a", "b"], table["b", "c"], table["a", "c"]
    assert (ab.pairs.pairs, ab.unpaired.games, ab.games.games) == (1, 1, 3)
    assert ac.pairs.counts == (0, 0, 2, 0, 0) and ac.unpaired == Trinomial()
    assert bc.pairs.pairs == 2             # the fault is a loss by default
    left_out = match_results(games, faults_count_as_losses=False)["b", "c"]
    assert (left_out.pairs.pairs, left_out.unpaired.games) == (1, 1)
    only = match_results(games, bots=["a", "c"])
    assert list(only) == [("a", "c")]


# --- the leaderboard --------------------------------------------------------------------------

STRENGTH = {"top": 3.0, "mid": 1.0, "twin1": 0.3, "twin2": 0.3}


def league(tmp_path, games_per_pairing=40):
    """top beats everyone, mid beats the twins, the twins are exactly as strong."""
    import random
    rng = random.Random(1)
    results = []
    for f in make_fixtures(list(STRENGTH), games_per_pairing, seed=2):
        a, b = STRENGTH[f.seat0], STRENGTH[f.seat1]
        roll = rng.random() * (a + b + 0.2)
        winner = 0 if roll < a else 1 if roll < a + b else None
        results.append((f, record(f, winner)))
    return stored(tmp_path / "league.sqlite", results)


def test_leaderboard_rows_carry_elo_and_mark_orders_that_are_not_significant(tmp_path):
    games = league(tmp_path)
    board = build_leaderboard(games, RatingConfig(), list(STRENGTH))
    rows = {row.bot: row for row in board.rows}
    assert [row.bot for row in board.rows][:2] == ["top", "mid"]
    assert sum(row.elo for row in board.rows) == pytest.approx(0, abs=1e-6)
    assert rows["top"].elo > rows["mid"].elo + 100 and rows["top"].significant is True
    twins = [row for row in board.rows if row.bot.startswith("twin")]
    assert twins[0].significant is False and twins[1].los_next is None
    # the pairwise view agrees with the fit for the two that only differ by chance
    pair = summarize(between(match_results(games), twins[0].bot, twins[1].bot))
    assert abs(pair.elo) < 60 and pair.pairs == 20

    table = render(board, "table").splitlines()
    standings = {line.split()[1]: line for line in table[2:6]}
    assert standings[twins[0].bot].rstrip().split()[-1] != "~"      # the mark is in LOS>next
    assert " ~ " in standings[twins[0].bot] and " ~ " not in standings["top"]
    assert f"{rows['top'].elo:+.0f}" in standings["top"]
    assert any(line.startswith("Elo: fit over all games (mean 0)") for line in table)
    md = render(board, "md")
    assert "| exposed | LOS>next | Elo | +-95% |" in md and " ~ |" in md


def test_leaderboard_elo_in_csv_and_json_through_the_arena_command(tmp_path):
    league(tmp_path)
    path = str(tmp_path / "league.sqlite")
    def run(*args):
        return subprocess.run([sys.executable, "-m", "arena", "leaderboard", path, *args],
                              capture_output=True, text=True, timeout=120)
    data = json.loads(run("--format", "json").stdout)
    assert data["elo_anchor"] is None
    top = data["rows"][0]
    assert top["bot"] == "top" and top["elo_low"] < top["elo"] < top["elo_high"]
    assert top["elo_high"] - top["elo"] == pytest.approx(top["elo_error"], abs=0.02)
    assert top["significant"] is True and top["los_next"] > 0.95
    assert data["rows"][-1]["los_next"] is None

    anchored = run("--format", "csv", "--anchor", "mid")
    assert anchored.returncode == 0, anchored.stderr
    rows = {r["bot"]: r for r in csv.DictReader(io.StringIO(anchored.stdout))}
    assert float(rows["mid"]["elo"]) == 0 and float(rows["mid"]["elo_error"]) == 0
    assert float(rows["top"]["elo"]) == pytest.approx(top["elo"] - data["rows"][1]["elo"], abs=0.02)
    assert rows[data["rows"][-1]["bot"]]["los_next"] == ""
    assert {row["significant"] for row in rows.values()} <= {"true", "false", ""}   # as json has them

    table = run("--anchor", "mid")
    assert table.returncode == 0 and "Elo: fit over all games (mid at 0)" in table.stdout
    bad = run("--anchor", "nobody")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "--anchor: anchor 'nobody' is not a rated bot" in bad.stderr


def test_pentanomial_counts_of_a_real_store_feed_the_sprt(tmp_path):
    from arena.stats import Decision, SprtSpec, check
    games = league(tmp_path, games_per_pairing=80)
    top_vs_twin = between(match_results(games), "top", "twin1")
    assert isinstance(top_vs_twin.pairs, Pentanomial) and top_vs_twin.pairs.pairs == 40
    assert check(SprtSpec(0, 50), top_vs_twin.pairs).decision is Decision.H1
    assert check(SprtSpec(0, 50), top_vs_twin.swapped().pairs).decision is Decision.H0


def test_a_bot_without_games_has_no_elo_and_breaks_no_format(tmp_path):
    games = league(tmp_path)
    board = build_leaderboard(games, RatingConfig(), [*STRENGTH, "newcomer"])
    assert board.rows[-1].bot == "newcomer"          # mu - 3 sigma = 0: last
    new, above = board.rows[-1], board.rows[-2]
    assert new.elo is None and new.elo_error is None and new.los_next is None
    # LOS comes from the ratings that order the rows: the newcomer's prior (mu 25, sigma 8.3)
    # ranks last by exposed rating, yet may well be the stronger: not significant either way
    assert above.elo is not None and 0.05 < above.los_next < 0.95 and above.significant is False
    line = next(line for line in render(board, "table").splitlines() if " newcomer " in line)
    assert line.split()[6:8] == ["-", "-"]
    assert json.loads(render(board, "json"))["rows"][-1]["elo"] is None
    rows = {r["bot"]: r for r in csv.DictReader(io.StringIO(render(board, "csv")))}
    assert rows["newcomer"]["elo"] == "" and rows["newcomer"]["significant"] == ""
