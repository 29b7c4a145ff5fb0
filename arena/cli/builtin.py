"""arena's own subcommands, declared as a plugin exactly like a third-party one."""

from __future__ import annotations

from arena.hooks import hookimpl
from arena.registry import Registry

from . import games, league, matches, play, plugins, publish, server


@hookimpl
def arena_register_commands(registry: Registry) -> None:
    """In the order `arena --help` lists them: a league's commands first, engine checks last."""
    for module in (league, server, publish, matches, play, plugins, games):
        for command in module.COMMANDS:
            registry.add(command.name, command)
