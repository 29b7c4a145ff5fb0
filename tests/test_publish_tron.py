"""Tron on the site: a real 2-player tron league (the C++ CodinGame-dialect example bot,
built with `build:`, against tron-random) run and published by the real CLI, its replays
drawn turn by turn; the drawing of a 3-player game the referee played; and the example
bot winning most of its games.

The browser part opens the site in a headless Chromium from file:// (as
tests/test_publish_browser.py does) and skips without one.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser import chromium as browser

from arena.games import default_registry
from arena.league import Store, StoredGame
from arena.publish.data import Replayer
from arena.publish.site import data_script
from arena.referee import MatchSettings, TimeControl, play_game
from arena.referee.botspec import command_spec, registered_bot_spec
from arena.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "tron-cpp"
LOG_BOT = ROOT / "tests" / "fixture_bots" / "tron_log_bot.py"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
WIDTH, HEIGHT, GAMES = 12, 10, 10
WAIT_S = 10

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
needs_browser = pytest.mark.skipif(browser.missing() is not None,
                                   reason=f"no browser for the site test: {browser.missing()}")


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A 2-player tron league of GAMES games, the C++ bot (a copy of the example, built by
    arena run) against tron-random, run and published; its folder, store and records."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    here = tmp_path_factory.mktemp("tron-league")
    shutil.copytree(EXAMPLE, here / "cpp", ignore=shutil.ignore_patterns("bot"))
    (here / "tron.yaml").write_text(
        "name: tron-site\ngame: tron\n"
        f"rules: {{width: {WIDTH}, height: {HEIGHT}, players: 2}}\n"
        "bots:\n"
        f"  - {{name: cpp, command: cpp/bot {WIDTH} {HEIGHT}, dialect: codingame, "
        "build: g++ -O2 -o bot bot.cpp}\n"
        "  - {name: random, bot: tron-random}\n"
        f"games_per_pairing: {GAMES}\nworkers: 2\nseed: 5\nstore: tron.sqlite\npublish: site\n"
        "time_control: {move_ms: 1000, startup_ms: 10000}\n")
    out = arena("run", "tron.yaml", cwd=here)
    assert out.returncode == 0, out.stderr
    with Store(here / "tron.sqlite", readonly=True) as store:
        games = list(store.records())
    return here, games


def chunk_of(site: Path, n: int = 0) -> dict:
    """data/moves/N.js as the page gets it."""
    text = (site / "data" / "moves" / f"{n}.js").read_text()
    return json.loads(re.fullmatch(r'arenaData\("moves/\d+",(.*)\);\n', text, re.S)[1])


def marks_after(replay: dict, turns: int) -> str:
    """The board the viewer draws after some turns: the start with each turn's changes."""
    marks = list(replay["board"])
    for _moves, changes in replay["turns"][:turns]:
        for square, mark in changes:
            marks[square] = mark
    return "".join(marks)


def states_of(record, upto: int | None = None) -> list:
    """The rules' state after each turn of a record (a seat out for a fault stays put), of
    the first upto turns if given."""
    game = default_registry().create("tron", **record.rule_options)
    state, states = game.initial_state(), []
    gone = {o.turn: [] for o in record.out}
    for o in record.out:
        gone[o.turn].append(o.seat)
    for number, moves in enumerate(record.turns()[:upto]):
        by_seat = {m.seat: game.parse_move(m.move) for m in moves}
        joint = [by_seat.get(seat, 0) for seat in state.movers()]
        state = state.play_without(joint, gone[number]) if number in gone else state.play_joint(joint)
        states.append(state)
    return [game.initial_state(), *states]


@needs_gxx
def test_the_cpp_example_built_by_the_league_beats_tron_random(league):
    _here, games = league
    assert len(games) == GAMES
    won = sum(g.record.winner is not None and g.record.bots[g.record.winner].name == "cpp"
              for g in games)
    assert all(g.record.termination.value == "normal" for g in games)
    assert won >= 0.75 * len(games), [g.record.summary() for g in games]


@needs_gxx
def test_the_site_of_a_tron_league_has_every_turn_of_every_game_as_the_rules_play_it(league):
    here, games = league
    site = here / "site"
    assert (site / "assets" / "turns.js").is_file()
    page = (site / "replay.html").read_text()
    assert 'src="assets/turns.js"' in page and "replay.js" not in page
    replays = chunk_of(site)["games"]
    assert len(replays) == len(games)
    for replay, stored in zip(replays, games):
        record = stored.record
        states = states_of(record)
        assert replay["grid"] == [HEIGHT, WIDTH] and replay["error"] is None and replay["over"]
        assert len(replay["turns"]) == len(record.turns()) == len(states) - 1
        for turn, state in enumerate(states):
            assert marks_after(replay, turn) == "".join(state.rows())
        assert replay["ranking"] == record.rank_of() == list(states[-1].ranking())
        for (moves, _changes), played in zip(replay["turns"], record.turns()):
            assert [[m[0], m[1]] for m in moves] == [[m.seat, m.move] for m in played]


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """A 3-player tron game the referee played directly: tron-territory, the C++ example
    (built here) and a bot that sleeps through its fourth turn (out for a timeout, the game
    going on)."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    here = tmp_path_factory.mktemp("three")
    subprocess.run(["g++", "-O2", "-o", str(here / "bot"), str(EXAMPLE / "bot.cpp")], check=True)
    here.chmod(0o755)
    bots = (registered_bot_spec("tron-territory"),
            command_spec("cpp", "codingame", f"{here / 'bot'} 10 8", readable=(str(here),)),
            command_spec("sleeper", "arena", f"{sys.executable} {LOG_BOT} sleep:3"))   # turns from 0
    tron = default_registry().create("tron", width=10, height=8, players=3)
    settings = MatchSettings(time=TimeControl(move_ms=1000, startup_ms=10000))
    record = play_game(tron, bots, 4, Sandbox(limits=Limits(memory_mb=256, cpu_seconds=60)), settings)
    return record, Replayer().replay(1, StoredGame("three", 0, record), {})


@needs_gxx
def test_a_three_player_game_is_drawn_turn_by_turn_with_its_ranking(three):
    record, replay = three
    assert [o.seat for o in record.out] == [2] and record.out[0].turn == 3   # out on turn 4
    assert replay["bots"] == ["tron-territory", "cpp", "sleeper"]
    assert replay["grid"] == [8, 10] and replay["error"] is None and replay["over"]
    for turn, state in enumerate(states_of(record)):
        assert marks_after(replay, turn) == "".join(state.rows())
    assert set(marks_after(replay, 0)) == set(".ABC")
    assert replay["ranking"] == record.ranking and replay["ranking"][2] == 2
    assert replay["out"] == [[2, 3, "timeout", record.out[0].reason]]
    # from the fourth turn on the sleeper's cycle stays where it stood, its trail drawn still
    for turn in range(3, len(replay["turns"]) + 1):
        after = marks_after(replay, turn)
        assert after.count("C") == 1 and after.count("c") == 3


def test_a_two_player_game_ended_by_a_fault_replays_up_to_it(tmp_path):
    """A seat that sleeps through its third turn loses (two seats): the turns before are
    drawn, the turn it did not finish changes nothing, the record's ranking is given."""
    bots = tuple(command_spec(role.replace(":", ""), "arena", f"{sys.executable} {LOG_BOT} {role}")
                 for role in ("first", "sleep:2"))
    tron = default_registry().create("tron", width=8, height=6)
    settings = MatchSettings(time=TimeControl(move_ms=500, startup_ms=10000))
    record = play_game(tron, bots, 2, Sandbox(limits=Limits(memory_mb=256, cpu_seconds=60)), settings)
    assert record.faulted == 1 and record.termination.value == "timeout"
    replay = Replayer().replay(1, StoredGame("fault", 0, record), {})
    assert replay["error"] is None and replay["faulted"] == 1 and replay["ranking"] == [0, 1]
    states = states_of(record, upto=2)
    for turn, state in enumerate(states):
        assert marks_after(replay, turn) == "".join(state.rows())
    assert marks_after(replay, len(replay["turns"])) == "".join(states[2].rows())


# --- in the browser ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def driver():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with browser.chromium() as chrome:
        yield chrome


def wait(driver, condition, message: str):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, WAIT_S).until(condition, message)


def shown(driver) -> tuple[str, str, list[str]]:
    """What the board shows: its turn, the letters it drew, and each cell's background."""
    return driver.execute_script(
        "const b = document.getElementById('board');"
        "return [b.dataset.turn, Array.from(b.children, c => c.dataset.mark || '.').join(''),"
        " Array.from(b.children, c => getComputedStyle(c).backgroundColor)];")


def open_replay(driver, site: Path, fragment: str) -> None:
    driver.get((site / "replay.html").as_uri() + "#" + fragment)
    wait(driver, lambda d: d.find_element("id", "replay").is_displayed(), "no replay shown")


def no_console_errors(driver) -> None:
    """No script error, no blocked resource, no Content-Security-Policy violation."""
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


@needs_gxx
@needs_browser
def test_the_tron_replay_draws_each_cycle_and_steps_through_turns(driver, league):
    from selenium.webdriver.common.keys import Keys
    here, games = league
    site = here / "site"
    record = games[0].record
    states = states_of(record)
    n = len(states) - 1
    open_replay(driver, site, "g=1")
    turn, marks, colours = shown(driver)
    assert (turn, marks) == ("0", "".join(states[0].rows()))
    assert len(colours) == WIDTH * HEIGHT
    body = driver.find_element("tag name", "body")
    body.send_keys(Keys.END)
    assert driver.find_element("id", "ply").text == f"{n} / {n}"
    turn, marks, colours = shown(driver)
    assert (turn, marks) == (str(n), "".join(states[n].rows()))
    # each seat's cells in its own colour, free cells in none of them
    seat_colours = [{c for m, c in zip(marks, colours) if m.lower() == letter} for letter in "ab"]
    assert all(len(c) >= 1 for c in seat_colours) and not seat_colours[0] & seat_colours[1]
    assert not {c for m, c in zip(marks, colours) if m == "."} & (seat_colours[0] | seat_colours[1])
    body.send_keys(Keys.ARROW_LEFT)
    assert shown(driver)[:2] == [str(n - 1), "".join(states[n - 1].rows())]
    driver.find_element("css selector", "#controls [data-go=first]").click()
    driver.find_element("css selector", "#controls [data-go=next]").click()
    assert shown(driver)[:2] == ["1", "".join(states[1].rows())]
    assert "t=1" in driver.current_url
    now = driver.find_element("id", "now").text
    assert now.startswith(f"Turn 1 of {n}: ") and all(b.name in now for b in record.bots)
    ranking = driver.find_element("id", "ranking").text
    first = record.bots[record.rank_of().index(0)].name
    assert ranking.startswith(f"Ranking: 1st {first}")
    assert len(driver.find_elements("css selector", "#movelist tbody tr")) == n
    open_replay(driver, site, "g=2&m=5")      # a fault list's link: the turn of move 5
    assert shown(driver)[:2] == ["3", "".join(states_of(games[1].record)[3].rows())]
    open_replay(driver, site, "g=1&t=1")
    driver.save_screenshot(str(SCREENSHOTS / "replay-tron.png"))
    no_console_errors(driver)


@needs_gxx
@needs_browser
def test_the_replay_draws_a_three_player_game_from_its_record(driver, league, three, tmp_path):
    """The 3-player game put into a copy of the published site in place of game 1 (a league
    of three seats is not built yet): drawn in three colours, the seat out for a fault said."""
    here, _games = league
    record, replay = three
    site = tmp_path / "site"
    shutil.copytree(here / "site", site)
    chunk = chunk_of(site)
    chunk["games"][0] = replay
    (site / "data" / "moves" / "0.js").write_text(data_script("moves/0", chunk))
    states = states_of(record)
    n = len(states) - 1
    open_replay(driver, site, f"g=1&t={n}")
    turn, marks, colours = shown(driver)
    assert (turn, marks) == (str(n), "".join(states[n].rows()))
    seat_colours = [{c for m, c in zip(marks, colours) if m.lower() == letter} for letter in "abc"]
    assert all(seat_colours) and len(set().union(*seat_colours)) >= 3
    assert len(driver.find_elements("css selector", "#players .player")) == 3
    ranking = driver.find_element("id", "ranking").text
    assert "3rd sleeper (out for a fault: timeout)" in ranking
    assert "sleeper out on turn 4 (timeout)" in driver.find_element("id", "result").text
    driver.save_screenshot(str(SCREENSHOTS / "replay-tron-3.png"))
    no_console_errors(driver)
