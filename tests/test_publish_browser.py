"""The published site in a real browser: a headless Chromium opens it from file:// and is
clicked through like a person would (sort the table, page the games, step a replay).

Screenshots of each page go to artifacts/screenshots/ at the repo root (git-ignored).
Needs selenium, /usr/bin/chromium and /usr/bin/chromedriver; skips without them.
"""

from pathlib import Path

import pytest
from browser import chromium as browser
from browser.league import HOSTILE_STDERR, FaultPlan, bot_names, build_store, shared_site
from made_once import session_dir

from arena.games import default_registry
from arena.league import RatingConfig, Store, build_leaderboard
from arena.publish import publish_site
from arena.record import Termination

pytestmark = pytest.mark.skipif(browser.missing() is not None,
                                reason=f"no browser for the site test: {browser.missing()}")

SCREENSHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
WAIT_S = 10


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """The 20-bot, 2,000-game store and its site (both shared with the scale test, which
    checks the site's files; the pages here only read it)."""
    store, site = shared_site(session_dir(tmp_path_factory), bots=20, games=2000)
    with Store(store) as opened:
        games = list(opened.records())
    return site, games


@pytest.fixture(scope="module")
def driver():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with browser.chromium() as chrome:
        yield chrome


def open_page(driver, site: Path, page: str, fragment: str = "") -> None:
    driver.get((site / page).as_uri() + (f"#{fragment}" if fragment else ""))


def wait(driver, condition, message: str):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, WAIT_S).until(condition, message)


def css(driver, selector: str):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, selector)


def screenshot(driver, name: str, max_height: int = 2600) -> None:
    """A screenshot of the whole page (up to max_height pixels tall)."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 1280, "height": min(max(height, 800), max_height), "deviceScaleFactor": 1,
        "mobile": False})
    try:
        driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def no_console_errors(driver) -> None:
    """Nothing the page did failed: no script error, no blocked resource, no CSP violation."""
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def texts(driver, selector: str) -> list[str]:
    """The text of every element selector matches (one round trip to the browser)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.textContent.trim())",
        selector)


def names_in_table(driver) -> list[str]:
    return texts(driver, "#leaderboard tbody td.bot a")


def test_leaderboard_shows_the_stores_rank_order_and_sorts_by_any_column(driver, league):
    site, games = league
    names = bot_names(20, hostile=True)
    board = build_leaderboard(games, RatingConfig(), names)
    ranked = [row.bot for row in board.rows]
    open_page(driver, site, "index.html")
    assert names_in_table(driver) == ranked
    assert "<b>evil</b>&bot" in ranked                    # shown as text, not as bold markup
    screenshot(driver, "leaderboard")

    bot_header = css(driver, "#leaderboard th[data-key=bot] button")[0]
    bot_header.click()
    by_name = names_in_table(driver)
    assert by_name != ranked and sorted(by_name) == sorted(ranked)
    plain = [n for n in by_name if n.isalpha()]
    assert plain == sorted(plain)
    assert css(driver, "#leaderboard th[data-key=bot]")[0].get_attribute("aria-sort") == "ascending"
    bot_header.click()
    assert names_in_table(driver) == by_name[::-1]

    css(driver, "#leaderboard th[data-key=faults] button")[0].click()
    most_faults = max(board.rows, key=lambda row: row.fault_count)
    assert names_in_table(driver)[0] == most_faults.bot
    css(driver, "#leaderboard th[data-key=rank] button")[0].click()
    assert names_in_table(driver) == ranked
    no_console_errors(driver)


def test_a_bot_page_shows_its_faults_and_hostile_stderr_as_plain_text(driver, league):
    site, _games = league
    open_page(driver, site, "bots/charlie.html")
    tails = [pre.get_attribute("textContent") for pre in css(driver, "pre.stderr")]
    assert tails and all("<script>alert(1)</script>" in tail for tail in tails)
    assert HOSTILE_STDERR.format(ply=1).splitlines()[1] in tails[0]
    scripts = driver.execute_script(
        "return Array.from(document.scripts, s => s.getAttribute('src') || 'INLINE')")
    assert all(src.startswith("../assets/") or src.startswith("../data/") for src in scripts)
    assert css(driver, "li.fault img") == [] and css(driver, "li.fault script") == []
    assert css(driver, "#versus tbody tr")                 # results by opponent
    assert css(driver, "svg.chart g.series path.band")      # rating with its band
    screenshot(driver, "bot")
    no_console_errors(driver)


def test_crosstable_is_a_heat_map_and_the_history_chart_picks_out_bots(driver, league):
    site, _games = league
    open_page(driver, site, "crosstable.html")
    assert len(css(driver, "#crosstable tbody tr")) == 20
    rated = css(driver, "#crosstable td[data-rate]")
    assert len(rated) > 300
    assert all(cell.value_of_css_property("background-color") != "rgba(0, 0, 0, 0)"
               for cell in rated[:20])
    screenshot(driver, "crosstable")

    open_page(driver, site, "history.html")
    assert len(css(driver, "svg.chart g.series")) == 20
    css(driver, "ol.legend button")[0].click()
    focused = css(driver, "svg.chart g.series.focus")
    assert len(focused) == 1 and focused[0].get_attribute("data-bot") == "0"
    assert focused[0].find_element("css selector", "path.band").is_displayed()
    axis = " ".join(texts(driver, "svg.chart text.axis"))
    assert "μ − 3σ" in axis and "ranks" in axis              # the line is what the table ranks by
    board = build_leaderboard(_games, RatingConfig(), bot_names(20, hostile=True))
    shown = texts(driver, "ol.legend button .muted")
    assert shown[0] == f"{board.rows[0].rating.value:.1f}"          # the value beside the top bot
    screenshot(driver, "history")
    no_console_errors(driver)


def test_games_list_pages_through_games_and_filters_by_bot(driver, league):
    site, _games = league
    open_page(driver, site, "games.html")
    first_cells = lambda: texts(driver, "#games tbody tr td:first-child")  # noqa: E731
    wait(driver, lambda d: first_cells()[:1] == ["1"], "page 1 did not load")
    assert first_cells() == [str(n) for n in range(1, 101)]
    screenshot(driver, "games", max_height=1400)
    css(driver, "#games-pager [data-go=next]")[0].click()
    wait(driver, lambda d: first_cells()[:1] == ["101"], "page 2 did not load")
    css(driver, "#games-pager [data-go=last]")[0].click()
    wait(driver, lambda d: first_cells()[-1:] == ["2000"], "the last page did not load")
    assert "page 20 of 20" in css(driver, "#games-pager .where")[0].text

    from selenium.webdriver.support.ui import Select
    Select(css(driver, "#bot-filter")[0]).select_by_value("charlie")
    wait(driver, lambda d: "played by charlie" in css(d, "#games-status")[0].text,
         "the bot filter did not apply")
    rows = texts(driver, "#games tbody tr")
    assert len(rows) == 100 and all("charlie" in row for row in rows)
    no_console_errors(driver)


def pager(driver, nav: str) -> list:
    """A pager's "page N of M" and the buttons it has disabled."""
    return driver.execute_script(
        "const nav = document.getElementById(arguments[0]);"
        "return [nav.querySelector('.where').textContent,"
        " Array.from(nav.querySelectorAll('button:disabled'), b => b.dataset.go)]", nav)


def test_games_list_pagers_go_both_ways_and_follow_the_hash(driver, league):
    """Every pager button, the ends' disabled ones, the bottom pager back to the top, a
    page and a bot's page from the hash (gamelist.js, as a four-player league's list)."""
    site, games = league
    first_cells = lambda: texts(driver, "#games tbody tr td:first-child")[:1]  # noqa: E731

    def go(nav: str, button: str, first: int) -> None:
        css(driver, f"#{nav} [data-go={button}]")[0].click()
        wait(driver, lambda d: first_cells() == [str(first)], f"{button}: no game {first} first")

    open_page(driver, site, "games.html", "page=20")
    wait(driver, lambda d: first_cells() == ["1901"], "the hash's page 20 did not load")
    assert pager(driver, "games-pager") == pager(driver, "games-pager-bottom") == ["page 20 of 20", ["next", "last"]]
    go("games-pager", "prev", 1801)
    assert pager(driver, "games-pager") == ["page 19 of 20", []] and driver.current_url.endswith("#page=19")
    go("games-pager", "first", 1)
    assert pager(driver, "games-pager-bottom") == ["page 1 of 20", ["first", "prev"]]
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    assert driver.execute_script("return window.scrollY") > 0
    go("games-pager-bottom", "next", 101)
    assert driver.execute_script("return window.scrollY") == 0     # back up to the list's top
    go("games-pager-bottom", "last", 1901)
    charlie = [no for no, g in enumerate(games, 1) if "charlie" in {b.name for b in g.record.bots}]
    open_page(driver, site, "games.html", "bot=charlie&page=2")
    wait(driver, lambda d: first_cells() == [str(charlie[100])], "charlie's page 2 did not load")
    assert css(driver, "#bot-filter")[0].get_attribute("value") == "charlie"
    assert pager(driver, "games-pager") == [f"page 2 of {(len(charlie) + 99) // 100}", []]
    no_console_errors(driver)


def cells_shown(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#board [data-cell]'),"
        " c => c.dataset.cell + ':' + c.dataset.mark)")


def boards(driver, status: str) -> list[int]:
    return [int(b) for b in driver.execute_script(
        "return Array.from(document.querySelectorAll('#board .sb.' + arguments[0]),"
        " b => b.dataset.board)", status)]


def test_replay_steps_through_a_game_to_its_final_board(driver, league):
    from selenium.webdriver.common.keys import Keys
    site, games = league
    rules = default_registry().create("ultimate")
    no, game = next((i, g) for i, g in enumerate(games, 1)
                    if i > 150 and g.record.winner is not None
                    and g.record.termination.value == "normal"
                    and int(float(g.record.seed)) != g.record.seed)   # a JS number would round it
    moves = [int(m.move) for m in game.record.moves]
    final = rules.replay(moves)
    n = len(moves)

    open_page(driver, site, "games.html", "page=2")
    wait(driver, lambda d: css(d, "#games tbody tr"), "page 2 did not load")
    css(driver, f'#games tbody a[href="replay.html#g={no}"]')[0].click()
    wait(driver, lambda d: d.find_element("id", "replay").is_displayed(), "no replay shown")
    assert driver.find_element("id", "replay-title").text.startswith(f"Game {no}: ")
    sub = driver.find_element("id", "replay-sub").text
    assert f"seed {game.record.seed}" in sub                       # every digit kept
    pair, swap = (int(p) + 1 for p in game.key.rsplit("|", 2)[1:])
    x, o = (b.name for b in game.record.bots)
    assert f"pair {pair}, game {swap}: {x} plays x, {o} plays o" in sub and "|" not in sub
    assert len(css(driver, "#board .sb")) == 9 and len(cells_shown(driver)) == 81
    assert all(c.endswith(":") for c in cells_shown(driver))      # the start: empty

    body = driver.find_element("tag name", "body")
    body.send_keys(Keys.END)
    assert driver.find_element("id", "ply").text == f"{n} / {n}"
    assert cells_shown(driver) == [f"{c}:{'.xo'[final.cell(c) + 1].strip('.')}"
                                   for c in range(81)]
    won = [b for b in range(9) if final.xwon >> b & 1]
    assert won == boards(driver, "won-x") and won
    assert css(driver, "#board .sb.target") == []                 # game over: nowhere to play
    assert f"m={n}" in driver.current_url
    last = moves[-1]
    assert "last" in css(driver, f'#board [data-cell="{last}"]')[0].get_attribute("class")
    now = driver.find_element("id", "now").text
    mover = game.record.bots[game.record.moves[-1].seat].name
    assert f"Move {n} of {n}" in now and mover in now and "ms wall" in now and "ms cpu" in now

    body.send_keys(Keys.ARROW_LEFT)
    assert driver.find_element("id", "ply").text == f"{n - 1} / {n}"
    assert css(driver, f'#board [data-cell="{last}"]')[0].get_attribute("data-mark") == ""
    target = rules.replay(moves[:-1]).target
    highlighted = boards(driver, "target")
    assert highlighted == ([target] if target >= 0 else highlighted) and highlighted
    css(driver, "#controls [data-go=next]")[0].click()
    assert driver.find_element("id", "ply").text == f"{n} / {n}"
    css(driver, "#controls [data-go=first]")[0].click()
    assert driver.find_element("id", "ply").text == f"0 / {n}"
    css(driver, "#controls [data-go=last]")[0].click()
    assert driver.find_element("id", "ply").text == f"{n} / {n}"
    body.send_keys(Keys.ARROW_LEFT * 12)
    assert driver.find_element("id", "ply").text == f"{n - 12} / {n}"
    screenshot(driver, "replay", max_height=1100)
    no_console_errors(driver)


def test_replay_of_a_fault_shows_the_reason_and_stderr_as_text(driver, league):
    site, games = league
    no, game = next((i, g) for i, g in enumerate(games, 1) if g.record.termination.is_fault)
    open_page(driver, site, "replay.html", f"g={no}&m={len(game.record.moves)}")
    wait(driver, lambda d: d.find_element("id", "replay").is_displayed(), "no replay shown")
    assert game.record.reason in driver.find_element("id", "result").text
    detail = driver.find_element("id", "fault-detail")
    assert "<script>alert(1)</script>" in detail.find_element("tag name", "pre").text
    sentence = driver.find_element("id", "now").text.splitlines()[-1]
    faulty, other = (game.record.bots[s].name for s in (game.record.faulted, 1 - game.record.faulted))
    verb = {"crash": "crashed", "timeout": "ran out of time"}[game.record.termination.value]
    assert sentence.startswith(f"{'XO'[game.record.faulted]} {faulty} {verb}")
    assert sentence.endswith(f", so {other} wins.") and "faulted (" not in sentence
    screenshot(driver, "replay-fault", max_height=1600)
    no_console_errors(driver)


@pytest.fixture(scope="module")
def tictactoe(tmp_path_factory):
    """A 3-bot tic-tac-toe league of 90 games where cid crashes in every one of its 60."""
    store = tmp_path_factory.mktemp("ttt") / "ttt.sqlite"
    build_store(store, ["ann", "ben", "cid"], game="tictactoe", games_per_pairing=30,
                faults={"cid": FaultPlan(Termination.CRASH, 1.0, "exited (signal 11)")})
    publish_site(store, store.parent / "site")
    with Store(store) as opened:
        return store.parent / "site", list(opened.records())


def test_a_3x3_replay_draws_one_board(driver, tictactoe):
    site, games = tictactoe
    no, game = next((i, g) for i, g in enumerate(games, 1) if "cid" not in g.record.bots[0].name
                    and "cid" not in g.record.bots[1].name and len(g.record.moves) > 5)
    moves = [int(m.move) for m in game.record.moves]
    final = default_registry().create("tictactoe").replay(moves)
    open_page(driver, site, "replay.html", f"g={no}")
    wait(driver, lambda d: d.find_element("id", "replay").is_displayed(), "no replay shown")
    assert css(driver, "#board .sb") == [] and len(cells_shown(driver)) == 9
    css(driver, "#controls [data-go=last]")[0].click()
    assert cells_shown(driver) == [f"{c}:{'.xo'[final.cell(c) + 1].strip('.')}" for c in range(9)]
    last = moves[-1]          # cells, rows and columns all count from 0, as moves do
    assert f"cell {last} (row {last // 3}, column {last % 3})" in driver.find_element("id", "now").text
    # the slider and the move list step too (viewer.js, as a tron game's turns)
    driver.execute_script("const s = document.getElementById('scrub'); s.value = 2;"
                          "s.dispatchEvent(new Event('input'))")
    assert driver.find_element("id", "ply").text == f"2 / {len(moves)}" and driver.current_url.endswith(f"#g={no}&m=2")
    assert sorted(c for c in cells_shown(driver) if not c.endswith(":")) == sorted([f"{moves[0]}:x", f"{moves[1]}:o"])
    css(driver, "#movelist tbody tr")[4].click()
    assert driver.find_element("id", "ply").text == f"5 / {len(moves)}"
    assert texts(driver, "#movelist tbody tr.current td:first-child") == ["5"]
    assert texts(driver, "#gamenav a") == [f"← game {no - 1}", "games list", f"game {no + 1} →"]
    css(driver, "#gamenav a")[2].click()
    wait(driver, lambda d: d.find_element("id", "replay-title").text.startswith(f"Game {no + 1}: "),
         "the next game did not open")
    assert driver.find_element("id", "ply").text.startswith("0 / ")
    screenshot(driver, "replay-tictactoe", max_height=1000)
    no_console_errors(driver)


def test_a_bot_page_pages_through_many_faults(driver, tictactoe):
    site, games = tictactoe
    faults = [no for no, g in enumerate(games, 1) if g.record.faulted is not None]
    assert len(faults) == 60
    open_page(driver, site, "bots/cid.html")
    newest = [int(t.split()[1]) for t in texts(driver, "#faults .fault-head a")]
    assert newest == faults[::-1][:50]
    assert pager(driver, "fault-pager") == ["page 1 of 2", ["prev"]]
    css(driver, "#fault-pager [data-go=next]")[0].click()
    wait(driver, lambda d: texts(d, "#fault-pager .where") == ["page 2 of 2"], "no page 2")
    assert pager(driver, "fault-pager") == ["page 2 of 2", ["next"]]
    older = [int(t.split()[1]) for t in texts(driver, "#faults .fault-head a")]
    assert older == faults[::-1][50:]
    tails = texts(driver, "#faults pre.stderr")
    assert len(tails) == 10 and all("<script>alert(1)</script>" in t for t in tails)
    css(driver, "#fault-pager [data-go=prev]")[0].click()
    wait(driver, lambda d: texts(d, "#fault-pager .where") == ["page 1 of 2"], "no page 1")
    assert [int(t.split()[1]) for t in texts(driver, "#faults .fault-head a")] == newest
    no_console_errors(driver)


def test_elo_columns_los_matrix_and_a_match_page_down_to_a_replay(driver, league):
    import math

    from arena.league.pairs import between
    from arena.stats import summarize
    site, games = league
    board = build_leaderboard(games, RatingConfig(), bot_names(20, hostile=True))
    open_page(driver, site, "index.html")
    elo = texts(driver, "#leaderboard tbody td:nth-child(8)")
    errors = texts(driver, "#leaderboard tbody td:nth-child(9)")
    los = texts(driver, "#leaderboard tbody td:nth-child(7)")
    assert elo == [f"{row.elo:+.0f}" for row in board.rows]
    assert errors == [f"{row.elo_error:.0f}" for row in board.rows]
    assert [text.endswith("~") for text in los] == [row.significant is False for row in board.rows]
    css(driver, "#leaderboard th[data-key=elo] button")[0].click()     # sorts like the others
    assert names_in_table(driver)[0] == max(board.rows, key=lambda row: row.elo).bot
    screenshot(driver, "leaderboard-by-elo", max_height=1400)

    open_page(driver, site, "crosstable.html")
    fit = board.elo_fit
    cells = css(driver, "#los tbody tr")[0].find_elements("css selector", "td[data-los]")
    top, second = board.rows[0].bot, board.rows[1].bot
    assert abs(float(cells[0].get_attribute("data-los")) - fit.los(top, second)) < 1e-4
    assert len(css(driver, "#los tbody tr")) == 20
    screenshot(driver, "crosstable-los", max_height=1800)

    link = css(driver, "#crosstable tbody tr:first-child td[data-rate] a")[0]
    link.click()
    wait(driver, lambda d: "matches/" in d.current_url, "the match page opens")
    heading = texts(driver, "h1 a")
    a, b = heading
    stats = summarize(between(board.matches, a, b))
    assert texts(driver, "#pentanomial tbody td.num") == [str(n) for n in stats.pentanomial]
    shown = dict(zip(texts(driver, "#match-stats dt"), texts(driver, "#match-stats dd")))
    assert shown["Games"] == str(stats.games)
    assert shown["Pairs"] == str(stats.pairs)
    high = "+∞" if math.isinf(stats.elo_high) else f"{stats.elo_high:+.0f}"   # a 100% score
    # the estimate and the interval's ends, no "± half-width": the interval is lopsided
    assert shown["Elo difference 95% interval"] == f"{stats.elo:+.0f} {stats.elo_low:+.0f} to {high}"
    numbers = [int(n) for n in texts(driver, "#match-games tbody td:first-child")]
    played = [no for no, g in enumerate(games, 1) if {x.name for x in g.record.bots} == {a, b}]
    assert numbers == played
    screenshot(driver, "match")
    no_console_errors(driver)
    css(driver, "#match-games tbody tr:first-child a")[0].click()
    wait(driver, lambda d: "replay.html#g=" in d.current_url, "the replay opens")
    wait(driver, lambda d: css(d, "#replay:not([hidden])"), "the replay is drawn")
    assert f"#g={played[0]}" in driver.current_url
    no_console_errors(driver)
