"""What the arena command imports: each command imports what it uses when it uses it, so
that starting one costs no more than it needs (benchmarks/cli_start.py times it). A league
that does not publish, play on Ray or climb a ladder imports none of that; a leaderboard of
a store reads no YAML and imports nothing that plays a game; a match refused for its bots
imports nothing that would have played it. Checked on the real command,
each in a process of its own: the modules it had imported when it finished."""

import subprocess
import sys

import pytest

#: the arena command in a process of its own, then the modules it imported on one line
_AND_MODULES = ("import sys\nfrom arena.cli import main\ncode = main(sys.argv[1:])\n"
                "print('modules:', *sorted(sys.modules))\nraise SystemExit(code)")

LEAGUE = """\
name: start
game: tictactoe
bots:
  - {name: random, bot: random}
  - {name: blind, bot: ttt-blind}
games_per_pairing: 2
workers: 1
seed: 1
store: start.sqlite
"""


def imported(folder, *args: str, code: int = 0) -> set[str]:
    """The modules `arena ARGS` imported, run in folder (it must exit with code)."""
    done = subprocess.run([sys.executable, "-c", _AND_MODULES, *args], cwd=folder, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == code, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith("modules: "), done.stdout
    return set(last.split()[1:])


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A small league's folder, its league run once: (the folder, what the run imported)."""
    folder = tmp_path_factory.mktemp("start")
    (folder / "start.yaml").write_text(LEAGUE)
    return folder, imported(folder, "run", "start.yaml")


def test_a_league_run_imports_no_publishing_ray_or_ladder(league):
    _, modules = league
    assert "arena.league.executors" in modules and "arena.referee.referee" in modules   # it played
    unused = {m for m in modules if m.startswith("arena.publish") or m.split(".")[0] in ("jinja2", "ray")}
    unused |= modules & {"arena.league.executors.ray", "arena.league.ladder", "arena.league.membership"}
    assert not sorted(unused)


def test_a_leaderboard_of_a_store_reads_no_yaml_and_imports_no_player(league):
    folder, _ = league
    modules = imported(folder, "leaderboard", "start.sqlite")
    assert "arena.league.store" in modules
    players = {"arena.referee.referee", "arena.referee.botpool", "arena.sandbox.sandbox",
               "arena.sandbox.process", "arena.league.executors.worker", "multiprocess"}
    assert not sorted(modules & (players | {"yaml"}))


def test_a_match_refused_for_a_bot_imports_nothing_that_plays_it(tmp_path):
    modules = imported(tmp_path, "match", "uttt-minimax-pruning:depth=deep", "random", "--game", "ultimate",
                       code=2)
    assert not sorted(modules & {"arena.league.run", "arena.league.runner", "arena.match"})
