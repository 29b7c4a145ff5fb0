"""The built-in games, declared as an arena plugin exactly like a third-party one."""

from __future__ import annotations

from arena.hooks import hookimpl
from arena.registry import Registry

from .base import Game
from .registry import BUILTIN_GAMES


@hookimpl
def arena_register_games(registry: Registry[type[Game]]) -> None:
    """Tic-tac-toe, the three nine-board games and Tron."""
    for game in BUILTIN_GAMES:
        registry.add(game)
