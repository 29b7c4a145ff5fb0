"""Local workers keep to their own share of the CPUs, with their referee and their bots
(pin_workers, on by default): a real league's bots report the CPUs they may run on."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.league import Store
from arena.league.executors import local

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "tests" / "fixture_bots" / "affinity_bot.py"
CPUS = sorted(os.sched_getaffinity(0))


@pytest.mark.parametrize("cpus, workers, shares", [
    ([0, 1], 2, [{0}, {1}]),
    ([0, 1], 3, None),                      # uneven: two games on one CPU, one on the other
    ([0, 1], 4, [{0}, {1}, {0}, {1}]),
    ([0, 1, 2, 3, 4], 2, [{0, 1, 2}, {3, 4}]),
    ([2, 5, 7], 1, [{2, 5, 7}]),
    ([3], 4, [{3}, {3}, {3}, {3}]),
])
def test_cpu_shares_deal_the_allowed_cpus_out_evenly(monkeypatch, cpus, workers, shares):
    monkeypatch.setattr(local.os, "sched_getaffinity", lambda pid: set(cpus))
    expected = None if shares is None else [frozenset(share) for share in shares]
    assert local.cpu_shares(workers) == expected


def bots_cpus(tmp_path: Path, pin: str) -> list[set[int]]:
    """Every CPU set a bot reported in a 2-worker league."""
    (tmp_path / "league.yaml").write_text(
        f"name: pins\ngame: ultimate\nworkers: 2\n{pin}games_per_pairing: 4\n"
        "time_control: {move_ms: 2000, startup_ms: 10000}\nbots:\n"
        f"  - {{name: a, command: {sys.executable} {BOT}}}\n"
        f"  - {{name: b, command: {sys.executable} {BOT}}}\n"
        f"  - {{name: c, command: {sys.executable} {BOT}}}\n")
    done = subprocess.run([sys.executable, "-m", "arena", "run", "league.yaml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    seen = []
    with Store(tmp_path / "results" / "pins.sqlite") as store:
        records = [stored.record for stored in store.records()]
    assert len(records) == 12
    for record in records:
        assert record.termination.value == "normal", record.reason
        for tail in record.stderr_tails:
            lines = [line for line in tail.splitlines() if line.startswith("cpus ")]
            assert lines, tail
            seen += [{int(cpu) for cpu in line.split()[1].split(",")} for line in lines]
    return seen


@pytest.mark.skipif(len(CPUS) < 2, reason="one CPU: nothing to share out")
def test_a_league_s_workers_and_their_bots_keep_to_their_own_cpus(tmp_path):
    shares = [set(share) for share in local.cpu_shares(2)]
    seen = bots_cpus(tmp_path, "")
    assert all(cpus in shares for cpus in seen), seen
    assert all(len(cpus) < len(CPUS) for cpus in seen)


@pytest.mark.skipif(len(CPUS) < 2, reason="one CPU: nothing to share out")
def test_pin_workers_false_leaves_every_cpu_to_every_game(tmp_path):
    seen = bots_cpus(tmp_path, "pin_workers: false\n")
    assert all(cpus == set(CPUS) for cpus in seen), seen
