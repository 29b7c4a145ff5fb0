"""What a worker of any executor does: set up once for a job, then play pieces in a row."""

from __future__ import annotations

import os
import resource
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from arena.games import Game
from arena.plugins import loaded_plugins
from arena.record import GameRecord
from arena.referee import BotPool, BotSpec, play_game
from arena.sandbox import Sandbox

from ..schedule import Fixture
from .base import GameJob

T = TypeVar("T")


@dataclass(frozen=True)
class Table:
    """A worker's set-up for one job: the game, the sandbox, the bots as this host starts them."""

    job: GameJob
    game: Game
    sandbox: Sandbox
    bots: Mapping[str, BotSpec]
    #: a spec as the coordinator wrote it, made this host's (paths moved): for the specs
    #: a fixture carries
    here: Callable[[BotSpec], BotSpec] = lambda spec: spec

    def seats(self, fixture: Fixture) -> tuple[BotSpec, ...]:
        """How to start the fixture's bots here, by seat: the specs it carries, else the job's."""
        if fixture.bots is not None:
            return tuple(self.here(spec) for spec in fixture.bots)
        return tuple(self.bots[name] for name in fixture.seats)


def set_table(job: GameJob, here: Callable[[BotSpec], BotSpec] | None = None) -> Table:
    """The job's game made from the loaded registry (so a plugin's game plays too), its
    sandbox, and its bots (made this host's by `here`, as are those fixtures carry)."""
    game = job.made if job.made is not None else loaded_plugins().games.create(job.game, **job.rules)
    sandbox = Sandbox(limits=job.limits, mode=job.sandbox_mode)
    if here is None:
        return Table(job=job, game=game, sandbox=sandbox, bots=dict(job.bots))
    return Table(job=job, game=game, sandbox=sandbox,
                 bots={name: here(spec) for name, spec in job.bots.items()}, here=here)


#: the share of the memory available when a run starts that its workers' idle bots may
#: hold together (a sandboxed uttt-random keeps about 23 MB resident: benchmarks/league.py)
POOL_MEMORY_SHARE = 0.5
#: descriptors a kept bot holds in its worker (pipes, pidfds, its tree's stat files: 13
#: measured for a sandboxed SDK bot), and those kept free for everything else
FDS_PER_KEPT_BOT = 16
FDS_SPARE = 128
#: idle bots a worker keeps at most, whatever the memory: past this many a league's bots
#: are better dealt out so that each worker needs fewer of them
MAX_IDLE_BOTS = 512


@dataclass(frozen=True)
class PoolCaps:
    """How many idle bot processes a worker keeps, and how much of their memory."""

    bots: int
    bytes: int


def pool_caps(workers: int, available: int | None = None, open_files: int | None = None) -> PoolCaps:
    """A worker's caps when `workers` play on this machine: its share of POOL_MEMORY_SHARE
    of the memory available now, and as many bots as its descriptor limit leaves room for,
    once raised as far as allowed (allow_open_files; available, open_files: those
    figures, instead of this machine's and this process's)."""
    if available is None:
        available = memory_available()
    if open_files is None:
        open_files = allow_open_files()
        if open_files == resource.RLIM_INFINITY:
            open_files = FDS_PER_KEPT_BOT * MAX_IDLE_BOTS + FDS_SPARE
    by_fds = max(2, (open_files - FDS_SPARE) // FDS_PER_KEPT_BOT)
    return PoolCaps(bots=min(MAX_IDLE_BOTS, by_fds),
                    bytes=int(available * POOL_MEMORY_SHARE / max(1, workers)))


def allow_open_files() -> int:
    """Raise this process's soft descriptor limit toward its hard one, as far as
    MAX_IDLE_BOTS kept bots need (a soft limit of 1,024, common, holds 56); the workers it
    starts inherit it, the bots have their own (Limits.open_files). The soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FDS_PER_KEPT_BOT * MAX_IDLE_BOTS + FDS_SPARE
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass     # kept as it is: the caps follow what there is
    return soft


def memory_available() -> int:
    """The memory this machine can give without swapping (MemAvailable), in bytes; from the
    physical pages when /proc/meminfo has no such line."""
    try:
        with open("/proc/meminfo", "rb") as file:
            for line in file:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def bot_pool(job: GameJob, caps: PoolCaps | None = None) -> BotPool:
    """A worker's pool of kept bot processes, which says quit in the job's dialects; with
    caps, it keeps no more than they allow."""
    if caps is None:
        return BotPool(dialects=job.settings.dialects)
    return BotPool(max_idle=caps.bots, max_idle_bytes=caps.bytes, dialects=job.settings.dialects)


def _now(call: Callable[[], T]) -> T:
    return call()


def play_piece(table: Table, piece: Iterable[Fixture], pool: BotPool,
               run: Callable[[Callable[[], Any]], Any] = _now) -> Iterator[tuple[Fixture, GameRecord]]:
    """Play fixtures in a row, reusing bots' processes from the pool between them;
    each game's record as soon as it ends. run(call) plays one game: at once, or on
    the thread that owns the pool's bots."""
    for fixture in piece:
        record = run(partial(play_game, table.game, table.seats(fixture), fixture.seed, table.sandbox,
                             table.job.settings, pool=pool, opening=fixture.opening))
        yield fixture, record
