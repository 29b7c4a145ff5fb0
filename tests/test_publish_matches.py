"""The site's statistics from a real league: a gauntlet run with the arena command, published
with it, and its pages read back: Elo columns, the LOS matrix, one match page per pairing."""

import html
import json
import math
import re
import subprocess
import sys
from pathlib import Path

from arena.league import RatingConfig, Store, build_leaderboard
from arena.league.pairs import between
from arena.stats import summarize

CONFIG = """\
name: site
game: tictactoe
bots:
  - {name: cand, bot: random}
  - {name: ttt, bot: ttt-blind}
  - {name: p1, bot: random}
  - {name: p2, bot: random}
schedule: gauntlet
candidates: [cand, ttt]
games_per_pairing: 6
workers: 2
seed: 4
store: site.sqlite
publish: out
"""


def arena(*args):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, check=False)


def cells(page: str, table: str) -> list[list[str]]:
    """The text of each body row's cells of a table (tags stripped)."""
    body = re.search(rf'<table[^>]*id="{table}".*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
             for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def test_a_published_gauntlet_has_elo_los_and_a_page_per_pairing_that_played(tmp_path: Path):
    config = tmp_path / "site.yaml"
    config.write_text(CONFIG)
    out = arena("run", str(config), "--format", "json")
    assert out.returncode == 0, out.stderr
    board_json = json.loads(out.stdout)
    with Store(tmp_path / "site.sqlite") as store:
        games = list(store.records())
    board = build_leaderboard(games, RatingConfig(), ["cand", "ttt", "p1", "p2"])
    site = tmp_path / "out"

    index = (site / "index.html").read_text()
    rows = cells(index, "leaderboard")
    assert [r[1] for r in rows] == [row["bot"] for row in board_json["rows"]]
    assert [r[7] for r in rows] == [f"{row['elo']:+.0f}" for row in board_json["rows"]]
    assert [r[8] for r in rows] == [f"{row['elo_error']:.0f}" for row in board_json["rows"]]

    cross = (site / "crosstable.html").read_text()
    found = dict(re.findall(r'title="P\(([^ ]+ stronger than [^)]+)\) = [^"]*" data-los="([0-9.]+)"',
                            cross))
    assert len(found) == 4 * 3        # every ordered pair, met or not: the fit rates them all
    assert abs(float(found["cand stronger than ttt"]) - board.elo_fit.los("cand", "ttt")) < 1e-4

    pages = sorted(p.name for p in (site / "matches").iterdir())
    assert len(pages) == 4            # candidates never met, nor did the pool
    order = [row.bot for row in board.rows]
    for name in pages:
        a, b = name.removesuffix(".html").split("~")
        assert order.index(a) < order.index(b)
        page = (site / "matches" / name).read_text()
        stats = summarize(between(board.matches, a, b))
        assert [r[1] for r in cells(page, "pentanomial")] == [str(n) for n in stats.pentanomial]
        assert stats.pairs == 3 and sum(stats.pentanomial) == 3
        assert f"<dd>{stats.wins} / {stats.draws} / {stats.losses}</dd>" in page
        # the Elo difference by its estimate and the interval's ends, no "±" (it is lopsided)
        low, high = (f"{v:+.0f}" if math.isfinite(v) else ("+∞" if v > 0 else "−∞")
                     for v in (stats.elo_low, stats.elo_high))
        elo = f"{stats.elo:+.0f}" if math.isfinite(stats.elo) else ("+∞" if stats.elo > 0 else "−∞")
        assert f"<dd>{elo} <small>{low} to {high}</small></dd>" in page
        numbers = [int(n) for n in re.findall(r'href="../replay.html#g=(\d+)"', page)]
        assert numbers == [no for no, g in enumerate(games, 1)
                           if {x.name for x in g.record.bots} == {a, b}]
        assert len(numbers) == 6
    assert not (site / "matches" / "cand~ttt.html").exists()
    assert not (site / "matches" / "ttt~cand.html").exists()
    bot_page = (site / "bots" / "cand.html").read_text()
    assert bot_page.count('href="../matches/') == 2    # its two opponents' match pages


SWEEP = """\
name: sweep
game: tictactoe
bots:
  - {name: master, bot: ttt-master}
  - {name: first, command: "python3 first/first_move_bot.py"}
games_per_pairing: 4
workers: 2
seed: 4
store: sweep.sqlite
publish: out
"""


def test_a_sweep_shows_an_infinite_elo_and_never_nan(tmp_path: Path):
    # perfect play against a bot that takes the first free cell wins every game: score 1,
    # Elo +inf; the interval's upper end is +inf, so no "± inf" (once "± nan"), the ends;
    # the prior's virtual win and loss keep its lower end finite and the score's open
    (tmp_path / "first").mkdir()
    (tmp_path / "first" / "first_move_bot.py").write_text(
        (Path(__file__).resolve().parent.parent / "examples" / "first_move_bot.py").read_text())
    config = tmp_path / "sweep.yaml"
    config.write_text(SWEEP)
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    site = tmp_path / "out"
    page = (site / "matches" / "master~first.html").read_text()
    assert "<dd>4 / 0 / 0</dd>" in page, page        # the sweep this test is about
    # 2 pairs won twice and a virtual win and loss: 5 points of 6, se 0.162, low 0.516
    assert "<dd>+∞ <small>+11 to +∞</small></dd>" in page
    assert "<dd>100.0% <small>51.6–100.0%</small></dd>" in page
    assert "<dd>98.0%</dd>" in page     # LOS: likely, not certain
    for path in site.rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert not re.search(r"\bnan\b", text, re.I), (path, re.search(r".{40}\bnan\b.{40}", text, re.I))
