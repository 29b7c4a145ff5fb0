"""Every path of a league config is checked before the first game and before anything is
written (issue 26): a `publish` that cannot take a site, a `store` that is no regular file
(or beside a FIFO SQLite would use) is refused in one line, exit 2, with no build run, no
store made and no game played. Real CLI runs on real files."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def arena(*args, cwd):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          check=False, timeout=120, cwd=cwd, stdin=subprocess.DEVNULL)


def league(root: Path, extra: str) -> Path:
    """A two-bot league whose command bot has a build that leaves built.txt when it runs."""
    (root / "bots" / "a").mkdir(parents=True, exist_ok=True)
    (root / "bots" / "a" / "a.py").write_text((ROOT / "examples" / "first_move_bot.py").read_text())
    (root / "l.yaml").write_text(
        "name: l\ngame: ultimate\ngames_per_pairing: 2\nworkers: 1\n"
        "time_control: {move_ms: 2000, startup_ms: 10000}\nbots:\n"
        "  - {name: a, command: python3 bots/a/a.py, build: touch built.txt}\n"
        "  - {name: rand, bot: uttt-random}\n" + extra)
    return root / "l.yaml"


def refused(done: subprocess.CompletedProcess, root: Path, *needles: str) -> None:
    """Exit 2 with one line holding every needle; no build ran, no store, no game."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert done.stdout == ""
    assert not (root / "bots" / "a" / "built.txt").exists()
    assert not (root / "results").exists()


def test_publish_into_a_directory_that_is_not_a_site_is_refused_before_the_games(tmp_path):
    # before: 2 games played and stored, then exit 2 with '/: not empty ...'
    league(tmp_path, "publish: /\n")
    refused(arena("run", "l.yaml", cwd=tmp_path), tmp_path,
            "arena run: error: l.yaml:9: publish: /: not empty and not a site arena published")


def test_publish_where_a_file_is_in_the_way_is_refused_before_the_games(tmp_path):
    (tmp_path / "notes.txt").write_text("mine\n")
    league(tmp_path, "publish: notes.txt\n")
    refused(arena("run", "l.yaml", cwd=tmp_path), tmp_path,
            f"l.yaml:9: publish: {tmp_path / 'notes.txt'}: exists and is not a directory")
    league(tmp_path, "publish: notes.txt/site\n")
    refused(arena("run", "l.yaml", cwd=tmp_path), tmp_path,
            f"{tmp_path / 'notes.txt'} is a file, not a directory")
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_a_store_that_is_a_device_is_refused_and_nothing_is_written_beside_it(tmp_path):
    # before: refused only by SQLite, after it had made /dev/null-journal
    journal = Path("/dev/null-journal")
    there = journal.exists()
    (tmp_path / "null.sqlite").symlink_to("/dev/null")
    league(tmp_path, "store: null.sqlite\n")
    refused(arena("run", "l.yaml", cwd=tmp_path), tmp_path,
            "l.yaml:9: store: must be a regular file or a path where none exists yet, but "
            "'/dev/null' is a character device")
    assert journal.exists() == there
    done = arena("match", "random", "uttt-random", "--game", "ultimate", "--store", "null.sqlite",
                 cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == (
        "arena match: error: null.sqlite: cannot be a store: /dev/null is a character device, "
        "not a regular file"), done.stderr
    assert journal.exists() == there


@pytest.mark.parametrize("fifo", ["l.sqlite", "l.sqlite-journal", "l.sqlite-wal"])
def test_a_store_or_its_side_file_that_is_a_fifo_is_refused_before_the_build(tmp_path, fifo):
    league(tmp_path, "store: st/l.sqlite\n")
    (tmp_path / "st").mkdir()
    os.mkfifo(tmp_path / "st" / fifo)
    done = arena("run", "l.yaml", cwd=tmp_path)
    refused(done, tmp_path, f"st/{fifo}", "is a FIFO (named pipe)")
    assert sorted(p.name for p in (tmp_path / "st").iterdir()) == [fifo]
