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


def test_a_site_that_would_hold_the_store_is_refused_before_the_games(tmp_path):
    # before: the store inside the site was deleted by the publish after the games (exit
    # 0), and `publish:` the store's own directory was refused only after every game
    league(tmp_path, "store: site/inside.sqlite\npublish: site\n")
    refused(arena("run", "l.yaml", cwd=tmp_path), tmp_path,
            f"l.yaml:10: publish: '{tmp_path / 'site'}' would hold the store "
            f"'{tmp_path / 'site' / 'inside.sqlite'}', which a publish deletes with the old site")
    league(tmp_path, "store: results/l.sqlite\npublish: results\n")
    refused(arena("run", "l.yaml", cwd=tmp_path), tmp_path, "would hold the store")
    assert not (tmp_path / "site").exists()


def test_a_site_over_or_inside_what_a_bot_is_made_of_is_refused(tmp_path):
    # a bot that may read its neighbours (allow_shared_dir) is still never published over,
    # nor published into: each publish would be a new version of it
    for where, said in (("bots", "not empty and not a site arena published"),
                        ("bots/a/site", f"is inside '{tmp_path / 'bots' / 'a'}', which bot 'a' is made of")):
        league(tmp_path, f"publish: {where}\n")
        text = (tmp_path / "l.yaml").read_text()
        (tmp_path / "l.yaml").write_text(text.replace("build: touch built.txt}",
                                                      "build: touch built.txt, allow_shared_dir: true}"))
        refused(arena("run", "l.yaml", cwd=tmp_path), tmp_path, said)
    assert sorted(p.name for p in (tmp_path / "bots" / "a").iterdir()) == ["a.py"]


def test_a_publish_never_deletes_a_file_it_did_not_write(tmp_path):
    league(tmp_path, "publish: site\n")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / ".arena-site").write_text("A static site written by bot-arena's publish; "
                                                   "safe to delete and re-publish.\n")
    (tmp_path / "site" / "index.html").write_text("an old site\n")
    (tmp_path / "site" / "notes.txt").write_text("mine\n")
    refused(arena("run", "l.yaml", cwd=tmp_path), tmp_path,
            f"{tmp_path / 'site'}: holds {tmp_path / 'site' / 'notes.txt'}, which no publish wrote")
    assert (tmp_path / "site" / "notes.txt").read_text() == "mine\n"
