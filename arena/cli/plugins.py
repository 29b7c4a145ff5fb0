"""arena bots and arena plugins: what the loaded plugins declare."""

from __future__ import annotations

import argparse
import json

from .common import loaded


def cmd_bots(args: argparse.Namespace) -> int:
    plugins = loaded()
    if args.game:
        plugins.games.get(args.game)
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
    games: dict[str, int] = {}
    for game in plugins.games.names():
        games[plugins.games.plugin(game)] = games.get(plugins.games.plugin(game), 0) + 1
    for name, version in sorted(plugins.versions.items()):
        declared = f"{games[name]} games, " if games.get(name) else ""
        print(f"{name}  {version}  ({declared}{counts.get(name, 0)} bots)")
    for error in plugins.errors:
        print(f"FAILED  {error}")
    return 1 if plugins.errors else 0
