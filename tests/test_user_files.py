"""Files a user names that are not text files (issue 26): a config, an openings book, saved
game records or a bot's option file that is binary, /dev/zero, a FIFO with no writer or
too large gets one line and exit 2 from the real CLI, never a traceback, a hang or an
endless read. The subprocess timeout is only a guard: before, the FIFO and /dev/zero
cases never ended."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.league.configfile import MAX_CONFIG_BYTES
from arena.userfiles import UserFileError, read_text

ROOT = Path(__file__).resolve().parent.parent

LEAGUE = """\
name: t
game: ultimate
bots:
  - {name: a, bot: random}
  - {name: b, bot: uttt-random}
time_control: {move_ms: 2000, startup_ms: 10000}
"""


def arena(*args, cwd):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          check=False, timeout=120, cwd=cwd, stdin=subprocess.DEVNULL)


def refused(done: subprocess.CompletedProcess, *needles: str) -> str:
    """The one error line of a refused command (exit 2), which holds every needle."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def hostile(tmp_path):
    """nul.yaml (a NUL byte), latin.yaml (not UTF-8), zero.yaml (-> /dev/zero), fifo.yaml
    (a FIFO nobody writes), big.yaml (a valid config grown past the cap with comments)."""
    (tmp_path / "nul.yaml").write_bytes(b"name: t\x00\n")
    (tmp_path / "latin.yaml").write_bytes(b"name: caf\xe9\n")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "big.yaml").write_text(LEAGUE + ("# padding\n" * (MAX_CONFIG_BYTES // 10 + 1)))
    return tmp_path


@pytest.mark.parametrize("command", ["run", "leaderboard", "replay", "publish"])
def test_a_config_that_is_not_a_text_file_gets_one_line(hostile, command):
    extra = ["--out", "site"] if command == "publish" else []
    refused(arena(command, "nul.yaml", *extra, cwd=hostile), "nul.yaml:1: cannot read the config: not text",
            r"'\x00'")
    refused(arena(command, "latin.yaml", *extra, cwd=hostile), "latin.yaml:1: ", "not UTF-8 text (byte 0xe9)")
    refused(arena(command, "zero.yaml", *extra, cwd=hostile), "zero.yaml: cannot read the config: it is a "
            "character device, not a regular file")
    refused(arena(command, "fifo.yaml", *extra, cwd=hostile), "fifo.yaml: cannot read the config: it is a "
            "FIFO (named pipe), not a regular file")
    refused(arena(command, "big.yaml", *extra, cwd=hostile), "big.yaml: cannot read the config: it is over 1 MiB")
    assert not (hostile / "results").exists() and not (hostile / "site").exists()


def test_a_control_character_yaml_refuses_is_named_with_its_line(tmp_path):
    # NEL (U+0085) is printable to YAML; a BOM-less U+FFFE is not, and read_text lets it by
    (tmp_path / "odd.yaml").write_text(LEAGUE + "seed: 1\ufffe\n", encoding="utf-8")
    refused(arena("run", "odd.yaml", cwd=tmp_path), "odd.yaml:7: malformed YAML: special characters "
            "are not allowed")


def test_store_or_records_that_are_not_regular_files_are_refused_by_every_reader(hostile):
    os.mkfifo(hostile / "fifo.sqlite")
    (hostile / "zero.jsonl").symlink_to("/dev/zero")
    (hostile / "nul.jsonl").write_bytes(b'{"game": "ultimate"}\x00\n')
    for args in (["replay", "fifo.sqlite"], ["leaderboard", "fifo.sqlite"], ["versions", "fifo.sqlite"],
                 ["publish", "fifo.sqlite", "--out", "site"]):
        refused(arena(*args, cwd=hostile), "fifo.sqlite: it is a FIFO (named pipe), not a regular file")
    refused(arena("replay", "zero.jsonl", cwd=hostile), "zero.jsonl: it is a character device")
    refused(arena("replay", "nul.jsonl", cwd=hostile), "nul.jsonl:1: cannot read the game records: not text")


def test_an_openings_book_that_is_not_a_text_file_is_refused_by_league_and_match(hostile):
    (hostile / "nul.txt").write_bytes(b"40,36\n40,\x0036\n")
    (hostile / "zero.txt").symlink_to("/dev/zero")
    os.mkfifo(hostile / "fifo.txt")
    expected = {"nul.txt": "nul.txt:2: cannot read the openings book: not text",
                "zero.txt": "zero.txt: cannot read the openings book: it is a character device",
                "fifo.txt": "fifo.txt: cannot read the openings book: it is a FIFO"}
    for book, needle in expected.items():
        (hostile / "book.yaml").write_text(LEAGUE + f"openings: {book}\n")
        refused(arena("run", "book.yaml", cwd=hostile), "book.yaml:7: openings: ", needle)
        refused(arena("match", "random", "uttt-random", "--game", "ultimate", "--openings", book,
                      cwd=hostile), "--openings: ", needle)
    assert not (hostile / "results").exists()


def test_a_bot_option_file_that_is_a_fifo_is_refused(hostile):
    os.mkfifo(hostile / "weights.json")
    (hostile / "opt.yaml").write_text(LEAGUE.replace("{name: b, bot: uttt-random}",
                                                     "{name: b, bot: uttt-minimax-pruning, "
                                                     "options: {weights: weights.json}}"))
    refused(arena("run", "opt.yaml", cwd=hostile), "opt.yaml:5: bots[1].options.weights: ",
            "is a FIFO (named pipe), not a regular file")
    refused(arena("match", "uttt-minimax-pruning:weights=weights.json", "uttt-random", "--game",
                  "ultimate", cwd=hostile), "weights.json' is a FIFO (named pipe), not a regular file")


def test_a_file_growing_past_the_cap_is_cut_there(tmp_path):
    # /dev/zero stands for any file whose reading never ends: open_regular refuses it, and a
    # regular file is read to the cap plus one byte at most
    path = tmp_path / "grown.txt"
    path.write_text("x" * 101)
    with pytest.raises(UserFileError, match="it is over 100 bytes"):
        read_text(path, "book", 100)
    assert read_text(path, "book", 101) == "x" * 101
