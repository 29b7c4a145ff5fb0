"""The local executor: a league's games played by worker processes on this machine."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import signal
import sys
import tempfile
import time
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from arena.record import GameRecord

from ..schedule import Fixture
from ..sources import FixtureList, FixtureSource, Piece, SourceStalled, as_source, fixtures_of, take_from
from .base import Executor, GameJob, Placement, RunError, cause

if TYPE_CHECKING:
    from .worker import PoolCaps

# What plays the games (.worker: the referee, the sandbox) is imported where they are played:
# the plugin that registers this executor, loaded by every command, imports none of it.

#: local workers beyond this many per CPU are not used: they only slow every game down
WORKERS_PER_CPU = 4


PR_SET_PDEATHSIG = 1


def cpu_shares(workers: int) -> list[frozenset[int]] | None:
    """The CPUs each of `workers` workers keeps to (with its referee and its bots): this
    process's CPUs dealt out evenly, or one each in turn when there are more workers, or
    None when that cannot be even (3 workers on 2 CPUs would put two games on one CPU
    and one on the other). With no more workers than CPUs, games played at the same time
    never take CPU time from each other; with one CPU each, a game's bots wake on the
    CPU their referee wrote to, not another one (a wake-up across CPUs costs the waker
    10-15 us, and the sleeper tens, on a virtual machine)."""
    cpus = sorted(os.sched_getaffinity(0))
    if workers > len(cpus):
        if workers % len(cpus):
            return None
        return [frozenset({cpus[i % len(cpus)]}) for i in range(workers)]
    size, extra = divmod(len(cpus), workers)
    shares, start = [], 0
    for i in range(workers):
        end = start + size + (i < extra)
        shares.append(frozenset(cpus[start:end]))
        start = end
    return shares


def die_with_parent(parent: int, signum: int = signal.SIGTERM) -> None:
    """Have the kernel send signum to this process when `parent` dies (however it dies);
    exit at once if it is already gone."""
    if sys.platform.startswith("linux"):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
    if os.getppid() != parent:     # it died before the line above
        os._exit(1)


def _stop_on_sigterm(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)   # once: let the clean-up finish
    raise SystemExit(128 + signum)


class _Pieces:
    """A run's pieces known at the start (a FixtureList's), each taken by whichever worker
    asks first. The list goes to each
    worker once, as it starts (with a fork, not even copied); then only a shared counter
    moves between processes (a queue pickled every piece in the coordinator while its
    workers started: 23 ms for 300 pieces). The counter is guarded by an flock of a file
    that each worker opens for itself: the kernel drops the lock of a worker that dies
    holding it (killed by the OOM killer, say), where a semaphore would stay taken and
    stop every other worker for good."""

    def __init__(self, work: list[list[Fixture]], taken: Any, lock_path: str) -> None:
        self.work = work
        self.taken = taken      # a multiprocess.Value("i", lock=False): how many pieces are taken
        self.lock_path = lock_path
        self._fd = -1
        self._opened_by = 0     # the pid that opened _fd: an flock excludes open files, so each process opens its own

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the counter's lock (across processes)."""
        if self._opened_by != os.getpid():
            self._fd = os.open(self.lock_path, os.O_RDWR | os.O_CLOEXEC)
            self._opened_by = os.getpid()
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def take(self) -> list[Fixture] | None:
        """The next piece, or None when every piece is taken."""
        with self.locked():
            index = self.taken.value
            if index >= len(self.work):
                return None
            self.taken.value = index + 1
        return self.work[index]


class _Connection(Protocol):
    """A worker's end of its pipe to the coordinator (a multiprocess Connection)."""

    def send_bytes(self, buf: bytes) -> None: ...

    def recv_bytes(self) -> bytes: ...


def _worker_main(job: GameJob, pieces: _Pieces, results: _Connection, parent: int, cpus: frozenset[int] | None,
                 caps: PoolCaps) -> None:
    """A worker process: play the pieces it takes from `pieces`, send each game back at once
    (pickled here, in this thread: a queue's feeder thread would contend with the referee
    for the interpreter lock during the next game). It plays the next game while the
    coordinator stores that one, but sends it only once told the last is stored: a killed
    coordinator loses at most two finished games a worker (the one being stored and the
    one finished meanwhile), however loaded the machine, and the next run plays them.
    Given cpus, it and the bots it starts keep to those CPUs (cpu_shares). An error that
    is not a bot's fault is sent back as ("error", cause) and ends the worker. Its bots'
    processes outlive a piece: pieces come interleaved, and the next piece of a pairing
    usually comes soon, and it keeps as many as caps allow (pool_caps). Once the pieces
    known at the start are taken, it asks the coordinator for more ("more", naming the
    bots it keeps running, which the source may prefer), which answers with a piece from
    the run's source (at once, or after a later record if the source has nothing now) or
    "end"."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    # SIGTERM, from the coordinator or from the kernel when the coordinator dies, closes
    # this worker's bots (and their scratch dirs) on the way out
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)   # blocked since the fork
    die_with_parent(parent)
    if cpus:
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:
            pass   # the CPUs were taken away meanwhile: play anywhere, as unpinned
    from arena.sandbox.scratch import remove_own_roots

    from .worker import bot_pool, play_piece, set_table
    pool = bot_pool(job, caps)
    unstored = False   # a game sent back that the coordinator has not yet said it stored
    try:
        table = set_table(job)
        while True:
            chunk = pieces.take()
            if chunk is None:
                results.send_bytes(pickle.dumps(("more", pool.running()), pickle.HIGHEST_PROTOCOL))
                if unstored:     # the answer comes after the last game's "stored"
                    results.recv_bytes()
                    unstored = False
                answer = results.recv_bytes()
                if answer == _END:
                    return
                chunk = pickle.loads(answer)
            for item in play_piece(table, chunk, pool):
                # the next game is played while the coordinator stores the last, but is
                # not sent before that one is stored: one sent game unstored, no more
                if unstored:
                    results.recv_bytes()
                results.send_bytes(pickle.dumps(("game", item), pickle.HIGHEST_PROTOCOL))
                unstored = True
    except (SystemExit, BrokenPipeError, EOFError, ConnectionResetError):
        return     # stopped, or the coordinator is gone: nobody to tell
    except BaseException as exc:  # noqa: BLE001 - any error here is reported, not a bot's
        results.send_bytes(pickle.dumps(("error", cause(exc)), pickle.HIGHEST_PROTOCOL))
    finally:
        pool.close()
        # a worker stopped mid-game (its coordinator gone) may leave a bot's scratch dir
        # behind a game cut short; nothing of this process's bots outlives it
        remove_own_roots()


def play_fixtures(job: GameJob, fixtures: FixtureSource | list[Fixture], workers: int,
                  pin: bool = True) -> Iterator[tuple[Fixture, GameRecord]]:
    """Records of the fixtures (a source, or a list) as each game finishes: in this process
    for one worker, else in `workers` processes (multiprocess) that stream each record back
    at once, each pinned to its share of the CPUs (cpu_shares) unless pin is False.
    Pieces are single pairs, interleaved (chunks): each worker keeps its bots started.
    An error that is no bot's fault stops the play as a RunError."""
    from .worker import bot_pool, play_piece, pool_caps, set_table
    source = as_source(fixtures)
    if _empty(source):
        return
    if workers <= 1:
        pool = bot_pool(job, pool_caps(1))
        try:
            table = set_table(job)
            yield from play_piece(table, fixtures_of(source, pool.running), pool)
        except Exception as exc:
            raise RunError(cause(exc)) from exc
        finally:
            pool.close()
        return
    yield from _Started(_play_in_processes(job, source, workers, pin))


def start_playing(job: GameJob, fixtures: FixtureSource | list[Fixture], workers: int,
                  pin: bool = True) -> Iterator[tuple[Fixture, GameRecord]]:
    """play_fixtures, but with more than one worker the workers start now, before the first
    record is asked for: what the caller does meanwhile (the preflight) overlaps their
    first games. Closing the iterator stops them, whether or not a record was read."""
    source = as_source(fixtures)
    if workers <= 1 or _empty(source):
        return play_fixtures(job, source, workers, pin)
    return _Started(_play_in_processes(job, source, workers, pin))


def _empty(source: FixtureSource) -> bool:
    """True for a list of no fixtures (no worker is started for it)."""
    return isinstance(source, FixtureList) and not len(source)


class _Started(Iterator[tuple[Fixture, GameRecord]]):
    """The records of _play_in_processes, whose workers it starts at once (its first item,
    None, says they are); close() stops them, whether or not a record was read."""

    def __init__(self, games: Generator[tuple[Fixture, GameRecord] | None, None, None]) -> None:
        self._games = games
        next(games)

    def __next__(self) -> tuple[Fixture, GameRecord]:
        item = next(self._games)
        assert item is not None   # only the first item is None
        return item

    def close(self) -> None:
        self._games.close()


#: what stops a worker; blocked from its fork until its own handlers are set
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}

#: seconds stopped workers get to close their bots before they are killed
STOP_GRACE_S = 1.5

#: the coordinator's answer to "more" when the source is finished
_END = b"end"


def _play_in_processes(job: GameJob, source: FixtureSource, workers: int,
                       pin: bool) -> Generator[tuple[Fixture, GameRecord] | None, None, None]:
    """Start the workers and yield None once they are started, then each record as it comes.

    A FixtureList's pieces are cut at once and inherited by the workers at their fork;
    any other source is asked a piece at a time, for a worker that asks for more (at once,
    and again after each record while it has nothing now)."""
    import multiprocess
    from multiprocess.connection import wait
    work = _cut(source, workers)
    # the lock's file, gone from the directory at once (nothing is left even after a kill -9);
    # each forked worker opens its own description of it through the descriptor it inherits
    lock_fd, lock_path = tempfile.mkstemp(prefix="arena-pieces-")
    os.unlink(lock_path)
    pieces = _Pieces(work, multiprocess.Value("i", 0, lock=False), f"/proc/self/fd/{lock_fd}")
    procs: list[Any] = []
    readers: list[Any] = []
    started = min(workers, len(work)) if isinstance(source, FixtureList) else workers
    shares, caps = _placement(started, pin)
    try:
        for cpus in shares:
            readers.append(_start_worker(job, pieces, cpus, caps, procs))
        yield None     # started: the workers play while the caller goes on
        hungry: list[Any] = []    # workers waiting for a piece the source had not yet
        running: dict[Any, frozenset[str]] = {}   # reader -> the bots its worker keeps

        def answer(reader: Any) -> bool:
            """Send the worker the source's next piece, or the end; False if nothing now."""
            piece = take_from(source, workers, 1, running.get(reader, frozenset()))
            if piece == []:
                return False
            try:
                reader.send_bytes(_END if piece is None else
                                  pickle.dumps(piece, pickle.HIGHEST_PROTOCOL))
            except OSError:           # that worker is gone; its EOF comes next
                pass
            return True

        # until every worker has ended (told "end"), or died: what they had not finished is
        # played next run
        while readers:
            if hungry and len(hungry) == len(readers):
                raise SourceStalled()
            for reader in wait(readers, timeout=0.5):
                try:
                    kind, item = pickle.loads(reader.recv_bytes())
                except (EOFError, ConnectionResetError):   # that worker is gone (finished, or died)
                    readers.remove(reader)
                    if reader in hungry:
                        hungry.remove(reader)
                    continue
                if kind == "error":
                    raise RunError(item)
                if kind == "more":
                    running[reader] = item
                    if not answer(reader):
                        hungry.append(reader)
                    continue
                yield item     # the caller stores it (and tells the source) before asking for the next
                try:
                    reader.send_bytes(b"stored")
                except OSError:       # that worker is gone; its EOF comes next
                    pass
                hungry = [waiting for waiting in hungry if not answer(waiting)]
    except BaseException:
        _stop(procs, terminate=True)
        raise
    else:
        _stop(procs, terminate=False)
    finally:
        os.close(lock_fd)


def _cut(source: FixtureSource, workers: int) -> list[Piece]:
    """A FixtureList's pieces, all cut now (for `workers` workers); none of another source."""
    work: list[Piece] = []
    if isinstance(source, FixtureList):
        while (piece := source.take(workers, 1)):
            work.append(piece)
    return work


def _placement(started: int, pin: bool) -> tuple[list[frozenset[int] | None], PoolCaps]:
    """Where the `started` workers run: each one's own share of the CPUs (None: anywhere;
    all None unless pin), and the caps of the pool they make."""
    from .worker import pool_caps
    shares: list[frozenset[int] | None] = [None] * started
    if pin:
        shares = list(cpu_shares(started) or shares)
    return shares, pool_caps(started)


def _start_worker(job: GameJob, pieces: _Pieces, cpus: frozenset[int] | None,
                  caps: PoolCaps, procs: list[Any]) -> Any:
    """Start one worker (kept to cpus, when given), added to procs once started; the end of
    the pipe its games come back on."""
    import multiprocess
    reader, writer = multiprocess.Pipe()   # games one way, "stored" the other
    proc = multiprocess.Process(target=_worker_main,
                                args=(job, pieces, writer, os.getpid(), cpus, caps), daemon=True)
    # the child keeps the coordinator's handlers until _worker_main sets its own: a
    # stop in between waits, blocked, rather than print a traceback from the start-up
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        proc.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    procs.append(proc)
    writer.close()   # the worker holds the only writer: its death reads as EOF here
    return reader


def _stop(procs: list, terminate: bool) -> None:
    """End the workers: SIGTERM (each closes its bots) unless they are ending by
    themselves, then SIGKILL for any still there after a grace."""
    for proc in procs:
        if terminate and proc.is_alive():
            proc.terminate()
    deadline = time.monotonic() + (STOP_GRACE_S if terminate else 30.0)
    for proc in procs:
        proc.join(timeout=max(0.0, deadline - time.monotonic()))
    for proc in procs:
        if proc.is_alive():
            proc.kill()
            proc.join()


class LocalExecutor(Executor):
    """`executor: local`: worker processes on this machine (play_fixtures)."""

    name = "local"
    workers_per_cpu = WORKERS_PER_CPU

    def play(self, job: GameJob, source: FixtureSource, workers: int,
             placement: Placement | None = None) -> Iterator[tuple[Fixture, GameRecord]]:
        return start_playing(job, source, workers, (placement or Placement()).pin_workers)
