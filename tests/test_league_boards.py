"""What a table's columns say, through the real CLI on real SQLite stores: one model per
table (the order, and the LOS beside it, from the same ratings), and ladders' tables."""

import csv
import io
import json
import re
import subprocess
import sys
from statistics import NormalDist

from arena.league import Store, make_fixtures
from arena.record import BotEntry, GameRecord


def arena(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def record(fixture, winner_name, game="tictactoe"):
    """fixture's game, won by winner_name (None: a draw)."""
    winner = None if winner_name is None else fixture.seats.index(winner_name)
    return GameRecord(game=game, rule_options={}, seed=fixture.seed,
                      bots=[BotEntry(fixture.seat0), BotEntry(fixture.seat1)], winner=winner)


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
