"""How the referee ends bots once a game is decided: real sandboxed bots, real processes."""

import os
import sys
import threading
from pathlib import Path

import pytest

from arena.games import default_registry
from arena.record import Termination
from arena.referee import BotPool, MatchSettings, TimeControl, play_game, referee
from arena.referee.botspec import command_spec
from arena.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "fixture_bots"
ULTIMATE = default_registry().create("ultimate")
SETTINGS = MatchSettings(time=TimeControl(move_ms=2000, startup_ms=5000))
HANG_GUARD_S = 120   # not a timing: only how long a hung game is waited for before failing


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(limits=Limits(memory_mb=256, cpu_seconds=30))


def running_with(token: str) -> list[int]:
    """Pids of live processes whose command line holds token."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if token.encode() in argv and state != "Z":
            found.append(int(entry))
    return found


@pytest.mark.parametrize("pooled", [False, True])
def test_a_bot_that_is_never_told_the_game_is_over_is_ended_at_once(sandbox, monkeypatch, pooled):
    # A CodinGame bot hears no 'over' and no 'quit' and never exits by itself: the grace a
    # bot told to quit gets (made an hour here) is not for it. Before, the referee waited
    # that grace for every such bot at every game's end, and this game never ended.
    monkeypatch.setattr(referee, "QUIT_GRACE_S", 3600.0)
    token = f"{os.getpid()}{int(pooled)}7"   # a seed no other process runs with
    bots = tuple(command_spec(f"cg{seat}", "codingame",
                              f"{sys.executable} {BOTS / 'codingame_bot.py'} {token}{seat}")
                 for seat in (0, 1))
    pool = BotPool() if pooled else None
    records = []

    def play() -> None:
        for seed in (1, 2):   # with a pool, the second game starts while the first's bots end
            records.append(play_game(ULTIMATE, bots, seed, sandbox, SETTINGS, pool=pool))

    player = threading.Thread(target=play, daemon=True)
    player.start()
    player.join(HANG_GUARD_S)
    assert not player.is_alive(), "the game waited out the quit grace of a bot never told to quit"
    if pool is not None:
        pool.close()
    for record in records:
        assert record.termination is Termination.NORMAL, record.reason
        # what each bot wrote on stderr during the game is still recorded
        assert all("valid actions" in tail for tail in record.stderr_tails)
    assert running_with(f"{token}0") == [] and running_with(f"{token}1") == []
