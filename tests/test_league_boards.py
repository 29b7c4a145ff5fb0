"""What a table's columns say, through the real CLI on real SQLite stores: one model per
table (the order, and the LOS beside it, from the same ratings), and ladders' tables."""

import csv
import io
import json
import re
import sqlite3
import subprocess
import sys
from statistics import NormalDist

from arena.league import Store, make_fixtures
from arena.league.schedule import parse_fixture_key
from arena.record import BotEntry, GameRecord, MoveRecord, Termination


def arena(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


#: moves of a tic-tac-toe game that x wins, o wins, or that is drawn (the records are
#: replayed through the rules where a site is published)
MOVES = {0: [0, 3, 1, 4, 2], 1: [3, 0, 4, 1, 8, 2], None: [0, 1, 2, 4, 3, 5, 7, 6, 8]}


def record(fixture, winner_name, game="tictactoe"):
    """fixture's game, won by winner_name (None: a draw)."""
    winner = None if winner_name is None else fixture.seats.index(winner_name)
    return GameRecord(game=game, rule_options={}, seed=fixture.seed,
                      bots=[BotEntry(fixture.seat0), BotEntry(fixture.seat1)], winner=winner,
                      moves=[MoveRecord(seat=ply % 2, move=str(cell), wall_ms=1.0)
                             for ply, cell in enumerate(MOVES[winner])])


def disagreeing_store(path):
    """Two bots, 20 games: b wins the first 12 in league order, a the last 8. TrueSkill, which
    weighs late games more, ranks a first; the Elo fit, from the counts alone, puts b ahead."""
    fixtures = sorted(make_fixtures(["a", "b"], 20, seed=1), key=lambda f: f.order)
    with Store(path) as store:
        for i, fixture in enumerate(fixtures):
            assert store.add_game(fixture, record(fixture, "b" if i < 12 else "a"))
    return str(path)


def trueskill_los(row, below):
    """P(row's skill > below's) from their posteriors, written out here."""
    spread = (row["sigma"] ** 2 + below["sigma"] ** 2) ** 0.5
    return NormalDist().cdf((row["mu"] - below["mu"]) / spread)


def test_los_next_comes_from_the_model_that_orders_the_table(tmp_path):
    path = disagreeing_store(tmp_path / "league.sqlite")
    data = json.loads(arena("leaderboard", path, "--format", "json"))
    top, second = data["rows"]
    assert (top["bot"], second["bot"]) == ("a", "b")      # by TrueSkill's exposed rating
    assert top["elo"] < second["elo"]                       # the fit orders them otherwise
    # the row says a is probably stronger than the row below it (the fit's LOS said 26.9% ~)
    assert top["los_next"] > 0.95 and top["significant"] is True
    assert abs(top["los_next"] - trueskill_los(top, second)) < 1e-4
    assert second["los_next"] is None
    assert data["los_next_from"] == "from TrueSkill's mu and sigma, the model the table is ranked by"

    rows = {r["bot"]: r for r in csv.DictReader(io.StringIO(arena("leaderboard", path, "--format", "csv")))}
    assert float(rows["a"]["los_next"]) == top["los_next"] and rows["a"]["significant"] == "true"

    table = arena("leaderboard", path).splitlines()
    header = table[2].split()        # under the title and a blank line
    assert header[3:8] == ["mu", "sigma", "exposed", "LOS>next", "Elo"]   # LOS beside the order
    first = table[4].split()
    assert first[1] == "a" and first[6] == "98.5%" and first[7].startswith("-")
    text = " ".join(table)
    assert "LOS>next: the chance, from TrueSkill's mu and sigma, the model the table is" in text
    assert "Elo: fit over all games (mean 0), a model of its own" in text

    md = arena("leaderboard", path, "--format", "md")
    assert "| exposed | LOS>next | Elo | +-95% |" in md and "| 98.5% | -" in md

    arena("publish", path, "--out", str(tmp_path / "site"))
    index = (tmp_path / "site" / "index.html").read_text()
    assert re.search(r'<td class="num" data-v="0\.985\d*">98\.5%</td>', index)   # a's row
    assert "LOS &gt; next: the chance, from TrueSkill&#x27;s mu and sigma" in index
    heads = index[index.index("<thead>"):index.index("</thead>")]
    assert heads.index('data-key="exposed"') < heads.index('data-key="los"') < heads.index('data-key="elo"')


# --- ladders ------------------------------------------------------------------------------

def config_file(path, schedule, names=("ann", "bob", "cal", "dan", "eve")):
    """A league or ladder config of random bots (the games are written by the test)."""
    lines = [f"name: {path.stem}", "game: ultimate", "bots:",
             *(f"  - {{name: {name}, bot: random}}" for name in names), "seed: 7",
             f"store: {path.stem}.sqlite"]
    lines += (["schedule: ladder", "ladder: {min_games: 6, suspend: {share: 0.5, after: 4}}"]
              if schedule == "ladder" else ["games_per_pairing: 8"])
    path.write_text("\n".join(lines) + "\n")
    return path


def bound_store(config_path):
    """The config's store, bound to it as a run binds it, every bot at version 1."""
    from arena.league.runner import load_league
    config = load_league(str(config_path))
    store = Store(config.store)
    store.bind(config)
    store.sync_versions({name: {"code": "1"} for name in config.bot_names})
    return store


def crashed(fixture, who):
    """fixture's game, lost by who crashing."""
    seat = fixture.seats.index(who)
    return GameRecord(game="ultimate", rule_options={}, seed=fixture.seed,
                      bots=[BotEntry(fixture.seat0), BotEntry(fixture.seat1)], winner=1 - seat,
                      termination=Termination.CRASH, faulted=seat, reason="exit code 3")


def pairs(a, b, first_k, count):
    """count seat-swapped pairs of a and b from pair number first_k, as a ladder mints them."""
    by_key = {f.key: f for f in make_fixtures([a, b], 2 * (first_k + count), seed=7)}
    return [f for f in by_key.values() if parse_fixture_key(f.key).pair >= first_k]


def ladder_run(tmp_path):
    """A small ladder as a run leaves it: ann beats everyone, dan played one pair (new), cal's
    version 1 crashed 4 of 4 and was suspended, its version 2 plays, eve crashes and is
    suspended now."""
    path = config_file(tmp_path / "ladder.yaml", "ladder")
    with bound_store(path) as store:
        def play(a, b, first_k, count, result):
            for fixture in pairs(a, b, first_k, count):
                assert store.add_game(fixture, result(fixture))
        play("ann", "bob", 0, 3, lambda f: record(f, "ann"))
        play("bob", "cal", 0, 2, lambda f: crashed(f, "cal"))
        store.suspend("cal", 1, "faulted in 4 of 4 games (4 crash)")
        store.sync_versions({"cal": {"code": "2"}})
        play("ann", "cal", 0, 2, lambda f: record(f, "ann" if f.seat0 == "ann" else "cal"))
        play("bob", "cal", 2, 2, lambda f: record(f, None))
        play("ann", "dan", 0, 1, lambda f: record(f, "ann"))
        play("ann", "eve", 0, 1, lambda f: crashed(f, "eve"))
        play("bob", "eve", 0, 1, lambda f: crashed(f, "eve"))
        store.suspend("eve", 1, "faulted in 4 of 4 games (4 crash)")
    return path


def test_a_ladders_table_marks_new_and_suspended_bots_and_shows_old_versions(tmp_path):
    config = str(ladder_run(tmp_path))
    store = str(tmp_path / "ladder.sqlite")
    data = json.loads(arena("leaderboard", config, "--format", "json"))
    assert data == json.loads(arena("leaderboard", store, "--format", "json"))   # config or store
    rows = {row["bot"]: row for row in data["rows"]}
    assert data["min_games"] == 6
    assert {bot: row["games"] for bot, row in rows.items()} == {
        "ann": 14, "bob": 12, "cal": 8, "dan": 2, "eve": 4}    # cal v1's 4 games are history
    assert {bot: row["marks"] for bot, row in rows.items()} == {
        "ann": [], "bob": [], "cal": [], "dan": ["new"], "eve": ["new", "suspended"]}
    assert rows["eve"]["suspended"] == "faulted in 4 of 4 games (4 crash)"
    assert rows["cal"]["suspended"] is None and rows["cal"]["version"] == 2   # lifted by v2

    table = arena("leaderboard", config)
    lines = table.splitlines()
    assert lines[2].split()[-1] == "marks"
    eve = next(line for line in lines if line.split()[1:2] == ["eve"])
    assert eve.endswith("new, suspended")
    assert "eve: suspended, faulted in 4 of 4 games (4 crash)" in lines
    assert "marks: new: fewer than 6 games" in table

    csv_rows = {r["bot"]: r for r in csv.DictReader(io.StringIO(arena("leaderboard", config, "--format", "csv")))}
    assert csv_rows["eve"]["marks"] == "new suspended" and csv_rows["ann"]["marks"] == ""
    assert csv_rows["eve"]["suspended"] == "faulted in 4 of 4 games (4 crash)"
    md = arena("leaderboard", config, "--format", "md")
    assert "| move ms | marks |" in md and "| new, suspended |" in md

    every = json.loads(arena("leaderboard", config, "--all-versions", "--format", "json"))
    marks = {row["bot"]: row["marks"] for row in every["rows"]}
    assert marks["cal@1"] == ["new", "suspended", "old"] and marks["cal@2"] == []
    assert marks["eve@1"] == ["new", "suspended"] and "ann@1" in marks
    assert {r["bot"]: r["games"] for r in every["rows"]}["bob@1"] == 16   # cal v1's games too


def test_every_version_says_why_it_no_longer_plays(tmp_path):
    # each version of a ladder's history marked as the run left it: cal v1 replaced by v2
    # (and suspended, with its causes), dan retired with arena retire, bob taken out of
    # the config (the store bound to the config without him, as a running ladder binds it)
    from arena.league.runner import load_league
    config = ladder_run(tmp_path)
    arena("retire", str(config), "dan")
    config_file(config, "ladder", names=("ann", "cal", "dan", "eve"))
    with Store(tmp_path / "ladder.sqlite") as store:
        store.bind(load_league(str(config)))
    store = str(tmp_path / "ladder.sqlite")
    every = json.loads(arena("leaderboard", store, "--all-versions", "--format", "json"))
    marks = {row["bot"]: row["marks"] for row in every["rows"]}
    assert marks == {"ann@1": [], "bob@1": ["removed"], "cal@1": ["new", "suspended", "old"],
                     "cal@2": [], "dan@1": ["new", "retired"], "eve@1": ["new", "suspended"]}
    table = arena("leaderboard", store, "--all-versions")
    legend = " ".join(table.split("marks: ", 1)[1].split("\n\n", 1)[0].split())
    assert legend.startswith("new: fewer than 6 games (rated on few games); suspended: faulted "
                             "too often, plays no more until a new version; retired: retired "
                             "with arena retire (history); removed: no longer in the config "
                             "(history); old: replaced by a newer version (history).")
    assert "cal@1: suspended, faulted in 4 of 4 games (4 crash)" in table.splitlines()
    rows = {line.split()[1]: line for line in table.splitlines()[4:10]}
    assert rows["bob@1"].endswith("  removed") and rows["dan@1"].endswith("  new, retired")
    # arena versions says the same of each version (but new, which is about rated games),
    # after "current" for each bot's latest (it was blank for cal v1, and bob "current")
    header, *lines = arena("versions", store).splitlines()
    states = {tuple(line.split()[:2]): line[header.index("state"):] for line in lines}
    assert states == {("ann", "v1"): "current", ("bob", "v1"): "current, removed",
                      ("cal", "v1"): "suspended, old", ("cal", "v2"): "current",
                      ("dan", "v1"): "current, retired", ("eve", "v1"): "current, suspended"}
    listed = json.loads(arena("versions", store, "cal", "--format", "json"))
    assert [v["marks"] for v in listed] == [["suspended", "old"], []]
    # a config read as it is now: a bot taken out of it since the last run is removed too
    config_file(config, "ladder", names=("ann", "cal", "dan"))
    by_config = json.loads(arena("leaderboard", str(config), "--all-versions", "--format", "json"))
    assert {row["bot"]: row["marks"] for row in by_config["rows"]} == {
        **marks, "eve@1": ["new", "suspended", "removed"]}
    assert "current, suspended, removed" in arena("versions", str(config), "eve")
    # the table of current versions has none of them, and no legend of history
    now = arena("leaderboard", store)
    assert "removed" not in now and "retired" not in now and "old:" not in now
    assert {r["bot"] for r in json.loads(arena("leaderboard", store, "--format", "json"))["rows"]} \
        == {"ann", "cal", "eve"}


def test_a_ladders_site_marks_its_bots(tmp_path):
    config = ladder_run(tmp_path)
    arena("publish", str(tmp_path / "ladder.sqlite"), "--out", str(tmp_path / "site"))
    index = (tmp_path / "site" / "index.html").read_text()
    assert '<abbr class="flag suspended" title="suspended, faulted in 4 of 4 games (4 crash): it ' \
           'plays no more until a new version">suspended</abbr>' in index
    assert '<abbr class="flag new" title="fewer than 6 games: rated on few games">new</abbr>' in index
    assert index.count('class="flag ') == 3             # dan new, eve new and suspended
    assert "A ladder: <i>new</i> marks a bot with fewer than 6 games" in index
    eve = (tmp_path / "site" / "bots" / "eve.html").read_text()
    assert '<p class="flag suspended">Suspended, faulted in 4 of 4 games (4 crash): it plays ' \
           'no more until a new version.</p>' in eve
    ann = (tmp_path / "site" / "bots" / "ann.html").read_text()
    assert 'class="flag' not in ann
    # cal's first version, suspended and then replaced, says both in its versions table
    cal = (tmp_path / "site" / "bots" / "cal.html").read_text()
    assert '<td class="text">history, suspended</td>' in cal and '<td class="text">current</td>' in cal
    # a league's site has no marks
    arena("publish", disagreeing_store(tmp_path / "league.sqlite"), "--out", str(tmp_path / "l"))
    assert "flag" not in (tmp_path / "l" / "index.html").read_text()
    assert config.exists()


def test_the_sites_footer_says_when_the_store_last_changed_games_included(tmp_path):
    # a ladder binds its store (league.updated) when it starts or its bots change, then
    # plays on: its games are later than that, and the footer showed the bind's time
    ladder_run(tmp_path)
    path = tmp_path / "ladder.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE league SET value = '2026-01-02T03:04:05+00:00' WHERE key = 'updated'")
        db.execute("UPDATE games SET finished_at = '2026-01-02T03:04:09+00:00' WHERE id = "
                   "(SELECT max(id) FROM games)")
        db.execute("UPDATE games SET finished_at = '2026-01-02T03:04:07+00:00' WHERE id < "
                   "(SELECT max(id) FROM games)")
        db.execute("UPDATE versions SET first_seen = '2026-01-02T03:04:06+00:00'")
        db.execute("UPDATE suspended SET at = '2026-01-02T03:04:08+00:00'")
    db.close()
    arena("publish", str(path), "--out", str(tmp_path / "site"))
    index = (tmp_path / "site" / "index.html").read_text()
    assert "store updated 2026-01-02T03:04:09+00:00 · published" in index   # the last game
    last = json.loads(arena("versions", str(path), "--format", "json"))
    assert max(v["last_played"] for v in last) == "2026-01-02T03:04:09+00:00"   # as versions says
    with sqlite3.connect(path) as db:   # arena retire later still: the store changed then
        db.execute("INSERT INTO retired VALUES ('dan', '2026-01-02T03:04:10+00:00')")
    db.close()
    arena("publish", str(path), "--out", str(tmp_path / "site"))
    assert "store updated 2026-01-02T03:04:10+00:00 · published" in (tmp_path / "site" / "index.html").read_text()


def test_a_ladder_rates_in_play_order_and_a_league_in_fixture_order(tmp_path):
    """The same games stored in an order other than their fixtures': a ladder's table rates
    them in the order they were stored, a league's in fixture order, as before."""
    from arena.league import RatingConfig, build_leaderboard
    from arena.league.store import StoredGame
    fixtures = sorted(make_fixtures(["ann", "bob", "cal"], 8, seed=7), key=lambda f: f.order)
    strength = {"ann": 3, "bob": 2, "cal": 1}
    games = [(f, record(f, f.seat0 if (strength[f.seat0] + i) % 3 else f.seat1))
             for i, f in enumerate(fixtures)]
    played = games[::-1]           # stored last fixture first
    mus = {}
    for schedule in ("league", "ladder"):
        path = config_file(tmp_path / f"{schedule}.yaml", schedule, ("ann", "bob", "cal"))
        with bound_store(path) as store:
            for fixture, rec in played:
                assert store.add_game(fixture, rec)
        data = json.loads(arena("leaderboard", str(path), "--format", "json"))
        mus[schedule] = {row["bot"]: round(row["mu"], 6) for row in data["rows"]}

    def rated(order):
        board = build_leaderboard([StoredGame(f.key, f.index, r) for f, r in order], RatingConfig())
        return {row.bot: round(row.rating.figures[0], 6) for row in board.rows}
    assert mus["league"] == rated(games)
    assert mus["ladder"] == rated(played)
    assert mus["ladder"] != mus["league"]


def test_a_rating_system_without_a_los_of_its_own_leaves_the_column_empty(tmp_path):
    """A plugin's system with no los(a, b): no LOS>next is made up from another model."""
    from arena.league import Rating, RatingColumn, RatingConfig, RatingWords, build_leaderboard, render

    class Wins:
        columns = (RatingColumn("wins_so_far", "Wins", "wins", ranks=True),)
        words = RatingWords(legend="Ranked by wins;", caption="Ranked by wins.", ranked_by="wins",
                            chart_axis="wins", bot_page=(("Wins", "{0:.0f}"),))

        def prior(self, settings):
            return Rating(0.0, (0.0,))

        def rate(self, games, settings):
            now, paths = {}, {}
            for game in games:
                for name, points in zip(game.bots, game.points):
                    now[name] = now.get(name, 0.0) + (points == 1)
                    paths.setdefault(name, []).append(Rating(now[name], (now[name],)))
            return paths

    with Store(disagreeing_store(tmp_path / "league.sqlite")) as store:
        board = build_leaderboard(store.records(), RatingConfig(), system=Wins())
    assert [row.bot for row in board.rows] == ["b", "a"]
    assert all(row.los_next is None and row.significant is None for row in board.rows)
    assert board.rows[0].elo is not None                     # the fit's columns stay
    table = render(board, "table")
    assert "LOS>next: none (the rating system gives no chance of superiority)." in table
    assert json.loads(render(board, "json"))["los_next_from"] is None
