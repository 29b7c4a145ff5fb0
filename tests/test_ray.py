"""executor: ray — the same league on a Ray cluster as locally, even when a worker dies.

The cluster tests start a real two-node cluster on this machine (a head and a
second node, one CPU each, loopback only, a temp dir of their own), and stop every
process of it by id at the end. They are skipped where Ray cannot be imported;
the tests of paths, bundles and config need no Ray.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from arena.league import Store, build_leaderboard, config_from_dict, render, runner
from arena.league.config import ConfigError, RayConfig
from arena.league.executors.ray import RayExecutorError, play_fixtures_ray
from arena.league.executors.rayfiles import Shipment, build_bundle
from arena.league.executors.raynode import localize
from arena.league.progress import Progress
from arena.league.runner import make_job, run_league
from arena.league.schedule import schedule
from arena.league.sources import FixtureList
from arena.plugins import load_plugins
from arena.record import Termination
from arena.referee import BotSpec
from arena.sandbox.procfs import PR_SET_CHILD_SUBREAPER

try:
    import ray  # noqa: F401
    RAY_MISSING = None
except ImportError as exc:  # the default install: no Ray
    RAY_MISSING = f"Ray cannot be imported ({exc}); pip install 'bot-arena[ray]'"

needs_ray = pytest.mark.skipif(RAY_MISSING is not None, reason=RAY_MISSING or "")

PLUGINS = load_plugins()
RANDOMS = [{"name": f"r{i}", "bot": "uttt-random"} for i in range(3)]


GAMES_PER_PAIRING = 12
GAMES = 3 * GAMES_PER_PAIRING
#: the kill tests' league: RANDOMS and a gate bot, 6 pairings of 4 games
GATED_GAMES = 6 * 4


def league(tmp: Path, name: str, bots=RANDOMS, games_per_pairing=GAMES_PER_PAIRING, **extra):
    data = {"name": name, "game": "ultimate", "bots": bots, "games_per_pairing": games_per_pairing,
            "workers": 1, "seed": 11, "store": str(tmp / f"{name}.sqlite"),
            "time_control": {"move_ms": 2000, "startup_ms": 10000}, **extra}
    return config_from_dict(data, base_dir=tmp, known_bots=runner.known_bots_check(PLUGINS),
                            games=PLUGINS.games)


def run(config):
    """run_league as the CLI calls it: executor: ray reaches play_fixtures_ray."""
    return run_league(config, PLUGINS, progress=Progress(0, stream=io.StringIO()))


def results(config):
    """Each stored game as what must not depend on where it ran: moves, winner, ending."""
    with Store(config.store) as store:
        return {g.key: ([m.move for m in g.record.moves], g.record.winner,
                        g.record.termination.value, g.record.reason) for g in store.records()}


def leaderboard(config):
    with Store(config.store) as store:
        board = json.loads(render(build_leaderboard(store.records(), config.rating,
                                                    config.bot_names), "json"))
    for row in board["rows"]:
        row.pop("mean_move_ms")   # wall time: the one thing that may differ
    return board


# --- no Ray needed ----------------------------------------------------------------------------

def test_arena_never_imports_ray_unless_asked():
    code = ("import sys, arena.cli, arena.league.runner, arena.league.executors.ray, arena.plugins; "
            "arena.plugins.loaded_plugins(); "
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_without_ray_the_error_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)   # import ray -> ImportError
    config = league(tmp_path, "noray", executor="ray")
    job = make_job(config, PLUGINS)
    with pytest.raises(RayExecutorError, match=r"pip install 'bot-arena\[ray\]'"):
        next(play_fixtures_ray(job, schedule(config), config.ray))


def test_arena_run_without_ray_is_one_clear_line(tmp_path, monkeypatch, capsys):
    from arena import cli
    monkeypatch.setitem(sys.modules, "ray", None)   # import ray -> ImportError
    path = tmp_path / "noray.yaml"
    path.write_text("name: noray\ngame: ultimate\nexecutor: ray\nstore: noray.sqlite\nbots:\n"
                    "  - {name: a, bot: random}\n  - {name: b, bot: random}\n")
    assert cli.main(["run", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'bot-arena[ray]'" in err[0], err


def test_ray_section_defaults_and_checks(tmp_path):
    config = league(tmp_path, "cfg", executor="ray")
    assert config.ray == RayConfig(address=None, files="shared", max_retries=3, cpus_per_game=1.0)
    config = league(tmp_path, "cfg", executor="ray",
                    ray={"address": "auto", "files": "runtime_env", "max_retries": 0,
                         "cpus_per_game": 0.5})
    assert config.ray == RayConfig("auto", "runtime_env", 0, 0.5)
    for address in ("head:6379", "10.0.0.5:6379", "ray://head:10001", "[::1]:6379"):
        assert league(tmp_path, "cfg", executor="ray", ray={"address": address}).ray.address == address
    bad = [({"files": "nfs"}, "ray.files: must be one of 'shared', 'runtime_env', got 'nfs'"),
           ({"address": "head"}, "ray.address: must be auto, HOST:PORT or ray://HOST:PORT"),
           ({"address": "http://head:8265"}, "ray.address: must be auto, HOST:PORT"),
           ({"max_retries": -1}, "ray.max_retries: must be an integer >= 0 and <= 100, got -1"),
           ({"cpus_per_game": 0}, "ray.cpus_per_game: must be a number > 0 and <= 4096, got 0")]
    for section, message in bad:
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("[", r"\[")):
            league(tmp_path, "cfg", executor="ray", ray=section)


def test_ray_keys_are_documented_and_the_doc_example_loads(tmp_path):
    import dataclasses
    import re

    import yaml
    text = (Path(__file__).resolve().parent.parent / "docs" / "config.md").read_text()
    section = text.split("## `ray`", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert documented == {f.name for f in dataclasses.fields(RayConfig)}
    example = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))
    config = league(tmp_path, "doc", **example)
    assert config.ray == RayConfig(address="auto", files="shared", max_retries=3, cpus_per_game=1.0)


SHIP = Shipment(token="t", python="/coord/venv/bin/python", arena_dir="/coord/src/arena",
                files=(("/coord/src/bots", "arena-files-0/bots"),
                       ("/coord/league/mine", "arena-files-1/mine"),
                       ("/coord/league/mine/data", "arena-files-2/data")))


def test_localize_moves_python_arena_and_shipped_dirs_to_the_node():
    spec = BotSpec(name="b", argv=("/coord/venv/bin/python", "-m", "arena.sdk", "bots.x:Y",
                                   "depth=3", "/coord/league/mine/data/w.bin", "/usr/bin/env"),
                   readable=("/coord/src/arena", "/coord/src/bots", "/coord/league/mine"),
                   env={"PYTHONPATH": "/coord/src:/coord/league", "OTHER": "/coord/league/mine/x"})
    here = localize(spec, SHIP, "/node/wd", python="/node/bin/python3",
                    arena_dir="/node/site/arena")
    assert here.argv == ("/node/bin/python3", "-m", "arena.sdk", "bots.x:Y", "depth=3",
                         "/node/wd/arena-files-2/data/w.bin", "/usr/bin/env")
    assert here.readable == ("/node/site/arena", "/node/wd/arena-files-0/bots",
                             "/node/wd/arena-files-1/mine")
    # shipped copies come first on the import path, then the node's arena, then the original
    assert here.env["PYTHONPATH"].split(":") == [
        "/node/wd/arena-files-0", "/node/site", "/coord/src", "/node/wd/arena-files-1",
        "/coord/league"]
    assert here.env["OTHER"] == "/node/wd/arena-files-1/mine/x"
    # a path that only starts with the same letters is not inside the directory
    other = localize(replace(spec, argv=("/coord/src/botsmith",), env={}), SHIP, "/node/wd")
    assert other.argv == ("/coord/src/botsmith",)


def test_localize_with_shared_files_moves_only_python_and_arena():
    shared = replace(SHIP, files=())
    spec = BotSpec(name="b", argv=("/coord/venv/bin/python", "/coord/league/mine/bot.py"),
                   readable=("/coord/src/arena", "/coord/league/mine"),
                   env={"PYTHONPATH": "/coord/src"})
    here = localize(spec, shared, "", python="/node/python", arena_dir="/node/site/arena")
    assert here.argv == ("/node/python", "/coord/league/mine/bot.py")
    assert here.readable == ("/node/site/arena", "/coord/league/mine")
    assert here.env["PYTHONPATH"] == "/node/site:/coord/src"


def test_bundle_holds_every_file_of_every_bot_dir_and_is_reproducible(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    (mine / "weights").mkdir(parents=True)
    (mine / "bot.sh").write_text("#!/bin/sh\n")
    (mine / "bot.sh").chmod(0o755)
    (mine / ".gitignore").write_text("weights/\n")          # Ray's own packing would drop it
    (mine / "weights" / "w.bin").write_bytes(b"\x00" * 1000)
    (mine / "__pycache__").mkdir()
    (mine / "__pycache__" / "x.pyc").write_bytes(b"junk")
    job = make_job(league(tmp_path, "bundle", bots=[
        {"name": "mine", "command": "mine/bot.sh"}, {"name": "r", "bot": "uttt-random"}]), PLUGINS)
    bundle = build_bundle(job, tmp_path / "a.zip")
    dirs = dict(bundle.files)
    assert sorted(dirs) == sorted([str(mine), job.bots["r"].readable[1]])   # not arena itself
    inside = dirs[str(mine)]
    with zipfile.ZipFile(bundle.path) as archive:
        names = set(archive.namelist())
        manifest = json.loads(archive.read("arena-files.json"))
        mode = archive.getinfo(f"{inside}/bot.sh").external_attr >> 16
    assert manifest == {"id": bundle.id, "dirs": dirs}
    assert {f"{inside}/{n}" for n in ("bot.sh", ".gitignore", "weights/w.bin")} <= names
    assert not any("__pycache__" in n for n in names)
    assert stat.S_IMODE(mode) == 0o755
    again = build_bundle(job, tmp_path / "b.zip")
    assert again.path.read_bytes() == bundle.path.read_bytes()   # same files, same archive
    (mine / "weights" / "w.bin").write_bytes(b"\x01" * 1000)
    assert build_bundle(job, tmp_path / "c.zip").id != bundle.id
    monkeypatch.setattr("arena.league.executors.rayfiles.MAX_BUNDLE_BYTES", 500)
    with pytest.raises(RayExecutorError, match="use ray.files: shared"):
        build_bundle(job, tmp_path / "d.zip")


# --- a real cluster ---------------------------------------------------------------------------

#: Ray as these tests run it, whatever ~/.ray holds: no usage reports, and no token
#: authentication (a token in ~/.ray/auth_token would turn it on for the head alone)
PR_GET_CHILD_SUBREAPER = 37
RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _processes() -> dict[int, tuple[int, int, str]]:
    """pid -> (ppid, pgid, cmdline) of every live (not zombie) process now."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                cmdline = file.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if fields[0] != b"Z":       # a zombie runs nothing; its parent or init reaps it
            found[int(entry)] = (int(fields[1]), int(fields[2]), cmdline)
    return found


@contextlib.contextmanager
def _not_a_subreaper() -> Iterator[None]:
    """This process is no child subreaper while inside, so the cluster's processes, which
    `ray start` leaves behind when it exits, go to init, which reaps them. A test before
    that ran a Sandbox(mode="none") in this process made it one (under pytest-xdist any
    test may come before); pytest never reaps, and Ray workers take their raylet, killed
    but left a zombie, for alive: they never exit, nor do their bots."""
    libc = ctypes.CDLL(None, use_errno=True)
    was = ctypes.c_int(0)
    libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    try:
        yield
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, was.value, 0, 0, 0)


def _environ(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            return file.read().replace(b"\0", b"\n").decode(errors="replace")
    except OSError:
        return ""


class LocalCluster:
    """A head and one more node on this machine, each started in a process group of its own."""

    def __init__(self) -> None:
        # short: Ray puts unix sockets in it (at most 107 bytes a path)
        self.temp_dir = tempfile.mkdtemp(prefix="arena-ray-")
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.groups: list[int] = []          # the `ray start` pids: their process groups
        self.raylets: list[int] = []         # raylet of the head, then of the second node
        # bots' scratch dirs in here too: those of a killed worker are not removed by it
        scratch = os.path.join(self.temp_dir, "tmp")
        os.mkdir(scratch)
        self.env = dict(os.environ, **RAY_ENV, TMPDIR=scratch)
        self.ray = str(Path(sys.executable).with_name("ray"))

    def start(self) -> None:
        common = ["--num-cpus=1", f"--temp-dir={self.temp_dir}", "--node-ip-address=127.0.0.1",
                  "--object-store-memory=100000000", "--disable-usage-stats",
                  f"--dashboard-agent-listen-port={_free_port()}"]
        # nodes found dead in ~2 s rather than ~30 s, so a killed node's games move on soon
        health = json.dumps({"health_check_period_ms": 500, "health_check_failure_threshold": 4})
        self._ray_start(["--head", f"--port={self.port}", "--include-dashboard=false",
                         f"--dashboard-port={_free_port()}", f"--system-config={health}"] + common)
        self._ray_start([f"--address={self.address}"] + common)

    def _ray_start(self, args: list[str]) -> None:
        with _not_a_subreaper():
            proc = subprocess.Popen([self.ray, "start", *args], env=self.env, start_new_session=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.groups.append(proc.pid)
            out, _ = proc.communicate(timeout=90)
        if proc.returncode != 0:
            raise RuntimeError(f"ray start {' '.join(args)} failed:\n{out[-3000:]}")
        raylet = [pid for pid, (_, pgid, cmd) in _processes().items()
                  if pgid == proc.pid and "/raylet/raylet " in cmd]
        assert len(raylet) == 1, raylet
        self.raylets += raylet

    def workers(self, node: int) -> dict[int, str]:
        """Ray worker processes of a node (by the raylet they belong to): pid -> title."""
        mark = f"RAY_RAYLET_PID={self.raylets[node]}\n"
        return {pid: cmd for pid, (_, _, cmd) in _processes().items()
                if cmd.startswith("ray::") and mark in _environ(pid)}

    def ours(self) -> set[int]:
        """Every live process of this cluster: its groups, its workers, and their children."""
        table = _processes()
        mine = {pid for pid, (_, pgid, _) in table.items() if pgid in self.groups}
        marks = [f"RAY_RAYLET_PID={pid}\n" for pid in self.raylets]
        mine |= {pid for pid, (_, _, cmd) in table.items()
                 if cmd.startswith("ray::") and any(m in _environ(pid) for m in marks)}
        grew = True
        while grew:
            children = {pid for pid, (ppid, _, _) in table.items() if ppid in mine} - mine
            mine |= children
            grew = bool(children)
        return mine - {os.getpid()}

    def stop(self) -> None:
        """SIGKILL every process of the cluster, by pid, until none is left."""
        deadline = time.monotonic() + 30
        while (left := self.ours()) and time.monotonic() < deadline:
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
        assert not self.ours(), f"ray processes left running: {sorted(self.ours())}"
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _descendants(pid: int) -> set[int]:
    table = _processes()
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        children = {p for p, (ppid, _, _) in table.items() if ppid == parent}
        found |= children
        todo += children
    return found


@needs_ray
def test_no_address_starts_a_private_local_instance_and_stops_it(tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    for name, value in RAY_ENV.items():
        monkeypatch.setenv(name, value)
    ray_tmp = tempfile.mkdtemp(prefix="arena-ray-")   # short: it holds unix sockets
    monkeypatch.setenv("RAY_TMPDIR", ray_tmp)          # Ray's session files, not in /tmp/ray
    before = _descendants(os.getpid())
    config = league(tmp_path, "private", bots=RANDOMS[:2], games_per_pairing=2, executor="ray")
    assert config.ray.address is None
    try:
        summary = run(config)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert summary.played == 2
    assert [t for _, _, t, _ in results(config).values()] == ["normal", "normal"]
    deadline = time.monotonic() + 20      # ray.shutdown() stopped what ray.init() started
    while (left := _descendants(os.getpid()) - before) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, [_processes().get(pid) for pid in left]


class PairsTold(FixtureList):
    """A league's fixtures handed out a seat-swapped pair at a time, as a ladder hands
    them, noting the bots each asking worker said it keeps running."""

    def __init__(self, fixtures) -> None:
        super().__init__(fixtures)
        self.told: list[frozenset[str]] = []

    def take(self, slots, most_pairs=None, running=frozenset()):
        self.told.append(running)
        return super().take(slots, 1)


@needs_ray
def test_ray_workers_keep_their_bots_between_pieces_and_say_which(tmp_path, cluster, caplog):
    # 4 bots, 12 pieces of one pair on the cluster's 2 CPUs: a worker that started its bots
    # for each piece started 24; workers that keep them start each at most once
    caplog.set_level("INFO", logger="arena.league.ray")
    bots = [{"name": f"r{i}", "bot": "uttt-random"} for i in range(4)]
    config = league(tmp_path, "kept", bots=bots, games_per_pairing=4, executor="ray",
                    ray={"address": cluster.address})
    source = PairsTold(schedule(config))
    games = list(play_fixtures_ray(make_job(config, PLUGINS), source, config.ray))
    assert len(games) == 24 and len({f.key for f, _ in games}) == 24
    assert all(r.termination is Termination.NORMAL for _, r in games)
    said = [r.getMessage() for r in caplog.records if "bot processes started" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("Ray workers: 2, "), said
    assert 4 <= int(said[0].rsplit(" ", 1)[1]) <= 8, said    # each bot once a worker at most
    # the source hears which bots the asking worker runs: none at first, then its own
    assert source.told[0] == frozenset()
    assert all(told <= {"r0", "r1", "r2", "r3"} for told in source.told)
    assert sum(1 for told in source.told if told) >= 10


@pytest.fixture(scope="module")
def cluster():
    if RAY_MISSING:
        pytest.skip(RAY_MISSING)
    with pytest.MonkeyPatch.context() as patch:   # this process connects as the driver
        for name, value in RAY_ENV.items():
            patch.setenv(name, value)
        started = LocalCluster()
        try:
            started.start()
            yield started
        finally:
            started.stop()


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """The league played locally: what every Ray run of it must store."""
    config = league(tmp_path_factory.mktemp("local"), "local")
    run(config)
    return results(config), leaderboard(config)


def gated(tmp: Path, name: str, **extra):
    """RANDOMS and a gate bot (tests/fixture_bots/gate_bot.py) whose every game waits at its
    first move until open_gate(tmp): a game is surely running on each node when a kill
    test looks, however slowly the second node starts its worker."""
    folder = tmp / "bots" / "gate"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(__file__).parent / "fixture_bots" / "gate_bot.py", folder / "gate_bot.py")
    bots = RANDOMS + [{"name": "g", "command": "python3 bots/gate/gate_bot.py 0"}]
    return league(tmp, name, bots=bots, games_per_pairing=4,
                  time_control={"move_ms": 3_600_000, "startup_ms": 10000}, **extra)


def open_gate(tmp: Path) -> None:
    (tmp / "bots" / "gate" / "open").mkdir()


@pytest.fixture(scope="module")
def expected_gated(tmp_path_factory):
    """The kill tests' league played locally, its gate open."""
    tmp = tmp_path_factory.mktemp("local-gated")
    config = gated(tmp, "local")
    open_gate(tmp)
    run(config)
    return results(config), leaderboard(config)


def on_cluster(tmp_path, cluster, name, **ray_section):
    return league(tmp_path, name, executor="ray", ray={"address": cluster.address, **ray_section})


@needs_ray
def test_same_league_same_results_and_leaderboard_on_ray(tmp_path, cluster, expected):
    config = on_cluster(tmp_path, cluster, "same")
    summary = run(config)
    assert summary.played == GAMES and not summary.interrupted
    assert results(config) == expected[0]
    assert leaderboard(config) == expected[1]
    again = run(config)            # resumable as ever: nothing is missing
    assert again.played == 0 and again.already == GAMES


BOT = """\
import pathlib, sys
pick = (pathlib.Path(__file__).parent / "pick.txt").read_text().strip()
for line in sys.stdin:
    word = line.split(" ", 1)[0]
    if word == "arena":
        print("ready shipped", flush=True)
    elif word == "turn":
        legal = line.split(" ")[4].split(",")
        print(legal[-1] if pick == "last" else legal[0], flush=True)
    elif word == "quit":
        break
"""


@needs_ray
def test_runtime_env_ships_the_bots_files_to_the_nodes(tmp_path, cluster):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "bot.py").write_text(BOT)
    (mine / "pick.txt").write_text("last\n")
    bots = [{"name": "mine", "command": "python3 mine/bot.py"}, {"name": "r", "bot": "uttt-random"}]
    config = league(tmp_path, "shipped", bots=bots, games_per_pairing=8, executor="ray",
                    ray={"address": cluster.address, "files": "runtime_env"})
    job = make_job(config, PLUGINS)
    games = play_fixtures_ray(job, schedule(config), config.ray)
    records = [next(games)[1]]
    # the original is gone: games from here on can only run the copy Ray unpacked on the node
    subprocess.run(["rm", "-rf", str(mine)], check=True)
    records += [record for _, record in games]
    assert len(records) == 8
    assert [r.termination for r in records] == [Termination.NORMAL] * 8, [r.reason for r in records]


class ChangesMidRun(FixtureList):
    """The first pair as the run started; once its records are back, mine's files are
    edited (pick.txt: first) and every later fixture carries mine's new version, as a
    ladder hands out a bot that changed while it runs."""

    def __init__(self, fixtures, folder: Path, changed: BotSpec) -> None:
        super().__init__(fixtures[:2])
        self.later = [f.carrying({"mine": changed, "r": f.bots[f.seats.index("r")]}, (2, 1)
                                 if f.seat0 == "mine" else (1, 2)) for f in fixtures[2:]]
        self.folder, self.back = folder, 0

    def take(self, slots, most_pairs=None):
        piece = super().take(slots, 1)
        if piece is None and self.later:
            if self.back < 2:
                return []
            (self.folder / "pick.txt").write_text("first\n")
            piece, self.later = self.later[:2], self.later[2:]
        return piece

    def done(self, fixture, record):
        self.back += 1


@needs_ray
def test_runtime_env_carries_a_bot_changed_while_it_runs(tmp_path, cluster):
    # the runtime_env is made as the run starts; a bot edited after it (a ladder's new
    # version) must play its new files, not the copy shipped at the start
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "bot.py").write_text(BOT)
    (mine / "pick.txt").write_text("last\n")
    bots = [{"name": "mine", "command": "python3 mine/bot.py"}, {"name": "r", "bot": "uttt-random"}]
    config = league(tmp_path, "carried", bots=bots, games_per_pairing=6, executor="ray",
                    ray={"address": cluster.address, "files": "runtime_env"})
    job = make_job(config, PLUGINS)
    fixtures = [f.carrying(job.bots, (1, 1)) for f in sorted(schedule(config), key=lambda f: f.order)]
    changed = replace(job.bots["mine"], fingerprint="mine v2")
    source = ChangesMidRun(fixtures, mine, changed)
    games = []
    for fixture, record in play_fixtures_ray(job, source, config.ray):
        source.done(fixture, record)      # as a run tells its source
        games.append((fixture, record))
    assert len(games) == 6
    assert all(r.termination is Termination.NORMAL for _, r in games), [r.reason for _, r in games]
    # mine's first move from seat 0: the last legal square (80) before the edit, the first after
    opening = {f.bots[0].fingerprint: r.moves[0].move for f, r in games if f.seat0 == "mine"}
    assert opening == {job.bots["mine"].fingerprint: "80", "mine v2": "0"}, opening


def _kill_a_game_on(cluster, node: int, what: str, running: threading.Thread) -> list[int]:
    """SIGKILL (once a game runs on the node) its worker or its raylet; the game's bots' pids.
    The league's gate is closed: its games wait on every node until the kill is done."""
    deadline = time.monotonic() + 300     # a hang guard: a game at the gate comes to each node
    seen: set[str] = set()
    while time.monotonic() < deadline and running.is_alive():
        workers = cluster.workers(node)
        seen |= set(workers.values())
        table = _processes()
        for pid, title in workers.items():
            # a worker may still wear a finished piece's title for a moment: look for one
            # with a game's two bots running under it (it may keep more, from other pieces)
            bots = [child for child in table if table[child][0] == pid]
            if title.startswith("ray::arena-game") and len(bots) >= 2:
                os.kill(pid if what == "worker" else cluster.raylets[node], signal.SIGKILL)
                return bots
        time.sleep(0.01)
    ended = "the league ended" if not running.is_alive() else "a minute passed"
    raise AssertionError(f"{ended} before a game ran on node {node}; "
                         f"its workers' titles seen: {sorted(seen)}")


def _run_and_kill(tmp_path, cluster, name, what, **ray_section):
    config = gated(tmp_path, name, executor="ray",
                   ray={"address": cluster.address, **ray_section})
    done: dict[str, object] = {}

    def league_run() -> None:
        try:
            done["summary"] = run(config)
        except Exception as exc:  # noqa: BLE001 - the test reads it
            done["error"] = exc
    thread = threading.Thread(target=league_run)
    thread.start()
    try:
        bots = _kill_a_game_on(cluster, 1, what, thread)
    finally:
        open_gate(tmp_path)      # the games go on: the lost one is played again
        thread.join(timeout=300)
    assert done, "the league did not finish"
    deadline = time.monotonic() + 10     # the killed game's bots died with their worker
    while any(os.path.exists(f"/proc/{pid}") for pid in bots) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in bots)
    return config, done.get("summary", done.get("error"))


@needs_ray
def test_a_killed_worker_loses_no_game(tmp_path, cluster, expected_gated, caplog):
    caplog.set_level("WARNING", logger="arena.league.ray")
    config, summary = _run_and_kill(tmp_path, cluster, "worker", "worker")
    assert summary.played == GATED_GAMES
    assert results(config) == expected_gated[0]    # every game once, as played locally
    assert leaderboard(config) == expected_gated[1]
    moved = [r for r in caplog.records if "giving them to another" in r.getMessage()]
    assert len(moved) == 1      # the coordinator gave the lost games to another worker


@needs_ray
def test_with_no_retries_a_killed_workers_games_stop_the_run_in_one_line(tmp_path, cluster):
    config, error = _run_and_kill(tmp_path, cluster, "noretry", "worker", max_retries=0)
    assert isinstance(error, RayExecutorError), error
    assert re.fullmatch(r"games \['.+'\] were lost 1 times \(ray.max_retries: 0\); last: "
                        r"\w+: [^\n]+", str(error)), str(error)
    with Store(config.store) as store:
        assert store.count() < GATED_GAMES          # stopped: what was played stays stored


@needs_ray
def test_stopping_the_coordinator_stops_the_games(tmp_path, cluster):
    config = on_cluster(tmp_path, cluster, "stop")
    games = play_fixtures_ray(make_job(config, PLUGINS), schedule(config), config.ray)
    next(games)
    games.close()          # what Ctrl-C in run_league does: the generator is closed
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        playing = [t for node in (0, 1) for t in cluster.workers(node).values()
                   if t.startswith("ray::arena-game")]
        if not playing:
            break
        time.sleep(0.1)
    assert not playing


def _games_of(db: Path, bot: str, version: int | None = None) -> list[tuple[int, str]]:
    """(seat, first move) of each stored game of a bot (of one version)."""
    import sqlite3
    try:
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT seat0, v0, seat1, v1, record FROM games").fetchall()
    except sqlite3.OperationalError:   # the table is not made yet
        return []
    out = []
    for seat0, v0, seat1, v1, record in rows:
        for seat, (name, v) in enumerate(((seat0, v0), (seat1, v1))):
            if name == bot and version in (None, v):
                out.append((seat, json.loads(record)["moves"][0]["move"]))
    return out


@needs_ray
def test_a_ladder_on_ray_plays_a_bot_edited_while_it_runs_from_its_new_files(tmp_path, cluster):
    # arena run of a ladder on the cluster, files: runtime_env: mine's pick.txt
    # is edited while it runs, and a bot joins; mine v2 opens with the first square, as
    # its new files say (the runtime_env made at the start holds the old ones), and the
    # newcomer plays
    from test_league_failures import finish, wait_until
    for name, folder in (("mine", "last"), ("late", "first")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.py").write_text(BOT)
        (tmp_path / name / "pick.txt").write_text(f"{folder}\n")
    past = time.time() - 60        # still files: the ladder takes a change once they are
    for path in tmp_path.rglob("*"):
        os.utime(path, (past, past))
    config = tmp_path / "onray.yaml"
    lines = ["name: onray", "game: ultimate", "bots:", "  - {name: r, bot: uttt-random}",
             "  - {name: mine, command: python3 mine/bot.py}", "schedule: ladder",
             "ladder: {min_games: 4}", "workers: 2", "seed: 5", "executor: ray",
             f"ray: {{address: '{cluster.address}', files: runtime_env}}",
             "time_control: {move_ms: 2000, startup_ms: 10000}",
             "store: onray.sqlite"]
    config.write_text("\n".join(lines) + "\n")
    db = tmp_path / "onray.sqlite"
    env = dict(os.environ, **RAY_ENV)
    with open(tmp_path / "stderr", "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--standings",
                                 "0"], stdout=subprocess.DEVNULL, stderr=err, env=env,
                                cwd=tmp_path)
    try:
        assert wait_until(lambda: len(_games_of(db, "mine", 1)) >= 4, 300), \
            (tmp_path / "stderr").read_text()
        (tmp_path / "mine" / "pick.txt").write_text("first\n")
        config.write_text("\n".join(lines[:5] + ["  - {name: late, command: python3 late/bot.py}"]
                                    + lines[5:]) + "\n")
        past = time.time() - 60    # saved a while ago: taken at the next look, not 2 s later
        for path in (tmp_path / "mine" / "pick.txt", config):
            os.utime(path, (past, past))
        assert wait_until(lambda: len(_games_of(db, "mine", 2)) >= 4
                          and len(_games_of(db, "late")) >= 2, 300), (tmp_path / "stderr").read_text()
        os.kill(proc.pid, signal.SIGTERM)
        text = finish(proc, tmp_path)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, text
    assert "late: joins the ladder" in text and "(now v2, " in text and "Traceback" not in text
    opened = {version: {move for seat, move in _games_of(db, "mine", version) if seat == 0}
              for version in (1, 2)}
    assert opened == {1: {"80"}, 2: {"0"}}, opened
    assert {move for seat, move in _games_of(db, "late") if seat == 0} <= {"0"}


@needs_ray   # last: the second node does not come back
def test_a_dead_node_loses_no_game(tmp_path, cluster, expected_gated):
    config, summary = _run_and_kill(tmp_path, cluster, "node", "raylet")
    assert summary.played == GATED_GAMES
    assert results(config) == expected_gated[0]
    assert leaderboard(config) == expected_gated[1]

