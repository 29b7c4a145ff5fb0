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
from arena.publish import data as site_data
from arena.publish import publish_site
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


# --- a league of four seats ---------------------------------------------------------------------

FFA_BOTS = ("r1", "r2", "r3", "r4", "sleeper")


@pytest.fixture(scope="module")
def ffa(tmp_path_factory):
    """A 4-player tron league of five bots run and published by the real CLI: four
    tron-random and one that sleeps through its second turn (out for a timeout, the
    others playing on). Its folder, store's games and `arena leaderboard` rows."""
    here = tmp_path_factory.mktemp("tron-ffa")
    bots = "".join(f"  - {{name: {name}, bot: tron-random}}\n" for name in FFA_BOTS[:4])
    (here / "ffa.yaml").write_text(
        "name: tron-ffa-site\ngame: tron\nrules: {width: 8, height: 8, players: 4}\n"
        f"bots:\n{bots}  - {{name: sleeper, command: {sys.executable} {LOG_BOT} sleep:1}}\n"
        "games: 5\nworkers: 2\nseed: 2\nstore: ffa.sqlite\npublish: site\n"
        "time_control: {move_ms: 300, startup_ms: 10000}\n")
    out = arena("run", "ffa.yaml", cwd=here)
    assert out.returncode == 0, out.stderr
    board = arena("leaderboard", "ffa.sqlite", "--format", "json", cwd=here)
    assert board.returncode == 0, board.stderr
    with Store(here / "ffa.sqlite", readonly=True) as store:
        games = list(store.records())
    return here, games, json.loads(board.stdout)["rows"]


def read_data(site: Path, key: str):
    text = (site / "data" / f"{key}.js").read_text()
    return json.loads(re.fullmatch(r'arenaData\("[^"]+",(.*)\);\n', text, re.S)[1])


def test_the_games_list_of_a_four_player_league_has_every_seat_its_version_place_and_faults(ffa):
    here, games, _rows = ffa
    site = here / "site"
    league = read_data(site, "league")
    ids = {b["name"]: b["id"] for b in league["bots"]}
    rows = read_data(site, "games/all/1")["rows"]
    assert len(rows) == len(games) == 5
    for row, stored in zip(rows, games):
        record = stored.record
        assert [row[1], row[2], *row[8]] == [ids[b.name] for b in record.bots]
        assert row[9] == record.rank_of() and row[10] == [1, 1, 1, 1]
        assert row[11] == [[o.seat, o.termination.value] for o in record.out]
    sleeper = [row for row in rows if ids["sleeper"] in [row[1], row[2], *row[8]]]
    assert sleeper and all(row[11] for row in sleeper)     # out for a timeout in each game
    page = (site / "games.html").read_text()
    assert 'src="assets/seats.js"' in page and "games.js" not in page
    assert re.findall(r'<th class="text" data-seat="\d">(Seat \d)</th>', page) == [
        "Seat 1", "Seat 2", "Seat 3", "Seat 4"]
    assert (site / "assets" / "seats.js").is_file()


def test_the_leaderboard_of_a_four_player_site_has_mean_rank_and_firsts_as_arena_leaderboard(ffa):
    here, _games, board = ffa
    page = (here / "site" / "index.html").read_text()
    keys = re.findall(r'<th data-key="([a-z_]+)"', page)
    assert keys[keys.index("games"):keys.index("wins")] == ["games", "mean_rank", "firsts"]
    assert "mean rank is a bot&#x27;s mean place" not in page and "mean rank is a bot's mean place" in page
    for row in board:
        cells = re.search(rf'<td class="text bot" data-v="{row["bot"]}">.*?</tr>', page)[0]
        values = re.findall(r'<td class="num" data-v="([^"]*)">', cells)
        games = values.index(str(row["games"]))       # games, mean rank, firsts, W
        assert values[games + 1:games + 4] == [str(row["mean_rank"]), str(row["firsts"]), str(row["wins"])]


def test_the_match_and_bot_pages_of_a_four_player_league_show_every_seat_and_the_ranking(ffa):
    here, games, board = ffa
    site = here / "site"
    a, b = (bot["name"] for bot in read_data(site, "league")["bots"][:2])   # the page of the top two
    page = (site / "matches" / f"{a}~{b}.html").read_text()
    together = [no for no, g in enumerate(games, 1) if {a, b} <= {bot.name for bot in g.record.bots}]
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td class="text seats">(.*?)</td>'
                      r'<td class="text">(.*?)</td><td class="text">(.*?)</td>', page)
    assert together and [int(no) for no, *_ in rows] == together
    for no, seats, ranking, ahead in rows:
        record = games[int(no) - 1].record
        places = record.rank_of()
        shown = re.findall(r'<span class="seat(?: strong)?">(?:<a href="../bots/[^"]+">)?([^<]+)(?:</a>)?'
                           r' <small class="muted">v(\d+)</small> (\d+)(?:st|nd|rd|th)', seats)
        assert shown == [(b.name, "1", str(places[seat] + 1)) for seat, b in enumerate(record.bots)]
        order = sorted(range(4), key=lambda seat: (places[seat], seat))
        assert [name for name in re.findall(r"\d+(?:st|nd|rd|th) ([^,]+)", ranking)] == [
            record.bots[seat].name for seat in order]
        mine, theirs = places[record.seat_of(a)], places[record.seat_of(b)]
        assert ahead == ("tied" if mine == theirs else (a if mine < theirs else b) + " ahead")
    played = {row["bot"]: row["games"] for row in board}
    for name in FFA_BOTS:      # each game once, not once for each other bot in it
        assert f"All {played[name]} games of\n{name} →" in (site / "bots" / f"{name}.html").read_text()


@needs_browser
def test_the_games_list_of_a_four_player_league_in_chromium(driver, ffa):
    """Every seat of every game with its bot, version and place, the ranking, the sleeper's
    timeout; one bot's games with its place; a game's replay from the list, four players."""
    here, games, _board = ffa
    site = here / "site"
    driver.get((site / "games.html").as_uri())
    wait(driver, lambda d: len(d.find_elements("css selector", "#games tbody tr")) == len(games),
         "no games listed")
    for tr, stored in zip(driver.find_elements("css selector", "#games tbody tr"), games):
        record = stored.record
        places = record.rank_of()
        seats = [td.text for td in tr.find_elements("css selector", "td.seat")]
        out = {o.seat for o in record.out}
        assert seats == [f"{b.name} v1 {ordinal(places[seat] + 1)}" + (" timeout" if seat in out else "")
                         for seat, b in enumerate(record.bots)]
        order = sorted(range(4), key=lambda seat: (places[seat], seat))
        assert tr.find_element("css selector", "td.ranking").text == ", ".join(
            f"{ordinal(places[seat] + 1)} {record.bots[seat].name}" for seat in order)
    driver.save_screenshot(str(SCREENSHOTS / "games-tron-ffa.png"))
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element("id", "bot-filter")).select_by_value("sleeper")
    wait(driver, lambda d: "played by sleeper" in d.find_element("id", "games-status").text,
         "the filter did not apply")
    for tr in driver.find_elements("css selector", "#games tbody tr"):
        game = games[int(tr.get_attribute("data-game")) - 1].record
        place = ordinal(game.rank_of()[game.seat_of("sleeper")] + 1)
        assert tr.find_element("css selector", "td.ranking .badge").text == place
        assert "sleeper out" in tr.text
    driver.find_element("css selector", "#games tbody tr a").click()
    wait(driver, lambda d: d.find_element("id", "replay").is_displayed(), "no replay shown")
    assert len(driver.find_elements("css selector", "#players .player")) == 4
    assert "(out for a fault: timeout)" in driver.find_element("id", "ranking").text
    no_console_errors(driver)


@needs_browser
def test_the_standings_of_a_four_player_league_fit_a_1280_px_window(driver, ffa):
    """Its 17 columns and caption within the window, no sideways scrolling, every bot's name
    on one line (before: 1398 px in the tron-ffa league's window of 1280, Move ms and the
    caption cut off)."""
    here, _games, board = ffa
    driver.get((here / "site" / "index.html").as_uri())
    assert driver.execute_script("return window.innerWidth") == 1280
    sizes = driver.execute_script("""
        const table = document.getElementById('leaderboard'), page = document.documentElement;
        const right = e => e.getBoundingClientRect().right;
        const heads = Array.from(table.querySelectorAll('thead th'));
        return {page: page.clientWidth, scrolled: page.scrollWidth, table: right(table),
                caption: right(table.caption), last: [heads.at(-1).textContent, right(heads.at(-1))],
                columns: heads.length,
                names: Array.from(table.querySelectorAll('td.bot'), td => td.getClientRects().length
                                  && td.querySelector('a').getClientRects().length)};""")
    assert sizes["columns"] == 17 and sizes["last"][0] == "Move ms"
    assert sizes["scrolled"] <= sizes["page"], sizes
    assert max(sizes["table"], sizes["caption"], sizes["last"][1]) <= sizes["page"], sizes
    assert sizes["names"] == [1] * len(board), sizes       # a name is never broken
    driver.save_screenshot(str(SCREENSHOTS / "leaderboard-tron-ffa.png"))


def ordinal(n: int) -> str:
    return f"{n}{'th' if n % 100 in (11, 12, 13) else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@pytest.fixture(scope="module")
def ffa_paged(ffa, tmp_path_factory):
    """The four-player league's site published again with two games to a page: three pages."""
    here, games, _board = ffa
    site = tmp_path_factory.mktemp("ffa-paged") / "site"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(site_data, "PAGE_GAMES", 2)
        publish_site(here / "ffa.sqlite", site)
    return site, games


def listed(driver) -> list[int]:
    """The games the list shows, by number."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#games tbody tr'), tr => Number(tr.dataset.game))")


def pager(driver, nav: str) -> list:
    """A pager's "page N of M" and the buttons it has disabled."""
    return driver.execute_script(
        "const nav = document.getElementById(arguments[0]);"
        "return [nav.querySelector('.where').textContent,"
        " Array.from(nav.querySelectorAll('button:disabled'), b => b.dataset.go)]", nav)


@needs_browser
def test_the_games_list_of_a_four_player_league_pages_and_its_replay_steps_in_chromium(driver, ffa_paged):
    """The games list's paging and the replay's stepping, shared with two-seat leagues, on a
    four-player league: every pager button both ways, a page from the hash, one bot's pages;
    a game's turns by the keys, the buttons, the slider and the turn list."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    site, games = ffa_paged
    assert len(games) == 5

    def go(button: str, to: list[int]) -> None:
        driver.find_element("css selector", f"#games-pager [data-go={button}]").click()
        wait(driver, lambda d: listed(d) == to, f"{button}: not games {to}")

    driver.get((site / "games.html").as_uri())
    wait(driver, lambda d: listed(d) == [1, 2], "page 1 did not load")
    assert pager(driver, "games-pager") == pager(driver, "games-pager-bottom") == ["page 1 of 3", ["first", "prev"]]
    go("next", [3, 4])
    assert pager(driver, "games-pager") == ["page 2 of 3", []] and driver.current_url.endswith("#page=2")
    go("last", [5])
    assert pager(driver, "games-pager-bottom") == ["page 3 of 3", ["next", "last"]]
    go("prev", [3, 4])
    go("first", [1, 2])
    # the bottom pager takes the reader back up to the top of the list it opened
    driver.execute_script("document.body.style.minHeight = '4000px'; window.scrollTo(0, 2000);"
                          "document.querySelector('#games-pager-bottom [data-go=next]').click()")
    wait(driver, lambda d: listed(d) == [3, 4], "the bottom pager did not page")
    assert driver.execute_script("return window.scrollY") == 0
    driver.get((site / "games.html").as_uri() + "#page=3")
    wait(driver, lambda d: listed(d) == [5], "the hash's page 3 did not load")

    sleeper = [no for no, g in enumerate(games, 1) if "sleeper" in {b.name for b in g.record.bots}]
    assert len(sleeper) > 2            # all five games (seed 2): three pages
    Select(driver.find_element("id", "bot-filter")).select_by_value("sleeper")
    wait(driver, lambda d: listed(d) == sleeper[:2], "the filter did not apply")
    assert pager(driver, "games-pager")[0] == f"page 1 of {(len(sleeper) + 1) // 2}"
    go("next", sleeper[2:4])
    assert driver.current_url.endswith("#bot=sleeper&page=2")

    no = listed(driver)[0]
    record = games[no - 1].record
    n = len(record.turns())
    driver.find_element("css selector", "#games tbody tr a").click()
    wait(driver, lambda d: d.find_element("id", "replay").is_displayed(), "no replay shown")
    assert len(driver.find_elements("css selector", "#players .player")) == 4

    def at() -> list[str]:
        return [driver.find_element("id", "ply").text, shown(driver)[0]]

    assert at() == [f"0 / {n}", "0"]
    body = driver.find_element("tag name", "body")
    body.send_keys(Keys.END)
    assert at() == [f"{n} / {n}", str(n)] and driver.current_url.endswith(f"#g={no}&t={n}")
    body.send_keys(Keys.ARROW_LEFT)
    assert at() == [f"{n - 1} / {n}", str(n - 1)]
    driver.find_element("css selector", "#controls [data-go=first]").click()
    assert at() == [f"0 / {n}", "0"]
    assert driver.execute_script("return Array.from(document.querySelectorAll('#controls button:disabled'),"
                                 " b => b.dataset.go)") == ["first", "prev"]
    driver.execute_script("const s = document.getElementById('scrub'); s.value = 2;"
                          "s.dispatchEvent(new Event('input'))")
    assert at() == [f"2 / {n}", "2"]
    driver.find_elements("css selector", "#movelist tbody tr")[2].click()
    assert at() == [f"3 / {n}", "3"]
    assert driver.execute_script("return Array.from(document.querySelectorAll('#movelist tbody tr.current'),"
                                 " tr => tr.dataset.turn)") == ["3"]
    no_console_errors(driver)


@pytest.fixture(scope="module")
def two_seat_faults(tmp_path_factory):
    """A 2-player tron league where one bot exits at once in each of its 4 games (played with
    --keep-going), published with two faults to a page: the fault list has two pages."""
    from arena.publish import pages as site_pages
    here = tmp_path_factory.mktemp("tron-faults")
    (here / "gone").mkdir()
    (here / "gone" / "gone.py").write_text("raise SystemExit(3)\n")
    (here / "tron.yaml").write_text(
        "name: tron-faults\ngame: tron\nrules: {width: 8, height: 6}\n"
        "bots:\n  - {name: gone, command: python3 gone/gone.py, dialect: codingame}\n"
        "  - {name: random, bot: tron-random}\n"
        "games_per_pairing: 4\nworkers: 2\nseed: 3\nstore: tron.sqlite\n")
    out = arena("run", "tron.yaml", "--keep-going", cwd=here)
    assert out.returncode == 0, out.stderr
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(site_data, "PAGE_FAULTS", 2)
        patch.setattr(site_pages, "PAGE_FAULTS", 2)
        publish_site(here / "tron.sqlite", here / "site")
    return here / "site"


@needs_browser
def test_a_tron_bots_fault_pages_name_its_seats_by_the_games_names(driver, two_seat_faults):
    """Every page of a two-seat tron bot's faults, the first written by the publisher and
    the next drawn by bot.js, says the seat as tron names it (A, B), never x or o."""
    driver.get((two_seat_faults / "bots" / "gone.html").as_uri())
    wait(driver, lambda d: d.find_elements("css selector", "#faults .fault-head"), "no faults shown")

    def seats() -> list[str]:
        heads = driver.execute_script(
            "return Array.from(document.querySelectorAll('#faults .fault-head'), h => h.textContent)")
        return [re.search(r" as (\S+),", head)[1] for head in heads]

    first = seats()
    driver.find_element("css selector", "#fault-pager [data-go=next]").click()
    wait(driver, lambda d: d.find_element("css selector", "#fault-pager .where").text == "page 2 of 2",
         "no page 2")
    second = seats()
    assert len(first) == len(second) == 2 and sorted(first + second) == ["A", "A", "B", "B"]
    no_console_errors(driver)
