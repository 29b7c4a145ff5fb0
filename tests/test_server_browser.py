"""arena serve in a real browser: a headless Chromium logs in with a token, submits a bot
through the form, watches the leaderboard take it without reloading, opens a replay, and
reads its own bot's stderr, which another participant cannot reach.

Needs selenium, /usr/bin/chromium and /usr/bin/chromedriver; skips without them.
"""

from __future__ import annotations

import re
import shutil
import zipfile

import httpx
import pytest
from browser import chromium as browser

from tests.server import add_users, write_ladder
from tests.server.bots import CPP, CRASHING, ORDERED
from tests.server.serving import Serving

pytestmark = pytest.mark.skipif(browser.missing() is not None,
                                reason=f"no browser for the server test: {browser.missing()}")
WAIT_S = 60


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve-browser")
    config = write_ladder(folder)
    tokens = add_users(config, ["alice", "bob"])
    serving = Serving(config)
    yield folder, serving, tokens
    assert serving.stop() == 130, serving.stderr()


@pytest.fixture(scope="module")
def driver():
    with browser.chromium() as chrome:
        yield chrome


def by_css(driver, selector: str):
    from selenium.webdriver.common.by import By
    return driver.find_element(By.CSS_SELECTOR, selector)


def wait(driver, condition, message: str, every: float = 0.2):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, WAIT_S, poll_frequency=every).until(condition, message)


def no_console_errors(driver) -> None:
    """No script error, no blocked resource, no CSP violation."""
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def names(driver) -> list[str]:
    """The bots in the leaderboard table, in its order."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#leaderboard td.bot a'), a => a.textContent)")


def log_in(driver, serving: Serving, token: str) -> None:
    driver.delete_all_cookies()
    driver.get(serving.url + "/login")
    by_css(driver, "#token").send_keys(token)
    by_css(driver, "#login-form button").click()
    wait(driver, lambda d: d.current_url.endswith("/me"), "the login to land on /me")


def submit(driver, serving: Serving, name: str, path, command: str, build: str = "") -> int:
    """Submit through the form; the submission's number, once the worker is done with it."""
    driver.get(serving.url + "/submit")
    by_css(driver, "#name").send_keys(name)
    by_css(driver, "#command").send_keys(command)
    if build:
        by_css(driver, "#build").send_keys(build)
    by_css(driver, "#file").send_keys(str(path))
    by_css(driver, "#submit-form button").click()
    wait(driver, lambda d: "/me#submission-" in d.current_url, "the form to land on /me")
    number = int(re.search(r"#submission-(\d+)", driver.current_url)[1])

    def done(d):
        d.refresh()
        return by_css(d, f"#submission-{number}").get_attribute("data-status") in ("accepted", "rejected")
    wait(driver, done, f"submission {number} to be accepted or rejected", every=1.0)
    return number


def test_log_in_submit_watch_the_leaderboard_and_open_a_replay(driver, site):
    folder, serving, tokens = site
    driver.get(serving.url + "/")
    wait(driver, lambda d: names(d), "the standings")
    driver.execute_script("window.stillHere = true")
    board = driver.current_window_handle
    assert "formbot" not in names(driver)
    no_console_errors(driver)

    driver.switch_to.new_window("tab")   # the leaderboard stays open in the first tab
    log_in(driver, serving, tokens["alice"])
    bot = folder / "bot.py"
    bot.write_text(ORDERED)
    number = submit(driver, serving, "formbot", bot, "python3 bot.py")
    assert by_css(driver, f"#submission-{number}").get_attribute("data-status") == "accepted"
    no_console_errors(driver)
    driver.close()

    driver.switch_to.window(board)
    wait(driver, lambda d: "formbot" in names(d), "formbot in the table without a reload")
    assert driver.execute_script("return window.stillHere") is True      # the page was not reloaded
    [link] = [a for a in driver.find_elements("css selector", "#leaderboard td.bot a") if a.text == "formbot"]
    link.click()
    wait(driver, lambda d: d.find_elements("css selector", "#recent tbody a"), "formbot's games")
    by_css(driver, "#recent tbody a").click()
    wait(driver, lambda d: "/site/replay.html#g=" in d.current_url, "the replay viewer")
    wait(driver, lambda d: not by_css(d, "#replay").get_attribute("hidden"), "the replay to load")
    by_css(driver, 'button[data-go="last"]').click()
    assert "formbot" in by_css(driver, "#replay-sub").text + by_css(driver, "#players").text
    no_console_errors(driver)


def test_own_stderr_is_shown_and_anothers_cannot_be_reached(driver, site):
    folder, serving, tokens = site
    log_in(driver, serving, tokens["alice"])
    crash = folder / "crash.py"
    crash.write_text(CRASHING)
    number = submit(driver, serving, "crashform", crash, "python3 crash.py")
    row = by_css(driver, f"#submission-{number}")
    assert row.get_attribute("data-status") == "rejected"
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('pre.stderr'), e => e.textContent).join('\\n')")
    assert "SECRET-STDERR <script>alert(1)</script>" in shown     # as text, not markup
    assert driver.execute_script("return document.querySelectorAll('main script').length") == 0
    no_console_errors(driver)

    log_in(driver, serving, tokens["bob"])
    assert "SECRET-STDERR" not in driver.page_source
    driver.get(f"{serving.url}/api/submissions/{number}")
    assert "no such submission of yours" in driver.page_source and "SECRET-STDERR" not in driver.page_source
    driver.get_log("browser")   # that 404 was the point: the next test starts with a clean log
    with httpx.Client(base_url=serving.url) as c:
        assert c.get(f"/api/submissions/{number}").status_code == 401


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to build the C++ bot")
def test_a_cpp_zip_with_a_build_is_built_in_the_sandbox_and_plays(driver, site):
    folder, serving, tokens = site
    log_in(driver, serving, tokens["bob"])
    archive = folder / "cppbot.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("bot.cpp", CPP)
    number = submit(driver, serving, "cppbot", archive, "./bot", build="g++ -O2 -o bot bot.cpp")
    assert by_css(driver, f"#submission-{number}").get_attribute("data-status") == "accepted", driver.page_source
    driver.get(serving.url + "/")
    wait(driver, lambda d: "cppbot" in names(d), "cppbot in the standings")
    no_console_errors(driver)
