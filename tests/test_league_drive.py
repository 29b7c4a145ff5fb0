"""One loop drives every run (arena.league.drive): a cancellation token stops a real
league as Ctrl-C does, keeping what was stored, and the next run plays only the rest."""

from __future__ import annotations

import io
import sqlite3
import threading
from pathlib import Path

from arena.league import config_from_dict, runner
from arena.league.drive import CancelToken
from arena.league.progress import Progress
from arena.league.runner import run_league
from arena.plugins import load_plugins

PLUGINS = load_plugins()


def league(tmp: Path):
    data = {"name": "cancel", "game": "ultimate", "games_per_pairing": 4, "workers": 2, "seed": 9,
            "bots": [{"name": f"r{i}", "bot": "uttt-random"} for i in range(3)],
            "store": str(tmp / "cancel.sqlite"), "time_control": {"move_ms": 2000}}
    return config_from_dict(data, base_dir=tmp, known_bots=runner.known_bots_check(PLUGINS),
                            games=PLUGINS.games)


class CancelAfter(Progress):
    """A silent progress whose third stored game cancels the run, from another thread
    (as a server would)."""

    def __init__(self, token: CancelToken, after: int) -> None:
        super().__init__(0, stream=io.StringIO())
        self.token, self.after, self.seen = token, after, 0

    def update(self, record) -> None:
        self.seen += 1
        if self.seen == self.after:
            canceller = threading.Thread(target=self.token.cancel)
            canceller.start()
            canceller.join()


def test_a_cancelled_run_stops_at_its_next_record_and_the_next_run_plays_the_rest(tmp_path):
    config = league(tmp_path)
    token = CancelToken()
    summary = run_league(config, PLUGINS, progress=CancelAfter(token, 3), cancel=token)
    assert summary.interrupted and summary.played == 3
    with sqlite3.connect(config.store) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone() == (3,)
    again = run_league(config, PLUGINS, progress=Progress(0, stream=io.StringIO()))
    assert not again.interrupted and again.already == 3 and again.played == 12 - 3


def test_a_token_cancelled_before_the_run_plays_nothing(tmp_path):
    token = CancelToken()
    token.cancel()
    summary = run_league(league(tmp_path), PLUGINS, progress=Progress(0, stream=io.StringIO()),
                         cancel=token)
    assert summary.interrupted and summary.played == 0
