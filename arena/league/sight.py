"""What a league's bots may read: their own directory and nothing else of the user's,
never the store (every result), the config, or another bot's code. The directories a
config gives a bot are checked here, so that a layout that would show them is refused
before anything runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from arena.referee.botspec import BotCommand, parse_command

from .configfile import KeyPath, Reader

if TYPE_CHECKING:
    from .config import BotConfig

#: directories every bot may read anyway (the system, this Python): never a bot's own code
_SHARED_ROOTS = tuple(dict.fromkeys(os.path.realpath(p) for p in (
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", sys.prefix, sys.base_prefix,
    sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)))))


def inside(path: Path, root: Path) -> bool:
    """True when path is root or lies under it."""
    return path == root or root in path.parents


def own_code(command: BotCommand) -> Path | None:
    """The bot's own program or script: the script a known interpreter runs (`python3
    bots/a.py`, `java -jar b.jar`) wherever the interpreter lives, None while that script
    does not exist yet (a build makes it); for another program, the first file its command
    names that is not part of the system or this Python (`./bot`)."""
    script = command.script_path()
    # an interpreter outside the system (/opt/py27/bin/python2.7) is not the bot's code:
    # its script is, and decides the bot's directory
    if script is not None and not script.is_dir() and not shared(script):
        return script if script.is_file() else None
    for word, path in zip(command.words, command.paths):
        if (path is not None and not word.startswith("-") and path.is_file()
                and not shared(path)):
            return path
    return None


def shared(path: Path) -> bool:
    """True for a path inside the system or this Python, which every bot reads anyway."""
    return any(inside(path, Path(root)) for root in _SHARED_ROOTS)


def check_sight(reader: Reader, raw: Sequence[Mapping[str, Any]], bots: Sequence[BotConfig],
                 base: Path, store: Path | None) -> None:
    """Refuse a bot whose readable paths hold the store, this config or another bot's own
    directory (unless it says allow_shared_dir: true)."""
    config_file = Path(reader.source).resolve() if Path(reader.source).is_file() else None
    commands = {bot.name: parse_command(bot.command, base) for bot in bots if bot.command}
    own = {bot.name: (bot.dir, own_code(commands[bot.name]) if bot.command else None)
           for bot in bots}
    for i, bot in enumerate(bots):
        if bot.allow_shared_dir:
            continue
        sight: list[tuple[Path, KeyPath]] = []
        if bot.command is not None:
            key: KeyPath = ("bots", i, "dir" if "dir" in raw[i] else "command")
            if bot.dir is not None:
                sight.append((bot.dir.resolve(), key))
            # what naming files shows the bot, as the referee runs the command
            sight += [(d, ("bots", i, "command")) for d in commands[bot.name].shown()
                      if not shared(d)]
        sight += [(p.resolve(), ("bots", i, "readable", j)) for j, p in enumerate(bot.readable)]
        for shown, where in sight:
            if store is not None and inside(store, shown):
                _refuse(reader, where, bot, shown, f"the store {str(store)!r}: the bot could read every result")
            if config_file is not None and inside(config_file, shown):
                _refuse(reader, where, bot, shown, f"this config {str(config_file)!r}")
            for other in bots:
                other_dir, other_code = own[other.name]
                if other is bot or other_dir is None or other_code == own[bot.name][1]:
                    continue   # the same program under two names shares its directory freely
                if inside(other_dir.resolve(), shown):
                    _refuse(reader, where, bot, shown,
                            f"bot {other.name!r}'s directory {str(other_dir)!r}")


def _refuse(reader: Reader, where: KeyPath, bot: BotConfig, shown: Path, what: str) -> NoReturn:
    reader.fail(where, f"bot {bot.name!r} would read {str(shown)!r}, which holds {what}; give "
                       f"each bot a directory of its own (its program's directory is what it "
                       f"reads), or set allow_shared_dir: true for this bot (it can then read them)")
