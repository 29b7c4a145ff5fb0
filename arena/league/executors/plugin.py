"""The built-in executors, declared as an arena plugin exactly like a third-party one."""

from __future__ import annotations

from arena.hooks import hookimpl
from arena.registry import Registry

from .base import Executor
from .local import LocalExecutor
from .ray import RayExecutor  # Ray itself is imported only when a league plays on it


@hookimpl
def arena_register_executors(registry: Registry[Executor]) -> None:
    """`local` (worker processes on this machine) and `ray` (Ray tasks on a cluster)."""
    for executor in (LocalExecutor(), RayExecutor()):
        registry.add(executor.name, executor)
