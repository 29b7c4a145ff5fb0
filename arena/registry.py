"""The one registry type: things of one kind by name, filled by plugins.

Games, bots, dialects, executors, rating systems, output formats, matchmakers and CLI
commands are each a Registry of its Kind. The kind checks what is added: a plugin's hook
calls registry.add(name, thing) (or add(thing) for a kind whose things carry their name:
a game class, a bot declaration), and a thing that fails its kind's check is refused
(kept out, remembered under its name, and reported with the plugins' errors), so that
what a consumer is given is usable. Every registry answers a name one way: `get` gives
None on a miss, `require` raises UnknownNameError (naming the known ones and a near miss).

The registries of a process are made where it starts (arena.plugins.load_plugins) and
passed down as one arena.plugins.Plugins value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

from arena.errors import ArenaError, did_you_mean

T = TypeVar("T")
R = TypeVar("R")


class PluginError(ArenaError, ValueError):
    """A plugin that failed to load or declared something unusable."""


class UnknownExtensionError(ArenaError, KeyError):
    """A name no plugin registered; the message lists the names that exist."""

    def __str__(self) -> str:   # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class UnknownNameError(UnknownExtensionError, PluginError):
    """A name nothing is registered as: what every registry's `require` raises on a miss.
    It is an UnknownExtensionError and a PluginError (what the registries raised before
    they were one type); the games' is UnknownGameError, its subclass that is also a
    GameError."""


def _fits(thing: Any, name: str, plugin: str) -> str | None:
    """The check of a kind that takes anything."""
    return None


def _as_is(thing: T, plugin: str) -> T:
    return thing


@dataclass(frozen=True)
class Kind(Generic[T]):
    """What a registry holds: the noun its messages use and the check of what is added."""

    noun: str
    #: why `thing`, added as name by plugin (its name, or "?"), cannot be used; None if it can
    check: Callable[[Any, str, str], str | None] = _fits
    #: for things that carry their name: (thing, plugin) -> the name, raising PluginError (or
    #: the kind's own error) when the thing is no such thing; they are added as add(thing)
    name_of: Callable[[Any, str], str] | None = None
    #: what is kept of a thing a plugin added (a bot's declaration, with the plugin named)
    keep: Callable[[T, str], T] = _as_is
    #: how a miss's message introduces the names there are ("known games")
    known: str = "known"
    #: what a miss raises: UnknownNameError or a subclass of it
    missing: type[UnknownNameError] = UnknownNameError


class Registry(Generic[T]):
    """Things of one kind by name, in the order they were added, each remembered with the
    plugin that added it."""

    def __init__(self, kind: Kind[T], things: Iterable[T] = ()) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._plugins: dict[str, str] = {}
        #: names whose thing failed the kind's check, with why: require raises it
        self.refused: dict[str, PluginError] = {}
        self.current_plugin = ""        #: set by the plugin loader while a plugin registers
        for thing in things:
            self.add(thing)
        if self.refused:
            raise next(iter(self.refused.values()))

    @overload
    def add(self, thing: T, /) -> None: ...

    @overload
    def add(self, name: str, thing: T, /) -> None: ...

    def add(self, *given: Any) -> None:
        """Register thing as name: add(name, thing), or add(thing) where things carry their
        name. PluginError when it cannot be filed (a malformed name, one already taken); a
        thing that fails the kind's check is refused: kept out, and its reason kept in
        `refused` (the plugin loader reports it; `require` raises it)."""
        who = self.current_plugin or "?"
        kind = self.kind
        if kind.name_of is not None:
            if len(given) != 1:
                raise PluginError(f"plugin {who!r}: add one {kind.noun} at a time, as add({kind.noun})")
            thing = given[0]
            name = kind.name_of(thing, who)
        else:
            if len(given) != 2:
                raise PluginError(f"plugin {who!r}: add a {kind.noun} as add(name, {kind.noun})")
            name, thing = given
            if not isinstance(name, str) or not name or any(c.isspace() for c in name):
                raise PluginError(f"plugin {who!r}: {kind.noun} name {name!r} must be a non-empty word")
        if name in self._items:
            if self._items[name] is thing:
                return
            raise PluginError(f"plugin {who!r}: {kind.noun} {name!r} is already registered by "
                              f"{self._plugins[name] or 'arena'!r}")
        problem = kind.check(thing, name, who)
        if problem is not None:
            self.refused[name] = PluginError(problem)
            return
        self.refused.pop(name, None)
        self._items[name] = kind.keep(thing, who)
        self._plugins[name] = self.current_plugin

    def get(self, name: str) -> T | None:
        """The thing called name; None if there is none."""
        return self._items.get(name)

    def require(self, name: str) -> T:
        """The thing called name; UnknownNameError (of the kind) naming the known ones and a
        near miss, or the PluginError that says why a plugin's thing of that name was refused."""
        try:
            return self._items[name]
        except KeyError:
            pass
        if name in self.refused:
            raise self.refused[name]
        raise self.kind.missing(f"unknown {self.kind.noun} {name!r}{did_you_mean(name, self._items)}; "
                                f"{self.kind.known}: {', '.join(self._items) or 'none'}")

    def create(self: Registry[type[R]], name: str, /, **options: Any) -> R:
        """The class registered as name, made with options: a game with its rule options."""
        return self.require(name)(**options)

    def names(self) -> list[str]:
        """Registered names, in registration order (built-ins first)."""
        return list(self._items)

    def all(self) -> list[T]:
        """The registered things, in registration order."""
        return list(self._items.values())

    def items(self) -> list[tuple[str, T]]:
        return list(self._items.items())

    def plugin(self, name: str) -> str:
        """The plugin that registered name ("" when none did)."""
        return self._plugins.get(name, "")

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"<Registry of {len(self)} {self.kind.noun}s: {', '.join(self._items)}>"
