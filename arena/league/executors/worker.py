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


def set_table(job: GameJob, bots: Mapping[str, BotSpec] | None = None) -> Table:
    """The job's game made from the loaded registry (so a plugin's game plays too), its
    sandbox, and its bots (or these: the job's, with this host's paths)."""
    game = loaded_plugins().games.create(job.game, **job.rules)
    return Table(job=job, game=game, sandbox=Sandbox(limits=job.limits, mode=job.sandbox_mode),
                 bots=dict(job.bots if bots is None else bots))


def _now(call: Callable[[], T]) -> T:
    return call()


def play_piece(table: Table, piece: Iterable[Fixture], pool: BotPool,
               run: Callable[[Callable[[], Any]], Any] = _now) -> Iterator[tuple[Fixture, GameRecord]]:
    """Play fixtures in a row, reusing bots' processes from the pool between them;
    each game's record as soon as it ends. run(call) plays one game: at once, or on
    the thread that owns the pool's bots."""
    for fixture in piece:
        seats = (table.bots[fixture.seat0], table.bots[fixture.seat1])
        record = run(partial(play_game, table.game, seats, fixture.seed, table.sandbox,
                             table.job.settings, pool=pool, opening=fixture.opening))
        yield fixture, record
