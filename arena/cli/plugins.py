"""arena bots and arena plugins: what the loaded plugins declare."""

from __future__ import annotations

import argparse
import json
from collections import Counter

from .command import Command
from .common import loaded


def cmd_bots(args: argparse.Namespace) -> int:
    plugins = loaded()
    if args.game:
        plugins.games.require(args.game)
    bots = [b for b in plugins.bots.all() if not args.game or b.plays(args.game)]
    if args.format == "json":
        print(json.dumps([{"name": b.name, "game": b.game, "plugin": b.plugin,
                           "description": b.description,
                           "options": {k: {"default": o.default, "help": o.help}
                                       for k, o in b.options.items()}} for b in bots], indent=2))
        return 0
    width = max((len(b.name) for b in bots), default=4)
    gwidth = max((len(b.game) for b in bots), default=4)
    for b in bots:
        print(f"{b.name:<{width}}  {b.game:<{gwidth}}  [{b.plugin}]  {b.description}")
        for key, opt in b.options.items():
            print(f"{'':<{width}}    {key}={opt.default!r}  {opt.help}")
    if not bots:
        print("no bots" + (f" play {args.game}" if args.game else " are registered"))
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    plugins = loaded()
    counts: dict[str, int] = {}
    for b in plugins.bots.all():
        counts[b.plugin] = counts.get(b.plugin, 0) + 1
    games = Counter(plugins.games.plugin(game) for game in plugins.games.names())
    commands = Counter(plugins.commands.plugin(command) for command in plugins.commands)
    dialects = Counter(plugins.dialects.plugin(dialect) for dialect in plugins.dialects)
    ratings = Counter(plugins.rating_systems.plugin(name) for name in plugins.rating_systems)
    formats = Counter(plugins.output_formats.plugin(name) for name in plugins.output_formats)
    executors = Counter(plugins.executors.plugin(name) for name in plugins.executors)
    matchmakers = Counter(plugins.matchmakers.plugin(name) for name in plugins.matchmakers)
    rows = []
    for name, version in sorted(plugins.versions.items()):
        declared = [_count(n, what) for n, what in (
            (games[name], "game"), (dialects[name], "dialect"), (commands[name], "command"),
            (ratings[name], "rating system"), (formats[name], "output format"),
            (executors[name], "executor"), (matchmakers[name], "matchmaker")) if n]
        rows.append((name, version, ", ".join([*declared, _count(counts.get(name, 0), "bot")])))
    width = max((len(name) for name, _, _ in rows), default=0)
    vwidth = max((len(version) for _, version, _ in rows), default=0)
    for name, version, declared_text in rows:
        print(f"{name:<{width}}  {version:<{vwidth}}  {declared_text}")
    for error in plugins.errors:
        print(f"FAILED  {error}")
    return 1 if plugins.errors else 0


def _count(n: int, noun: str) -> str:
    """'1 game', '4 games', '0 bots'."""
    return f"{n} {noun}{'s' * (n != 1)}"


def _bots_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", help="only bots that play this game")
    p.add_argument("--format", choices=("text", "json"), default="text")


COMMANDS = (
    Command("bots", "list the registered bots, their games and options", cmd_bots, _bots_arguments),
    Command("plugins", "list the loaded plugins and their versions", cmd_plugins),
)
