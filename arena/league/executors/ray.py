"""Playing a league's games on Ray workers, on this machine or on a cluster.

Ray itself is imported only when a league plays with `executor: ray`; it needs
`pip install 'bot-arena[ray]'` on the coordinator and on every node.

The coordinator (the process running the league) alone writes the store. It keeps one
Ray actor per game slot of the cluster (a worker: GamePlayer), and hands each worker
that is free a piece of games taken from the run's source, telling the source which
bots that worker keeps running (as local workers do). A worker plays its pieces under
the league's sandbox and time control on whatever node Ray placed it, keeping its bots'
processes between games and between pieces (its bot pool), and streams each game's
record back as it ends (a Ray generator method). A worker that dies (its process or its
node) is replaced, and the games of its piece not yet received are given to another, up
to `ray.max_retries` times a piece. Whichever attempt finishes a fixture, it is yielded
once (and the store refuses a second copy of a fixture key anyway).
docs/distributed.md is the user's side of this.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import io
import json
import logging
import os
import queue
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from arena.errors import ArenaError
from arena.record import GameRecord
from arena.referee import BotSpec
from arena.referee.botspec import ARENA_PACKAGE_DIR

from ..config import LeagueConfig, RayConfig
from ..schedule import Fixture
from ..sources import FixtureList, FixtureSource, SourceStalled, as_source, take_from
from .base import Executor, GameJob
from .worker import Table, bot_pool, play_piece, pool_caps, set_table

logger = logging.getLogger("arena.league.ray")

#: the largest bundle of bot files `files: runtime_env` ships (Ray's limit is 512 MiB)
MAX_BUNDLE_BYTES = 500 * 1024 * 1024
#: the bundle's table of contents, at the top of the working directory on every node
MANIFEST = "arena-files.json"
#: seconds between looks at the cluster's size (nodes may join or leave)
RESIZE_EVERY_S = 5.0
#: seconds workers get to close their bots at the end of a run before they are killed
CLOSE_GRACE_S = 10.0

T = TypeVar("T")


class RayExecutorError(ArenaError, RuntimeError):
    """Ray missing or unreachable, bot files that cannot be shipped, or a game lost for good."""


@dataclass(frozen=True)
class Shipment:
    """What a node needs to find the coordinator's paths in its own file system (picklable)."""

    token: str                  #: names this run's set-up in a worker process
    python: str                 #: the coordinator's sys.executable
    arena_dir: str              #: the coordinator's arena package directory
    #: (directory on the coordinator, its copy relative to the bundle's root); empty: shared
    files: tuple[tuple[str, str], ...] = ()
    bundle: str = ""            #: the shipped bundle's id (a SHA-256 of its files)


@dataclass(frozen=True)
class Bundle:
    """The bots' files in one zip archive, for Ray's runtime environment (files: runtime_env)."""

    path: Path
    #: (directory on the coordinator, its copy relative to the archive's root)
    files: tuple[tuple[str, str], ...]
    id: str                     #: a SHA-256 of every name, mode and content: same files, same id


# --- the coordinator --------------------------------------------------------------------------

class RayExecutor(Executor):
    """`executor: ray`: Ray tasks on a cluster, or on a private local instance (play_fixtures_ray)."""

    name = "ray"

    def check(self, config: LeagueConfig) -> None:
        import_ray()   # a missing Ray is said before anything starts

    def plays_here(self, config: LeagueConfig) -> bool:
        # bots start where games are played: here only with a private local instance
        return config.ray is None or config.ray.address is None

    def play(self, job: GameJob, source: FixtureSource, workers: int,
             config: LeagueConfig | None = None) -> Iterator[tuple[Fixture, GameRecord]]:
        return play_fixtures_ray(job, source, config.ray if config is not None else None, workers)


def play_fixtures_ray(job: GameJob, fixtures: FixtureSource | list[Fixture],
                      ray_config: RayConfig | None = None,
                      workers: int = 1) -> Iterator[tuple[Fixture, GameRecord]]:
    """Records of the fixtures (a source, or a list) as each game finishes, the games
    played by Ray tasks.

    workers is the CPU count of the private local Ray instance started when
    ray_config.address is None; on a running cluster every CPU it has is used.
    """
    source = as_source(fixtures)
    if isinstance(source, FixtureList) and not len(source):
        return
    settings = ray_config or RayConfig()
    ray = import_ray()
    bundle_dir = None
    try:
        shipment = Shipment(token=uuid.uuid4().hex, python=sys.executable,
                            arena_dir=ARENA_PACKAGE_DIR)
        runtime_env: dict[str, Any] = {}
        if settings.files == "runtime_env":
            bundle_dir = Path(tempfile.mkdtemp(prefix="arena-ray-"))
            bundle = build_bundle(job, bundle_dir / "bot-files.zip")
            shipment = replace(shipment, files=bundle.files, bundle=bundle.id)
            runtime_env = {"working_dir": str(bundle.path)}
        started_here = _connect(ray, settings, workers, runtime_env)
        try:
            yield from _play_all(ray, job, source, settings, shipment)
        finally:
            if started_here:
                ray.shutdown()
    finally:
        if bundle_dir is not None:
            shutil.rmtree(bundle_dir, ignore_errors=True)


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RayExecutorError(f"executor: ray needs Ray, which cannot be imported ({exc}); "
                               f"install it with: pip install 'bot-arena[ray]'") from None
    return ray


def _connect(ray: Any, settings: RayConfig, workers: int, runtime_env: Mapping[str, Any]) -> bool:
    """Join the cluster (or start a local instance); True when this call did it."""
    if ray.is_initialized():
        if runtime_env:
            raise RayExecutorError(
                "ray.files: runtime_env needs the league to connect to Ray itself, but Ray is "
                "already initialized in this process; call ray.shutdown() first or use "
                "ray.files: shared")
        return False
    options: dict[str, Any] = {"logging_level": logging.WARNING,
                               "runtime_env": dict(runtime_env) or None}
    if settings.address is None:
        # a private instance for this run: on the loopback only, reporting usage to no one
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        options.update(address="local", num_cpus=workers, include_dashboard=False,
                       _node_ip_address="127.0.0.1")
    else:
        options.update(address=settings.address)
    # ray.init makes SIGTERM a sys.exit(15) of this process (and its C++ core prints a stack
    # dump): the run's own handler is put back, so SIGTERM stops it as Ctrl-C does (exit 130)
    main = threading.current_thread() is threading.main_thread()
    handler = signal.getsignal(signal.SIGTERM) if main else None
    try:
        ray.init(**options)
    except ConnectionError as exc:
        raise RayExecutorError(f"cannot reach the Ray cluster at {settings.address!r}: {exc}; "
                               f"is it started (`ray start --head` on its head node)?") from None
    finally:
        if handler is not None:
            signal.signal(signal.SIGTERM, handler)
    return True


@dataclass
class _Worker:
    """The coordinator's side of one GamePlayer actor: ready once Ray placed and started
    it; the bots it keeps running, as it last said; the piece it plays, if any."""

    actor: Any
    started: Any                          #: its ready() call: resolves once it is placed
    ready: bool = False
    running: frozenset[str] = frozenset()
    stream: Any = None                    #: the ObjectRefGenerator of its piece
    left: dict[str, Fixture] = field(default_factory=dict)   #: its piece's games not received
    moves: int = 0                        #: times its piece's games moved from a dead worker


def _play_all(ray: Any, job: GameJob, source: FixtureSource, settings: RayConfig,
              shipment: Shipment) -> Iterator[tuple[Fixture, GameRecord]]:
    from ray.exceptions import RayError, RayTaskError, RuntimeEnvSetupError

    # restarted by the coordinator, not by Ray: a worker Ray restarted would wait for a
    # CPU that the other workers hold once its node is gone, and its piece with it
    player = ray.remote(num_cpus=settings.cpus_per_game, max_restarts=0,
                        max_task_retries=0)(GamePlayer)
    job_ref = ray.put(job)
    window = _Window(ray, settings.cpus_per_game)
    finished = False                       # the source has no more
    workers: list[_Worker] = []
    lost: list[tuple[list[Fixture], int]] = []   # games of dead workers: (games, moves so far)
    yielded: set[str] = set()
    starts = 0                             # bot processes the workers started
    # bots that joined or changed after the start: their files are not in the runtime_env
    carried = _Carried(ray, job) if shipment.files else None

    def hire() -> None:
        actor = player.remote(job_ref, shipment)
        workers.append(_Worker(actor, actor.ready.remote()))

    def give(worker: _Worker, piece: list[Fixture], moves: int) -> None:
        worker.stream = worker.actor.play.options(
            name=f"arena-games {piece[0].pairing} x{len(piece)}").remote(
                piece, carried.ship(piece) if carried is not None else {})
        worker.left, worker.moves = {f.key: f for f in piece}, moves

    unplaced = 0                           # workers that died before they could play

    def dead(worker: _Worker, exc: BaseException) -> None:
        """A worker gone with its process or node: its games go to another."""
        nonlocal unplaced
        workers.remove(worker)
        _dismiss(ray, [worker.actor], graceful=False)   # if only unreachable: its CPU back
        if not worker.ready:
            unplaced += 1
            if unplaced > 2 * window.slots() + settings.max_retries:
                raise RayExecutorError(f"Ray workers die as they start ({unplaced} so far); "
                                       f"last: {type(exc).__name__}: {_first_line(exc)}") from None
        if worker.left:
            if worker.moves >= settings.max_retries:
                raise RayExecutorError(
                    f"games {sorted(worker.left)} were lost {worker.moves + 1} times "
                    f"(ray.max_retries: {settings.max_retries}); last: "
                    f"{type(exc).__name__}: {_first_line(exc)}") from None
            logger.warning("%d games lost with their worker (%s); giving them to another",
                           len(worker.left), type(exc).__name__)
            lost.append((list(worker.left.values()), worker.moves + 1))

    try:
        while True:
            while len(workers) < window.slots():
                hire()
            for worker in workers:       # work for every free worker Ray has placed
                if not worker.ready or worker.stream is not None:
                    continue
                if lost:
                    give(worker, *lost.pop())
                    continue
                taken = None if finished else take_from(source, window.slots(), None,
                                                        worker.running)
                if not taken:
                    finished = taken is None
                    break
                give(worker, taken, 0)
            busy = [w for w in workers if w.stream is not None]
            if not busy and not lost:
                if finished:
                    return
                if any(w.ready for w in workers):
                    raise SourceStalled()
            waiting = {w.stream if w.stream is not None else w.started: w
                       for w in workers if w.stream is not None or not w.ready}
            ready, _ = ray.wait(list(waiting), num_returns=1, timeout=RESIZE_EVERY_S)
            for ref in ready:
                worker = waiting[ref]
                if worker.stream is None:     # placed and started
                    try:
                        ray.get(ref)
                    except RuntimeEnvSetupError as exc:
                        raise RayExecutorError(f"Ray could not set up the bots' files on a node "
                                               f"(ray.files: runtime_env): {exc}") from None
                    except RayError as exc:    # its node died as it was placed
                        dead(worker, exc)
                        continue
                    worker.ready = True
                    continue
                try:
                    key, item = ray.get(next(worker.stream))
                except StopIteration:         # the piece is over
                    worker.stream = None
                    if worker.left:           # a worker yields every game it was given
                        raise RuntimeError(f"a Ray worker ended a piece without playing "
                                           f"{sorted(worker.left)}") from None
                    continue
                except RayTaskError as exc:   # arena's own code failed on the node: a bug
                    raise exc.as_instanceof_cause() from None
                except RuntimeEnvSetupError as exc:
                    raise RayExecutorError(f"Ray could not set up the bots' files on a node "
                                           f"(ray.files: runtime_env): {exc}") from None
                except RayError as exc:       # its process or node died
                    dead(worker, exc)
                    continue
                if key is None:               # the piece's last word: the bots it keeps
                    worker.running, started = item
                    starts += started
                    continue
                fixture = worker.left.pop(key, None)
                if fixture is None or key in yielded:
                    logger.debug("game %r received twice; keeping the first", key)
                    continue
                yielded.add(key)
                yield fixture, item
    finally:
        logger.info("Ray workers: %d, bot processes started: %d", len(workers), starts)
        _dismiss(ray, [w.actor for w in workers], graceful=not any(w.stream for w in workers))
        if carried is not None:
            carried.remove()


class _Carried:
    """ray.files: runtime_env ships the bots' files once, as the run starts. A bot that
    joins or changes while it runs (a ladder) is carried with its pieces instead: its
    files zipped as the runtime_env's are (build_bundle), put in Ray's object store once
    per version, and unpacked by each worker that plays it (GamePlayer)."""

    def __init__(self, ray: Any, job: GameJob) -> None:
        self._ray, self._job = ray, job
        self._dir = Path(tempfile.mkdtemp(prefix="arena-ray-carried-"))
        #: (name, fingerprint) of a carried spec -> its files' shipment and archive
        self._shipped: dict[tuple[str, str | None], tuple[Shipment, Any]] = {}

    def ship(self, piece: list[Fixture]) -> dict[tuple[str, str | None], tuple[Shipment, Any]]:
        """What the piece's bots need beyond the runtime_env, by (name, fingerprint)."""
        out: dict[tuple[str, str | None], tuple[Shipment, Any]] = {}
        for fixture in piece:
            for spec in fixture.bots or ():
                if spec == self._job.bots.get(spec.name):
                    continue          # as the run started: in the runtime_env
                at = (spec.name, spec.fingerprint)
                if at not in self._shipped:
                    self._shipped[at] = self._bundle(spec)
                out[at] = self._shipped[at]
        return out

    def _bundle(self, spec: BotSpec) -> tuple[Shipment, Any]:
        path = self._dir / f"{len(self._shipped)}.zip"
        bundle = build_bundle(replace(self._job, bots={spec.name: spec}), path)
        archive = self._ray.put(path.read_bytes())
        path.unlink()
        return Shipment(token=bundle.id, python=sys.executable, arena_dir=ARENA_PACKAGE_DIR,
                        files=bundle.files, bundle=bundle.id), archive

    def remove(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)


def _first_line(exc: BaseException) -> str:
    """An error's message up to its first line break (Ray's go on for lines)."""
    return (str(exc).strip().splitlines() or ["(no message)"])[0]


def _dismiss(ray: Any, actors: list[Any], graceful: bool) -> None:
    """End the workers: each closes its bots first (their scratch dirs go with them) when
    none is playing, then Ray kills them; stopped mid-game (Ctrl-C, an error), at once: the
    bots die with their worker process (die-with-parent)."""
    from ray.exceptions import RayError
    if graceful and actors:
        try:
            ray.wait([a.close.remote() for a in actors], num_returns=len(actors),
                     timeout=CLOSE_GRACE_S)
        except RayError as exc:
            logger.debug("closing the workers: %s", exc)
    for actor in actors:
        try:
            ray.kill(actor)
        except (RayError, ValueError) as exc:   # gone already, or its node is
            logger.debug("ending a worker: %s", exc)


class _Window:
    """How many workers to keep: one per game slot of the cluster (its CPUs over
    cpus_per_game), looked up now and then, as nodes may join or leave."""

    def __init__(self, ray: Any, cpus_per_game: float) -> None:
        self._ray, self._per_game = ray, cpus_per_game
        self._slots, self._checked = 1, -RESIZE_EVERY_S

    def slots(self) -> int:
        now = time.monotonic()
        if now - self._checked >= RESIZE_EVERY_S:
            self._checked = now
            cpus = float(self._ray.cluster_resources().get("CPU", 1.0))
            self._slots = max(1, int(cpus / self._per_game))
        return self._slots


def build_bundle(job: GameJob, path: Path) -> Bundle:
    """Zip every directory the job's bots may read (arena itself aside) into one archive."""
    dirs = sorted({d for spec in job.bots.values() for d in spec.readable
                   if not _inside(d, ARENA_PACKAGE_DIR)})
    files = tuple((d, f"arena-files-{i}/{Path(d).name or 'root'}") for i, d in enumerate(dirs))
    digest = hashlib.sha256()
    total = 0
    # written by hand rather than letting Ray pack directories: Ray would leave out what a
    # bot's .gitignore names (its weights, often) and .git, venv and __pycache__ folders
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for source, inside in files:
            for file, name in _walk(Path(source), inside):
                info = file.stat()
                total += info.st_size
                if total > MAX_BUNDLE_BYTES:
                    raise RayExecutorError(
                        f"the bots' files are over {MAX_BUNDLE_BYTES // 2**20} MiB (at "
                        f"{str(file)!r}), too much for ray.files: runtime_env; put them on a "
                        f"path every node shares and use ray.files: shared")
                data, mode = file.read_bytes(), stat.S_IMODE(info.st_mode)
                digest.update(f"{name}\0{mode:o}\0{len(data)}\0".encode() + data)
                archive.writestr(_entry(name, mode), data)
        manifest = {"id": digest.hexdigest(), "dirs": dict(files)}
        archive.writestr(_entry(MANIFEST, 0o644), json.dumps(manifest, indent=1, sort_keys=True))
    return Bundle(path=path, files=files, id=digest.hexdigest())


def _walk(root: Path, inside: str) -> Iterator[tuple[Path, str]]:
    """Files under root (symlinks followed, each real directory once), with archive names;
    root itself if it is a file (a bot may read a single file: a module, a weights file)."""
    if root.is_file():
        yield root, inside
        return
    seen: set[str] = set()
    for here, subdirs, names in os.walk(root, followlinks=True):
        real = os.path.realpath(here)
        if real in seen:
            subdirs[:] = []
            continue
        seen.add(real)
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
        for name in sorted(names):
            file = Path(here) / name
            if file.is_file():
                yield file, f"{inside}/{file.relative_to(root).as_posix()}"


def _entry(name: str, mode: int) -> zipfile.ZipInfo:
    """An archive entry with a fixed date, so the same files make the same archive."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


# --- the nodes --------------------------------------------------------------------------------

class _GameThread:
    """The one thread of a worker process that starts bots and plays games.

    A sandboxed bot is killed when the *thread* that started it ends (die-with-parent),
    so bots are started (and stopped) from a thread that lives as long as the process,
    whatever thread Ray runs a task on."""

    def __init__(self) -> None:
        self._work: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]]
        self._work = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="arena-games", daemon=True).start()

    def _serve(self) -> None:
        while True:
            call, result = self._work.get()
            try:
                result.set_result(call())
            except BaseException as exc:  # noqa: BLE001 - handed to the task, which raises it
                result.set_exception(exc)

    def run(self, call: Callable[[], T]) -> T:
        result: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._work.put((call, result))
        return result.result()


class GamePlayer:
    """A Ray worker (an actor, one per game slot): plays the pieces it is given in a row,
    keeping its bots' processes between games and pieces, as a local worker does."""

    def __init__(self, job: GameJob, shipment: Shipment) -> None:
        self.job, self.shipment = job, shipment
        self.thread = _GameThread()
        # its share of this node's memory and descriptors, counting a worker per CPU (the
        # most the node holds: fewer with cpus_per_game over 1, each then keeps less)
        self.pool = bot_pool(job, pool_caps(_node_cpus()))
        self.unpacked: dict[str, str] = {}     # carried bundle id -> where it is unpacked

    def ready(self) -> bool:
        """True: Ray has placed and started this worker."""
        return True

    def play(self, piece: list[Fixture], carried: Mapping[tuple[str, str | None], tuple[Shipment, Any]]
             ) -> Iterator[tuple[str | None, Any]]:
        """Each game's (key, record) as it ends; then (None, (the bots it keeps running,
        the bot processes it started for this piece)). carried: the files of bots that
        joined or changed after the run started, by (name, fingerprint) (_Carried)."""
        table = self.thread.run(lambda: _table(self.job, self.shipment))
        if carried:
            piece = [self._carry(fixture, carried) for fixture in piece]
        before = self.pool.missed
        for fixture, record in play_piece(table, piece, self.pool, run=self.thread.run):
            yield fixture.key, record
        yield None, (self.pool.running(), self.pool.missed - before)

    def _carry(self, fixture: Fixture,
               carried: Mapping[tuple[str, str | None], tuple[Shipment, Any]]) -> Fixture:
        """The fixture with its carried bots pointed at their files unpacked here."""
        if fixture.bots is None:
            return fixture
        specs = []
        for spec in fixture.bots:
            shipped = carried.get((spec.name, spec.fingerprint))
            if shipped is not None:
                spec = localize(spec, shipped[0], self._unpack(*shipped))
            specs.append(spec)
        return replace(fixture, bots=tuple(specs))

    def _unpack(self, shipment: Shipment, archive: Any) -> str:
        """Where a carried bot's files are on this node: unpacked once, modes kept."""
        import ray
        root = self.unpacked.get(shipment.bundle)
        if root is None:
            root = tempfile.mkdtemp(prefix="arena-ray-carried-")
            with zipfile.ZipFile(io.BytesIO(ray.get(archive))) as zipped:
                for entry in zipped.infolist():
                    target = Path(zipped.extract(entry, root))
                    target.chmod(stat.S_IMODE(entry.external_attr >> 16) or 0o644)
            self.unpacked[shipment.bundle] = root
        return root

    def close(self) -> None:
        """Close the bots it keeps, and remove the carried files it unpacked."""
        self.thread.run(self.pool.close)
        for root in self.unpacked.values():
            shutil.rmtree(root, ignore_errors=True)


def _node_cpus() -> int:
    """The CPUs Ray gives the node this runs on (this machine's outside a Ray worker)."""
    try:
        import ray
        node = ray.get_runtime_context().get_node_id()
        for entry in ray.nodes():
            if entry.get("NodeID") == node:
                return max(1, int(entry.get("Resources", {}).get("CPU", 1)))
    except Exception:  # noqa: BLE001 - a cap from the machine instead
        pass
    return max(1, os.cpu_count() or 1)


_HOST: dict[str, Any] = {}   # per worker process: "table" (token, Table)


def _table(job: GameJob, shipment: Shipment) -> Table:
    """This run's set-up in this worker process, made once: the bots with this node's paths."""
    token, table = _HOST.get("table", ("", None))
    if table is None or token != shipment.token:
        root = _bundle_root(shipment) if shipment.files else ""
        table = set_table(job, partial(localize, shipment=shipment, root=root))
        _HOST["table"] = (shipment.token, table)
    return table


def _bundle_root(shipment: Shipment) -> str:
    """Where Ray unpacked this run's bot files on this node: the task's working directory."""
    here = os.getcwd()
    try:
        found = json.loads(Path(here, MANIFEST).read_text(encoding="utf-8"))["id"]
    except (OSError, ValueError, KeyError):
        found = None
    if found != shipment.bundle:
        raise RayExecutorError(f"the bots' files of this run are not in the working directory "
                               f"{here!r} of this Ray worker (no {MANIFEST} with id "
                               f"{shipment.bundle})")
    return here


def localize(spec: BotSpec, shipment: Shipment, root: str, python: str = sys.executable,
             arena_dir: str = ARENA_PACKAGE_DIR) -> BotSpec:
    """The spec with the coordinator's paths turned into this node's.

    The coordinator's Python and arena package become this node's (the ones running
    this task); a shipped directory becomes its unpacked copy under root. A word is
    a path if it is one of those or lies below one; PYTHONPATH entries are taken one
    by one, and a parent of shipped directories also brings in their copies' parents.
    """
    moves = [(shipment.python, python), (shipment.arena_dir, arena_dir)]
    moves += [(source, os.path.join(root, inside)) for source, inside in shipment.files]
    moves.sort(key=lambda move: len(move[0]), reverse=True)   # the deepest prefix wins

    def move(word: str) -> str:
        for source, target in moves:
            if _inside(word, source):
                return target + word[len(source):]
        return word

    parents: dict[str, list[str]] = {}
    for source, inside in shipment.files:
        parents.setdefault(os.path.dirname(source), []).append(
            os.path.join(root, os.path.dirname(inside)))
    parents.setdefault(os.path.dirname(shipment.arena_dir), []).append(os.path.dirname(arena_dir))

    def search_path(value: str) -> str:
        entries: list[str] = []
        for entry in value.split(os.pathsep):
            entries += parents.get(entry, []) + [move(entry), entry]
        return os.pathsep.join(dict.fromkeys(e for e in entries if e))

    env = {key: search_path(value) if key == "PYTHONPATH" else move(value)
           for key, value in spec.env.items()}
    return replace(spec, argv=tuple(move(word) for word in spec.argv),
                   readable=tuple(dict.fromkeys(move(d) for d in spec.readable)), env=env)


__all__ = ["Bundle", "GamePlayer", "RayExecutor", "RayExecutorError", "Shipment", "build_bundle",
           "localize", "play_fixtures_ray"]
