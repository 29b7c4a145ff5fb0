"""The built-in dialects, declared as an arena plugin exactly like a third-party one."""

from __future__ import annotations

from arena.hooks import hookimpl
from arena.registry import Registry

from .dialects import BUILTIN_DIALECTS, Dialect


@hookimpl
def arena_register_dialects(registry: Registry[Dialect]) -> None:
    """arena, codingame, theaigames and riddles."""
    for dialect in BUILTIN_DIALECTS:
        registry.add(dialect.name, dialect)
