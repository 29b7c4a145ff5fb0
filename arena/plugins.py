"""Plugins: pluggy hooks through which packages declare games, bots, dialects, executors,
rating systems, output formats, matchmakers and commands.

A plugin is a module with functions marked @hookimpl. arena's own games and
reference bots are default plugins, imported by name (no installation metadata
needed); third-party plugins are found through the `arena` entry-point group.
load_plugins() fills one Plugins value, a typed arena.registry.Registry per kind; it is
made where a process starts (the CLI's entry, a worker's, the server's: loaded_plugins()
is the process's own, loaded once) and passed down to everything that looks a name up.
What a plugin declares about a bot is its name, game, options and how to start it: bot
code runs only in the bot's sandboxed process.

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
from typing import TYPE_CHECKING, Any

import pluggy

from arena import __version__
from arena.declarations import OPTION_KINDS, BotDeclaration, BotOption
from arena.games import Game
from arena.games.registry import GAMES
from arena.hooks import PROJECT, hookimpl, hookspec
from arena.registry import Kind, PluginError, Registry, UnknownNameError

if TYPE_CHECKING:
    from arena.cli.command import Command
    from arena.league.executors.base import Executor
    from arena.league.leaderboard import OutputFormat
    from arena.league.matchmakers import MatchmakerFactory
    from arena.league.rating_systems import RatingSystem
    from arena.protocol.dialects import Dialect

__all__ = ["COMMANDS", "DEFAULT_PLUGINS", "DIALECTS", "ENTRY_POINT_GROUP", "EXECUTORS", "MATCHMAKERS",
           "OPTION_KINDS", "OUTPUT_FORMATS", "PROJECT", "RATING_SYSTEMS", "ArenaHookSpecs",
           "BotDeclaration", "BotOption", "BotRegistry", "PluginError", "Plugins",
           "UnknownNameError", "games_only_registry", "games_or_loaded", "hookimpl", "hookspec",
           "load_plugins", "loaded_plugins", "make_plugin_manager", "plugins_or_loaded"]

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
    def arena_register_games(self, registry: Registry[type[Game]]) -> None:
        """Declare games with registry.add(GameClass)."""

    @hookspec
    def arena_register_dialects(self, registry: Registry[Dialect]) -> None:
        """Declare protocol dialects with registry.add(name, dialect)."""

    @hookspec
    def arena_register_executors(self, registry: Registry[Executor]) -> None:
        """Declare league executors with registry.add(name, executor)."""

    @hookspec
    def arena_register_rating_systems(self, registry: Registry[RatingSystem]) -> None:
        """Declare rating systems with registry.add(name, rating_system)."""

    @hookspec
    def arena_register_output_formats(self, registry: Registry[OutputFormat]) -> None:
        """Declare leaderboard output formats with registry.add(name, renderer)."""

    @hookspec
    def arena_register_matchmakers(self, registry: Registry[MatchmakerFactory]) -> None:
        """Declare ladder matchmakers with registry.add(name, factory): factory() makes one."""

    @hookspec
    def arena_register_commands(self, registry: Registry[Command]) -> None:
        """Declare CLI subcommands with registry.add(name, command)."""


#: the registry the arena_register_bots hook fills (the name of the class it was)
BotRegistry = Registry[BotDeclaration]


# --- the kinds: what each registry checks of what is added ---------------------------------
# Each check names the plugin, the name and the thing in one line. The types are imported
# only when something is added (a bot's process loads the games alone, without the CLI or
# the league).

def _bot_name(decl: Any, plugin: str) -> str:
    if not isinstance(decl, BotDeclaration):
        raise PluginError(f"plugin {plugin!r} registered {decl!r}, not a BotDeclaration")
    if not decl.name or any(c.isspace() for c in decl.name) or ":" in decl.name:
        raise PluginError(f"plugin {plugin!r}: bot name {decl.name!r} must be non-empty, "
                          "without spaces or ':'")
    return decl.name


def _bots(games: Registry[type[Game]]) -> Kind[BotDeclaration]:
    """Bot declarations: exactly one of target or command, and a game that exists in games."""
    def check(decl: BotDeclaration, name: str, plugin: str) -> str | None:
        if (decl.target is None) == (decl.command is None):
            return f"plugin {plugin!r}: bot {name!r} needs exactly one of target or command"
        if decl.target is not None and decl.target.count(":") != 1:
            return f"plugin {plugin!r}: bot {name!r} target {decl.target!r} must be 'package.module:Class'"
        if decl.game != "*" and decl.game not in games:
            return f"plugin {plugin!r}: bot {name!r} plays unknown game {decl.game!r}"
        return None
    return Kind("bot", check=check, name_of=_bot_name,
                keep=lambda decl, plugin: dataclasses.replace(decl, plugin=plugin))


def _not_a(what: str, thing: Any, name: str, plugin: str, noun: str) -> str:
    return f"plugin {plugin!r}: {noun} {name!r} is {thing!r}, not {what}"


def _dialect(thing: Any, name: str, plugin: str) -> str | None:
    from arena.protocol.dialects import Dialect
    if isinstance(thing, Dialect):
        return None
    return _not_a("an arena.protocol.Dialect (subclass it)", thing, name, plugin, "dialect")


def _executor(thing: Any, name: str, plugin: str) -> str | None:
    # what a run calls of it (subclassing arena.league.executors.Executor gives all three)
    if all(callable(getattr(thing, method, None)) for method in ("play", "check", "plays_here")):
        return None
    return _not_a("an arena.league.executors.Executor (subclass it)", thing, name, plugin, "executor")


def _rating_system(thing: Any, name: str, plugin: str) -> str | None:
    if all(callable(getattr(thing, method, None)) for method in ("prior", "rate")) \
            and all(hasattr(thing, member) for member in ("columns", "words")):
        return None
    return _not_a("an arena.league.rating_systems.RatingSystem (columns, words, prior, rate)",
                  thing, name, plugin, "rating system")


def _output_format(thing: Any, name: str, plugin: str) -> str | None:
    return None if callable(thing) else \
        _not_a("a renderer: (board, wide=False) -> text", thing, name, plugin, "output format")


def _matchmaker(thing: Any, name: str, plugin: str) -> str | None:
    return None if callable(thing) else \
        _not_a("a factory: called with no arguments, it makes a matchmaker", thing, name, plugin,
               "matchmaker")


def _command(thing: Any, name: str, plugin: str) -> str | None:
    from arena.cli.command import Command
    if isinstance(thing, Command) and thing.name == name:
        return None
    return f"plugin {plugin!r}: command {name!r} is not an arena.cli.Command with that name; left out"


DIALECTS: Kind[Dialect] = Kind("dialect", check=_dialect)
EXECUTORS: Kind[Executor] = Kind("executor", check=_executor)
RATING_SYSTEMS: Kind[RatingSystem] = Kind("rating system", check=_rating_system)
OUTPUT_FORMATS: Kind[OutputFormat] = Kind("output format", check=_output_format)
MATCHMAKERS: Kind[MatchmakerFactory] = Kind("matchmaker", check=_matchmaker)
COMMANDS: Kind[Command] = Kind("command", check=_command)


@dataclass
class Plugins:
    """What the loaded plugins declared, one typed registry per kind, and which failed to
    load. Made where a process starts (load_plugins; loaded_plugins for the process's own)
    and passed down to whatever uses a registry."""

    manager: pluggy.PluginManager
    bots: BotRegistry
    games: Registry[type[Game]]
    errors: list[str]
    versions: dict[str, str]
    dialects: Registry[Dialect] = field(default_factory=lambda: Registry(DIALECTS))
    executors: Registry[Executor] = field(default_factory=lambda: Registry(EXECUTORS))
    rating_systems: Registry[RatingSystem] = field(default_factory=lambda: Registry(RATING_SYSTEMS))
    output_formats: Registry[OutputFormat] = field(default_factory=lambda: Registry(OUTPUT_FORMATS))
    commands: Registry[Command] = field(default_factory=lambda: Registry(COMMANDS))
    matchmakers: Registry[MatchmakerFactory] = field(default_factory=lambda: Registry(MATCHMAKERS))


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
    games = Registry(GAMES)
    plugins = Plugins(manager=pm, bots=Registry(_bots(games)), games=games, errors=errors,
                      versions=versions)
    order = {name: i for i, (name, _, _) in enumerate(candidates)}  # first come, first named
    # games first, then bots (so a bot may play a game another plugin added), then the rest
    for hook, registry in (("arena_register_games", plugins.games),
                           ("arena_register_bots", plugins.bots),
                           ("arena_register_dialects", plugins.dialects),
                           ("arena_register_executors", plugins.executors),
                           ("arena_register_rating_systems", plugins.rating_systems),
                           ("arena_register_output_formats", plugins.output_formats),
                           ("arena_register_commands", plugins.commands),
                           ("arena_register_matchmakers", plugins.matchmakers)):
        for impl in sorted(getattr(pm.hook, hook).get_hookimpls(), key=lambda i: order[i.plugin_name]):
            registry.current_plugin = impl.plugin_name
            refused = set(registry.refused)
            _call_one(impl, hook, {"registry": registry}, errors, versions)
            errors.extend(str(why) for name, why in registry.refused.items() if name not in refused)
        registry.current_plugin = ""
    return plugins


@functools.cache
def loaded_plugins() -> Plugins:
    """The plugins of this process, loaded once. Read where a process starts (the CLI's entry,
    a worker's, the server's) and passed down from there."""
    return load_plugins()


def plugins_or_loaded(plugins: Plugins | None) -> Plugins:
    """plugins; where a caller gives none (a test, a script calling the library), this
    process's loaded plugins: the one default of the functions that take plugins."""
    return loaded_plugins() if plugins is None else plugins


def games_or_loaded(games: Registry[type[Game]] | None) -> Registry[type[Game]]:
    """games; where a caller gives none (a test, a script calling the library), the games
    this process's loaded plugins declare: the one default of the functions that take games."""
    return loaded_plugins().games if games is None else games


def games_only_registry() -> Registry[type[Game]]:
    """Every game the built-in games and the entry-point plugins declare, without importing
    arena's other default plugins (the CLI, the league, the reference bots): what a bot
    process of a plugin game needs, at a bot's start-up cost."""
    return load_plugins(defaults=tuple(d for d in DEFAULT_PLUGINS if d[0] == "builtin-games")).games


def _call_one(impl: pluggy.HookImpl, hook: str, kwargs: dict[str, Any], errors: list[str],
              versions: dict[str, str]) -> None:
    try:
        impl.function(**kwargs)
    except Exception as exc:  # one plugin's nonsense must not stop the others
        errors.append(f"plugin {impl.plugin_name!r} failed in {hook}: {exc}")

