"""What a league's bots may read: their own directory and nothing else of the user's,
never the store (every result), the config, or another bot's code. The directories a
config gives a bot are checked here, so that a layout that would show them is refused
before anything runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from arena.referee.botspec import BotCommand, parse_command

from .configfile import KeyPath, Reader

if TYPE_CHECKING:
    from .botentries import BotConfig

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


#: the files SQLite keeps beside a store while it is open
STORE_SIDE_FILES = ("-wal", "-shm", "-journal")


def protected(store: Path | None, publish: Path | None) -> list[tuple[Path, str]]:
    """What no bot may read, by path, whether it exists yet or not: the store and the files
    SQLite writes beside it, and the published site (every result), each described."""
    found: list[tuple[Path, str]] = []
    if store is not None:
        found.append((store, f"the store {str(store)!r}: the bot could read every result"))
        found += [(Path(f"{store}{side}"), f"the store's {side[1:]} file (every result)")
                  for side in STORE_SIDE_FILES]
    if publish is not None:
        found.append((publish, f"the published site {str(publish)!r}: every result"))
    return found


def check_sight(reader: Reader, raw: Sequence[Mapping[str, Any]], bots: Sequence[BotConfig],
                base: Path, store: Path | None, publish: Path | None = None,
                option_files: Callable[[str, Mapping[str, Any]], Mapping[str, Path]] | None = None,
                ) -> None:
    """Refuse a bot whose readable paths hold the store (or its side files, or the published
    site), this config or another bot's own directory (unless it says allow_shared_dir:
    true). The store and the site are checked by path, before the run makes them; a
    registered bot's file options (option_files) are checked as what they show it."""
    config_file = Path(reader.source).resolve() if Path(reader.source).is_file() else None
    results = protected(store, publish)
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
            _check_named(reader, ("bots", i, "command"), bot, commands[bot.name], results)
        sight += [(p.resolve(), ("bots", i, "readable", j)) for j, p in enumerate(bot.readable)]
        if bot.bot is not None and option_files is not None:   # the file alone is shown
            sight += [(path, ("bots", i, "options", key))
                      for key, path in option_files(bot.bot, bot.options).items()]
        for shown, where in sight:
            for path, what in results:
                if inside(path, shown) or inside(shown, path):
                    _refuse(reader, where, bot, shown, what)
            if config_file is not None and inside(config_file, shown):
                _refuse(reader, where, bot, shown, f"this config {str(config_file)!r}")
            for other in bots:
                other_dir, other_code = own[other.name]
                if other is bot or other_dir is None or other_code == own[bot.name][1]:
                    continue   # the same program under two names shares its directory freely
                if inside(other_dir.resolve(), shown):
                    _refuse(reader, where, bot, shown,
                            f"bot {other.name!r}'s directory {str(other_dir)!r}")


def _check_named(reader: Reader, where: KeyPath, bot: BotConfig, command: BotCommand,
                 results: list[tuple[Path, str]]) -> None:
    """Refuse a command naming a path the run makes, that does not exist yet: the store
    (or a directory the run makes for it) or the site. Once made, the referee would show
    the bot its directory, as it does for every file a command names."""
    for i, (word, path) in enumerate(zip(command.words, command.paths)):
        if path is not None or not ("/" in word or i > 0):
            continue           # an existing path is checked as what it shows
        named = (command.base / word).resolve()
        for result, what in results:
            if inside(result, named) or inside(named, result):
                reader.fail(where, f"bot {bot.name!r} names {str(named)!r}, where the run "
                                   f"puts {what}; a bot's command may not name it")


def _refuse(reader: Reader, where: KeyPath, bot: BotConfig, shown: Path, what: str) -> NoReturn:
    reader.fail(where, f"bot {bot.name!r} would read {str(shown)!r}, which holds {what}; give "
                       f"each bot a directory of its own (its program's directory is what it "
                       f"reads), or set allow_shared_dir: true for this bot (it can then read them)")



def check_site(reader: Reader, publish: Path, store: Path, bots: Sequence[BotConfig], base: Path,
               option_files: Callable[[str, Mapping[str, Any]], Mapping[str, Path]] | None = None,
               ) -> None:
    """Refuse a `publish` directory that would hold what the league needs (each publish
    replaces the whole directory): the store or its side files, this config, a bot's
    directory or program or file option; or that lies inside what a bot is made of (its
    directory, its `readable` paths: each publish would change its files, a new version,
    and it could read every result). Checked by path, before anything runs."""
    config_file = Path(reader.source).resolve() if Path(reader.source).is_file() else None
    needed: list[tuple[Path, str]] = [(store, f"the store {str(store)!r}")]
    needed += [(Path(f"{store}{side}"), f"the store's {side[1:]} file") for side in STORE_SIDE_FILES]
    if config_file is not None:
        needed.append((config_file, f"this config {str(config_file)!r}"))
    for bot in bots:
        roots = [path.resolve() for path in ([bot.dir] if bot.dir is not None else []) + list(bot.readable)]
        for root in roots:
            if inside(publish, root) and not shared(root):
                reader.fail(("publish",), f"{str(publish)!r} is inside {str(root)!r}, which bot "
                                          f"{bot.name!r} is made of: each publish would change "
                                          "its files (a new version), and it could read every "
                                          "result; publish the site elsewhere")
        needed += [(root, f"bot {bot.name!r}'s files {str(root)!r}") for root in roots]
        code = own_code(parse_command(bot.command, base)) if bot.command else None
        if code is not None:
            needed.append((code.resolve(), f"bot {bot.name!r}'s program {str(code)!r}"))
        if bot.bot is not None and option_files is not None:
            needed += [(path, f"bot {bot.name!r}'s file {str(path)!r} ({key})")
                       for key, path in option_files(bot.bot, bot.options).items()]
    for path, what in needed:
        if inside(path, publish):
            reader.fail(("publish",), f"{str(publish)!r} would hold {what}, which a publish "
                                      "deletes with the old site; give the site a directory "
                                      "of its own")
