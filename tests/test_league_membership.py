"""A running ladder's membership, as a user changes it: a bot added to the YAML, a bot's
script edited, a bot removed or retired with `arena retire`, a broken edit, another game,
a bot whose build fails, and nothing at all (no store write). Real files, a real store."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.league import LeagueConfig, Store
from arena.league import membership as membership_module
from arena.league.builds import build_bots
from arena.league.membership import Membership
from arena.league.runner import bot_manifests, load_league
from arena.league.versions import RunCache, store_files
from arena.plugins import loaded_plugins

ROOT = Path(__file__).resolve().parent.parent
FIRST_MOVE = (ROOT / "examples" / "first_move_bot.py").read_text()
BOTS = """\
  - {name: alpha, command: "python3 alpha/bot.py"}
  - {name: beta, command: "python3 beta/bot.py"}
  - {name: novice, bot: ttt-novice, options: {optimal_percent: 40}}
"""
#: a build that copies its source into the bot, and fails (saying why) on a source that says BROKEN
BUILD = """\
if grep -q BROKEN src.py; then echo "src.py: line 1: cannot build this" >&2; exit 3; fi
cp src.py bot.py
"""


def write_config(tmp: Path, bots: str = BOTS, game: str = "tictactoe", extra: str = "") -> Path:
    config = tmp / "ladder.yaml"
    config.write_text(f"name: ladder\ngame: {game}\nbots:\n{bots}" + textwrap.dedent("""\
        time_control: {move_ms: 1000}
        workers: 1
        store: results/ladder.sqlite
        """) + extra)
    return config


def write_bot(tmp: Path, name: str, text: str = FIRST_MOVE) -> None:
    (tmp / name).mkdir(exist_ok=True)
    (tmp / name / "bot.py").write_text(text)


def settle(tmp: Path) -> None:
    """Make every file older than RACY_SECONDS, as files are some seconds after a save:
    membership takes no file still being written."""
    past = time.time() - 60
    for path in tmp.rglob("*"):
        os.utime(path, (past, past))


def start(tmp: Path, config_path: Path) -> tuple[Store, Membership]:
    """The store and membership as a ladder sets them up: builds, versions synced."""
    plugins = loaded_plugins()
    config = load_league(str(config_path), plugins)
    store = Store(config.store)
    cache = RunCache(store.hash_cache())
    store.save_build_records(build_bots(list(config.bots), config.base_dir, store.build_records(),
                                        cache, sys.stderr, store_files(store.path)))
    store.bind(config)
    store.sync_versions(bot_manifests(config, plugins, store, cache))
    return store, Membership(config_path, config, plugins, store)


def versions(store: Store) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for info in store.versions():
        out.setdefault(info.bot, []).append(info.version)
    return out


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], check=False, cwd=cwd,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture
def ladder(tmp_path):
    for name in ("alpha", "beta", "gamma"):
        write_bot(tmp_path, name)
    config = write_config(tmp_path)
    settle(tmp_path)
    store, membership = start(tmp_path, config)
    yield tmp_path, config, store, membership
    store.close()


def store_bytes(store: Store) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(store_files(store.path)) if path.exists()}


def test_nothing_changed_is_none_and_writes_nothing(ladder):
    tmp, config, store, membership = ladder
    before = store_bytes(store)
    for _ in range(5):
        assert membership.poll() is None
    assert store_bytes(store) == before
    settle(tmp)   # every file saved again as it was: read again, the same config and bots
    assert membership.poll() is None
    assert versions(store) == {"alpha": [1], "beta": [1], "novice": [1]}


def test_a_bot_added_to_the_config_joins_with_its_first_version(ladder):
    tmp, config, store, membership = ladder
    write_config(tmp, BOTS + '  - {name: gamma, command: "python3 gamma/bot.py"}\n')
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.refused is None
    assert update.added == ["gamma"] and update.changed == [] and update.removed == []
    assert update.config.bot_names == ["alpha", "beta", "novice", "gamma"]
    assert versions(store)["gamma"] == [1]
    assert update.lines() == ["gamma: joins the ladder"]
    current = {v.bot: v.fingerprint for v in store.versions() if v.current}
    assert membership.fingerprints() == current
    assert membership.poll() is None


def test_an_edited_script_is_a_new_version_and_the_old_one_stays(ladder):
    tmp, config, store, membership = ladder
    with open(tmp / "alpha" / "bot.py", "a") as fh:
        fh.write("# plays better now\n")
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.added == [] and update.removed == []
    assert [str(note).split(" (now")[0] for note in update.changed] == ["alpha: files changed (bot.py)"]
    assert update.changed[0].version == 2
    assert versions(store)["alpha"] == [1, 2] and versions(store)["beta"] == [1]
    assert store.current_versions()["alpha"] == 2
    assert membership.fingerprints()["alpha"] == update.changed[0].fingerprint
    assert membership.poll() is None   # taken once


def test_files_still_being_written_are_taken_once_they_are_still(ladder):
    tmp, config, store, membership = ladder
    (tmp / "alpha" / "bot.py").write_text(FIRST_MOVE[:40])   # a copy half done
    config.write_text(config.read_text()[:30])               # an editor's save half done
    assert membership.poll() is None
    (tmp / "alpha" / "bot.py").write_text(FIRST_MOVE + "# copied\n")
    write_config(tmp, BOTS + '  - {name: gamma, command: "python3 gamma/bot.py"}\n')
    assert membership.poll() is None
    assert versions(store)["alpha"] == [1] and "gamma" not in versions(store)
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.refused is None and update.added == ["gamma"]
    assert [(note.bot, note.version) for note in update.changed] == [("alpha", 2)]
    assert versions(store)["alpha"] == [1, 2]


def test_a_bot_removed_from_the_config_stops(ladder):
    tmp, config, store, membership = ladder
    write_config(tmp, BOTS.replace('  - {name: beta, command: "python3 beta/bot.py"}\n', ""))
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.removed == ["beta"] and update.added == []
    assert update.config.bot_names == ["alpha", "novice"]
    assert update.lines() == ["beta: removed from the config, plays no more"]
    assert versions(store)["beta"] == [1]   # its history stays


def test_a_bot_retired_while_it_runs_stops_and_comes_back(ladder):
    tmp, config, store, membership = ladder
    done = arena("retire", "ladder.yaml", "beta", cwd=tmp)
    assert done.returncode == 0, done.stderr
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.removed == ["beta"]
    assert update.lines() == ["beta: retired, plays no more"]
    assert membership.poll() is None
    done = arena("retire", "--undo", "ladder.yaml", "beta", cwd=tmp)
    assert done.returncode == 0, done.stderr
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.added == ["beta"]


def test_a_broken_edit_is_refused_once_and_the_config_in_force_stays(ladder):
    tmp, config, store, membership = ladder
    in_force = membership.config
    config.write_text(config.read_text().replace("bots:\n", "bots:\n  - {name: gamma, command: [\n"))
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.config == in_force
    assert update.refused is not None and update.refused.startswith(f"{config}:")
    assert "malformed YAML" in update.refused and "\n" not in update.refused
    assert membership.poll() is None   # said once
    # a bot's edit waits for the config to read again
    with open(tmp / "alpha" / "bot.py", "a") as fh:
        fh.write("# edited meanwhile\n")
    settle(tmp)
    assert membership.poll() is None
    write_config(tmp, BOTS + '  - {name: gamma, command: "python3 gamma/bot.py"}\n')
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.refused is None and update.added == ["gamma"]
    assert [note.bot for note in update.changed] == ["alpha"]


def test_an_unknown_bot_is_refused_with_the_config_error(ladder):
    tmp, config, store, membership = ladder
    write_config(tmp, BOTS + "  - {name: gamma, bot: no-such-bot}\n")
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.added == []
    assert update.refused is not None and "bots[3].bot: unknown bot 'no-such-bot'" in update.refused
    assert "gamma" not in versions(store)


@pytest.mark.parametrize(("edit", "key", "words"), [
    (lambda text: text.replace("game: tictactoe", "game: ultimate").replace(
        "ttt-novice, options: {optimal_percent: 40}", "random"), "game",
     "game tictactoe, the config says ultimate"),
    (lambda text: text.replace("move_ms: 1000", "move_ms: 200"), "time_control",
     "time_control move_ms 1000, the config says move_ms 200"),
    (lambda text: text + "seed: 7\n", "seed", "seed 0, the config says 7"),
    (lambda text: text.replace("workers: 1", "workers: 2"), "workers", "workers 1, the config says 2"),
    (lambda text: text + "sandbox: {mode: none}\n", "sandbox", "sandbox mode auto, the config says mode none"),
    (lambda text: text + "openings: random:2\n", "openings", "openings none, the config says random:2"),
    (lambda text: text.replace("ladder.sqlite", "other.sqlite"), "store", "other.sqlite"),
])
def test_a_change_the_ladder_cannot_take_is_refused_naming_the_key(ladder, edit, key, words):
    tmp, config, store, membership = ladder
    in_force = membership.config
    text = edit(config.read_text()).replace("bots:\n", 'bots:\n  - {name: gamma, command: "python3 gamma/bot.py"}\n')
    config.write_text(text)
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.added == [] and update.config == in_force
    assert update.refused is not None and words in update.refused
    assert f"a running ladder keeps its {key}" in update.refused
    assert "gamma" not in versions(store)   # nothing of that edit is taken
    assert membership.poll() is None


def test_a_bot_whose_build_fails_keeps_playing_its_old_version(tmp_path):
    for name in ("alpha", "beta"):
        write_bot(tmp_path, name)
    (tmp_path / "built").mkdir()
    (tmp_path / "built" / "src.py").write_text(FIRST_MOVE)
    (tmp_path / "built" / "build.sh").write_text(BUILD)
    bots = BOTS + '  - {name: built, command: "python3 built/bot.py", build: "sh build.sh"}\n'
    config = write_config(tmp_path, bots)
    settle(tmp_path)
    store, membership = start(tmp_path, config)
    try:
        assert (tmp_path / "built" / "bot.py").read_text() == FIRST_MOVE
        (tmp_path / "built" / "src.py").write_text(FIRST_MOVE + "# BROKEN\n")
        settle(tmp_path)
        update = membership.poll()
        assert update is not None and update.changed == []
        assert update.refused is not None
        assert update.refused.startswith("built: build 'sh build.sh' failed (exit 3) in ")
        assert "built keeps playing as it was until it builds:\nsrc.py: line 1: cannot build this" \
            in update.refused
        assert versions(store)["built"] == [1]
        assert membership.poll() is None   # not built again until its files change
        (tmp_path / "built" / "src.py").write_text(FIRST_MOVE + "# fixed\n")
        settle(tmp_path)
        update = membership.poll()
        assert update is not None and update.refused is None
        assert [(note.bot, note.version) for note in update.changed] == [("built", 2)]
        assert (tmp_path / "built" / "bot.py").read_text().endswith("# fixed\n")
        assert membership.poll() is None   # what the build wrote is no change
    finally:
        store.close()


def test_a_new_bot_whose_build_fails_does_not_join(ladder):
    tmp, config, store, membership = ladder
    (tmp / "built").mkdir()
    (tmp / "built" / "src.py").write_text("# BROKEN\n")
    (tmp / "built" / "build.sh").write_text(BUILD)
    write_config(tmp, BOTS + '  - {name: built, command: "python3 built/bot.py", build: "sh build.sh"}\n')
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.added == []
    assert update.refused is not None and "built does not join until it builds" in update.refused
    assert "built" not in update.config.bot_names and "built" not in versions(store)
    (tmp / "built" / "src.py").write_text(FIRST_MOVE)
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.added == ["built"] and update.refused is None
    assert versions(store)["built"] == [1]


def test_an_option_changed_in_the_config_is_a_new_version(ladder):
    tmp, config, store, membership = ladder
    config.write_text(config.read_text().replace("optimal_percent: 40", "optimal_percent: 80"))
    settle(tmp)
    update = membership.poll()
    assert update is not None and [note.why for note in update.changed] == \
        [["options changed (optimal_percent 40 -> 80)"]]
    assert dict(update.config.bots[2].options) == {"optimal_percent": 80}
    assert versions(store)["novice"] == [1, 2]


def test_a_deleted_script_is_refused_and_its_version_stays(ladder, monkeypatch):
    tmp, config, store, membership = ladder
    reads = []
    monkeypatch.setattr(membership_module, "load_league",
                        lambda *args: reads.append(args) or load_league(*args))
    (tmp / "beta" / "bot.py").unlink()
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.changed == [] and update.removed == []
    assert update.refused is not None and "bots[1].command" in update.refused
    assert len(reads) == 1
    assert membership.poll() is None and membership.poll() is None
    assert len(reads) == 1   # not read again (and refused again) while nothing changes
    assert versions(store)["beta"] == [1]
    done = arena("retire", "results/ladder.sqlite", "alpha", cwd=tmp)   # said meanwhile
    assert done.returncode == 0, done.stderr
    update = membership.poll()
    assert update is not None and update.removed == ["alpha"] and update.refused is None
    write_bot(tmp, "beta")   # put back as it was: the same version
    settle(tmp)
    assert membership.poll() is None
    assert versions(store)["beta"] == [1]


def test_a_config_moved_away_and_back_changes_nothing(ladder):
    tmp, config, store, membership = ladder
    aside = tmp / "aside.yaml"
    config.rename(aside)
    settle(tmp)
    update = membership.poll()
    assert update is not None and update.refused is not None and "ladder.yaml" in update.refused
    aside.rename(config)
    settle(tmp)
    assert membership.poll() is None


def test_games_stored_in_a_bots_own_directory_are_no_change(tmp_path):
    for name in ("alpha", "beta"):
        write_bot(tmp_path, name)
    bots = BOTS.replace('"python3 alpha/bot.py"}', '"python3 alpha/bot.py", dir: ., allow_shared_dir: true}')
    config = write_config(tmp_path, bots)
    settle(tmp_path)
    store, membership = start(tmp_path, config)
    try:
        assert membership.poll() is None
        store.bind(load_league(str(config)))   # the store's files change, as each game changes them
        assert store.path.parent.parent == tmp_path
        assert membership.poll() is None
    finally:
        store.close()


LADDER = "schedule: ladder\nladder: {matchmaker: active, games: 40}\n"


@pytest.mark.skipif("ladder" not in LeagueConfig.__dataclass_fields__, reason="needs schedule: ladder")
def test_a_ladders_stop_condition_is_taken_and_its_matchmaker_refused(tmp_path):
    for name in ("alpha", "beta"):
        write_bot(tmp_path, name)
    config = write_config(tmp_path, extra=LADDER)
    settle(tmp_path)
    store, membership = start(tmp_path, config)
    try:
        config.write_text(config.read_text().replace("games: 40", "games: 60"))
        settle(tmp_path)
        update = membership.poll()
        assert update is not None and update.refused is None and update.lines() == []
        assert update.config.to_dict()["ladder"]["games"] == 60
        config.write_text(config.read_text().replace("matchmaker: active", "matchmaker: uniform"))
        settle(tmp_path)
        update = membership.poll()
        assert update is not None and update.refused is not None
        assert "ladder.matchmaker active, the config says uniform" in update.refused
        assert "a running ladder keeps its ladder.matchmaker" in update.refused
        assert membership.config.to_dict()["ladder"]["matchmaker"] == "active"
    finally:
        store.close()
