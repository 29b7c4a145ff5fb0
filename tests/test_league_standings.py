"""Live standings during `arena run`: the top of the table with Elo and its interval every
N games and at the end, a block of lines into a pipe, redrawn in place on a terminal."""

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

from arena.league.progress import standings_every

CONFIG = """\
name: live
game: tictactoe
bots:
  - {name: r1, bot: random}
  - {name: r2, bot: random}
  - {name: r3, bot: random}
games_per_pairing: 8
workers: 2
seed: 5
store: live.sqlite
"""


def league(tmp_path: Path) -> Path:
    path = tmp_path / "live.yaml"
    path.write_text(CONFIG)
    return path


def arena(*args):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=300, check=False)


def blocks(stderr: str) -> list[tuple[int, list[str]]]:
    """(games stored, table lines) of every standings block."""
    out = []
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        found = re.fullmatch(r"standings after (\d+) of 24 games:", line)
        if found:
            table = []
            for row in lines[i + 1:]:
                if not re.match(r"(rank|-{4}|\s+\d+ )", row):
                    break
                table.append(row)
            out.append((int(found.group(1)), table))
    return out


def test_default_cadence_is_whole_rounds_about_ten_times_a_run():
    assert standings_every(3, 24) == 3           # a round: one game of every pairing
    assert standings_every(1, 100) == 10         # two bots: not every game
    assert standings_every(190, 19000) == 1900   # 20 bots: ten blocks
    assert standings_every(21, 10) == 21         # fewer games than a round: only the end


def test_piped_every_n_games_and_at_the_end_as_the_leaderboard_says(tmp_path):
    path = league(tmp_path)
    out = arena("run", str(path), "--standings", "6", "--format", "json")
    assert out.returncode == 0, out.stderr
    shown = blocks(out.stderr)
    assert [n for n, _ in shown] == [6, 12, 18, 24]
    header, _rule, *rows = shown[-1][1]
    assert header.split()[:4] == ["rank", "bot", "exposed", "LOS>next"]   # the order, its LOS
    assert header.split()[-2:] == ["Elo", "+-95%"]                           # the fit's own
    board = json.loads(out.stdout)       # the last block is the top of the final table
    for line, row in zip(rows, board["rows"]):
        cells = line.split()
        assert cells[1] == row["bot"]
        assert cells[2] == f"{row['exposed']:.2f}"
        assert cells[-2:] == [f"{row['elo']:+.0f}", f"{row['elo_error']:.0f}"]
    assert len(rows) == 3
    assert out.stderr.rstrip().splitlines()[-1].startswith("finished: 24 games played")


def test_default_and_off(tmp_path):
    path = league(tmp_path)
    out = arena("run", str(path))
    assert out.returncode == 0, out.stderr
    assert [n for n, _ in blocks(out.stderr)] == [3, 6, 9, 12, 15, 18, 21, 24]
    (tmp_path / "live.sqlite").unlink()
    quiet = arena("run", str(path), "--standings", "0")
    assert quiet.returncode == 0 and "standings after" not in quiet.stderr
    bad = arena("run", str(path), "--standings", "-1")
    assert bad.returncode == 2 and "--standings must be 0" in bad.stderr


def test_a_terminal_redraws_the_block_in_place(tmp_path):
    path = league(tmp_path)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(path), "--standings", "6"],
                            stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(leader, 65536)
        except OSError:      # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=60) == 0
    os.close(leader)
    text = b"".join(chunks).decode()
    heads = [m.start() for m in re.finditer(r"standings after \d+ of 24 games:", text)]
    assert len(heads) == 4
    # every block after the first goes back up over the one before (its title, header,
    # rule, 3 rows)
    # and clears below it: one table on screen, not four
    for start in heads[1:]:
        assert text[:start].endswith("\r\x1b[K\x1b[6A\x1b[J"), repr(text[start - 40:start])
    assert "finished: 24 games played" in text
