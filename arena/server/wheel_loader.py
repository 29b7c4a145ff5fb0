"""The bots a wheel's plugin declares, read inside the sandbox (never in the server's process):

    python -m arena.server.wheel_loader WHEEL_DIR GAME

imports the `arena` entry points of the distribution unpacked in WHEEL_DIR, calls their bot
hook through a plugin manager holding only them and arena's built-in games, and prints one
line of JSON: {"bots": [declarations of bots playing GAME], "others": [[name, game], ...],
"errors": [...]}. Whatever the plugin prints goes to stderr.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from collections.abc import Sequence
from typing import Any

from arena.declarations import BotDeclaration
from arena.plugins import DEFAULT_PLUGINS, ENTRY_POINT_GROUP, load_plugins


def declared(wheel_dir: str, game: str) -> dict[str, Any]:
    """What the wheel's plugin declares: its bots for game, the others, and what failed."""
    errors: list[str] = []
    modules: list[object] = []
    points = [ep for dist in importlib.metadata.distributions(path=[wheel_dir])
              for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP]
    if not points:
        errors.append(f"the wheel has no {ENTRY_POINT_GROUP!r} entry point (a bot plugin "
                      f"declares one: [project.entry-points.{ENTRY_POINT_GROUP}])")
    for ep in points:
        try:
            modules.append(ep.load())
        except Exception as exc:   # the plugin's own failure, said to its owner
            errors.append(f"plugin {ep.name!r} failed to import: {type(exc).__name__}: {exc}")
    games = tuple(d for d in DEFAULT_PLUGINS if d[0] == "builtin-games")
    plugins = load_plugins(extra=tuple(modules), entry_points=False, defaults=games) if modules else None
    bots = plugins.bots.all() if plugins is not None else []
    errors += plugins.errors if plugins is not None else []
    return {"bots": [_plain(decl) for decl in bots if decl.plays(game)],
            "others": [[decl.name, decl.game] for decl in bots if not decl.plays(game)],
            "errors": errors}


def _plain(decl: BotDeclaration) -> dict[str, Any]:
    """A declaration as JSON-ready data: how it starts and its options' defaults."""
    return {"name": decl.name, "game": decl.game, "description": decl.description,
            "target": decl.target, "command": list(decl.command) if decl.command else None,
            "dialect": decl.dialect,
            "options": {key: option.default for key, option in decl.options.items()}}


def main(argv: Sequence[str] | None = None) -> int:
    """Print the declarations as one line of JSON on stdout; exit 2 on bad arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m arena.server.wheel_loader WHEEL_DIR GAME", file=sys.stderr)
        return 2
    answer = sys.stdout
    sys.stdout = sys.stderr   # a plugin's prints must not mix with the answer
    found = declared(args[0], args[1])
    answer.write(json.dumps(found, default=str) + "\n")
    answer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
