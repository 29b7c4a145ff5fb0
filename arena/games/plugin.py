"""The built-in games, declared as an arena plugin exactly like a third-party one."""

from __future__ import annotations

import pluggy

from .registry import BUILTIN_GAMES, GameRegistry

# the same marker as arena.plugins.hookimpl, made here so that games never import upwards
hookimpl = pluggy.HookimplMarker("arena")


@hookimpl
def arena_register_games(registry: GameRegistry) -> None:
    """Tic-tac-toe and the three nine-board games."""
    for game in BUILTIN_GAMES:
        registry.add(game)
