"""The published site of a league of a game played by a referee process (docs/referees.md):
the real `arena run` and `arena publish` on a league whose referee (hostile_referee.py
transcript) has 152 answers a game given, long lines, an ###Error with markup in it and a
stderr log; its site keeps each game's transcript in pages of steps, capped in size, and the
replay page (a headless Chromium from file://, as tests/test_publish_browser.py opens one;
skipped without it) steps through a game's answers: the lines given and answered with their
times, the referee's ###Error lines where they came, its stderr tail."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser import chromium as browser

from arena.publish.data import LINE_CHARS, PAGE_STEPS, SITE_TRANSCRIPT_CHARS

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixture_referees"
STEPS = 152          # the referee asks each seat once ("go"), then 150 more answers
WAIT_S = 10


def arena(*args, cwd):
    out = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                         timeout=300, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out


def data_file(path: Path):
    """What a site's data file hands its page."""
    text = path.read_text()
    found = re.fullmatch(r'arenaData\("[^"]*",(.*)\);\n', text, re.S)
    assert found, text[:200]
    return json.loads(found[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site of a league of two games between echo bots, each in a directory of its own."""
    root = tmp_path_factory.mktemp("transcripts")
    for part, name in (("referee", "hostile_referee.py"), ("bot", "echo_bot.py")):
        (root / part).mkdir()
        shutil.copy(FIXTURES / name, root / part / name)
    (root / "league.yaml").write_text(
        "name: transcripts\n"
        "game: {name: chatty, referee: python3 hostile_referee.py transcript 150, dir: referee, players: 2}\n"
        "bots:\n"
        "  - {name: echo-a, command: python3 bot/echo_bot.py}\n"
        "  - {name: echo-b, command: python3 bot/echo_bot.py}\n"
        "games_per_pairing: 2\nworkers: 1\ntime_control: {move_ms: 2000}\n")
    arena("run", "league.yaml", "--standings", "0", cwd=root)
    arena("publish", "results/transcripts.sqlite", "--out", "site", cwd=root)
    return root / "site"


def test_a_referee_games_site_keeps_its_transcripts_in_pages_capped_in_size(site):
    # before: no data/transcripts at all, and each game's replay said "unknown game 'chatty':
    # moves not drawn"
    pages = sorted((site / "data" / "transcripts" / "1").iterdir())
    assert [p.name for p in pages] == ["1.js", "2.js"]
    first, second = (data_file(p) for p in pages)
    assert (first["first"], len(first["steps"]), second["first"], len(second["steps"])) == \
        (1, PAGE_STEPS, PAGE_STEPS + 1, STEPS - PAGE_STEPS)
    steps = first["steps"] + second["steps"]
    seat, turn, given, answered, wall, cpu, errors = steps[0]
    assert (seat, turn, given, answered) == (0, 1, ["go"], ["ok go"]) and wall >= 0
    assert steps[4][2][0].startswith("step3 y") and steps[4][3] == ["ok step3"]
    assert steps[4][6] == [[1, "your third answer was <b>dull</b>"]]      # after the 5th answer
    assert sum(bool(step[6]) for step in steps) == 1
    long = steps[51][2][0]           # the 50th of the referee's steps: a line of 5,007 characters
    assert long.startswith("step50 ") and long.endswith("… (3,007 more characters)")
    assert len(long) < LINE_CHARS + 40
    kept = first["kept"]             # the site's cap: only answers after it
    assert kept == second["kept"] and PAGE_STEPS < kept < STEPS
    assert all(step[2] is not None for step in steps[:kept - 1])
    assert all(step[2] is None and step[3] for step in steps[kept - 1:])
    assert sum(len(line) + 1 for step in steps if step[2] for line in step[2]) <= SITE_TRANSCRIPT_CHARS
    game = data_file(site / "data" / "moves" / "0.js")["games"][0]
    assert (game["steps"], game["ranking"], game["referee"]["name"]) == (STEPS, [0, 1], "chatty")
    assert game["referee"]["stderr"].rstrip().endswith("referee log: step 150 answered")
    assert "error" not in game and "moves" not in game
    assert (site / "assets" / "transcript.js").is_file()
    index, games = (site / "index.html").read_text(), (site / "games.html").read_text()
    assert "Games played by the referee process chatty (docs/referees.md): it takes no seed" in index
    assert "<th class=\"text\">Seat 0</th>" in games and "x (moves first)" not in games


@pytest.mark.skipif(browser.missing() is not None, reason=f"no browser for the site test: {browser.missing()}")
def test_the_replay_page_steps_through_a_transcript_with_the_referees_errors_and_stderr(site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def text(driver, selector):
        return driver.execute_script("const n = document.querySelector(arguments[0]); return n && n.textContent",
                                     selector)

    with browser.chromium() as driver:
        driver.get((site / "replay.html").as_uri() + "#g=1&m=5")
        wait = WebDriverWait(driver, WAIT_S)
        wait.until(lambda d: (text(d, "#transcript pre.answered") or "") == "ok step3", "step 5 is not shown")
        assert text(driver, "#transcript pre.given").startswith("step3 yyy")
        assert text(driver, "#transcript .big") == "Step 5:  echo-b (seat 1), its 3rd answer"
        error = driver.find_element(By.CSS_SELECTOR, "#transcript li.referee-error")
        assert error.text == "###Error about seat 1: your third answer was <b>dull</b>"
        assert error.find_elements(By.TAG_NAME, "b") == []       # the referee's markup is text
        assert text(driver, "#step-page") == f"steps 1–100 of {STEPS} (page 1 of 2)"
        assert "referee log: step 150 answered" in text(driver, "#referee-stderr")
        assert "Played by the referee process chatty" in text(driver, "#result")
        driver.find_element(By.CSS_SELECTOR, "button[data-go=last]").click()
        wait.until(lambda d: text(d, "#step-page") == f"steps 101–{STEPS} of {STEPS} (page 2 of 2)",
                   "the last page of steps is not shown")
        wait.until(lambda d: text(d, "#transcript pre.answered") == "ok step150", "the last step is not shown")
        assert "not published: the site keeps the lines given up to a size" in text(driver, "#transcript")
        assert driver.find_element(By.CSS_SELECTOR, "#movelist tr.current").get_attribute("data-step") == str(STEPS)
        assert "Game over. Ranking: 1st" in text(driver, "#now")
        row = driver.find_element(By.CSS_SELECTOR, "#movelist tr[data-step='140']")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
        row.click()
        wait.until(lambda d: text(d, "#ply") == f"140 / {STEPS}", "a click on a step does not show it")
        assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
