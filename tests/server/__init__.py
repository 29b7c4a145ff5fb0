"""What the server tests share: a small fast ladder config, the arena CLI as a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ARENA = [sys.executable, "-m", "arena"]
ROOT = Path(__file__).resolve().parents[2]

#: tic-tac-toe between two blind (random) bots: games of a few ms
LADDER = """\
name: serve-test
game: tictactoe
bots:
  - {name: blind, bot: ttt-blind}
  - {name: novice, bot: ttt-novice}
schedule: ladder
ladder: {matchmaker: active, games: 6}
time_control: {move_ms: 500, startup_ms: 5000}
workers: 1
store: store.sqlite
seed: 7
server:
  validate: {against: blind, games: 2}
"""


def write_ladder(folder: Path, text: str = LADDER) -> Path:
    """The test ladder's config in folder."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ladder.yaml"
    path.write_text(text)
    return path


def arena(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the arena command; its result (never raises on a non-zero exit)."""
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, check=False, timeout=timeout,
                          cwd=cwd or ROOT)


def add_user(config: Path, name: str, admin: bool = False) -> str:
    """Add a user with the real CLI; their token (the output's last line)."""
    done = arena("users", str(config), "add", name, *(["--admin"] if admin else []))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]
