"""The built-in dialects, declared as an arena plugin exactly like a third-party one."""

from __future__ import annotations

import pluggy

from arena.registry import Registry

from .dialects import BUILTIN_DIALECTS, Dialect

# the same marker as arena.plugins.hookimpl, made here so that the protocol never imports upwards
hookimpl = pluggy.HookimplMarker("arena")


@hookimpl
def arena_register_dialects(registry: Registry[Dialect]) -> None:
    """arena, codingame, theaigames and riddles."""
    for dialect in BUILTIN_DIALECTS:
        registry.add(dialect.name, dialect)
