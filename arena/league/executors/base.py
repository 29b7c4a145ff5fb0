"""What every executor shares: the Executor protocol, the job workers play from, and the
error that stops a run for a reason that is no bot's fault. (The fixture sources executors
pull pieces from, and chunks, are arena.league.sources.)"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from arena.errors import ArenaError
from arena.sandbox.errors import SandboxError

from ..sources import chunks
from ..store import StoreError

if TYPE_CHECKING:
    from arena.games import Game
    from arena.record import GameRecord
    from arena.referee import BotSpec, MatchSettings
    from arena.sandbox import Limits

    from ..config import LeagueConfig, RayConfig
    from ..schedule import Fixture
    from ..sources import FixtureSource


class RunError(ArenaError, RuntimeError):
    """A run that cannot go on for a reason that is no bot's fault (the host, the config,
    the store or the referee); str() is one line naming the cause."""


@dataclass(frozen=True)
class GameJob:
    """Everything a worker needs to play any fixture of a league (picklable)."""

    game: str
    rules: dict[str, Any]
    bots: dict[str, BotSpec]
    settings: MatchSettings
    sandbox_mode: str
    limits: Limits
    #: the game with its rules, made from the run's registry (make_job), so a worker needs
    #: no registry of its own; None: made from the loaded plugins' where it is played
    made: Game | None = None


@dataclass(frozen=True)
class Placement:
    """Where a run's games are played, as its executor reads it: the executor's name and
    the settings of the built-in ones (a league config's `executor`, `pin_workers` and
    `ray`), not the whole league."""

    executor: str = "local"
    #: local workers keep to their own share of the CPUs (executors.local.cpu_shares)
    pin_workers: bool = True
    #: the `ray` section (None: a private Ray instance on this machine, its defaults)
    ray: RayConfig | None = None

    @classmethod
    def of(cls, config: LeagueConfig) -> Placement:
        """A league config's placement settings."""
        return cls(config.executor, config.pin_workers, config.ray)


class Executor(Protocol):
    """Where a league's games are played: registered by name (the config's `executor:`)
    with the arena_register_executors hook. Subclass it to inherit the defaults below;
    only name and play are required."""

    #: the name a league config gives as `executor:`
    name: ClassVar[str]
    #: workers beyond this many per CPU of this machine are not used (None: no cap)
    workers_per_cpu: ClassVar[int | None] = None

    def play(self, job: GameJob, source: FixtureSource, workers: int,
             placement: Placement | None = None) -> Iterator[tuple[Fixture, GameRecord]]:
        """Each fixture's record as its game ends, in any order, each once; `workers` games
        at a time, the fixtures taken from source (source.take) as slots free up, until it
        says it is finished. The caller stores a record and tells the source of it before
        asking for the next, so a source that had nothing may have something then; it
        closes the iterator to stop (stopping every game in flight). A problem that is no
        bot's fault raises RunError (or another ArenaError). placement: the run's placement
        settings (None: the defaults)."""
        ...

    def check(self, placement: Placement) -> None:
        """Before anything starts: raise an ArenaError if this executor cannot play so."""
        return None

    def plays_here(self, placement: Placement) -> bool:
        """True when the bots run on this machine (the run then starts each once first)."""
        return True


def cause(exc: BaseException) -> str:
    """An error that is no bot's fault, in one line: its own message, and its type
    unless the message is one of ours."""
    text = " ".join(str(exc).split()) or "(no message)"
    if isinstance(exc, (SandboxError, StoreError, RunError)):
        return text
    return f"{type(exc).__name__}: {text}"


__all__ = ["Executor", "GameJob", "Placement", "RunError", "cause", "chunks"]
