"""arena's own subcommands, declared as a plugin exactly like a third-party one."""

from __future__ import annotations

from arena.plugins import hookimpl
from arena.registry import Registry

from . import games, league, matches, play, plugins, publish


@hookimpl
def arena_register_commands(registry: Registry) -> None:
    """games ... random-game, bots, plugins, match ... openings, run ... retire, publish."""
    for module in (games, plugins, matches, play, league, publish):
        for command in module.COMMANDS:
            registry.add(command.name, command)
