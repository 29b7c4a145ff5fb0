"""The built-in matchmakers, declared as an arena plugin exactly like a third-party one."""

from __future__ import annotations

from arena.hooks import hookimpl
from arena.registry import Registry

from . import MatchmakerFactory
from .active import Active
from .halite import Halite
from .neighbors import Neighbors
from .psyleague import Psyleague
from .uniform import Uniform


@hookimpl
def arena_register_matchmakers(registry: Registry[MatchmakerFactory]) -> None:
    """`active` (the default), and the policies it is measured against."""
    for name, factory in (("active", Active), ("uniform", Uniform), ("psyleague", Psyleague),
                          ("halite", Halite), ("neighbors", Neighbors)):
        registry.add(name, factory)
