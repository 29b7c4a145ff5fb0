"""A registry of named extensions of one kind, filled by plugins.

Dialects, executors, rating systems, output formats and CLI commands are each a
Registry: a plugin's hook calls registry.add(name, thing), and every consumer asks
the loaded registry (arena.plugins.loaded_plugins()) by name. Games and bots keep
their own registries because they check what they hold (GameRegistry, BotRegistry).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from arena.errors import ArenaError, did_you_mean

T = TypeVar("T")


class PluginError(ArenaError, ValueError):
    """A plugin that failed to load or declared something unusable."""


class UnknownExtensionError(ArenaError, KeyError):
    """A name no plugin registered; the message lists the names that exist."""

    def __str__(self) -> str:   # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class Registry(Generic[T]):
    """Things of one kind by name, each remembered with the plugin that added it."""

    def __init__(self, kind: str) -> None:
        self.kind = kind                #: what the things are, for messages ("executor")
        self._items: dict[str, T] = {}
        self._plugins: dict[str, str] = {}
        self.current_plugin = ""        #: set by the plugin loader while a plugin registers

    def add(self, name: str, item: T) -> None:
        """Register item as name; PluginError if the name is malformed or taken."""
        who = self.current_plugin or "?"
        if not isinstance(name, str) or not name or any(c.isspace() for c in name):
            raise PluginError(f"plugin {who!r}: {self.kind} name {name!r} must be a non-empty word")
        if name in self._items:
            raise PluginError(f"plugin {who!r}: {self.kind} {name!r} is already registered by "
                              f"{self._plugins[name] or 'arena'!r}")
        self._items[name] = item
        self._plugins[name] = self.current_plugin

    def get(self, name: str) -> T | None:
        return self._items.get(name)

    def require(self, name: str) -> T:
        """The thing called name; UnknownExtensionError naming the known ones (and a near miss)."""
        try:
            return self._items[name]
        except KeyError:
            raise UnknownExtensionError(f"unknown {self.kind} {name!r}{did_you_mean(name, self._items)}; "
                                        f"known: {', '.join(self._items) or 'none'}") from None

    def names(self) -> list[str]:
        """Registered names, in registration order (built-ins first)."""
        return list(self._items)

    def plugin(self, name: str) -> str:
        """The plugin that registered name ("" when none did)."""
        return self._plugins.get(name, "")

    def items(self) -> list[tuple[str, T]]:
        return list(self._items.items())

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)
