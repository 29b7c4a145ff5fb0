"""What a worker of any executor does: set up once for a job, then play pieces in a row."""

from __future__ import annotations

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


def bot_pool(job: GameJob, max_idle: int | None = None) -> BotPool:
    """A worker's pool of kept bot processes, which says quit in the job's dialects."""
    return BotPool(max_idle=max_idle, dialects=job.settings.dialects)


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
