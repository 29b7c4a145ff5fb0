"""Turn what a user writes for a bot (a registered name, or DIALECT:COMMAND) into a BotSpec."""

from __future__ import annotations

import compileall
import dataclasses
import functools
import os
import py_compile
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import arena
from arena.errors import ArenaError
from arena.protocol import DIALECTS

from .referee import BotSpec


class BotSpecError(ArenaError, ValueError):
    """A bot description that names no bot and no command."""


ARENA_PACKAGE_DIR = str(Path(arena.__file__).resolve().parent)


@functools.cache
def byte_compile(path: str) -> None:
    """Write the missing .pyc files of a Python bot's package (a directory) or module (a
    file). A sandboxed bot sees its code read-only and cannot cache them itself, so
    without them every bot start compiles its modules from source again. Best effort:
    an unwritable directory just stays as it is."""
    try:
        if os.path.isdir(path):
            compileall.compile_dir(path, quiet=2)
        elif path.endswith(".py"):
            py_compile.compile(path, doraise=False, quiet=2)
    except OSError:
        pass


def sdk_argv(target: str, options: Mapping[str, object] | None = None) -> tuple[str, ...]:
    """Command that runs a Python agent class ('module:Class') through the SDK."""
    import json
    opts = tuple(f"{k}={json.dumps(v)}" for k, v in sorted((options or {}).items()))
    return (sys.executable, "-m", "arena.sdk", target) + opts


def command_spec(name: str, dialect: str, command: str, cwd: str | None = None,
                 readable: tuple[str, ...] = ()) -> BotSpec:
    """A bot started by a shell-style command line; paths in it are made absolute and readable."""
    if dialect not in DIALECTS:
        raise BotSpecError(f"unknown dialect {dialect!r} in {dialect}:{command}; "
                           f"known: {', '.join(DIALECTS)}")
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise BotSpecError(f"cannot parse the command {command!r}: {exc}") from None
    if not words:
        raise BotSpecError(f"empty command in {dialect}:{command!r}")
    base = Path(cwd or os.getcwd())
    argv, dirs = [], list(readable)
    for i, word in enumerate(words):
        path = base / word
        looks_like_path = "/" in word or (i > 0 and path.exists())
        if looks_like_path and path.exists():
            resolved = path.resolve()
            argv.append(str(resolved))
            dirs.append(str(_readable_for(resolved)))
        elif i == 0 and "/" in word:
            raise BotSpecError(f"{word!r} does not exist (in {dialect}:{command})")
        else:
            if i == 0 and shutil.which(word) is None:
                raise BotSpecError(f"command {word!r} not found on PATH (in {dialect}:{command})")
            argv.append(word)
    byte_compile(ARENA_PACKAGE_DIR)   # the bot may use the Python SDK
    return BotSpec(name=name, argv=tuple(argv), dialect=dialect, readable=tuple(dict.fromkeys(dirs)),
                   spec=f"{dialect}:{command}")


def _readable_for(path: Path) -> Path:
    """What a bot may read for a file or directory its command names: the directory, or for a
    file its directory, except the temp directory itself (shared by everything, and the root
    of every bot's scratch dir), where only the file is shown."""
    if path.is_dir() or path.parent == Path(tempfile.gettempdir()).resolve():
        return path
    return path.parent


def resolve_bot(text: str, registered: Callable[[str], BotSpec | None] | None = None,
                name: str | None = None) -> BotSpec:
    """BotSpec for 'DIALECT:COMMAND' or a registered bot name."""
    dialect, sep, command = text.partition(":")
    if sep and dialect in DIALECTS:
        return command_spec(name or command.strip() or text, dialect, command)
    spec = registered(text) if registered else None
    if spec is None:
        raise BotSpecError(f"{text!r} is neither a registered bot nor DIALECT:COMMAND "
                           f"(dialects: {', '.join(DIALECTS)}); `arena bots` lists the bots")
    if name:
        spec = dataclasses.replace(spec, name=name)
    return spec
