"""A rating system and an output format from plugins, used through the real CLI: the two
examples of docs/plugins.md, taken from the page, installed as entry points of a
distribution on PYTHONPATH, on a stored league (tests/data/stored_league)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_league_output import make_store

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("arena_sequential_elo", "arena_tsv")


def doc_example(module: str) -> str:
    """The code block of docs/plugins.md that starts with '# MODULE.py'."""
    text = (ROOT / "docs" / "plugins.md").read_text()
    found = re.search(rf"```python\n(# {module}\.py\n.*?)```", text, re.S)
    assert found, f"docs/plugins.md has no example {module}.py"
    return found.group(1)


@pytest.fixture(scope="module")
def site_packages(tmp_path_factory) -> Path:
    """A directory holding the two examples and a distribution naming them as arena plugins."""
    root = tmp_path_factory.mktemp("plugins")
    for module in MODULES:
        (root / f"{module}.py").write_text(doc_example(module))
    dist = root / "arena_doc_examples-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-doc-examples\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[arena]\nseq-elo = arena_sequential_elo\ntsv = arena_tsv\n")
    return root


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return make_store(tmp_path_factory.mktemp("store") / "league.sqlite")


def arena(site_packages: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site_packages)}
    out = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == code, out.stderr
    assert "WARNING" not in out.stderr, out.stderr     # both plugins loaded
    return out


def test_a_plugin_output_format_is_a_format_choice_and_renders_the_board(site_packages, store):
    assert "{table,md,csv,json,tsv}" in arena(site_packages, "leaderboard", "--help").stdout
    tsv = arena(site_packages, "leaderboard", str(store), "--format", "tsv").stdout
    lines = tsv.rstrip("\n").splitlines()     # print() adds a line end to the format's own
    rows = json.loads(arena(site_packages, "leaderboard", str(store), "--format", "json").stdout)["rows"]
    header = lines[0].split("\t")
    assert header == ["rank", "bot", "score", "mu", "sigma", "exposed", "games", "wins", "draws",
                      "losses"]
    assert len(lines) == 1 + len(rows) == 5
    for line, row in zip(lines[1:], rows):
        values = dict(zip(header, line.split("\t")))
        assert values["bot"] == row["bot"] and int(values["rank"]) == row["rank"]
        for key in ("score", "mu", "sigma", "exposed"):
            assert float(values[key]) == row[key]
        for key in ("games", "wins", "draws", "losses"):
            assert int(values[key]) == row[key]
    # without the plugin there is no such format: one line, exit 2
    bare = subprocess.run([sys.executable, "-m", "arena", "leaderboard", str(store), "--format", "tsv"],
                          capture_output=True, text=True, timeout=300)
    assert bare.returncode == 2 and "invalid choice: 'tsv'" in bare.stderr


def test_a_plugin_rating_system_ranks_the_leaderboard_in_every_format(site_packages, store):
    data = json.loads(arena(site_packages, "leaderboard", str(store), "--rating", "seq-elo",
                            "--format", "json").stdout)
    ratings = [row["seq_elo"] for row in data["rows"]]
    assert ratings == sorted(ratings, reverse=True) and "mu" not in data["rows"][0]
    assert sum(ratings) == pytest.approx(4 * 1500)      # Elo moves points between two bots
    assert [row["bot"] for row in data["rows"]][::3] == ["novice", "crasher"]
    assert len(set(ratings)) == 4
    trueskill = json.loads(arena(site_packages, "leaderboard", str(store), "--format", "json").stdout)
    by_bot = {row["bot"]: row for row in trueskill["rows"]}
    for row in data["rows"]:       # the results and the Elo fit do not depend on the rating system
        assert {k: row[k] for k in ("games", "wins", "draws", "losses", "elo")} == \
               {k: by_bot[row["bot"]][k] for k in ("games", "wins", "draws", "losses", "elo")}

    table = arena(site_packages, "leaderboard", str(store), "--rating", "seq-elo").stdout
    assert table.splitlines()[2].split()[:4] == ["rank", "bot", "score", "seq_elo"]
    assert "\nRanked by seq_elo, an Elo rating updated after every game in league order" in table
    csv_header = arena(site_packages, "leaderboard", str(store), "--rating", "seq-elo",
                       "--format", "csv").stdout.splitlines()[0]
    assert csv_header.startswith("rank,bot,score,seq_elo,games,")
    tsv = arena(site_packages, "leaderboard", str(store), "--rating", "seq-elo", "--format", "tsv")
    assert tsv.stdout.startswith("rank\tbot\tscore\tseq_elo\tgames\t")

    versions = json.loads(arena(site_packages, "leaderboard", str(store), "--rating", "seq-elo",
                                "--all-versions", "--format", "json").stdout)
    assert sum(row["seq_elo"] for row in versions["rows"]) == pytest.approx(5 * 1500)
    unknown = subprocess.run([sys.executable, "-m", "arena", "leaderboard", str(store), "--rating",
                              "glicko"], capture_output=True, text=True, timeout=300)
    assert unknown.returncode == 2 and "invalid choice: 'glicko'" in unknown.stderr


def test_a_plugin_rating_system_words_the_published_site(site_packages, store, tmp_path):
    arena(site_packages, "publish", str(store), "--out", str(tmp_path / "site"), "--rating", "seq-elo")
    site = tmp_path / "site"
    index = (site / "index.html").read_text()
    assert 'data-key="seq_elo"' in index and "Elo (K=16)" in index and "μ − 3σ" not in index
    assert "Ranked by sequential Elo (K=16)" in index
    assert "rank order: by sequential Elo" in index
    assert "sequential Elo after each game" in (site / "history.html").read_text()
    novice = (site / "bots" / "novice.html").read_text()
    shown = re.search(r"<dt>Sequential Elo</dt><dd>(\d+)</dd>", novice)
    data = json.loads(arena(site_packages, "leaderboard", str(store), "--rating", "seq-elo",
                            "--format", "json").stdout)
    assert shown and int(shown.group(1)) == round(data["rows"][0]["seq_elo"])


def test_a_league_config_names_its_rating_system_and_every_output_follows_it(site_packages, tmp_path):
    config = tmp_path / "elo.yaml"
    config.write_text("name: elo\ngame: tictactoe\nbots:\n  - {name: novice, bot: ttt-novice}\n"
                      "  - {name: blind, bot: ttt-blind}\n  - {name: rnd, bot: random}\n"
                      "games_per_pairing: 2\nworkers: 1\nseed: 3\nstore: elo.sqlite\npublish: site\n"
                      "rating: {system: seq-elo}\n")
    run = arena(site_packages, "run", str(config), "--standings", "0")
    assert run.stdout.splitlines()[2].split()[:4] == ["rank", "bot", "score", "seq_elo"]
    store = str(tmp_path / "elo.sqlite")
    rows = json.loads(arena(site_packages, "leaderboard", store, "--format", "json").stdout)["rows"]
    assert sum(row["seq_elo"] for row in rows) == pytest.approx(3 * 1500) and "mu" not in rows[0]
    assert 'data-key="seq_elo"' in (tmp_path / "site" / "index.html").read_text()
    again = json.loads(arena(site_packages, "leaderboard", str(config), "--format", "json").stdout)
    assert again["rows"] == rows                                     # the config reads as its store
    trueskill = arena(site_packages, "leaderboard", store, "--rating", "trueskill").stdout
    assert trueskill.splitlines()[2].split()[:6] == ["rank", "bot", "score", "mu", "sigma", "exposed"]

    config.write_text(config.read_text().replace("system: seq-elo", "system: seq-elo2"))
    bad = arena(site_packages, "run", str(config), code=2)
    assert bad.stderr.strip().splitlines() == [
        f"arena run: error: {config}:12: rating.system: unknown rating system 'seq-elo2' "
        "(did you mean 'seq-elo'?); known: trueskill, trueskill-ep, seq-elo"]
    # the store names a system this environment lacks: one line, not a traceback
    lacking = subprocess.run([sys.executable, "-m", "arena", "leaderboard", store], capture_output=True,
                             text=True, timeout=300)
    assert lacking.returncode == 2 and "unknown rating system 'seq-elo'" in lacking.stderr
    assert "Traceback" not in lacking.stderr
