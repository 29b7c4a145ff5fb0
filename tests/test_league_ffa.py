"""Leagues of games of more than two seats (free-for-all): the balanced schedule, the
keys, the store, the ratings and the leaderboard, through real configs, stores and runs."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from arena.league.schedule import ffa_key, fixture_key, make_ffa_fixtures, parse_fixture_key


@pytest.mark.parametrize("bots, seats, games", [(6, 4, 60), (6, 4, 62), (5, 3, 45), (7, 4, 100),
                                                (4, 3, 10), (12, 4, 200), (16, 4, 120)])
def test_every_bot_plays_every_seat_equally_often_and_pairs_meet_evenly(bots, seats, games):
    names = [f"bot{i}" for i in range(bots)]
    fixtures = make_ffa_fixtures(names, seats, games, seed=11)
    assert len(fixtures) == games and len({f.key for f in fixtures}) == games
    assert [f.index for f in fixtures] == list(range(games))
    seat_counts = Counter((name, s) for f in fixtures for s, name in enumerate(f.seats))
    for name in names:   # every seat of a bot's within one game of the others
        counts = [seat_counts[name, s] for s in range(seats)]
        assert max(counts) - min(counts) <= 1, (name, counts)
    played = Counter(name for f in fixtures for name in f.seats)
    assert max(played.values()) - min(played.values()) <= seats   # one block at most
    met = Counter(frozenset(p) for f in fixtures for p in combinations(f.seats, 2))
    assert len(met) == bots * (bots - 1) // 2    # every two bots meet
    # within three blocks of games (a block: one group seated in turn at every seat); the
    # tron-ffa league's six bots at four seats, within one
    spread = 1 if (bots, seats) == (6, 4) else 3
    assert max(met.values()) - min(met.values()) <= spread * seats, met
    assert all(len(set(f.seats)) == seats for f in fixtures)


def test_the_schedule_is_fixed_by_the_seed_and_keys_read_back():
    names = ["a", "b", "c", "d", "e", "f"]
    first = make_ffa_fixtures(names, 4, 20, seed=3)
    assert first == make_ffa_fixtures(names, 4, 20, seed=3)
    assert [f.seats for f in first] != [f.seats for f in make_ffa_fixtures(names, 4, 20, seed=4)]
    block = first[:4]    # one group, rotated through the seats, sharing a seed
    assert {frozenset(f.seats) for f in block} == {frozenset(block[0].seats)}
    assert [f.seats[0] for f in block] == list(block[0].seats)
    assert len({f.seed for f in block}) == 1
    fixture = first[5]
    parts = parse_fixture_key(fixture.key)
    assert fixture.key == ffa_key(fixture.seats, 5) == "|".join(fixture.seats) + "||5"
    assert parts is not None and (parts.first, parts.second, *parts.more) == fixture.seats
    assert parts.pair == 5
    # two-seat keys read as they always did, a name made of digits included
    assert parse_fixture_key(fixture_key("1", "2", 3, 0, (4, 5))) == ("1", "2", 3, 0, (4, 5), ())


def _league(tmp_path, games):
    text = ("name: ffa\ngame: tron\nrules: {players: 3, width: 8, height: 8}\nbots:\n"
            "  - {name: a, bot: tron-random}\n  - {name: b, bot: tron-territory, options: {depth: 1}}\n"
            "  - {name: c, bot: tron-random, options: {seed: 5}}\n  - {name: d, bot: random}\n"
            f"games: {games}\nworkers: 2\nstore: league.sqlite\nseed: 9\n"
            "time_control: {move_ms: 2000, startup_ms: 10000}\n")
    path = tmp_path / "ffa.yaml"
    path.write_text(text)
    return path


def test_a_three_seat_league_plays_stores_resumes_and_rates_as_trueskill_does(tmp_path):
    import subprocess
    import sys

    import trueskill

    from arena.league.config import RatingConfig
    from arena.league.leaderboard import build_leaderboard, render
    from arena.league.ratings import make_env
    from arena.league.store import Store

    run = [sys.executable, "-m", "arena", "run"]
    first = subprocess.run([*run, str(_league(tmp_path, 6))], capture_output=True, text=True,
                           cwd=tmp_path, timeout=600)
    assert first.returncode == 0, first.stderr
    assert "6 of 6 stored" in first.stderr
    again = subprocess.run([*run, str(_league(tmp_path, 9))], capture_output=True, text=True,
                           cwd=tmp_path, timeout=600)
    assert again.returncode == 0 and "3 games played" in again.stderr, again.stderr
    with Store(tmp_path / "league.sqlite", readonly=True) as store:
        games = list(store.records(current=True))
    assert len(games) == 9 and all(len(g.record.bots) == 3 for g in games)
    for game in games:   # every seat stored and read back as played
        parts = parse_fixture_key(game.key)
        assert parts is not None
        assert (parts.first, parts.second, *parts.more) == tuple(b.name for b in game.record.bots)
    # TrueSkill's free-for-all: the package's rate() with ranks, game by game, in order
    env, expected = make_env(RatingConfig()), {}
    for game in games:
        names = [b.name for b in game.record.bots]
        teams = [(expected.get(name, env.create_rating()),) for name in names]
        for name, (rating,) in zip(names, env.rate(teams, ranks=game.record.rank_of())):
            expected[name] = rating
    board = build_leaderboard(games, RatingConfig())
    for row in board.rows:
        assert row.rating.figures[:2] == (expected[row.bot].mu, expected[row.bot].sigma)
    assert isinstance(trueskill.Rating(), trueskill.Rating)
    # mean rank and first places; the crosstable's pairwise counts
    firsts = sum(row.firsts for row in board.rows)
    assert firsts >= 9 and sum(row.games for row in board.rows) == 27
    for row in board.rows:
        places = [1 + sorted(g.record.rank_of()).index(g.record.rank_of()[seat])
                  for g in games for seat, b in enumerate(g.record.bots) if b.name == row.bot]
        assert row.mean_rank == sum(places) / len(places)
    a_b, b_a = board.cell("a", "b"), board.cell("b", "a")
    assert (a_b.wins, a_b.draws, a_b.losses) == (b_a.losses, b_a.draws, b_a.wins)
    assert "mean rank" in render(board, "table") and "firsts" in render(board, "md")
    assert "mean_rank" in render(board, "csv") and '"firsts"' in render(board, "json")
    # arena replay reads a game of three seats from the store (it raised a ValueError)
    shown = subprocess.run([sys.executable, "-m", "arena", "replay", "league.sqlite", "--game", "1"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=600)
    names = [b.name for b in games[0].record.bots]
    assert shown.returncode == 0, shown.stderr
    assert f"played by {names[0]} v1, {names[1]} v1 and {names[2]} v1" in shown.stdout
    # the site is published (it raised on a record of three bots) and lists every seat's games
    site = subprocess.run([sys.executable, "-m", "arena", "publish", "league.sqlite", "--out", "site"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert site.returncode == 0, site.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    pages = {path.name for path in (tmp_path / "site" / "matches").iterdir()}
    for x, y in combinations("abcd", 2):   # a match page for every two bots that met
        assert f"{x}~{y}.html" in pages or f"{y}~{x}.html" in pages, (x, y, pages)


def test_a_free_for_all_key_reads_back_whole():
    key = ffa_key(("a", "1", "2", "3"), 12)
    assert fixture_key(*parse_fixture_key(key)) == key


def test_a_bot_changed_in_any_seat_has_its_games_played_again_and_the_old_kept(tmp_path):
    import subprocess
    import sys

    from arena.league.store import Store

    run = [sys.executable, "-m", "arena", "run"]
    config = _league(tmp_path, 6)
    first = subprocess.run([*run, str(config)], capture_output=True, text=True, cwd=tmp_path,
                           timeout=600)
    assert first.returncode == 0, first.stderr
    with Store(tmp_path / "league.sqlite", readonly=True) as store:
        before = list(store.records(current=True))
    with_c = [g.key for g in before if "c" in [b.name for b in g.record.bots]]
    seats_of_c = {[b.name for b in g.record.bots].index("c") for g in before if g.key in with_c}
    assert 2 in seats_of_c    # c sits in seat 2 in some game: the case a two-seat store lacks
    config.write_text(config.read_text().replace("{seed: 5}", "{seed: 6}"))   # c: version 2
    again = subprocess.run([*run, str(config)], capture_output=True, text=True, cwd=tmp_path,
                           timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"{len(with_c)} games played" in again.stderr, again.stderr
    with Store(tmp_path / "league.sqlite", readonly=True) as store:
        after = list(store.records(current=True))
        assert store.count() == 6 + len(with_c)     # the old version's games stay, as history
        versions = {(v.bot, v.version): v.games for v in store.versions()}
        every, _info = store.rated_games(all_versions=True)
    assert {b.name for g in every for b in g.record.bots} >= {"c@1", "c@2", "a@1"}
    assert all("@" in b.name for g in every for b in g.record.bots)   # every seat named so
    assert sorted(g.key for g in after) == sorted(g.key for g in before)
    assert versions[("c", 1)] == versions[("c", 2)] == len(with_c)
    assert versions[("a", 1)] == sum("a" in [b.name for b in g.record.bots] for g in before) + \
        sum("a" in [b.name for b in g.record.bots] for g in after if g.key in with_c)
    # arena forget c@1 deletes its games in every seat, seat 2 too, and nothing else
    forgot = subprocess.run([sys.executable, "-m", "arena", "forget", "league.sqlite", "c@1", "--yes"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert forgot.returncode == 0 and f"{len(with_c)} games deleted" in forgot.stdout, forgot
    with Store(tmp_path / "league.sqlite", readonly=True) as store:
        assert store.count() == 6 and len(list(store.records(current=True))) == 6
        assert {(v.bot, v.version) for v in store.versions()} >= {("c", 2)}
        assert ("c", 1) not in {(v.bot, v.version) for v in store.versions()}


def _three(names, ranking, out=()):
    from arena.record import BotEntry, GameRecord, SeatOut, Termination
    return GameRecord(game="tron", rule_options={"players": 3}, seed=1,
                      bots=[BotEntry(n) for n in names], ranking=list(ranking),
                      stderr_tails=["", "", ""],
                      out=[SeatOut(seat, 2, Termination.TIMEOUT, "slept") for seat in out])


def test_the_pairwise_split_counts_ahead_as_a_win_and_a_tie_as_a_draw_and_faults_as_set():
    from arena.league.config import RatingConfig
    from arena.league.leaderboard import build_leaderboard

    games = [("a|b|c||0", 0, _three("abc", [0, 1, 1])),
             ("b|c|a||1", 1, _three("bca", [2, 0, 1], out=[0]))]
    board = build_leaderboard(games, RatingConfig())
    ab, bc, ca = board.cell("a", "b"), board.cell("b", "c"), board.cell("c", "a")
    assert (ab.wins, ab.draws, ab.losses) == (2, 0, 0)   # a ahead of b in both
    assert (bc.wins, bc.draws, bc.losses) == (0, 1, 1)   # tied, then b out first: behind c
    assert (ca.wins, ca.draws, ca.losses) == (1, 0, 1)
    rows = {row.bot: row for row in board.rows}
    assert (rows["a"].mean_rank, rows["a"].firsts, rows["a"].games) == (1.5, 1, 2)
    assert (rows["b"].mean_rank, rows["b"].faults) == (2.5, {"timeout": 1})
    assert all(row.elo is not None for row in board.rows)   # the fit reads the split
    # faults not counted as losses: the game with a seat out is left out of all of it
    lenient = build_leaderboard(games, RatingConfig(faults_count_as_losses=False))
    rows = {row.bot: row for row in lenient.rows}
    assert (rows["a"].games, rows["b"].mean_rank) == (1, 2.0)
    assert lenient.cell("b", "c").games == 1


def test_a_ladder_of_three_seat_games_plays_blocks_of_three_bots_and_resumes(tmp_path):
    import subprocess
    import sys

    from arena.league.store import Store

    path = _league(tmp_path, 6)
    text = path.read_text().replace("games: 6\n", "schedule: ladder\nladder: {games: 9}\n")
    path.write_text(text.replace("bots:\n", "bots:\n  - {name: e, bot: tron-random, "
                                             "options: {seed: 7}}\n"))
    run = [sys.executable, "-m", "arena", "run", str(path)]
    first = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert first.returncode == 0, first.stderr
    assert "finished (games: 9 stored): 9 games played" in first.stderr, first.stderr
    path.write_text(path.read_text().replace("games: 9}", "games: 15}"))
    again = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert "finished (games: 15 stored): 6 games played" in again.stderr, again.stderr
    with Store(tmp_path / "league.sqlite", readonly=True) as store:
        games = list(store.records(current=True))
    assert len(games) == 15 and len({g.key for g in games}) == 15   # no key minted twice
    blocks: dict[tuple, list[tuple[str, ...]]] = {}   # in blocks of three: one group, every seat
    for game in games:
        seated = tuple(b.name for b in game.record.bots)
        parts = parse_fixture_key(game.key)
        assert len(set(seated)) == 3 and (parts.first, parts.second, *parts.more) == seated
        blocks.setdefault((tuple(sorted(seated)), parts.pair // 3), []).append(seated)
    assert len(blocks) == 5
    for seatings in blocks.values():
        assert sorted(s[0] for s in seatings) == sorted(seatings[0])
    assert "mean rank" in again.stdout


def test_territory_at_depth_2_keeps_to_its_time_in_a_four_player_league(tmp_path):
    # tournaments/tron-ffa.yaml's territory-2 timed out on move 1 of every game: its depth 2
    # over four cycles is about 20,000 positions, over a second of CPU on 8x8 too; it now
    # deepens only while its time (a share of move_ms, as mcts's) lasts
    import subprocess
    import sys

    from arena.league.store import Store

    path = tmp_path / "ffa.yaml"
    path.write_text("name: ffa\ngame: tron\nrules: {players: 4, width: 8, height: 8}\nbots:\n"
                    "  - {name: deep, bot: tron-territory, options: {depth: 2}}\n"
                    "  - {name: a, bot: tron-random}\n  - {name: b, bot: tron-random, options: {seed: 5}}\n"
                    "  - {name: c, bot: tron-territory}\n"
                    "games: 4\nworkers: 2\nstore: league.sqlite\nseed: 9\n"
                    "time_control: {move_ms: 300, startup_ms: 10000}\n")
    run = subprocess.run([sys.executable, "-m", "arena", "run", str(path)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr
    with Store(tmp_path / "league.sqlite", readonly=True) as store:
        games = [game.record for game in store.records(current=True)]
    assert len(games) == 4
    faults = [out.reason for game in games for out in game.out] + [
        game.reason for game in games if game.faulted is not None]
    assert faults == [], faults


@pytest.mark.parametrize("seed", range(3))
def test_nine_bots_at_four_seats_all_meet_in_nine_blocks_and_a_longer_schedule_begins_with_it(seed):
    # the schedule drawn block by block left a pair unmet while two pairs met three times
    # (9 bots, 4 seats, 9 blocks); drawn in rounds, every two bots meet, every bot plays 16
    from arena.league.schedule import ffa_balance
    names = list("abcdefghi")
    fixtures = make_ffa_fixtures(names, 4, 36, seed)
    met = Counter(frozenset(pair) for f in fixtures for pair in combinations(f.seats, 2))
    assert len(met) == 36 and max(met.values()) <= 3 * 4, met          # in 1 to 3 blocks
    assert set(Counter(name for f in fixtures for name in f.seats).values()) == {16}
    assert ffa_balance(fixtures, names) is None
    longer = make_ffa_fixtures(names, 4, 50, seed)
    assert longer[:36] == fixtures                  # more games: the same first ones, more after
    note = ffa_balance(longer, names)
    assert note is not None and "bots play 20 to 24 games" in note and "multiple of 36 games" in note


def _nine(tmp_path, games):
    bots = "".join(f"  - {{name: {c}, bot: random}}\n" for c in "abcdefghi")   # one process to start
    path = tmp_path / "ffa9.yaml"
    path.write_text(f"name: ffa9\ngame: tron\nrules: {{players: 4, width: 4, height: 4}}\nbots:\n{bots}"
                    f"games: {games}\nworkers: 2\nstore: ffa9.sqlite\nseed: 9\n")
    return path


#: arena run as arena drew free-for-all schedules before the rounds (block by block)
AS_BEFORE = ("import importlib, sys\ns = importlib.import_module('arena.league.schedule')\n"
             "drawn = s.make_ffa_fixtures\n"
             "s.make_ffa_fixtures = lambda bots, seats, games, seed, method='': \\\n"
             "    drawn(bots, seats, games, seed, 'greedy')\n"
             "from arena.cli import main\nsys.exit(main(sys.argv[1:]))\n")


def test_a_nine_bot_league_meets_every_pair_says_when_it_cannot_and_keeps_an_older_stores_schedule(tmp_path):
    import subprocess
    import sys

    from arena.league.schedule import schedule
    from arena.league.store import Store

    def arena(*args, code=None):
        command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "arena", *args]
        return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)

    def met(path):
        with Store(path, readonly=True) as store:
            games = [game.record for game in store.records(current=True)]
        return Counter(frozenset(pair) for game in games for pair in combinations((b.name for b in game.bots), 2))

    first = arena("run", str(_nine(tmp_path, 36)))
    assert first.returncode == 0, first.stderr
    assert "not balanced" not in first.stderr and "36 of 36 stored" in first.stderr
    assert len(met(tmp_path / "ffa9.sqlite")) == 36          # every two of the nine met
    # a store an earlier arena filled (block by block) keeps its schedule: its games stay the
    # league's and it resumes where it stopped, saying so
    old = tmp_path / "old"
    old.mkdir()
    written = arena("run", str(_nine(old, 8)), code=AS_BEFORE)
    assert written.returncode == 0, written.stderr
    resumed = arena("run", str(_nine(old, 12)))
    assert resumed.returncode == 0, resumed.stderr
    assert "ffa9: its 8 stored free-for-all games follow the schedule an earlier arena drew" in resumed.stderr
    assert "playing 4" in resumed.stderr and "12 of 12 stored" in resumed.stderr
    # 12 games of nine bots are no whole round: said before play
    assert "ffa9: the free-for-all schedule of 12 games is not balanced, the nearest found: bots play " \
           "4 to 8 games (every one of the 9 plays as many in a multiple of 36 games)" in resumed.stderr
    from arena.league import load_config
    config = load_config(str(_nine(old, 12)))
    with Store(old / "ffa9.sqlite", readonly=True) as store:
        assert store.done_keys() == {f.key for f in schedule(config, ffa_method="greedy")}
