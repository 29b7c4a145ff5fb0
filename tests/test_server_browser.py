"""arena serve in a real browser: a headless Chromium against a real `arena serve` on a
loopback port, clicked through as a participant would: log in with a token, submit a
Python bot through the form, watch it on one's own page and the leaderboard follow the
ladder without a reload, open a replay from a bot page, read one's own stderr and fail to
reach another participant's. Every page loads under the server's CSP with no console error.

Needs selenium, /usr/bin/chromium and /usr/bin/chromedriver; skips without them.
"""

from __future__ import annotations

import shutil
import zipfile

import httpx
import pytest
from browser import chromium as browser

from tests.server import LADDER, add_users, write_ladder
from tests.server.bots import CPP, CRASHING
from tests.server.contrast import contrasts, unreadable
from tests.server.serving import Serving, poll

pytestmark = pytest.mark.skipif(browser.missing() is not None,
                                reason=f"no browser for the server test: {browser.missing()}")

WAIT_S = 90

#: the first legal move after a nap of 10 ms, until a file crash-now appears in its
#: directory (a new version of it): then it crashes at its next move, saying why on stderr
CUED_BOT = """\
import os
import sys
import time

cue = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crash-now")
for line in sys.stdin:
    if line.startswith("turn"):
        if os.path.exists(cue):
            print("%s <b>cued</b> & gone", file=sys.stderr, flush=True)
            raise SystemExit(4)
        time.sleep(0.01)
        print(line.split(" ", 5)[4].split(",")[0], flush=True)
    elif line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("quit"):
        break
"""
ALICE_SECRET = "ALICE-OWN-STDERR"
BOB_SECRET = "BOB-OWN-STDERR"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server whose ladder plays from the start, alice (who uses the browser) and bob,
    whose bot is submitted through the API and accepted."""
    folder = tmp_path_factory.mktemp("serve-browser")
    config = write_ladder(folder, LADDER + "  rates: {requests_per_second: 50, burst: 200}\n")
    tokens = add_users(config, ["alice", "bob"])
    (folder / "bob.py").write_text(CUED_BOT % BOB_SECRET)
    (folder / "alicebot.py").write_text(CUED_BOT % ALICE_SECRET)
    (folder / "crash.py").write_text(CRASHING)
    serving = Serving(config)
    with httpx.Client(base_url=serving.url, headers={"Authorization": f"Bearer {tokens['bob']}"},
                      timeout=60) as bob:
        answer = bob.post("/api/submissions", data={"name": "bobbot", "command": "python3 bob.py"},
                          files={"file": ("bob.py", (folder / "bob.py").read_bytes())})
        assert answer.status_code == 201, answer.text
    yield config, serving, tokens, answer.json()["id"]
    assert serving.stop() == 130, serving.stderr()


@pytest.fixture(scope="module")
def driver():
    with browser.chromium() as chrome:
        yield chrome


def wait(driver, condition, message: str, seconds: float = WAIT_S):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, seconds, poll_frequency=0.2).until(condition, message)


def css(driver, selector: str):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, selector)


def console_errors(driver) -> list[str]:
    """The console's errors since the last call: a script error, a blocked resource, a CSP
    violation (an inline script refused) would each be one."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def reload_until(driver, condition, message: str):
    """Reload the page until condition(driver) holds (a participant's own page does not
    update itself); its value."""
    def again(d):
        d.refresh()
        return condition(d)
    return poll(lambda: again(driver), message, seconds=WAIT_S, every=0.5)


def log_in(driver, url: str, token: str) -> None:
    """Log in through the login page (a session of one's own: the cookies cleared first)."""
    from selenium.webdriver.common.by import By
    driver.delete_all_cookies()
    driver.get(url + "/login")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#login-form button[type=submit]").click()
    wait(driver, lambda d: d.current_url == url + "/me", "logged in, on /me")


def submit(driver, name: str, path, command: str, build: str = "") -> int:
    """Submit a bot through the form (from the nav's link); its submission's number, from
    the page the form lands on."""
    from selenium.webdriver.common.by import By
    driver.find_element(By.CSS_SELECTOR, "nav a[href='/submit']").click()
    wait(driver, lambda d: css(d, "#submit-form"), "the submit form")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "command").send_keys(command)
    if build:
        driver.find_element(By.ID, "build").send_keys(build)
    driver.find_element(By.ID, "file").send_keys(str(path))
    driver.find_element(By.CSS_SELECTOR, "#submit-form button[type=submit]").click()
    wait(driver, lambda d: "/me#submission-" in d.current_url, "the form's answer: the participant's page")
    return int(driver.current_url.rsplit("-", 1)[1])


def names(driver) -> list[str]:
    """The bots in the leaderboard's table, in its order."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#leaderboard td.bot a'), a => a.textContent)")


def bot_games(serving: Serving, bot: str) -> int:
    rows = httpx.get(f"{serving.url}/api/leaderboard", timeout=30).json()["rows"]
    return next((row["games"] for row in rows if row["bot"] == bot), 0)


def test_public_pages_load_under_the_csp_with_no_console_error(site, driver):
    config, serving, tokens, _bob = site
    poll(lambda: bot_games(serving, "blind") > 0, "the ladder's first game")
    for path in ("/", "/bots/blind", "/login", "/site/index.html", "/site/games.html", "/games/1"):
        answer = httpx.get(serving.url + path, follow_redirects=True, timeout=30)
        assert answer.status_code == 200, path
        csp = answer.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp.split("style-src")[0], path
        driver.get(serving.url + path)
        wait(driver, lambda d: d.execute_script("return document.readyState") == "complete", path)
        assert console_errors(driver) == [], path
    # a script the page did not ship is refused by the browser and said on the console
    driver.get(serving.url + "/")
    driver.execute_script("const s = document.createElement('script');"
                          "s.textContent = 'window.inlineRan = 1'; document.body.append(s);")
    assert driver.execute_script("return window.inlineRan") is None
    assert any("Content Security Policy" in message for message in console_errors(driver))


def test_a_participant_submits_through_the_form_and_watches_it_play(site, driver, tmp_path):
    from selenium.webdriver.common.by import By
    config, serving, tokens, bob_submission = site
    url = serving.url

    # the leaderboard, open in its own tab before alice's bot exists; a marker shows it is
    # never reloaded
    driver.get(url + "/")
    board_tab = driver.current_window_handle
    wait(driver, lambda d: names(d), "the leaderboard's rows")
    driver.execute_script("window.sameDocument = 'yes'")
    games_before = int(driver.find_element(By.ID, "games-count").text)
    assert "alicebot" not in names(driver)

    # alice logs in with her token and submits her bot through the form, in another tab
    driver.switch_to.new_window("tab")
    driver.get(url + "/me")
    wait(driver, lambda d: d.current_url.startswith(url + "/login"), "/me sends nobody to /login")
    driver.find_element(By.ID, "token").send_keys(tokens["alice"])
    driver.find_element(By.CSS_SELECTOR, "#login-form button[type=submit]").click()
    wait(driver, lambda d: d.current_url == url + "/me", "logged in, back to /me")
    assert driver.find_element(By.TAG_NAME, "h1").text == "alice"
    assert driver.get_cookie("arena_session")["httpOnly"] is True
    number = submit(driver, "alicebot", config.parent / "alicebot.py", "python3 alicebot.py")
    row = driver.find_element(By.ID, f"submission-{number}")
    assert "alicebot" in row.text
    first_status = row.get_attribute("data-status")
    assert first_status in ("received", "building", "validating"), first_status
    assert console_errors(driver) == []
    statuses = {first_status}

    def accepted(d):
        statuses.add(d.find_element(By.ID, f"submission-{number}").get_attribute("data-status"))
        return "accepted" in statuses
    reload_until(driver, accepted, "alicebot accepted on alice's page")
    assert len(statuses) > 1                                       # it changed on her page
    # a bot crashing in its validation is rejected, with its stderr shown to her as text
    crashing = submit(driver, "crashbot", config.parent / "crash.py", "python3 crash.py")
    reload_until(driver, lambda d: d.find_element(By.ID, f"submission-{crashing}").get_attribute("data-status")
                 == "rejected", "crashbot rejected on alice's page")
    shown = [e.text for e in css(driver, "pre.stderr") if "SECRET-STDERR" in e.text]
    assert shown and "SECRET-STDERR <script>alert(1)</script>" in shown[0]
    assert driver.execute_script("return document.querySelectorAll('main script').length") == 0
    # readable, as the browser draws it: the stderr, the menu's Log out, every other text
    drawn = {element.split(".")[0] + ":" + text for element, text, *_ in contrasts(driver)}
    assert "button:Log out" in drawn and any(text.startswith("pre:SECRET-STDERR") for text in drawn), drawn
    assert unreadable(driver) == []
    # each date on one line, whatever the width its column gets
    assert driver.execute_script("""return Array.from(document.querySelectorAll('td.when'), td => {
        const range = document.createRange(); range.selectNodeContents(td);
        return new Set(Array.from(range.getClientRects(), r => Math.round(r.top))).size; })""") == [1, 1]

    # back on the leaderboard: its rows follow the ladder, alicebot's among them, and it is
    # the same document as before
    driver.switch_to.window(board_tab)
    wait(driver, lambda d: "alicebot" in names(d), "alicebot's row, live")
    wait(driver, lambda d: int(d.find_element(By.ID, "games-count").text) > games_before, "more games, live")
    assert driver.execute_script("return window.sameDocument") == "yes"
    assert "alicebot: alice" in [e.text for e in css(driver, "#owners li")]   # the owners' list too
    assert console_errors(driver) == []

    # a replay from alicebot's page shows its board as the game ended
    [link] = [a for a in css(driver, "#leaderboard td.bot a") if a.text == "alicebot"]
    link.click()
    wait(driver, lambda d: d.current_url.startswith(url + "/bots/alicebot"), "alicebot's page")
    assert "Owner: alice" in driver.find_element(By.CLASS_NAME, "lead").text
    # its row may come before its first game is stored (the ladder names the bots it has):
    # the bot's page, which does not update itself, is reloaded until it lists a game
    row = reload_until(driver, lambda d: css(d, "#recent tbody tr"), "a game on alicebot's page")[0]
    no = int(row.find_element(By.CSS_SELECTOR, "td").text)
    row.find_element(By.CSS_SELECTOR, "a").click()
    wait(driver, lambda d: d.find_element(By.ID, "replay").is_displayed(), "the replay")
    assert driver.find_element(By.ID, "replay-title").text.startswith(f"Game {no}: ")
    css(driver, "#controls [data-go=last]")[0].click()
    moves = httpx.get(f"{url}/api/games/{no}", timeout=30).json()["moves"]
    marks = {move[0]: "xo"[move[1]] for move in moves}
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('#board [data-cell]'), c => c.dataset.mark)")
    assert shown == [marks.get(cell, "") for cell in range(9)] and len(marks) >= 5
    # the replay keeps the server's menu (the live site's pages are given it): alice's page,
    # Submit, and a Log out the page's policy lets post
    menu = [e.text for e in css(driver, "header.site nav a, header.site nav button")]
    assert menu == ["Leaderboard", "Games", "Rating history", "Crosstable", "Submit", "alice", "Log out"], menu
    assert console_errors(driver) == []

    # both bots get their cue and fault in the ladder: alice reads her own stderr, escaped
    poll(lambda: httpx.get(f"{url}/api/submissions/{bob_submission}", timeout=30,
                           headers={"Authorization": f"Bearer {tokens['bob']}"}).json()["status"] == "accepted",
         "bobbot accepted")
    data = config.parent / "store.server" / "submissions"
    for bot in ("alicebot", "bobbot"):
        (data / bot / "1" / "crash-now").write_text("")
    driver.get(url + "/me")
    own = reload_until(driver, lambda d: [e.text for e in css(d, "pre.own-stderr") if ALICE_SECRET in e.text],
                       "alicebot's fault and its stderr on alice's page")
    assert f"{ALICE_SECRET} <b>cued</b> & gone" in own[0]
    assert css(driver, "pre.own-stderr b") == []                   # text, not markup
    assert BOB_SECRET not in driver.page_source
    assert console_errors(driver) == []

    # bob's stderr is out of alice's reach: his submission is no page of hers, and the
    # replay of his faulted game shows no stderr. The cue is a new version of each bot (v2),
    # and a new version starts the standings, and the site's game numbers, again: a number
    # read before both v2s are counted names another game or none a reading later. Once a
    # reading has a v2 fault of alicebot's and a later one of bobbot's, no file of theirs
    # changes again, and bob's game keeps its number.
    def cued_faults(user):
        faults = httpx.get(f"{url}/api/me", timeout=30,
                           headers={"Authorization": f"Bearer {tokens[user]}"}).json()["faults"]
        return [fault for fault in faults if fault["version"] == 2]
    poll(lambda: cued_faults("alice"), "alicebot v2's fault in the standings")
    bob_faults = poll(lambda: cued_faults("bob"), "bobbot v2's fault in the standings")
    assert BOB_SECRET in bob_faults[0]["stderr"]
    cookie = driver.get_cookie("arena_session")["value"]
    as_alice = httpx.get(f"{url}/api/submissions/{bob_submission}", cookies={"arena_session": cookie}, timeout=30)
    assert as_alice.status_code == 404 and BOB_SECRET not in as_alice.text
    driver.get(f"{url}/api/submissions/{bob_submission}")
    assert "no such submission of yours" in driver.page_source and BOB_SECRET not in driver.page_source
    console_errors(driver)   # the browser says the 404 on its console: expected here
    for path in ("/me", "/bots/bobbot", f"/games/{bob_faults[0]['no']}"):
        driver.get(url + path)
        wait(driver, lambda d: d.execute_script("return document.readyState") == "complete", path)
        if path.startswith("/games/"):
            wait(driver, lambda d: d.find_element(By.ID, "replay").is_displayed(), "bob's faulted game")
            assert "crash" in driver.find_element(By.ID, "result").text
        assert BOB_SECRET not in driver.page_source, path
        assert console_errors(driver) == [], path


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to build the C++ bot")
def test_a_cpp_zip_with_a_build_is_built_in_the_sandbox_and_plays(site, driver):
    from selenium.webdriver.common.by import By
    config, serving, tokens, _bob = site
    log_in(driver, serving.url, tokens["bob"])
    archive = config.parent / "cppbot.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("bot.cpp", CPP)
    number = submit(driver, "cppbot", archive, "./bot", build="g++ -O2 -o bot bot.cpp && echo built it")
    reload_until(driver, lambda d: d.find_element(By.ID, f"submission-{number}").get_attribute("data-status")
                 == "accepted", "cppbot built and accepted")
    # its build log, opened, is readable; its command is shown as bob gave it
    [log] = [e for e in css(driver, "details") if "build log" in e.text]
    log.find_element(By.TAG_NAME, "summary").click()
    assert any(element == "pre.stderr build-log" and text == "built it" for element, text, *_ in contrasts(driver))
    assert unreadable(driver) == []
    cookie = {"arena_session": driver.get_cookie("arena_session")["value"]}
    assert httpx.get(f"{serving.url}/api/submissions/{number}", cookies=cookie, timeout=30).json()["command"] == "./bot"
    driver.get(serving.url + "/")
    wait(driver, lambda d: "cppbot" in names(d), "cppbot in the standings")
    assert console_errors(driver) == []
    # from a replay, the menu's Log out logs out
    driver.get(serving.url + "/games/1")
    wait(driver, lambda d: d.find_element(By.ID, "replay").is_displayed(), "a replay")
    driver.find_element(By.CSS_SELECTOR, "header.site nav button").click()
    wait(driver, lambda d: d.current_url == serving.url + "/", "logged out, on the leaderboard")
    assert "Log in" in driver.find_element(By.CSS_SELECTOR, "header.site nav").text
    assert console_errors(driver) == []
