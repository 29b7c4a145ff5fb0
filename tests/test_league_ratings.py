"""Ratings and leaderboard: replayed from a real store in fixture order, rendered four ways."""

import csv
import io
import json
import random

import pytest
import trueskill  # type: ignore[import-untyped]

from arena.league import Cell, RatingConfig, Store, build_leaderboard, compute_ratings, make_fixtures, render
from arena.league.leaderboard import format_cell
from arena.record import BotEntry, GameRecord, MoveRecord, Termination
from arena.registry import UnknownExtensionError

BOTS = ["ace", "bee", "cat", "dog"]
STRENGTH = {"ace": 4, "bee": 3, "cat": 2, "dog": 1}


def record_for(fixture, winner, termination=Termination.NORMAL, faulted=None, move_ms=(1.0, 2.0)):
    moves = [MoveRecord(seat=i % 2, move=str(i), wall_ms=move_ms[i % 2]) for i in range(6)]
    return GameRecord(game="ultimate", rule_options={"tiebreak": "none"}, seed=fixture.seed,
                      bots=[BotEntry(fixture.seat0), BotEntry(fixture.seat1)], moves=moves,
                      winner=winner, termination=termination, faulted=faulted)


def played(fixtures):
    """A deterministic result per fixture: the stronger bot mostly wins, some draws."""
    results = []
    for f in fixtures:
        rng = random.Random(f.seed)
        roll = rng.random()
        stronger = 0 if STRENGTH[f.seat0] > STRENGTH[f.seat1] else 1
        winner = None if roll < 0.2 else stronger if roll < 0.8 else 1 - stronger
        results.append((f, record_for(f, winner)))
    return results


def fill(path, results):
    with Store(path) as store:
        for fixture, record in results:
            assert store.add_game(fixture, record)
        return list(store.records())


def test_ratings_do_not_depend_on_the_order_games_finished(tmp_path):
    results = played(make_fixtures(BOTS, 10, seed=5))
    boards = []
    for attempt in range(3):
        order = results[:]
        random.Random(attempt).shuffle(order)
        games = fill(tmp_path / f"s{attempt}.sqlite", order)
        boards.append(render(build_leaderboard(games, RatingConfig(), BOTS), "json"))
    assert boards[0] == boards[1] == boards[2]
    ranked = [row["bot"] for row in json.loads(boards[0])["rows"]]
    assert ranked[0] == "ace" and ranked[-1] == "dog"


def test_rows_add_up_and_rank_by_mu_minus_three_sigma(tmp_path):
    results = played(make_fixtures(BOTS, 6, seed=8))
    games = fill(tmp_path / "s.sqlite", results)
    board = build_leaderboard(games, RatingConfig(), BOTS, title="t")
    assert [row.rank for row in board.rows] == [1, 2, 3, 4]
    exposed = [row.rating.value for row in board.rows]
    assert exposed == sorted(exposed, reverse=True)
    for row in board.rows:
        mu, sigma, shown = row.rating.figures
        assert row.rating.value == shown == pytest.approx(mu - 3 * sigma)
        assert row.games == 3 * 6 == row.wins + row.draws + row.losses
        assert row.score == row.wins + 0.5 * row.draws
        assert row.faults == {} and row.mean_move_ms == pytest.approx(1.5)
        cells = board.crosstable[row.bot]
        assert sum(c.wins for c in cells.values()) == row.wins
        assert all(c.games == 6 for c in cells.values())
    assert sum(row.score for row in board.rows) == len(results)
    a, b = board.rows[0].bot, board.rows[1].bot
    assert board.cell(a, b).wins == board.cell(b, a).losses


def test_ratings_replay_with_the_injected_environment_only(tmp_path):
    games = fill(tmp_path / "s.sqlite", played(make_fixtures(BOTS, 4, seed=1)))
    before = trueskill.global_env()
    settings = RatingConfig(mu=100.0, sigma=30.0, beta=20.0, tau=0.5, draw_probability=0.3)
    ratings = compute_ratings(games, settings)
    assert trueskill.global_env() is before and before.mu == 25.0
    env = trueskill.TrueSkill(mu=100.0, sigma=30.0, beta=20.0, tau=0.5, draw_probability=0.3)
    expected = {name: env.create_rating() for name in BOTS}
    for _key, _index, record in games:
        a, b = record.bots[0].name, record.bots[1].name
        if record.winner == 1:
            expected[b], expected[a] = trueskill.rate_1vs1(expected[b], expected[a], env=env)
        else:
            expected[a], expected[b] = trueskill.rate_1vs1(expected[a], expected[b],
                                                           drawn=record.winner is None, env=env)
    for name in BOTS:
        assert ratings.ratings[name].mu == pytest.approx(expected[name].mu)
        assert ratings.ratings[name].sigma == pytest.approx(expected[name].sigma)
        assert ratings.exposed(name) == pytest.approx(expected[name].mu - 3 * expected[name].sigma)


def test_history_has_a_point_after_each_game_of_a_bot(tmp_path):
    games = fill(tmp_path / "s.sqlite", played(make_fixtures(BOTS, 4, seed=1)))
    ratings = compute_ratings(games, RatingConfig())
    for name in BOTS:
        points = ratings.history[name]
        assert len(points) == 3 * 4
        assert (points[-1].mu, points[-1].sigma) == (ratings.ratings[name].mu,
                                                    ratings.ratings[name].sigma)
        sigmas = [p.sigma for p in points]
        assert sigmas[0] < RatingConfig().sigma and sigmas[-1] < sigmas[0]
    keys = [g.key for g in games if "ace" in g.key.split("|")[:2]]
    assert [p.key for p in ratings.history["ace"]] == keys


def faulty_games(tmp_path):
    """ace beats bee twice normally; bee crashes once (as seat 0) and times out once."""
    f = make_fixtures(["ace", "bee"], 4, seed=2)
    by_seat0 = [x for x in f if x.seat0 == "bee"]
    other = [x for x in f if x.seat0 == "ace"]
    results = [
        (other[0], record_for(other[0], 0)),
        (other[1], record_for(other[1], 0)),
        (by_seat0[0], record_for(by_seat0[0], 1, Termination.CRASH, faulted=0)),
        (by_seat0[1], record_for(by_seat0[1], 1, Termination.TIMEOUT, faulted=0)),
    ]
    return fill(tmp_path / "f.sqlite", results)


def test_faults_are_losses_by_default_and_counted_by_kind(tmp_path):
    games = faulty_games(tmp_path)
    board = build_leaderboard(games, RatingConfig())
    ace, bee = board.rows
    assert (ace.bot, ace.wins, ace.losses, ace.faults) == ("ace", 4, 0, {})
    assert (bee.bot, bee.losses, bee.faults) == ("bee", 4, {"timeout": 1, "crash": 1})
    assert board.cell("bee", "ace") == Cell(0, 0, 4)


def test_faults_can_be_left_out_of_ratings_and_standings(tmp_path):
    games = faulty_games(tmp_path)
    settings = RatingConfig(faults_count_as_losses=False)
    board = build_leaderboard(games, settings)
    ace, bee = board.rows
    assert (ace.games, ace.wins, bee.losses, bee.score) == (2, 2, 2, 0.0)
    assert bee.faults == {"timeout": 1, "crash": 1} and bee.fault_count == 2
    assert len(compute_ratings(games, settings).history["ace"]) == 2
    assert board.cell("ace", "bee") == Cell(2, 0, 0)


def test_mean_move_time_per_bot_comes_from_its_own_moves(tmp_path):
    f = make_fixtures(["ace", "bee"], 2, seed=3)
    games = fill(tmp_path / "m.sqlite", [(f[0], record_for(f[0], 0, move_ms=(10.0, 30.0))),
                                         (f[1], record_for(f[1], 0, move_ms=(20.0, 40.0)))])
    rows = {row.bot: row for row in build_leaderboard(games, RatingConfig()).rows}
    seat0_first = {f[0].seat0: 10.0, f[0].seat1: 30.0}
    seat0_second = {f[1].seat0: 20.0, f[1].seat1: 40.0}
    for name in ("ace", "bee"):
        assert rows[name].mean_move_ms == pytest.approx((seat0_first[name] + seat0_second[name]) / 2)


def test_ties_are_ordered_by_name_and_share_a_rank():
    board = build_leaderboard([], RatingConfig(), bots=["zed", "amy", "kim"])
    assert [(row.rank, row.bot) for row in board.rows] == [(1, "amy"), (1, "kim"), (1, "zed")]
    assert all(row.games == 0 and row.mean_move_ms is None for row in board.rows)


def test_bots_given_limit_the_games_counted(tmp_path):
    games = fill(tmp_path / "s.sqlite", played(make_fixtures(BOTS, 2, seed=1)))
    board = build_leaderboard(games, RatingConfig(), bots=["ace", "bee"])
    assert sorted(row.bot for row in board.rows) == ["ace", "bee"]
    assert all(row.games == 2 for row in board.rows)


def test_crosstable_cells_read_like_seed_001_table_1():
    assert format_cell(Cell(55, 20, 25)) == ".55, .20, .25 (100)"
    assert format_cell(Cell(7, 0, 0)) == "1.00, .00, .00 (7)"
    assert format_cell(Cell(1, 1, 1)) == ".33, .33, .33 (3)"
    assert format_cell(None) == format_cell(Cell()) == "-"


@pytest.fixture
def board(tmp_path):
    games = fill(tmp_path / "s.sqlite", played(make_fixtures(BOTS, 4, seed=11)))
    return build_leaderboard(games, RatingConfig(), BOTS, title="demo league")


def test_render_table_is_aligned_plain_text(board):
    text = render(board, "table")
    lines = text.splitlines()
    assert lines[0] == "demo league"
    header, rule = lines[2], lines[3]
    assert header.split() == ["rank", "bot", "score", "mu", "sigma", "exposed", "LOS>next", "Elo",
                              "+-95%", "games", "W", "D", "L", "faults", "move", "ms"]
    standings = lines[4:8]
    end_of_exposed = header.index("exposed") + len("exposed")
    for line, row in zip(standings, board.rows):
        assert line[:end_of_exposed].endswith(f"{row.rating.value:.2f}")     # right-aligned numbers
        assert row.bot in line
    assert set(rule) <= {"-", " "}
    assert "row vs column" in text
    first, second = board.rows[0].bot, board.rows[1].bot
    cell = board.cell(first, second)
    score = f"{100 * (cell.wins + 0.5 * cell.draws) / cell.games:.0f}"
    top = next(line for line in lines if line.startswith(f"1 {first} "))   # compact crosstable
    assert top.split()[2] == score         # its own cell is blank; the next is vs the second
    assert format_cell(cell) in render(board, "table", wide=True)         # today's rates


def test_render_markdown_csv_json(board):
    md = render(board, "md").splitlines()
    assert md[0] == "## demo league"
    assert md[2].startswith("| rank | bot | score |") and md[3].startswith("| ---: | --- |")
    assert sum(1 for line in md if line.startswith("| ace |")) == 1         # crosstable row

    rows = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    assert [r["bot"] for r in rows] == [row.bot for row in board.rows]
    assert {"faults_timeout", "faults_crash", "mean_move_ms"} <= set(rows[0])
    assert float(rows[0]["exposed"]) == pytest.approx(board.rows[0].rating.value, abs=1e-4)

    data = json.loads(render(board, "json"))
    assert data["title"] == "demo league" and len(data["rows"]) == 4
    first, second = board.rows[0].bot, board.rows[1].bot
    cell = data["crosstable"][first][second]
    assert cell["games"] == 4 and cell["text"] == format_cell(board.cell(first, second))

    with pytest.raises(UnknownExtensionError, match="known: table, md, csv, json"):
        render(board, "html")


def test_ratings_updated_game_by_game_in_play_order_from_the_store(tmp_path):
    """A ladder's ratings: each game read from a real store as it is stored (games_since)
    and rated at once; in the order given, exactly what a replay of that order gives."""
    from arena.league.rating_systems import RatedGame, Rater, TrueSkill, rated_game, rater
    settings = RatingConfig()
    results = played(make_fixtures(BOTS, 8, seed=3))
    random.Random(1).shuffle(results)                      # the order games happened to finish
    live, plain = rater(TrueSkill(), settings), Rater(TrueSkill(), settings)
    assert type(live) is not Rater                         # TrueSkill's own update
    seen, after = [], 0
    with Store(tmp_path / "s.sqlite") as store:
        for start in range(0, len(results), 7):            # stored in batches, read as they come
            for fixture, record in results[start:start + 7]:
                store.add_game(fixture, record)
            for id_, game, v0, v1 in store.games_since(after):
                assert id_ > after and (v0, v1) == (1, 1)
                after = id_
                seen.append(game.key)
                assert live.update(game.key, game.record) and plain.update(game.key, game.record)
    assert seen == [f.key for f, _ in results]             # every game once, in play order
    replayed = TrueSkill().rate([rated_game(f.key, r, True) for f, r in results], settings)
    assert live.current() == plain.current() == {name: path[-1] for name, path in replayed.items()}
    in_schedule_order = compute_ratings(sorted(((f.key, f.index, r) for f, r in results),
                                               key=lambda g: g[1]), settings, BOTS)
    assert live.current()["ace"].figures[0] != in_schedule_order.ratings["ace"].mu   # another order
    fixture = results[0][0]
    aborted = record_for(fixture, None, Termination.ABORTED)
    assert not live.update(fixture.key, aborted) and isinstance(plain.games[0], RatedGame)


def test_a_pairings_games_are_counted_by_version_through_an_index(tmp_path):
    import sqlite3
    results = played(make_fixtures(BOTS, 4, seed=2))
    with Store(tmp_path / "s.sqlite") as store:
        for fixture, record in results:
            store.add_game(fixture, record)
        assert store.pairing_count(("ace", 1), ("bee", 1)) == store.pairing_count(("bee", 1), ("ace", 1)) == 4
        assert store.pairing_count(("ace", 2), ("bee", 1)) == 0
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        plan = db.execute("EXPLAIN QUERY PLAN SELECT count(*) FROM games WHERE seat0 = 'a' AND"
                          " v0 = 1 AND seat1 = 'b' AND v1 = 1").fetchall()
        assert "games_by_pairing" in str(plan)
        plan = db.execute("EXPLAIN QUERY PLAN SELECT count(*) FROM games WHERE seat1 = 'a' AND"
                          " v1 = 2").fetchall()
        assert "games_by_seat1" in str(plan)
