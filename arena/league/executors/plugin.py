"""The built-in executors, declared as an arena plugin exactly like a third-party one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from arena.hooks import hookimpl
from arena.registry import Registry

from .base import Executor, GameJob, Placement
from .local import LocalExecutor

if TYPE_CHECKING:
    from arena.record import GameRecord

    from ..schedule import Fixture
    from ..sources import FixtureSource


class RayExecutor(Executor):
    """`executor: ray`: Ray tasks on a cluster, or on a private local instance
    (arena.league.executors.ray, imported only by a league that plays on Ray, and Ray
    itself only then)."""

    name = "ray"

    def check(self, placement: Placement) -> None:
        from .ray import import_ray
        import_ray()   # a missing Ray is said before anything starts

    def plays_here(self, placement: Placement) -> bool:
        # bots start where games are played: here only with a private local instance
        return placement.ray is None or placement.ray.address is None

    def play(self, job: GameJob, source: FixtureSource, workers: int,
             placement: Placement | None = None) -> Iterator[tuple[Fixture, GameRecord]]:
        from .ray import play_fixtures_ray
        return play_fixtures_ray(job, source, placement.ray if placement is not None else None, workers)


@hookimpl
def arena_register_executors(registry: Registry[Executor]) -> None:
    """`local` (worker processes on this machine) and `ray` (Ray tasks on a cluster)."""
    for executor in (LocalExecutor(), RayExecutor()):
        registry.add(executor.name, executor)
