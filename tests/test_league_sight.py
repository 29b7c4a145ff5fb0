"""A bot sees only its own files: in a real league under bubblewrap, a hostile bot that
looks for the store, the config and another bot's secret finds none of them; what a
user adds with `readable` (YAML) or `--read` (CLI) it can read."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.league import Store
from arena.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "fixture_bots"
SECRET = "the victim's secret: 42"

BWRAP = pytest.mark.skipif(Sandbox().mode != "bwrap",
                                reason="only bubblewrap hides files (docs/sandbox.md)")


def arena(*args, cwd):
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, check=False,
                          timeout=300, cwd=cwd)


@pytest.fixture
def league(tmp_path):
    """LEAGUE/league.yaml, LEAGUE/bots/spy/spy_bot.py, LEAGUE/bots/victim/{victim.py,secret.txt}."""
    root = tmp_path / "league"
    (root / "bots" / "spy").mkdir(parents=True)
    (root / "bots" / "victim").mkdir()
    shutil.copy(BOTS / "spy_bot.py", root / "bots" / "spy" / "spy_bot.py")
    shutil.copy(BOTS / "spin_bot.py", root / "bots" / "victim" / "victim.py")
    (root / "bots" / "victim" / "secret.txt").write_text(SECRET)
    return root


def config(root):
    # the spy named by its absolute path: main's default then was the config's directory
    return ("name: league\ngame: ultimate\ngames_per_pairing: 2\nworkers: 1\n"
            "time_control: {move_ms: 2000, startup_ms: 10000}\nbots:\n"
            f"  - {{name: spy, command: python3 {root}/bots/spy/spy_bot.py}}\n"
            "  - {name: victim, command: python3 bots/victim/victim.py 0}\n"
            "  - {name: rand, bot: uttt-random}\n")


def spy_tails(store):
    with Store(store) as opened:
        return [stored.record.stderr_tails[stored.record.bots[0].name != "spy"]
                for stored in opened.records() if "spy" in [b.name for b in stored.record.bots]]


@BWRAP
def test_a_league_bot_reads_neither_the_store_nor_the_config_nor_another_bots_secret(league):
    (league / "league.yaml").write_text(config(league))
    done = arena("run", "league.yaml", cwd=league)
    assert done.returncode == 0, done.stderr
    tails = spy_tails(league / "results" / "league.sqlite")
    assert len(tails) == 4
    for tail in tails:
        assert "read " not in tail and SECRET not in tail, tail
        for target in ("results/league.sqlite", "league.yaml", "bots/victim/secret.txt"):
            assert f"denied {league / target}: FileNotFoundError" in tail, tail


@BWRAP
def test_readable_in_the_config_shows_a_file(league):
    (league / "league.yaml").write_text(config(league).replace(
        "bots/spy/spy_bot.py}", "bots/spy/spy_bot.py, readable: [bots/victim/secret.txt]}"))
    done = arena("run", "league.yaml", cwd=league)
    assert done.returncode == 0, done.stderr
    for tail in spy_tails(league / "results" / "league.sqlite"):
        assert f"read {league / 'bots/victim/secret.txt'}" in tail and "denied" in tail


def test_a_league_bot_beside_the_store_is_refused_before_anything_runs(league):
    shutil.copy(BOTS / "spy_bot.py", league / "spy_bot.py")
    (league / "league.yaml").write_text(config(league).replace(f"{league}/bots/spy/spy_bot.py", "spy_bot.py"))
    done = arena("run", "league.yaml", cwd=league)
    assert done.returncode == 2
    assert "league.yaml:7: bots[0].command: bot 'spy' would read" in done.stderr
    assert "holds the store" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (league / "results" / "league.sqlite").exists()


@BWRAP
def test_match_and_read(league):
    plain = arena("match", "arena:python3 bots/spy/spy_bot.py", "uttt-random", "--game", "ultimate",
                  "--json", cwd=league)
    assert plain.returncode == 0, plain.stderr
    tail = json.loads(plain.stdout.splitlines()[0])["stderr_tails"][0]
    assert f"denied {league / 'bots/victim/secret.txt'}" in tail and SECRET not in tail
    shown = arena("match", "arena:python3 bots/spy/spy_bot.py", "uttt-random", "--game", "ultimate",
                  "--json", "--read", "bots/victim/secret.txt", cwd=league)
    assert shown.returncode == 0, shown.stderr
    tail = json.loads(shown.stdout.splitlines()[0])["stderr_tails"][0]
    assert f"read {league / 'bots/victim/secret.txt'}" in tail
    missing = arena("match", "random", "uttt-random", "--game", "ultimate", "--read", "nope", cwd=league)
    assert missing.returncode == 2 and "--read nope: no such file or directory" in missing.stderr
    missing = arena("play", "ultimate", "--against", "random", "--read", "nope", cwd=league)
    assert missing.returncode == 2 and "--read nope: no such file or directory" in missing.stderr


def test_a_registered_bot_reads_its_package_or_its_module_file_never_the_directory_around(
        tmp_path, monkeypatch):
    from arena.referee.botspec import code_paths
    (tmp_path / "lonebot.py").write_text("class Bot: pass\n")
    (tmp_path / "packbot").mkdir()
    (tmp_path / "packbot" / "__init__.py").write_text("")
    (tmp_path / "secret.txt").write_text(SECRET)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert code_paths("lonebot:Bot")[0] == str(tmp_path / "lonebot.py")
    assert all(Path(p).is_file() for p in code_paths("lonebot:Bot"))
    assert code_paths("packbot.agent:Bot") == (str(tmp_path / "packbot"),)


def test_a_bot_program_lying_in_the_temp_dir_reads_only_itself(tmp_path):
    # its directory is every process's temp dir and the root of every bot's scratch dir: the
    # bot is shown its own file only, rather than refused (`arena match "arena:python3
    # /tmp/spin.py" ...` could not start)
    import tempfile
    import uuid
    program = Path(tempfile.gettempdir()) / f"arena-first-{uuid.uuid4().hex}.py"
    program.write_text((ROOT / "examples" / "first_move_bot.py").read_text())
    try:
        out = subprocess.run([sys.executable, "-m", "arena", "match", f"arena:python3 {program.name}",
                              "uttt-random", "--game", "ultimate", "--games", "2", "--json"],
                             cwd=program.parent, capture_output=True, text=True, timeout=120,
                             check=False)
    finally:
        program.unlink()
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()][:-1]   # then the summary
    assert len(records) == 2 and all(r["termination"] == "normal" for r in records), out.stdout


def spy_league(root: Path, spy_args: str, extra: str = "") -> Path:
    """A league whose spy is told to read spy_args, stored in results/l.sqlite."""
    (root / "bots" / "spy").mkdir(parents=True, exist_ok=True)
    shutil.copy(BOTS / "store_spy_bot.py", root / "bots" / "spy" / "spy.py")
    (root / "l.yaml").write_text(
        "name: l\ngame: ultimate\ngames_per_pairing: 2\nworkers: 1\nstore: results/l.sqlite\n"
        "time_control: {move_ms: 2000, startup_ms: 10000}\nbots:\n"
        f"  - {{name: spy, command: 'python3 bots/spy/spy.py {spy_args}'}}\n"
        "  - {name: rand, bot: uttt-random}\n" + extra)
    return root / "l.yaml"


@pytest.mark.parametrize("spy_args, names", [
    ("results/l.sqlite", "results/l.sqlite"),            # the store, on the league's first run
    ("results/l.sqlite-wal", "results/l.sqlite-wal"),    # a file SQLite keeps beside it
    ("results", "results"),                              # the directory the run makes for it
])
def test_a_command_naming_the_store_before_it_exists_is_refused(tmp_path, spy_args, names):
    # before: refused only once the store existed, so on a fresh store the spy read it and
    # its -wal at every move (under bubblewrap: 'read .../results/l.sqlite: 4096 bytes')
    spy_league(tmp_path, spy_args)
    done = arena("run", "l.yaml", cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.strip() == (
        f"arena run: error: l.yaml:8: bots[0].command: bot 'spy' names {str(tmp_path / names)!r}, "
        f"where the run puts " + (f"the store {str(tmp_path / 'results/l.sqlite')!r}: the bot could "
                                  "read every result" if not names.endswith("-wal") else
                                  "the store's wal file (every result)")
        + "; a bot's command may not name it")
    assert not (tmp_path / "results").exists()


def test_a_command_naming_the_site_before_it_is_published_is_refused(tmp_path):
    spy_league(tmp_path, "site/data/league.js", "publish: site\n")
    done = arena("run", "l.yaml", cwd=tmp_path)
    assert done.returncode == 2 and "where the run puts the published site" in done.stderr, done.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "site").exists()


@BWRAP
def test_a_spy_named_elsewhere_reads_nothing_of_a_fresh_store(tmp_path):
    # the same spy, told of a file of its own, plays its games and sees no result
    spy_league(tmp_path, "bots/spy/notes.txt")
    (tmp_path / "bots" / "spy" / "notes.txt").write_text("nothing\n")
    done = arena("run", "l.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with Store(tmp_path / "results" / "l.sqlite") as store:
        tails = [g.record.stderr_tails[[b.name for b in g.record.bots].index("spy")]
                 for g in store.records()]
    assert len(tails) == 2
    for tail in tails:
        assert f"read {tmp_path / 'bots/spy/notes.txt'}: 8 bytes" in tail and "sqlite" not in tail, tail


def test_a_registered_bots_option_file_naming_the_store_is_refused(tmp_path):
    # a file option shows the bot that file: before, once the store existed (a second run),
    # `weights: results/l.sqlite` passed the check and the bot was shown the store
    config = tmp_path / "l.yaml"
    config.write_text("name: l\ngame: ultimate\ngames_per_pairing: 2\nworkers: 1\n"
                      "store: results/l.sqlite\nbots:\n  - {name: a, bot: random}\n"
                      "  - {name: b, bot: uttt-random}\n")
    assert arena("run", "l.yaml", cwd=tmp_path).returncode == 0
    config.write_text(config.read_text().replace(
        "{name: b, bot: uttt-random}",
        "{name: b, bot: uttt-minimax-pruning, options: {weights: results/l.sqlite}}"))
    done = arena("run", "l.yaml", cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    store = tmp_path / "results" / "l.sqlite"
    assert done.stderr.strip() == (
        f"arena run: error: l.yaml:8: bots[1].options.weights: bot 'b' would read {str(store)!r}, "
        f"which holds the store {str(store)!r}: the bot could read every result; give each bot a "
        "directory of its own (its program's directory is what it reads), or set "
        "allow_shared_dir: true for this bot (it can then read them)")
