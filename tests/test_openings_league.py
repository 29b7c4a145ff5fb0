"""A league with a shipped opening book, as a user runs it: `arena run` on a real config with
real sandboxed bots and a real SQLite store; resumed, published, and a store from before
openings existed still opening."""

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from arena.games import default_registry
from arena.openings import parse_spec

ROOT = Path(__file__).resolve().parent.parent
ORDERED = f"python3 {ROOT / 'tests' / 'fixture_bots' / 'ordered_bot.py'}"


def arena(*args):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def write_config(path: Path, openings: str | None, seed: int = 7) -> Path:
    path.parent.chmod(0o755)   # command bots may read their directory (the config's)
    lines = [f"name: {path.stem}", "game: ultimate", "bots:",
             f"  - {{name: first, command: '{ORDERED}'}}",
             f"  - {{name: last, command: '{ORDERED} last'}}",
             "  - {name: rnd, bot: random}",
             "games_per_pairing: 4", "workers: 2", f"seed: {seed}",
             "time_control: {move_ms: 2000, startup_ms: 10000}",
             f"store: {path.stem}.sqlite", "publish: site"]
    if openings is not None:
        lines.append(f"openings: {openings}")
    path.write_text("\n".join(lines) + "\n")
    return path


def stored(db: Path) -> dict[str, dict]:
    with sqlite3.connect(db) as conn:
        return {key: json.loads(record) for key, record in
                conn.execute("SELECT fixture_key, record FROM games")}


def read_data(site: Path, key: str):
    text = (site / "data" / f"{key}.js").read_text()
    return json.loads(text[len(f"arenaData({json.dumps(key)},"):-3])


def test_a_league_with_a_shipped_book_runs_resumes_and_publishes(tmp_path):
    config = write_config(tmp_path / "booked.yaml", "{spec: 'book:ultimate-4ply', order: random}")
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    games = stored(tmp_path / "booked.sqlite")
    assert len(games) == 12
    book = parse_spec("book:ultimate-4ply", default_registry().create("ultimate"), "random", 7).book
    for key, record in games.items():
        _first, _second, pair, _swap, opening = key.split("|")
        assert record["termination"] == "normal", record["reason"]
        assert record["opening"] == 4 and len(record["moves"]) > 10
        played = [m["move"] for m in record["moves"][:4]]
        assert opening == ",".join(played) == ",".join(map(str, book[int(pair)]))
    assert "distinct games" not in out.stderr       # the book makes every game different

    with sqlite3.connect(tmp_path / "booked.sqlite") as conn:   # lose 5 games, as a crash would
        lost = [k for (k,) in conn.execute("SELECT fixture_key FROM games ORDER BY id DESC LIMIT 5")]
        conn.executemany("DELETE FROM games WHERE fixture_key = ?", [(k,) for k in lost])
    again = arena("run", str(config))
    assert again.returncode == 0, again.stderr
    assert "7 of 12 games already stored; playing 5" in again.stderr
    resumed = stored(tmp_path / "booked.sqlite")
    assert set(resumed) == set(games)
    for key in lost:
        if not key.startswith("rnd") and "|rnd|" not in key:    # two deterministic bots
            assert [m["move"] for m in resumed[key]["moves"]] == \
                [m["move"] for m in games[key]["moves"]]

    chunk = read_data(tmp_path / "site", "moves/0")["games"]
    assert len(chunk) == 12 and all(g["opening"] == 4 for g in chunk)
    assert all(g["fixture"].startswith("pair ") for g in chunk)     # keys ending in an opening
    rows = read_data(tmp_path / "site", "games/all/1")["rows"]
    assert sorted(r[7] for r in rows) == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3   # their rounds
    shown = arena("replay", str(tmp_path / "booked.sqlite"), "--game", "1")
    assert shown.returncode == 0, shown.stderr
    plies = [line for line in shown.stdout.splitlines() if line.startswith("ply ")]
    assert [line.endswith("(opening)") for line in plies[:5]] == [True] * 4 + [False]
    assert (tmp_path / "site" / "replay.html").is_file()
    script = (ROOT / "arena" / "publish" / "assets" / "replay.js").read_text()
    assert "game.opening" in script and '"opening"' in script


def test_a_store_from_before_openings_still_opens_and_keeps_its_games(tmp_path):
    config = write_config(tmp_path / "old.yaml", None)
    assert arena("run", str(config)).returncode == 0
    db = tmp_path / "old.sqlite"
    with sqlite3.connect(db) as conn:   # make it what today's main leaves: no opening anywhere
        conn.execute("DELETE FROM league WHERE key = 'openings'")
        for key, text in conn.execute("SELECT fixture_key, record FROM games").fetchall():
            record = json.loads(text)
            del record["opening"]
            record["version"] = 1
            conn.execute("UPDATE games SET record = ? WHERE fixture_key = ?",
                         (json.dumps(record), key))
    before = stored(db)
    assert all(r["termination"] == "normal" for r in before.values())
    assert len(before) == 12 and all("|" not in k.split("|", 4)[-1] for k in before)
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    assert "12 of 12 games already stored; playing 0" in out.stderr
    assert "WARNING: only" in out.stderr            # two deterministic bots repeat their games
    assert stored(db) == before
    board = arena("leaderboard", str(db), "--format", "json")
    assert board.returncode == 0 and sum(r["games"] for r in json.loads(board.stdout)["rows"]) == 24

    write_config(tmp_path / "old.yaml", "random:4")
    changed = arena("run", str(config))
    assert changed.returncode == 2
    assert "holds a league with openings none, the config says random:4" in changed.stderr


def test_a_bad_openings_setting_stops_the_config_at_its_line(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("40,36\n40,40\n")
    config = write_config(tmp_path / "bad.yaml", "book.txt")
    out = arena("run", str(config))
    assert out.returncode == 2
    assert f"{config}:13: openings: {book}:2: bad opening: ply 2 (40)" in out.stderr
    config.write_text(config.read_text().replace("name: last", "name: last, dialect: codingame"))
    book.write_text("40,36\n")
    out = arena("run", str(config))
    assert out.returncode == 2 and "openings: bots[1] (last) speaks the codingame dialect" in out.stderr
    config.write_text(config.read_text().replace("openings: book.txt", "openings: {spec: none, "
                                                                       "order: shuffled}"))
    out = arena("run", str(config))
    assert out.returncode == 2 and "openings.order: must be one of 'sequential', 'random'" in out.stderr


def test_the_site_replay_marks_the_opening_moves(tmp_path):
    """In a real browser: the replay viewer of a league played from a shipped book."""
    import pytest
    from browser import chromium as browser
    if browser.missing() is not None:
        pytest.skip(f"no browser for the site test: {browser.missing()}")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    config = tmp_path / "ttt.yaml"
    tmp_path.chmod(0o755)
    config.write_text("\n".join([
        "name: ttt", "game: tictactoe", "bots:", f"  - {{name: first, command: '{ORDERED}'}}",
        f"  - {{name: last, command: '{ORDERED} last'}}", "games_per_pairing: 2", "workers: 1",
        "openings: book:tictactoe-2ply", "store: ttt.sqlite", "publish: site"]) + "\n")
    run = arena("run", str(config))
    assert run.returncode == 0, run.stderr
    assert all(r["termination"] == "normal" for r in stored(tmp_path / "ttt.sqlite").values())
    with browser.chromium() as driver:
        driver.get((tmp_path / "site" / "replay.html").as_uri() + "#g=1&m=1")
        WebDriverWait(driver, 10).until(lambda d: d.find_element("id", "replay").is_displayed())
        classes = driver.execute_script(
            "return Array.from(document.querySelectorAll('#movelist tbody tr'), r => r.className)")
        assert len(classes) > 2
        assert ["opening" in c.split() for c in classes] == [True, True] + [False] * (len(classes) - 2)
        texts = driver.execute_script(
            "return Array.from(document.querySelectorAll('#movelist tbody tr'), r => r.textContent)")
        assert all("opening" in t for t in texts[:2]) and not any("opening" in t for t in texts[2:])
        now = driver.find_element("id", "now").text
        assert "Opening move 1 of 2" in now and "not chosen by the bot" in now
        assert "2-move opening" in driver.find_element("id", "replay-sub").text
        driver.find_element(By.CSS_SELECTOR, "#controls [data-go=last]").click()
        now = driver.find_element("id", "now").text
        assert "ms wall" in now and "Opening move" not in now
        assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


def test_a_repeating_tron_league_is_told_to_vary_the_seed_not_openings(tmp_path):
    """Two deterministic tron bots repeat their games; tron has no openings, so the warning
    points at the bots' seeds (before: 'vary the start with openings', which tron refuses)."""
    config = tmp_path / "t.yaml"
    config.write_text(
        "name: rg\ngame: tron\nrules: {width: 6, height: 6}\n"
        "bots:\n  - {name: a, bot: tron-territory}\n  - {name: b, bot: tron-territory}\n"
        "games_per_pairing: 4\ntime_control: {move_ms: 500, startup_ms: 5000}\n"
        "workers: 1\nstore: rg.sqlite\n")
    run = arena("run", str(config))
    assert run.returncode == 0, run.stderr
    warning = [line for line in (run.stdout + run.stderr).splitlines() if "distinct games" in line]
    assert len(warning) == 1, run.stdout + run.stderr
    assert "seed" in warning[0] and "vary the start with openings" not in warning[0]


def test_a_league_counts_only_the_games_that_ended_normally_as_repeats(tmp_path):
    """A crashing bot and one answering garbage end their games the same way in every pairing
    (crasher's and junk's games against first are both [0, 1] then a fault): those repeat for
    the bots' faults, which no opening cures, and are left out; first and last repeat their
    normal games, and the warning says which games it counted (before: 'in 24 games')."""
    tmp_path.chmod(0o755)
    for name in ("crasher", "junk"):    # each bot reads a directory of its own
        (tmp_path / name).mkdir(mode=0o755)
        shutil.copy(ROOT / "tests" / "fixture_bots" / "hostile.py", tmp_path / name)
    config = tmp_path / "faults.yaml"
    config.write_text(
        "name: faults\ngame: tictactoe\nbots:\n"
        f"  - {{name: first, command: '{ORDERED}'}}\n"
        f"  - {{name: last, command: '{ORDERED} last'}}\n"
        "  - {name: crasher, command: 'python3 crasher/hostile.py crash_mid'}\n"
        "  - {name: junk, command: 'python3 junk/hostile.py garbage'}\n"
        "games_per_pairing: 4\nworkers: 2\ntime_control: {move_ms: 2000, startup_ms: 10000}\n"
        "store: faults.sqlite\n")
    run = arena("run", str(config))
    assert run.returncode == 0, run.stderr
    terminations = [r["termination"] for r in stored(tmp_path / "faults.sqlite").values()]
    assert sorted(set(terminations)) == ["crash", "malformed", "normal"]
    crash = next(line for line in run.stderr.splitlines() if "crasher faulted (crash)" in line)
    assert re.search(r"exited \(exit code 3\) before replying to move [34], ", crash), crash
    warning = [line for line in (run.stdout + run.stderr).splitlines() if "distinct games" in line]
    assert len(warning) == 1, run.stdout + run.stderr
    assert "only 2 distinct games (by move list) in 4 games that ended normally:" in warning[0]
    with sqlite3.connect(tmp_path / "faults.sqlite") as conn:   # one game lost: one to play
        conn.execute("DELETE FROM games WHERE id = (SELECT MAX(id) FROM games)")
    again = arena("run", str(config))
    assert again.returncode == 0 and "finished: 1 game played in " in again.stderr, again.stderr
