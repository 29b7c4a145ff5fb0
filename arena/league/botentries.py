"""The bots of a league config: each entry (a registered bot with options, or a command
speaking a dialect) read, checked and turned into a BotConfig. arena.league.config reads
the rest of the file and calls these for `bots:`; a ladder's newcomer and a server's
submission are checked by the same code (config.validate_entrant)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bounds import describe as _describe
from arena.protocol import Dialect
from arena.referee.botspec import BotSpecError, parse_command
from arena.registry import Registry

from .configfile import KeyPath, Reader, read_path
from .sight import check_sight, own_code

__all__ = ["BOT_KEYS", "BotCheck", "BotConfig", "BotContext", "BotProblem", "OptionFiles", "bot_entries", "bot_entry"]


@dataclass(frozen=True)
class BotProblem:
    """What a bot check found wrong; option names the bad option, if one is to blame."""

    message: str
    option: str | None = None


#: Checks a registered bot: (bot name, game, options) -> None when fine, else the problem.
BotCheck = Callable[[str, str, Mapping[str, Any]], "str | BotProblem | None"]
#: The files a registered bot's options name: (bot name, options) -> {option: absolute path}.
OptionFiles = Callable[[str, Mapping[str, Any]], Mapping[str, Path]]


@dataclass(frozen=True)
class BotConfig:
    """One entrant: a registered bot with options, or a command speaking a dialect."""

    name: str
    bot: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    command: str | None = None
    #: the command split into words, files that exist made absolute (runs from any directory)
    argv: tuple[str, ...] = ()
    dialect: str = "arena"
    #: the bot's own directory, which it may read (absolute): the directory of its program
    #: (or script), or the `dir` given; None for registered bots and programs on PATH
    dir: Path | None = None
    #: more files and directories the bot may read (absolute, they exist)
    readable: tuple[Path, ...] = ()
    #: the user accepts that what the bot reads holds the store, this config or another bot
    allow_shared_dir: bool = False
    #: a command run once before the league in the bot's directory (outside the sandbox)
    build: str | None = None

    @property
    def spec(self) -> str:
        """How the bot is started, as a record's BotEntry.spec: NAME or DIALECT:COMMAND."""
        return self.bot if self.bot is not None else f"{self.dialect}:{self.command}"


#: the keys a bot entry may have
BOT_KEYS = ("name", "bot", "options", "command", "dialect", "dir", "readable", "allow_shared_dir",
            "build")


@dataclass(frozen=True)
class BotContext:
    """What a bot entry is read against: the config's directory (relative paths start there),
    the game its league plays, the check of registered bots (None: any name and options
    pass) and the dialects a command may speak."""

    base: Path
    game: str
    known_bots: BotCheck | None
    dialects: Registry[Dialect]


def bot_entries(reader: Reader, raw: Any, context: BotContext, store: Path | None = None,
                publish: Path | None = None,
                option_files: OptionFiles | None = None) -> tuple[BotConfig, ...]:
    """The `bots:` list, each entry checked (bot_entry), names unique, and what each may
    read checked against the store, the published site and the others (check_sight)."""
    if not isinstance(raw, list) or len(raw) < 2:
        count = f"{len(raw)} bot{'s' * (len(raw) != 1)}" if isinstance(raw, list) else _describe(raw)
        reader.fail(("bots",), f"must be a list of at least 2 bots (each with name and bot "
                               f"or command), got {count}")
    bots: list[BotConfig] = []
    first_use: dict[str, int] = {}
    for i, item in enumerate(raw):
        bot = bot_entry(reader, item, ("bots", i), context)
        if bot.name in first_use:
            reader.fail(("bots", i, "name"), f"duplicate bot name {bot.name!r} (already used by "
                                             f"bots[{first_use[bot.name]}]); names must be unique")
        first_use[bot.name] = i
        bots.append(bot)
    check_sight(reader, raw, bots, context.base, store, publish, option_files)
    return tuple(bots)


def bot_entry(reader: Reader, raw: Any, path: KeyPath, context: BotContext) -> BotConfig:
    """One entry of `bots:` at key path `path`, checked whole; ConfigError (one line)."""
    item = reader.mapping(raw, path, BOT_KEYS, required=("name",), what="a bot: a mapping")
    name = reader.value(item["name"], path + ("name",), str, {})
    if "|" in name or name != name.strip() or not name.isprintable():
        reader.fail(path + ("name",), f"must be printable text without '|' or surrounding "
                                      f"spaces, got {name!r}")
    if ("bot" in item) == ("command" in item):
        reader.fail(path, "give exactly one of 'bot' (a registered bot) or 'command' "
                          "(a program to run)")
    if "bot" in item:
        return _registered_entry(reader, item, path, name, context)
    return _command_entry(reader, item, path, name, context)


def _registered_entry(reader: Reader, item: Mapping[str, Any], path: KeyPath, name: str,
                      context: BotContext) -> BotConfig:
    """A registered bot's entry (`bot:` and its options, checked by context.known_bots)."""
    for key in ("dialect", "dir", "build"):
        if key in item:
            reader.fail(path + (key,), "only allowed with 'command' (a registered bot "
                                       "knows how it is started)")
    bot_name = reader.value(item["bot"], path + ("bot",), str, {})
    options = item.get("options") or {}
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        reader.fail(path + ("options",), f"must be a mapping of option names to values, "
                                         f"got {_describe(options)}")
    if context.known_bots is not None:
        problem = context.known_bots(bot_name, context.game, options)
        if isinstance(problem, BotProblem) and problem.option is not None:
            reader.fail(path + ("options", problem.option), problem.message)
        if problem is not None:
            reader.fail(path + ("bot",), problem.message if isinstance(problem, BotProblem)
                        else problem)
    return BotConfig(name=name, bot=bot_name, options=dict(options),
                     readable=_readable(reader, item, path, context.base),
                     allow_shared_dir=_allow_shared(reader, item, path))


def _command_entry(reader: Reader, item: Mapping[str, Any], path: KeyPath, name: str,
                   context: BotContext) -> BotConfig:
    """A command's entry: the command, its dialect, its build and its own directory."""
    base = context.base
    if "options" in item:
        reader.fail(path + ("options",), "only allowed with 'bot'; pass a command's options "
                                         "in the command itself")
    command = reader.value(item["command"], path + ("command",), str, {})
    dialect = reader.value(item.get("dialect", "arena"), path + ("dialect",), str,
                           {"choices": context.dialects.names()})
    try:
        parsed = parse_command(command, base)
    except BotSpecError as exc:
        reader.fail(path + ("command",), str(exc))
    build = None
    if "build" in item:
        build = reader.value(item["build"], path + ("build",), str, {})
        if not build.strip():
            reader.fail(path + ("build",), "must be a command to run, got an empty one")
    program = parsed.words[0]
    problem = parsed.program_problem()
    if problem is not None and not (build is not None and "/" in program):   # a build makes it
        reader.fail(path + ("command",), problem)
    problem = parsed.script_problem()
    if problem is not None and build is None:   # a build may make it (tsc: node dist/bot.js)
        reader.fail(path + ("command",), problem)
    bot_dir: Path | None
    if "dir" in item:
        bot_dir = read_path(reader, item["dir"], path + ("dir",), base)
        if not bot_dir.is_dir():
            reader.fail(path + ("dir",), f"must be an existing directory, got {str(bot_dir)!r}")
    else:
        code = own_code(parsed)
        bot_dir = code.parent if code is not None else None
        if build is not None and code is None:   # the program or script is what the build makes
            made = parsed.script_path() or (
                Path(os.path.normpath(base / program)) if "/" in program else None)
            if made is None:
                reader.fail(path + ("build",), "needs 'dir' (the directory to build in) when "
                                               "the command does not name the built program's "
                                               "or script's path")
            if not made.parent.is_dir():   # dist/ holds outputs only: not what the bot is made of
                reader.fail(path + ("build",), f"needs 'dir' (the directory to build in, which holds "
                                               f"the bot's sources): {str(made.parent)!r}, where "
                                               f"the command's program or script lies, does not "
                                               f"exist yet")
            bot_dir = made.parent
    return BotConfig(name=name, command=command, argv=parsed.argv, dialect=dialect, dir=bot_dir,
                     readable=_readable(reader, item, path, base),
                     allow_shared_dir=_allow_shared(reader, item, path), build=build)


def _readable(reader: Reader, item: Mapping[str, Any], path: KeyPath, base: Path) -> tuple[Path, ...]:
    raw = item.get("readable")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        reader.fail(path + ("readable",), f"must be a list of paths (relative to the config's "
                                          f"directory), got {_describe(raw)}")
    found = []
    for i, entry in enumerate(raw):
        where = path + ("readable", i)
        target = read_path(reader, entry, where, base)
        if not target.exists():
            reader.fail(where, f"no such file or directory: {str(target)!r} (a path is taken "
                               f"from the config's directory)")
        found.append(target)
    return tuple(dict.fromkeys(found))


def _allow_shared(reader: Reader, item: Mapping[str, Any], path: KeyPath) -> bool:
    value = item.get("allow_shared_dir", False)
    if not isinstance(value, bool):
        reader.fail(path + ("allow_shared_dir",), f"must be true or false, got {_describe(value)}")
    return value
