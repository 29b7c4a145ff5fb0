"""The proof that a game plugin works everywhere: examples/arena-connect-four, built and
installed with pip into a fresh environment, is listed, analysed, played through the
sandboxed referee with its SDK bots, run as a league from YAML, replayed, and published
as a site whose replay viewer draws its 7x6 board (in Chromium too, when present)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from browser import chromium as browser
from fresh_venv import venv_with_plugin

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "examples" / "arena-connect-four"

LEAGUE = """\
name: connect-four
game: connect-four
bots:
  - {name: search-3, bot: c4-search, options: {depth: 3}}
  - {name: search-1, bot: c4-search, options: {depth: 1}}
  - {name: random, bot: c4-random}
games_per_pairing: 4
time_control: {move_ms: 5000, startup_ms: 20000}
workers: 2
store: c4.sqlite
seed: 7
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A fresh venv that sees bot-arena as installed here, with the plugin pip-installed."""
    root = tmp_path_factory.mktemp("c4")
    python = venv_with_plugin(PLUGIN, root)
    return root, python


def arena(env, *args, check=True):
    root, python = env
    out = subprocess.run([str(python), "-m", "arena", *args], capture_output=True, text=True,
                         timeout=300, cwd=root, check=False)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def test_the_plugin_is_listed_with_its_game_and_bots(env):
    games = arena(env, "games", "--verbose").stdout
    assert "connect-four  Connect Four, 7 columns by 6 rows" in games
    assert "tictactoe" in games                                   # the built-ins are still there
    plugins = arena(env, "plugins").stdout
    assert re.search(r"^connect-four +arena-connect-four 0\.1\.0 +1 game, 2 bots$", plugins, re.M), plugins
    assert re.search(r"^builtin-games +bot-arena 0\.1\.0 \(built in\)  5 games, 0 bots$", plugins, re.M)
    bots = arena(env, "bots", "--game", "connect-four").stdout
    assert "c4-search" in bots and "c4-random" in bots and "[connect-four]" in bots
    assert "random" in bots                                      # reference bots playing any game
    # without the package, none of it exists
    assert "connect-four" not in subprocess.run([sys.executable, "-m", "arena", "games"],
                                                capture_output=True, text=True, check=False).stdout


def test_the_cli_analyses_the_plugin_game(env):
    # perft of Connect Four: 7^n while no column can fill and no four can be made
    assert arena(env, "perft", "connect-four", "5").stdout.split() == ["16807"]
    game = arena(env, "random-game", "connect-four", "--seed", "3").stdout
    assert "connect-four, seed 3" in game and "result: " in game
    bad = arena(env, "perft", "connect-four", "1", "--moves", "9", check=False)
    assert bad.returncode == 2 and "0..6" in bad.stderr and "Traceback" not in bad.stderr


def test_a_match_of_the_sdk_bots_through_the_sandboxed_referee(env):
    out = arena(env, "match", "c4-search", "c4-random", "--game", "connect-four", "--games", "4",
                "--seed", "1", "--save", "match.jsonl")
    assert "c4-search: 4 wins, 0 draws, 0 losses" in out.stdout, out.stdout
    replay = arena(env, "replay", "match.jsonl").stdout
    assert "connect-four: c4-search (x) vs c4-random (o)" in replay
    assert "0 1 2 3 4 5 6" in replay                                # the board the game renders
    # a reference bot that plays any game meets the plugin's bot, through the same SDK
    mixed = arena(env, "match", "random", "c4-random", "--game", "connect-four", "--games", "2")
    assert "random: " in mixed.stdout


def test_a_person_plays_the_plugin_game_against_its_bot(env):
    root, python = env
    # columns in turn; a full column is refused and asked again, until the game ends
    moves = "".join(f"{c}\n" for c in [3, 2, 4, 1, 5, 0, 6] * 8)
    out = subprocess.run([str(python), "-m", "arena", "play", "connect-four", "--against", "c4-random",
                          "--seed", "2"], input=moves, capture_output=True, text=True, timeout=300,
                         cwd=root, check=False)
    assert out.returncode == 0, out.stderr
    assert "your move (a move: 0 1 2 3 4 5 6)" in out.stdout
    assert "result: you (x) vs c4-random (o): " in out.stdout


@pytest.fixture(scope="module")
def league(env):
    root, _ = env
    (root / "c4.yaml").write_text(LEAGUE)
    run = arena(env, "run", "c4.yaml")
    assert "search-3" in run.stdout
    arena(env, "publish", "c4.sqlite", "--out", "site")
    return root


def test_a_league_from_yaml_runs_and_ranks_the_search_bot_first(env, league):
    rows = json.loads(arena(env, "leaderboard", "c4.sqlite", "--format", "json").stdout)["rows"]
    assert rows[0]["bot"] == "search-3"
    assert [r["games"] for r in rows] == [8, 8, 8] and all(r["faults"] == {} for r in rows)


def _site_data(path: Path) -> dict:
    text = path.read_text()
    return json.loads(text[text.index(",") + 1:text.rindex(")")])


def test_the_published_site_sends_the_viewer_its_board(env, league):
    site = league / "site"
    assert (site / "replay.html").is_file()
    chunk = _site_data(site / "data" / "moves" / "0.js")
    games = chunk["games"]
    assert len(games) == 12 and all(g["game"] == "connect-four" for g in games)
    for g in games:
        assert g["grid"] == [6, 7] and g["error"] is None and g["over"]
        assert len(g["marks"]) == len(g["moves"]) + 1 and g["marks"][0] == "." * 42
        final = g["marks"][-1]
        assert final.count("x") + final.count("o") == len(g["moves"])
        # each move drops a disc into the column it names, onto the lowest empty square
        for ply, (column, seat, *_rest) in enumerate(g["moves"], 1):
            before, after = g["marks"][ply - 1], g["marks"][ply]
            changed = [i for i in range(42) if before[i] != after[i]]
            assert len(changed) == 1 and changed[0] % 7 == column and after[changed[0]] == "xo"[seat]
            below = changed[0] + 7
            assert below >= 42 or before[below] != "."


@pytest.mark.skipif(browser.missing() is not None, reason=f"no browser: {browser.missing()}")
def test_the_replay_viewer_draws_the_board_in_chromium(env, league):
    from selenium.webdriver.support.ui import WebDriverWait
    site = league / "site"
    g = _site_data(site / "data" / "moves" / "0.js")["games"][0]
    n = len(g["moves"])
    with browser.chromium() as driver:
        driver.get((site / "replay.html").as_uri() + f"#g=1&m={n}")
        WebDriverWait(driver, 10).until(lambda d: d.find_element("id", "replay").is_displayed())
        shown = driver.execute_script(
            "return Array.from(document.querySelectorAll('#board [data-cell]'),"
            " c => c.dataset.mark || '.').join('')")
        assert shown == g["marks"][-1]
        board = driver.find_element("id", "board")
        assert board.get_attribute("data-rows") == "6" and board.get_attribute("data-columns") == "7"
        assert board.size["width"] > board.size["height"] > 0        # wider than tall, as 7x6 is
        last = driver.execute_script("return document.querySelector('#board .cell.last').dataset.cell")
        assert int(last) % 7 == g["moves"][-1][0]
        shots = ROOT / "artifacts" / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(shots / "replay-connect-four.png"))
        driver.get((site / "replay.html").as_uri() + "#g=1&m=1")
        driver.refresh()
        WebDriverWait(driver, 10).until(lambda d: d.find_element("id", "ply").text == f"1 / {n}")
        marks = driver.execute_script(
            "return Array.from(document.querySelectorAll('#board [data-cell]'), c => c.dataset.mark || '.').join('')")
        assert marks == g["marks"][1]
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []


def test_the_plugins_own_tests_pass_in_the_fresh_environment(env):
    _, python = env
    out = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(PLUGIN / "tests")], capture_output=True, text=True, timeout=300, check=False,
                         cwd=PLUGIN)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "passed" in out.stdout


LIBRARY_USE = """\
from arena.league.config import load_config
from arena.league.schedule import schedule
from arena.league.store import Store
config = load_config("lib.yaml")      # no registries given: the loaded plugins' games
fixtures = schedule(config)
with Store("lib.sqlite") as store:
    store.bind(config)
print(len(fixtures), sorted({f.opening for f in fixtures}))
"""


def test_the_league_library_takes_the_plugin_game_by_default(env):
    # config, schedule and store default to the loaded plugins' games, so a program using the
    # library (not the CLI) reads a plugin game's league and its book of state lines
    root, python = env
    (root / "lib.yaml").write_text(LEAGUE.replace("c4.sqlite", "lib.sqlite")
                                   + "openings: book.txt\n")
    # x and o dropped in columns 3, 3, 2, 4: a state line, found again as the first moves
    # (columns tried in ascending order) that reach it
    (root / "book.txt").write_text("." * 28 + "...o..." + "..xxo.." + " x\n")
    out = subprocess.run([str(python), "-c", LIBRARY_USE], capture_output=True, text=True,
                         timeout=300, cwd=root, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(" ", 1) == ["12", "[(2, 4, 3, 3)]\n"]
