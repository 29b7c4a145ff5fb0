"""What the server tests share: a small fast ladder config, the arena CLI as a subprocess;
hostile uploads as data (hostile.py), bots to submit (bots.py), a running server (serving.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ARENA = [sys.executable, "-m", "arena"]
ROOT = Path(__file__).resolve().parents[2]

#: tic-tac-toe of a blind (random) bot and one that sleeps 20 ms a move: every game has a
#: bot that sleeps (the submitted ones do too), so the ladder plays a few games a second
#: without taking the CPU from the tests
LADDER = """\
name: serve-test
game: tictactoe
bots:
  - {name: blind, bot: ttt-blind}
  - {name: sleepy, command: python3 sleepy/sleepy.py}
schedule: ladder
ladder: {matchmaker: active, games: 6}
time_control: {move_ms: 500, startup_ms: 5000}
workers: 1
store: store.sqlite
seed: 7
server:
  validate: {against: blind, games: 2}
"""


#: the first legal move, after a nap
SLEEPY = """\
import sys
import time

for line in sys.stdin:
    if line.startswith("turn"):
        time.sleep(0.02)
        print(line.split(" ", 5)[4].split(",")[0], flush=True)
    elif line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("quit"):
        break
"""


def write_ladder(folder: Path, text: str = LADDER) -> Path:
    """The test ladder's config in folder (with its sleepy bot)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sleepy").mkdir(exist_ok=True)
    (folder / "sleepy" / "sleepy.py").write_text(SLEEPY)
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


def add_users(config: Path, names: list[str], admins: tuple[str, ...] = ()) -> dict[str, str]:
    """Users added as `arena users CONFIG add` adds them (test_server_users runs the CLI),
    in one process: name -> token."""
    from arena.server.accounts import Accounts
    from arena.server.config import load_server
    from arena.server.db import ServerDB
    with ServerDB(load_server(config, limits=False).database) as db:
        accounts = Accounts(db)
        return {name: accounts.add(name, admin=name in admins)[1] for name in names}
