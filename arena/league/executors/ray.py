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
This module is the coordinator's side (imported by the RayExecutor of
arena.league.executors.plugin when a league plays on Ray); what runs on the nodes is in
raynode, the bots' files shipped to them in rayfiles. docs/distributed.md is the user's side of this.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.record import GameRecord
from arena.referee import BotSpec
from arena.referee.botspec import ARENA_PACKAGE_DIR

from ..config import RayConfig
from ..schedule import Fixture
from ..sources import FixtureList, FixtureSource, SourceStalled, as_source, take_from
from .base import GameJob
from .rayfiles import RayExecutorError, Shipment, build_bundle
from .raynode import GamePlayer

logger = logging.getLogger("arena.league.ray")

#: seconds between looks at the cluster's size (nodes may join or leave)
RESIZE_EVERY_S = 5.0
#: seconds workers get to close their bots at the end of a run before they are killed
CLOSE_GRACE_S = 10.0


# --- the coordinator --------------------------------------------------------------------------

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
            yield from _Coordinator(ray, job, source, settings, shipment).records()
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


class _Coordinator:
    """The coordinator's side of a run on Ray (records): one GamePlayer actor per game slot
    of the cluster (_Window), each handed a piece of the source's games when it is placed
    and free; a worker that dies (its process or its node) is replaced, and the games of
    its piece not yet received go to another, up to ray.max_retries times a piece; each
    game is yielded once, whichever attempt finished it."""

    def __init__(self, ray: Any, job: GameJob, source: FixtureSource, settings: RayConfig,
                 shipment: Shipment) -> None:
        self.ray, self.source, self.settings, self.shipment = ray, source, settings, shipment
        # restarted by the coordinator, not by Ray: a worker Ray restarted would wait for a
        # CPU that the other workers hold once its node is gone, and its piece with it
        self.player = ray.remote(num_cpus=settings.cpus_per_game, max_restarts=0,
                                 max_task_retries=0)(GamePlayer)
        self.job_ref = ray.put(job)
        self.window = _Window(ray, settings.cpus_per_game)
        self.finished = False                  # the source has no more
        self.workers: list[_Worker] = []
        self.lost: list[tuple[list[Fixture], int]] = []   # games of dead workers: (games, moves so far)
        self.yielded: set[str] = set()
        self.starts = 0                        # bot processes the workers started
        self.unplaced = 0                      # workers that died before they could play
        # bots that joined or changed after the start: their files are not in the runtime_env
        self.carried = _Carried(ray, job) if shipment.files else None

    def records(self) -> Iterator[tuple[Fixture, GameRecord]]:
        """Each game's record as it comes, until the source is finished and every piece
        is played; the workers are dismissed at the end, however it ends."""
        try:
            while True:
                self._staff()
                if self._over():
                    return
                for worker, ref in self._ready():
                    item = self._receive(worker, ref)
                    if item is not None:
                        yield item
        finally:
            workers = self.workers
            logger.info("Ray workers: %d, bot processes started: %d", len(workers), self.starts)
            _dismiss(self.ray, [w.actor for w in workers], graceful=not any(w.stream for w in workers))
            if self.carried is not None:
                self.carried.remove()

    def _staff(self) -> None:
        """A worker for every game slot, and work for every free worker Ray has placed: a
        dead worker's games first, then the source's next piece."""
        while len(self.workers) < self.window.slots():
            actor = self.player.remote(self.job_ref, self.shipment)
            self.workers.append(_Worker(actor, actor.ready.remote()))
        for worker in self.workers:
            if not worker.ready or worker.stream is not None:
                continue
            if self.lost:
                self._give(worker, *self.lost.pop())
                continue
            taken = None if self.finished else take_from(self.source, self.window.slots(), None,
                                                         worker.running)
            if not taken:
                self.finished = taken is None
                break
            self._give(worker, taken, 0)

    def _over(self) -> bool:
        """True once nothing is in play or lost and the source is finished; SourceStalled
        when the source has nothing now and no game in play could change that."""
        busy = [w for w in self.workers if w.stream is not None]
        if busy or self.lost:
            return False
        if self.finished:
            return True
        if any(w.ready for w in self.workers):
            raise SourceStalled()
        return False

    def _ready(self) -> list[tuple[_Worker, Any]]:
        """The workers whose start or next game is in (waiting RESIZE_EVERY_S at most)."""
        waiting = {w.stream if w.stream is not None else w.started: w
                   for w in self.workers if w.stream is not None or not w.ready}
        ready, _ = self.ray.wait(list(waiting), num_returns=1, timeout=RESIZE_EVERY_S)
        return [(waiting[ref], ref) for ref in ready]

    def _receive(self, worker: _Worker, ref: Any) -> tuple[Fixture, GameRecord] | None:
        """What a worker sent: it is placed and started, or its next game (None for
        anything that is no new game: the piece's end, the bots it keeps, a game received
        twice, a death)."""
        from ray.exceptions import RayError, RayTaskError, RuntimeEnvSetupError
        if worker.stream is None:     # placed and started
            try:
                self.ray.get(ref)
            except RuntimeEnvSetupError as exc:
                raise RayExecutorError(f"Ray could not set up the bots' files on a node "
                                       f"(ray.files: runtime_env): {exc}") from None
            except RayError as exc:    # its node died as it was placed
                self._dead(worker, exc)
                return None
            worker.ready = True
            return None
        try:
            key, item = self.ray.get(next(worker.stream))
        except StopIteration:         # the piece is over
            worker.stream = None
            if worker.left:           # a worker yields every game it was given
                raise RuntimeError(f"a Ray worker ended a piece without playing "
                                   f"{sorted(worker.left)}") from None
            return None
        except RayTaskError as exc:   # arena's own code failed on the node: a bug
            raise exc.as_instanceof_cause() from None
        except RuntimeEnvSetupError as exc:
            raise RayExecutorError(f"Ray could not set up the bots' files on a node "
                                   f"(ray.files: runtime_env): {exc}") from None
        except RayError as exc:       # its process or node died
            self._dead(worker, exc)
            return None
        if key is None:               # the piece's last word: the bots it keeps
            worker.running, started = item
            self.starts += started
            return None
        fixture = worker.left.pop(key, None)
        if fixture is None or key in self.yielded:
            logger.debug("game %r received twice; keeping the first", key)
            return None
        self.yielded.add(key)
        return fixture, item

    def _give(self, worker: _Worker, piece: list[Fixture], moves: int) -> None:
        carried = self.carried
        worker.stream = worker.actor.play.options(
            name=f"arena-games {piece[0].pairing} x{len(piece)}").remote(
                piece, carried.ship(piece) if carried is not None else {})
        worker.left, worker.moves = {f.key: f for f in piece}, moves

    def _dead(self, worker: _Worker, exc: BaseException) -> None:
        """A worker gone with its process or node: its games go to another."""
        settings = self.settings
        self.workers.remove(worker)
        _dismiss(self.ray, [worker.actor], graceful=False)   # if only unreachable: its CPU back
        if not worker.ready:
            self.unplaced += 1
            if self.unplaced > 2 * self.window.slots() + settings.max_retries:
                raise RayExecutorError(f"Ray workers die as they start ({self.unplaced} so far); "
                                       f"last: {type(exc).__name__}: {_first_line(exc)}") from None
        if worker.left:
            if worker.moves >= settings.max_retries:
                raise RayExecutorError(
                    f"games {sorted(worker.left)} were lost {worker.moves + 1} times "
                    f"(ray.max_retries: {settings.max_retries}); last: "
                    f"{type(exc).__name__}: {_first_line(exc)}") from None
            logger.warning("%d games lost with their worker (%s); giving them to another",
                           len(worker.left), type(exc).__name__)
            self.lost.append((list(worker.left.values()), worker.moves + 1))


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


__all__ = ["RayExecutorError", "import_ray", "play_fixtures_ray"]
