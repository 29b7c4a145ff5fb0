"""A submission's untrusted steps in the real bwrap sandbox (arena/server/sandboxed.py): builds
that compile, reach for the network, write outside their directory, run too long, print too
much and fork without end; a wheel plugin's bots found without importing it here; validation
games through the real referee; the roster a running ladder takes bots from."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import textwrap
import time
import warnings
import zipfile
from pathlib import Path

import pytest

from arena.league.config import ConfigError
from arena.league.membership import Membership
from arena.league.runner import bot_manifests, load_league
from arena.league.store import Store
from arena.plugins import loaded_plugins
from arena.referee.botspec import ARENA_PACKAGE_DIR
from arena.sandbox import Limits, Sandbox, SandboxError, SandboxWarning
from arena.server.sandboxed import (
    BuildLimits,
    SubmissionError,
    build,
    roster_path,
    validate,
    wheel_bots,
    write_roster,
)
from arena.server.worker import wheel_entry

ROOT = Path(__file__).resolve().parent.parent
FIRST_MOVE = (ROOT / "examples" / "first_move_bot.py").read_text()


def _bwrap_or_skip() -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SandboxWarning)
            Sandbox(mode="bwrap")
    except SandboxError as exc:
        pytest.skip(f"the server needs bwrap: {exc}")


pytestmark = pytest.mark.usefixtures("bwrap")


@pytest.fixture(scope="module")
def bwrap() -> None:
    _bwrap_or_skip()


def public(path: Path) -> Path:
    """A directory a bot's uid (one owning nothing, when the tests run as root) may read."""
    path.mkdir(parents=True, exist_ok=True)
    for item in [path, *path.rglob("*")]:
        item.chmod(0o755 if item.is_dir() else 0o644)
    return path


def leftover(marker: str) -> list[int]:
    """Live processes whose command line holds marker."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    if marker.encode() in file.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


# --- builds ----------------------------------------------------------------------------------

#: a C++ bot of the arena protocol: ready, then the first legal move of every turn
CPP_BOT = r"""
#include <iostream>
#include <sstream>
#include <string>
int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string word;
        in >> word;
        if (word == "arena") { std::cout << "ready cpp-first" << std::endl; }
        else if (word == "turn") {
            std::string move_ms, bank_ms, last, legal;
            in >> move_ms >> bank_ms >> last >> legal;
            std::cout << legal.substr(0, legal.find(',')) << std::endl;
        }
        else if (word == "quit") { return 0; }
    }
}
"""


def cpp_submission(where: Path) -> Path:
    """A C++ bot as a zip of it would unpack: its source and a Makefile."""
    public(where)
    (where / "bot.cpp").write_text(CPP_BOT)
    (where / "Makefile").write_text("bot: bot.cpp\n\tg++ -O1 -o bot bot.cpp\n")
    return where


def test_a_cpp_bot_with_a_makefile_builds_and_then_validates(tmp_path):
    work = cpp_submission(tmp_path / "subs" / "cpp")
    done = build(work, "make", BuildLimits())
    assert done.ok, done.log
    assert "g++ -O1 -o bot bot.cpp" in done.log and done.reason == ""
    made = work / "bot"
    assert os.access(made, os.X_OK) and made.stat().st_uid == os.getuid()
    config = ladder_config(tmp_path)
    result = validate(config, {"name": "cpp", "command": str(made), "dir": str(work)}, "random", 2,
                      tmp_path / "validation")
    assert result.ok and result.games == 2 and result.fault is None, result


def test_a_failing_build_says_why_with_its_output(tmp_path):
    work = cpp_submission(tmp_path / "cpp")
    (work / "bot.cpp").write_text("int main() { return undefined_name; }\n")
    done = build(work, "make", BuildLimits())
    assert not done.ok and done.reason == "exit code 2"
    assert "undefined_name" in done.log and "was not declared" in done.log


def test_a_build_cannot_reach_the_network(tmp_path):
    work = public(tmp_path / "net")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        listener.settimeout(0)
        port = listener.getsockname()[1]
        code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
        done = build(work, f'python3 -c "{code}"', BuildLimits())
        with pytest.raises(BlockingIOError):
            listener.accept()     # nothing came through
    assert not done.ok and "ConnectionRefusedError" in done.log, done.log
    outside = build(work, "python3 -c \"import socket; socket.create_connection(('192.0.2.1', 80), "
                          "timeout=5)\"", BuildLimits())
    assert not outside.ok and "Network is unreachable" in outside.log, outside.log


def test_a_build_writes_its_directory_and_nothing_else(tmp_path):
    work = public(tmp_path / "work")
    beside = tmp_path / "beside.txt"
    planted = Path(ARENA_PACKAGE_DIR) / "planted_by_a_build.py"
    done = build(work, f"echo made > made.txt; echo x > {beside}; echo x > {planted}; "
                       f"echo x > /usr/local/planted; echo x > $HOME/scratch.txt", BuildLimits())
    assert (work / "made.txt").read_text() == "made\n"
    assert not beside.exists() and not planted.exists() and not Path("/usr/local/planted").exists()
    assert "Read-only file system" in done.log, done.log   # the arena package, /usr
    # beside it the sandbox has only the empty directories leading to it (on its own tmpfs):
    # the bot's uid may not write there as root, and what a user's build writes there is gone


def test_a_build_over_its_time_is_killed_with_everything_it_started(tmp_path):
    work = public(tmp_path / "slow")
    marker = f"slow-build-{os.getpid()}"
    done = build(work, f"(sleep 60; echo {marker}) & sleep 60 # {marker}", BuildLimits(seconds=1))
    assert not done.ok and done.reason == "timed out after 1 s"
    assert leftover(marker) == []


def test_a_build_printing_10_mb_keeps_output_kb_and_says_it_was_cut(tmp_path):
    work = public(tmp_path / "loud")
    done = build(work, "echo first line; head -c 10000000 /dev/zero | tr '\\0' x; echo; echo last line",
                 BuildLimits(output_kb=16))
    assert done.ok, done.reason
    assert done.log.startswith("first line\n") and done.log.endswith("last line\n")
    note = "[build output cut: 10,000,022 bytes printed, 9,983,638 left out; kept the first 12,288 and the last 4,096]"
    assert note in done.log
    assert len(done.log.encode()) == 16 * 1024 + len(note) + 2


def test_a_fork_bomb_build_is_contained_and_leaves_nothing(tmp_path):
    work = public(tmp_path / "bomb")
    marker = f"bomb-{os.getpid()}"
    done = build(work, f"bomb() {{ bomb | bomb & }}; while :; do bomb; done # {marker}",
                 BuildLimits(seconds=2, processes=16))
    assert not done.ok   # timed out, or its own shell could fork no more (exit code 2)
    assert "Cannot fork" in done.log   # the processes limit held
    assert leftover(marker) == []


def test_what_a_build_leaves_is_bounded_and_only_files_and_links_within(tmp_path):
    def left(command: str, **limits: int) -> str:
        work = public(tmp_path / f"w{len(list(tmp_path.iterdir()))}")
        done = build(work, command, BuildLimits(**limits))
        assert not done.ok, done
        return done.reason
    # each file under file_mb, the directory over dir_mb (the host's disk): stopped
    fill = "for i in $(seq 40); do head -c 1048576 /dev/zero > f$i; done"
    assert left(fill, file_mb=2, dir_mb=8) == "it wrote more than 8 MiB into its directory"
    # sparse files take no disk, but the ladder would read every byte to fingerprint them
    sparse = "for i in $(seq 300); do truncate -s 63M f$i; done"
    assert left(sparse) == "it wrote more than 256 MiB into its directory"
    assert left("mkdir d && cd d && touch $(seq 300)", dir_files=100) == \
        "it made more than 100 files and directories"
    # the ladder hashes every file of a bot on the host: no link out, no FIFO to block on
    assert left("ln -s /etc/shadow shadow") == "it left 'shadow', a link out of its directory"
    assert left("mkdir sub && ln -s ../.. sub/up") == "it left 'sub/up', a link out of its directory"
    assert left("mkfifo pipe") == "it left 'pipe', a FIFO (named pipe)"
    fine = public(tmp_path / "fine")
    done = build(fine, "echo x > lib.so.1 && ln -s lib.so.1 lib.so && ln -s $PWD/lib.so.1 abs.so",
                 BuildLimits())
    assert done.ok, done


def test_builds_run_only_in_bwrap(tmp_path):
    work = public(tmp_path / "w")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SandboxWarning)
        plain = Sandbox(mode="none")
    with pytest.raises(SubmissionError, match="runs only in the bwrap sandbox, not in mode 'none'"):
        build(work, "true", BuildLimits(), sandbox=plain)
    with pytest.raises(SubmissionError, match="build limit seconds must be"):
        BuildLimits(seconds=0)


# --- wheels ----------------------------------------------------------------------------------

PLUGIN = '''\
"""A bot plugin for ultimate: one agent class and one bot of its own program."""
import sys
from pathlib import Path

from arena.plugins import BotDeclaration, BotOption, hookimpl

OWN_BOT = Path(__file__).with_name("own_bot.py")


class FirstMove:
    def __init__(self, game, rng, last=False):
        self.last = last

    def choose(self, state, time_left_ms):
        moves = state.legal_moves()
        return moves[-1] if self.last else moves[0]


@hookimpl
def arena_register_bots(registry):
    registry.add(BotDeclaration(name="wheel-first", game="ultimate", description="first move",
                                target="wheel_plugin:FirstMove",
                                options={"last": BotOption(False, "play the last move instead")}))
    registry.add(BotDeclaration(name="wheel-own", game="*", description="its own program",
                                command=(sys.executable, str(OWN_BOT))))
    registry.add(BotDeclaration(name="wheel-ttt", game="tictactoe", description="other game",
                                target="wheel_plugin:FirstMove"))
'''


def make_wheel(tmp_path: Path) -> Path:
    """A real wheel, built by pip from a tiny plugin package, unpacked as the server would."""
    src = tmp_path / "src"
    (src / "wheel_plugin").mkdir(parents=True)
    (src / "wheel_plugin" / "__init__.py").write_text(PLUGIN)
    (src / "wheel_plugin" / "own_bot.py").write_text(FIRST_MOVE)
    (src / "pyproject.toml").write_text(textwrap.dedent("""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "wheel-plugin"
        version = "0.1.0"

        [tool.setuptools]
        packages = ["wheel_plugin"]

        [project.entry-points.arena]
        wheel = "wheel_plugin"
        """))
    made = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                           "--no-build-isolation", str(src), "-w", str(tmp_path / "dist")],
                          capture_output=True, text=True, timeout=240, check=False)
    assert made.returncode == 0, made.stderr
    wheel = next((tmp_path / "dist").glob("wheel_plugin-0.1.0-*.whl"))
    unpacked = tmp_path / "subs" / "wheel-1"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    return public(unpacked)


def test_a_wheels_bots_are_found_in_the_sandbox_and_one_validates(tmp_path):
    wheel_dir = make_wheel(tmp_path)
    entries = wheel_bots(wheel_dir, "ultimate")
    assert "wheel_plugin" not in sys.modules            # never imported here
    assert [entry["name"] for entry in entries] == ["wheel-first", "wheel-own"]
    first, own = entries
    assert first["dir"] == own["dir"] == str(wheel_dir) and first["dialect"] == "arena"
    python = f"env PYTHONPATH={ROOT}:{wheel_dir} {Path(sys.executable).name}"
    assert first["command"] == f"{python} -m arena.sdk wheel_plugin:FirstMove last=false"
    assert own["command"] == f"{python} {wheel_dir / 'wheel_plugin' / 'own_bot.py'}"
    config = ladder_config(tmp_path)
    for entry in entries:
        result = validate(config, {**entry, "name": f"alice-{entry['name']}"}, "random", 2,
                          tmp_path / f"validation-{entry['name']}")
        assert result.ok and result.games == 2, result
    # and the roster takes it as the ladder reads a config
    taken = load_league(str(write_roster(config, [{**first, "name": "alice"}])))
    assert taken.bot_names[-1] == "alice"
    # a submission is one bot: of two for the game, the one under the submitted name plays
    assert wheel_entry(entries, "wheel-own", "ultimate") == own
    with pytest.raises(SubmissionError, match=r"declares 2 bots for ultimate \(wheel-first, wheel-own\): "
                                              "submit it under the name of the one to play"):
        wheel_entry(entries, "alice", "ultimate")
    assert wheel_entry([first], "alice", "ultimate") == {**first, "name": "alice"}


def plugin_dir(tmp_path: Path, name: str, module: str, entry_point: str | None = "p = bad_plugin") -> Path:
    """A wheel as unpacked, written by hand: one module and its dist-info."""
    where = tmp_path / name
    info = where / "bad_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bad-plugin\nVersion: 0.1\n")
    if entry_point is not None:
        (info / "entry_points.txt").write_text(f"[arena]\n{entry_point}\n")
    (where / "bad_plugin.py").write_text(module)
    return public(where)


def test_a_wheels_plugin_that_fails_or_misbehaves_is_refused_in_one_line(tmp_path):
    touched = tmp_path / "touched-by-the-plugin"
    raising = plugin_dir(tmp_path, "raising", textwrap.dedent(f"""\
        try:
            open({str(touched)!r}, "w").write("x")
        except OSError as exc:
            raise RuntimeError(f"no numpy here ({{type(exc).__name__}})")
        """))
    with pytest.raises(SubmissionError, match=r"^the wheel's plugin failed: plugin 'p' failed to import: "
                                              r"RuntimeError: no numpy here \((PermissionError|FileNotFound)"):
        wheel_bots(raising, "ultimate")      # it runs where that file cannot be written
    assert not touched.exists()
    other = plugin_dir(tmp_path, "other", textwrap.dedent("""\
        from arena.plugins import BotDeclaration, hookimpl
        print("chatter on stdout")
        @hookimpl
        def arena_register_bots(registry):
            registry.add(BotDeclaration(name="t", game="tictactoe", description="",
                                        command=("true",)))
        """))
    with pytest.raises(SubmissionError, match=r"declares no bot for ultimate \(it declares t \(tictactoe\)\)"):
        wheel_bots(other, "ultimate")
    none = plugin_dir(tmp_path, "none", "", entry_point=None)
    with pytest.raises(SubmissionError, match="the wheel has no 'arena' entry point"):
        wheel_bots(none, "ultimate")
    forged = plugin_dir(tmp_path, "forged", textwrap.dedent("""\
        import atexit, sys
        atexit.register(lambda: print('{"bots": [{"name": "x", "command": 5}]}', file=sys.__stdout__))
        """))
    with pytest.raises(SubmissionError, match="its loader printed declarations of another shape"):
        wheel_bots(forged, "ultimate")
    hung = plugin_dir(tmp_path, "hung", "while True: pass\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SandboxWarning)
        short = Sandbox(Limits(cpu_seconds=1), mode="bwrap")
    with pytest.raises(SubmissionError, match=r"could not be loaded \(killed by signal 24 \(SIGXCPU\)"):
        wheel_bots(hung, "ultimate", sandbox=short)


# --- validation ------------------------------------------------------------------------------

def ladder_config(tmp_path: Path, move_ms: int = 1000) -> Path:
    """An ultimate ladder as an organiser writes it: reference bots and one of their own."""
    public(tmp_path / "first")
    (tmp_path / "first" / "bot.py").write_text(FIRST_MOVE)
    config = tmp_path / "ladder.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: srv
        game: ultimate
        schedule: ladder
        ladder: {{games: 50, hours: 2, until: {{separated: 0.95}}, min_games: 4}}
        bots:
          - {{name: random, bot: random}}
          - {{name: first, command: "python3 first/bot.py"}}
        time_control: {{move_ms: {move_ms}}}
        workers: 1
        store: results/srv.sqlite
        server: {{validate: {{against: random, games: 2}}}}
        """))
    return config


def raw_bot(tmp_path: Path, name: str, on_turn: str) -> dict[str, str]:
    """A bot of the raw protocol that does `on_turn` (Python) at its first turn."""
    where = public(tmp_path / "subs" / name)
    (where / "bot.py").write_text(textwrap.dedent("""\
        import sys, time
        for line in sys.stdin:
            if line.startswith("arena"):
                print("ready", flush=True)
            elif line.startswith("turn"):
        """) + textwrap.indent(on_turn, " " * 8) + "\n")
    public(where)
    return {"name": name, "command": f"python3 {where / 'bot.py'}", "dir": str(where)}


@pytest.mark.parametrize("name, on_turn, fault, said", [
    ("crasher", "print('Traceback: ValueError: board 9', file=sys.stderr); sys.exit(3)",
     r"crash: crasher \(seat [01]\): exited \(exit code 3\) before replying to move [12]$", "ValueError: board 9"),
    ("garbage", "print('no idea', file=sys.stderr, flush=True); print('thinking... e2e4', flush=True)",
     r"malformed output: garbage \(seat [01]\)", "no idea"),
    ("sleeper", "print('sleeping', file=sys.stderr, flush=True); time.sleep(60)",
     r"timeout: sleeper \(seat [01]\): no reply to move [12] within 300 ms", "sleeping"),
])
def test_a_bot_that_faults_fails_validation_with_its_fault_and_stderr(tmp_path, name, on_turn, fault, said):
    config = ladder_config(tmp_path, move_ms=300)
    result = validate(config, raw_bot(tmp_path, name, on_turn), "random", 2, tmp_path / "v")
    assert not result.ok and result.games == 2
    assert result.fault is not None and re.match(fault, result.fault), result.fault
    assert said in result.stderr_tail


def test_a_good_bot_validates_and_its_games_stay_in_the_workdir(tmp_path):
    config = ladder_config(tmp_path)
    entry = raw_bot(tmp_path, "good", "print(line.split()[4].split(',')[0], flush=True)")
    result = validate(config, entry, "first", 4, tmp_path / "v")
    assert result.ok and result.games == 4 and result.stderr_tail == ""
    with Store(tmp_path / "v" / "validation.sqlite", readonly=True) as store:
        assert store.count() == 4
    assert not (tmp_path / "results").exists()     # the ladder's store is not touched


def test_validation_refuses_what_the_ladder_would_not_take(tmp_path):
    config = ladder_config(tmp_path)
    good = raw_bot(tmp_path, "good", "print(line.split()[4].split(',')[0], flush=True)")
    with pytest.raises(SubmissionError, match="validate.against: no bot 'nobody'.*its bots are random, first"):
        validate(config, good, "nobody", 2, tmp_path / "v")
    with pytest.raises(SubmissionError, match="even number >= 2"):
        validate(config, good, "random", 3, tmp_path / "v")
    with pytest.raises(SubmissionError, match="build runs in the sandbox"):
        validate(config, {**good, "build": "make"}, "random", 2, tmp_path / "v")
    with pytest.raises(SubmissionError, match="duplicate bot name 'random'"):
        validate(config, {**good, "name": "random", "dir": good["dir"]}, "first", 2, tmp_path / "v")
    # said of the submission's entry, without the organiser's config, its line or bots[N]
    with pytest.raises(SubmissionError, match=r"^dialect: must be one of .*got 'klingon'$"):
        validate(config, {**good, "dialect": "klingon"}, "random", 2, tmp_path / "v")
    with pytest.raises(SubmissionError, match="lies in what the bot reads"):
        validate(config, good, "random", 2, Path(good["dir"]) / "v")
    # the server's own files (its database, other submissions) are no league bot's: the
    # league's sight check does not know them, the submission's confinement does
    server_db = tmp_path / "results" / "srv.server" / "server.sqlite"
    server_db.parent.mkdir(parents=True)
    server_db.write_text("tokens")
    peek = {**good, "command": f"{good['command']} {server_db}"}
    with pytest.raises(SubmissionError, match=f"names '{server_db}', outside its own directory"):
        validate(config, peek, "random", 2, tmp_path / "v")
    with pytest.raises(SubmissionError, match="outside its own directory"):
        write_roster(config, [peek])
    with pytest.raises(SubmissionError, match="outside its own directory"):
        validate(config, {**good, "readable": [str(server_db.parent)]}, "random", 2, tmp_path / "v")
    with pytest.raises(SubmissionError, match="needs its 'dir'"):
        validate(config, {"name": "nodir", "command": "python3 first/bot.py"}, "random", 2,
                 tmp_path / "v")
    with pytest.raises(SubmissionError, match="overlaps the directory of bot 'first'"):
        validate(config, {"name": "mine", "command": "python3 first/bot.py", "dir": "first"},
                 "random", 2, tmp_path / "v")


# --- the roster ------------------------------------------------------------------------------

def settle(*paths: Path) -> None:
    """Files as they are some seconds after a save: membership takes no file still written."""
    past = time.time() - 60
    for top in paths:
        for path in [top, *(top.rglob("*") if top.is_dir() else [])]:
            os.utime(path, (past, past), follow_symlinks=False)


def test_the_roster_is_the_config_with_the_bots_appended_and_no_stop(tmp_path):
    config = ladder_config(tmp_path)
    alice = raw_bot(tmp_path, "alice", "print(line.split()[4].split(',')[0], flush=True)")
    path = write_roster(config, [alice])
    assert path == tmp_path / ".ladder.serve.yaml" == roster_path(config)
    organiser, roster = load_league(str(config)), load_league(str(path))
    assert roster.bot_names == ["random", "first", "alice"]
    assert organiser.ladder is not None and organiser.ladder.games == 50
    assert roster.ladder is not None and (roster.ladder.games, roster.ladder.hours,
                                          roster.ladder.until_separated) == (None, None, None)
    assert roster.ladder.min_games == 4
    # the organiser's relative paths resolve as they did
    assert roster.store == organiser.store == tmp_path / "results" / "srv.sqlite"
    assert roster.bots[1] == organiser.bots[1] and roster.bots[1].dir == tmp_path / "first"
    assert roster.bots[2].dir == Path(alice["dir"])
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_roster_the_ladder_would_refuse_is_not_written(tmp_path):
    config = ladder_config(tmp_path)
    alice = raw_bot(tmp_path, "alice", "print(line.split()[4].split(',')[0], flush=True)")
    path = write_roster(config, [alice])
    before = path.read_bytes()
    duplicate = r"\.ladder\.serve\.yaml:\d+: bots\[3\]\.name: duplicate bot name 'alice'"
    with pytest.raises(SubmissionError, match=duplicate):
        write_roster(config, [alice, alice])
    with pytest.raises(SubmissionError, match="never as a league's build: on the host"):
        write_roster(config, [{**alice, "build": "make"}])
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [".ladder.serve.yaml"]


def test_the_running_ladder_sees_a_bot_join_and_a_new_dir_as_a_new_version(tmp_path):
    config = ladder_config(tmp_path)
    roster = write_roster(config, [])
    plugins = loaded_plugins()
    running = load_league(str(roster), plugins)
    store = Store(running.store)
    store.bind(running)
    store.sync_versions(bot_manifests(running, plugins, store))
    membership = Membership(roster, running, plugins, store)
    settle(tmp_path)
    assert membership.poll() is None
    one = raw_bot(tmp_path, "alice-1", "print(line.split()[4].split(',')[0], flush=True)")
    write_roster(config, [{**one, "name": "alice"}])
    settle(tmp_path)
    update = membership.poll()
    assert update is not None and update.added == ["alice"] and update.changed == []
    two = raw_bot(tmp_path, "alice-2", "print(line.split()[4].split(',')[-1], flush=True)")
    write_roster(config, [{**two, "name": "alice"}])
    settle(tmp_path)
    update = membership.poll()
    assert update is not None and update.added == [] and [note.bot for note in update.changed] == ["alice"]
    assert [info.version for info in store.versions("alice")] == [1, 2]
    store.close()


def test_a_league_accepts_a_server_section_and_ignores_it(tmp_path):
    config = ladder_config(tmp_path)
    assert "server" not in load_league(str(config)).to_dict()
    config.write_text(config.read_text().replace("server: {validate: {against: random, games: 2}}",
                                                 "server: 3"))
    with pytest.raises(ConfigError, match=r"ladder.yaml:\d+: server: must be a mapping \(the settings "
                                          r"of arena serve, docs/server.md\), got 3"):
        load_league(str(config))
