"""Plugins: pluggy hooks through which packages declare bots and games.

A plugin is a module with functions marked @hookimpl. arena's own games and
reference bots are default plugins, imported by name (no installation metadata
needed); third-party plugins are found through the `arena` entry-point group.
Every consumer (CLI, SDK, referee, league workers, publisher) asks
loaded_plugins() for the one registry they all share. It only *declares*: a bot's name, game, options and
how to start it. Bot code runs only in the bot's sandboxed process.

    from arena.plugins import BotDeclaration, hookimpl

    @hookimpl
    def arena_register_bots(registry):
        registry.add(BotDeclaration(name="my-bot", game="ultimate",
                                    description="...", target="my_package.bot:MyBot"))
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.metadata
from dataclasses import dataclass, field

import pluggy

from arena import __version__
from arena.declarations import OPTION_KINDS, BotDeclaration, BotOption
from arena.games import GameRegistry
from arena.hooks import PROJECT, hookimpl, hookspec
from arena.registry import PluginError, Registry

__all__ = ["DEFAULT_PLUGINS", "ENTRY_POINT_GROUP", "OPTION_KINDS", "PROJECT", "ArenaHookSpecs",
           "BotDeclaration", "BotOption", "BotRegistry", "PluginError", "Plugins", "game_registry",
           "games_only_registry", "hookimpl", "hookspec", "load_plugins", "loaded_plugins",
           "make_plugin_manager"]

ENTRY_POINT_GROUP = "arena"

#: plugins that ship inside bot-arena: (plugin name, module), registered before any entry point
DEFAULT_PLUGINS: tuple[tuple[str, str], ...] = (
    ("builtin-games", "arena.games.plugin"),
    ("builtin-league", "arena.league.plugin"),
    ("builtin-commands", "arena.cli.builtin"),
    ("builtin-dialects", "arena.protocol.plugin"),
    ("reference-bots", "bots.plugin"),
    ("builtin-executors", "arena.league.executors.plugin"),
    ("builtin-matchmakers", "arena.league.matchmakers.plugin"),
)

class ArenaHookSpecs:
    """The hooks a plugin may implement. Specs only ever gain arguments."""

    @hookspec
    def arena_register_bots(self, registry: BotRegistry) -> None:
        """Declare bots with registry.add(BotDeclaration(...))."""

    @hookspec
    def arena_register_games(self, registry: GameRegistry) -> None:
        """Declare games with registry.add(GameClass)."""

    @hookspec
    def arena_register_dialects(self, registry: Registry) -> None:
        """Declare protocol dialects with registry.add(name, dialect)."""

    @hookspec
    def arena_register_executors(self, registry: Registry) -> None:
        """Declare league executors with registry.add(name, executor)."""

    @hookspec
    def arena_register_rating_systems(self, registry: Registry) -> None:
        """Declare rating systems with registry.add(name, rating_system)."""

    @hookspec
    def arena_register_output_formats(self, registry: Registry) -> None:
        """Declare leaderboard output formats with registry.add(name, renderer)."""

    @hookspec
    def arena_register_matchmakers(self, registry: Registry) -> None:
        """Declare ladder matchmakers with registry.add(name, factory): factory() makes one."""

    @hookspec
    def arena_register_commands(self, registry: Registry) -> None:
        """Declare CLI subcommands with registry.add(name, command)."""


class BotRegistry:
    """Bot declarations by name."""

    def __init__(self, games: GameRegistry) -> None:
        self._bots: dict[str, BotDeclaration] = {}
        self._games = games
        self.current_plugin = ""

    def add(self, decl: BotDeclaration) -> None:
        """Register a declaration; PluginError if it is malformed or the name is taken."""
        who = self.current_plugin or "?"
        if not isinstance(decl, BotDeclaration):
            raise PluginError(f"plugin {who!r} registered {decl!r}, not a BotDeclaration")
        if not decl.name or any(c.isspace() for c in decl.name) or ":" in decl.name:
            raise PluginError(f"plugin {who!r}: bot name {decl.name!r} must be non-empty, "
                              "without spaces or ':'")
        if (decl.target is None) == (decl.command is None):
            raise PluginError(f"plugin {who!r}: bot {decl.name!r} needs exactly one of target or command")
        if decl.target is not None and decl.target.count(":") != 1:
            raise PluginError(f"plugin {who!r}: bot {decl.name!r} target {decl.target!r} "
                              "must be 'package.module:Class'")
        if decl.game != "*" and decl.game not in self._games.names():
            raise PluginError(f"plugin {who!r}: bot {decl.name!r} plays unknown game {decl.game!r}")
        if decl.name in self._bots:
            raise PluginError(f"plugin {who!r}: bot {decl.name!r} is already registered by "
                              f"{self._bots[decl.name].plugin!r}")
        self._bots[decl.name] = dataclasses.replace(decl, plugin=who)

    def get(self, name: str) -> BotDeclaration | None:
        return self._bots.get(name)

    def require(self, name: str) -> BotDeclaration:
        """The declaration of a bot the config has already checked; PluginError if it is missing."""
        decl = self._bots.get(name)
        if decl is None:
            raise PluginError(f"unknown bot {name!r}; registered bots are {', '.join(sorted(self._bots))}")
        return decl

    def all(self) -> list[BotDeclaration]:
        return list(self._bots.values())


@dataclass
class Plugins:
    """What the loaded plugins declared, and which failed to load."""

    manager: pluggy.PluginManager
    bots: BotRegistry
    games: GameRegistry
    errors: list[str]
    versions: dict[str, str]
    dialects: Registry = field(default_factory=lambda: Registry("dialect"))
    executors: Registry = field(default_factory=lambda: Registry("executor"))
    rating_systems: Registry = field(default_factory=lambda: Registry("rating system"))
    output_formats: Registry = field(default_factory=lambda: Registry("output format"))
    commands: Registry = field(default_factory=lambda: Registry("command"))
    matchmakers: Registry = field(default_factory=lambda: Registry("matchmaker"))


def make_plugin_manager() -> pluggy.PluginManager:
    """A plugin manager with arena's hook specs and no plugins."""
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(ArenaHookSpecs)
    return pm


def load_plugins(extra: tuple[object, ...] = (), entry_points: bool = True,
                 defaults: tuple[tuple[str, str], ...] = DEFAULT_PLUGINS) -> Plugins:
    """Load the default plugins, every entry-point plugin (and extra plugin objects); a
    failing plugin is reported in .errors, named, and the others still load."""
    pm = make_plugin_manager()
    errors: list[str] = []
    versions: dict[str, str] = {}
    candidates: list[tuple[str, object | None, str]] = []
    for name, module in defaults:
        try:
            candidates.append((name, importlib.import_module(module), "built in"))
            versions[name] = f"bot-arena {__version__} (built in)"
        except Exception as exc:  # reported like any plugin's failure, never fatal
            errors.append(f"default plugin {name!r} ({module}) failed to import: "
                          f"{type(exc).__name__}: {exc}")
    built_in = {name for name, _ in DEFAULT_PLUGINS}
    if entry_points:
        for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            dist = ep.dist.name if ep.dist else "?"
            if ep.name in built_in:  # an older install still advertising a built-in plugin
                continue
            try:
                candidates.append((ep.name, ep.load(), dist))
                versions[ep.name] = f"{dist} {ep.dist.version}" if ep.dist else "?"
            except Exception as exc:  # a broken plugin must not stop the others
                errors.append(f"plugin {ep.name!r} (from {dist}) failed to import: "
                              f"{type(exc).__name__}: {exc}")
    for obj in extra:
        name = getattr(obj, "__name__", repr(obj))
        candidates.append((name, obj, "given"))
        versions.setdefault(name, "given")
    for name, obj, _ in candidates:
        try:
            pm.register(obj, name=name)
            pm.check_pending()
        except Exception as exc:
            if pm.is_registered(obj):
                pm.unregister(obj)
            versions.pop(name, None)
            errors.append(f"plugin {name!r} is invalid: {exc}")
    games = GameRegistry()
    bots = BotRegistry(games)
    order = {name: i for i, (name, _, _) in enumerate(candidates)}  # first come, first named
    for impl in sorted(pm.hook.arena_register_games.get_hookimpls(), key=lambda i: order[i.plugin_name]):
        games.current_plugin = impl.plugin_name
        _call_one(impl, "arena_register_games", {"registry": games}, errors, versions)
    games.current_plugin = ""
    for impl in sorted(pm.hook.arena_register_bots.get_hookimpls(), key=lambda i: order[i.plugin_name]):
        bots.current_plugin = impl.plugin_name
        _call_one(impl, "arena_register_bots", {"registry": bots}, errors, versions)
    bots.current_plugin = ""
    plugins = Plugins(manager=pm, bots=bots, games=games, errors=errors, versions=versions)
    for hook, registry in (("arena_register_dialects", plugins.dialects),
                           ("arena_register_executors", plugins.executors),
                           ("arena_register_rating_systems", plugins.rating_systems),
                           ("arena_register_output_formats", plugins.output_formats),
                           ("arena_register_commands", plugins.commands),
                           ("arena_register_matchmakers", plugins.matchmakers)):
        for impl in sorted(getattr(pm.hook, hook).get_hookimpls(), key=lambda i: order[i.plugin_name]):
            registry.current_plugin = impl.plugin_name
            _call_one(impl, hook, {"registry": registry}, errors, versions)
        registry.current_plugin = ""
    return plugins


@functools.cache
def loaded_plugins() -> Plugins:
    """The plugins of this process, loaded once: the registry every consumer shares."""
    return load_plugins()


def game_registry() -> GameRegistry:
    """Every game the loaded plugins declare, built-in ones first."""
    return loaded_plugins().games


def games_only_registry() -> GameRegistry:
    """Every game the built-in games and the entry-point plugins declare, without importing
    arena's other default plugins (the CLI, the league, the reference bots): what a bot
    process of a plugin game needs, at a bot's start-up cost."""
    return load_plugins(defaults=tuple(d for d in DEFAULT_PLUGINS if d[0] == "builtin-games")).games


def _call_one(impl, hook: str, kwargs: dict, errors: list[str], versions: dict[str, str]) -> None:
    try:
        impl.function(**kwargs)
    except Exception as exc:  # one plugin's nonsense must not stop the others
        errors.append(f"plugin {impl.plugin_name!r} failed in {hook}: {exc}")

