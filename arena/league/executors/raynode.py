"""What runs on a Ray run's nodes: GamePlayer, the actor that plays the pieces of games it
is given under the league's sandbox and time control, keeping its bots' processes between
them, with the coordinator's paths turned into the node's (localize)."""

from __future__ import annotations

import concurrent.futures
import io
import json
import os
import queue
import shutil
import stat
import sys
import tempfile
import threading
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from arena.referee import BotSpec
from arena.referee.botspec import ARENA_PACKAGE_DIR

from ..schedule import Fixture
from .base import GameJob
from .rayfiles import MANIFEST, RayExecutorError, Shipment, lies_within
from .worker import Table, bot_pool, play_piece, pool_caps, set_table

T = TypeVar("T")


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
            if lies_within(word, source):
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


__all__ = ["GamePlayer", "localize"]
