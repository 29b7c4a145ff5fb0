"""BotSpec, how to start one bot, and the dialect it speaks (dialect_of). Turn what a user
writes for a bot (a registered name, or DIALECT:COMMAND) into a BotSpec,
reading a command line the one way the referee runs it (the league config reads it here too),
and a bot a plugin declares into the BotSpec that runs it (bot_spec)."""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import arena
from arena.declarations import BotDeclaration
from arena.errors import ArenaError
from arena.protocol import Dialect
from arena.registry import PluginError

if TYPE_CHECKING:
    from arena.plugins import Plugins


@dataclass(frozen=True)
class BotSpec:
    """How to start one bot: its command, dialect and what it may read."""

    name: str
    argv: tuple[str, ...]
    dialect: str = "arena"
    readable: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    spec: str = ""                       #: what the user wrote, for the record
    options: Mapping[str, object] = field(default_factory=dict)
    #: the version's fingerprint (arena.league.versions) when known: a kept process is
    #: reused only for the same, so a bot whose files changed starts afresh
    fingerprint: str = ""


def dialect_of(name: str, dialects: Mapping[str, Dialect] | None = None) -> Dialect:
    """The dialect called name: from dialects (a run's, as its registry resolved them) when
    there, else where a caller gave none (a test, a script) from the loaded plugins."""
    if dialects and name in dialects:
        return dialects[name]
    from arena.plugins import plugins_or_loaded
    return plugins_or_loaded(None).dialects.require(name)


class BotSpecError(ArenaError, ValueError):
    """A bot description that names no bot and no command."""


ARENA_PACKAGE_DIR = str(Path(arena.__file__).resolve().parent)


@functools.cache
def byte_compile(path: str) -> None:
    """Write the missing .pyc files of a Python bot's package (a directory) or module (a
    file). A sandboxed bot sees its code read-only and cannot cache them itself, so
    without them every bot start compiles its modules from source again. Best effort:
    an unwritable directory just stays as it is."""
    import compileall
    import py_compile
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


@dataclass(frozen=True)
class BotCommand:
    """A bot's command line as the referee runs it: its words, and the file or directory
    each names. A word names a path when it holds a '/' (or, after the program, when it is
    the name of something in the base directory) and that path exists; the program, without
    a '/', is looked up on PATH as a shell would."""

    text: str
    base: Path                              #: where relative paths are read from
    words: tuple[str, ...]                  #: as written
    paths: tuple[Path | None, ...]          #: each word's existing path, resolved, or None

    @property
    def argv(self) -> tuple[str, ...]:
        """The words with every path they name made absolute: runs from any directory."""
        return tuple(str(p) if p is not None else w for w, p in zip(self.words, self.paths))

    def program_problem(self) -> str | None:
        """Why the program cannot be found (a missing file, a name not on PATH), or None."""
        program = self.words[0]
        if "/" in program:
            if self.paths[0] is None:
                return (f"program {program!r} not found: the file does not exist (relative "
                        f"paths are relative to {str(self.base)!r})")
        elif shutil.which(program) is None:
            here = (self.base / program).exists()
            return f"program {program!r} is not on PATH" + (
                f" (for the file in {str(self.base)!r} write './{program}')" if here else "")
        return None

    def script_problem(self) -> str | None:
        """Why the script an interpreter is told to run cannot be found (`python3 bots/a.py`
        without bots/a.py: the program is found, so only a game would tell), or None. A
        command that runs no script file (`python3 -m pkg`, `sh -c '...'`) has none."""
        index = script_index(self.words)
        script = self.script_path()
        if index is None or script is None or script.exists():
            return None
        return (f"script {self.words[index]!r} not found: {self.words[0]} would run "
                f"{str(script)!r}, which does not exist (relative paths are relative to "
                f"{str(self.base)!r})")

    def script_path(self) -> Path | None:
        """The script file a known interpreter is told to run (see script_index), absolute,
        whether it exists yet or not (a build may make it); None when the command names none."""
        index = script_index(self.words)
        if index is None:
            return None
        if self.paths[index] is not None:
            return self.paths[index]
        word = self.words[index]
        if not _looks_like_path(word):   # perhaps the value of an option we do not know
            return None
        return Path(os.path.normpath(self.base / word))

    def shown(self) -> tuple[Path, ...]:
        """What naming paths shows the bot in the sandbox: each directory it names, and the
        directory of each file (see _readable_for)."""
        return tuple(dict.fromkeys(_readable_for(p) for p in self.paths if p is not None))


@dataclass(frozen=True)
class Interpreter:
    """How an interpreter's command line names the script it runs: the first word after
    its options, unless an option gives the code itself (or a module, or stdin)."""

    code: frozenset[str]     #: options after which no script file is run: -c, -m, -e, ...
    valued: frozenset[str]   #: options whose value is the next word (unless joined: -Wignore)


def _interpreter(*code: str, valued: tuple[str, ...] = ()) -> Interpreter:
    return Interpreter(frozenset(code), frozenset(valued))


#: the interpreters whose script is checked, by the name pattern of their program
INTERPRETERS: tuple[tuple[re.Pattern[str], Interpreter], ...] = (
    (re.compile(r"(python|pypy)[0-9.]*t?"),
     _interpreter("-c", "-m", valued=("-W", "-X", "--check-hash-based-pycs"))),
    (re.compile(r"node(js)?"),
     _interpreter("-e", "--eval", "-p", "--print", "-i", "--interactive",
                  valued=("-r", "--require", "--import", "--loader", "--experimental-loader",
                          "-C", "--conditions", "--input-type"))),
    (re.compile(r"ruby[0-9.]*"),    # -C: the script is read from another directory
     _interpreter("-e", "-C", valued=("-I", "-r", "-E", "--encoding"))),
    (re.compile(r"perl[0-9.]*"), _interpreter("-e", "-E", valued=("-I", "-M", "-m"))),
    (re.compile(r"(ba|da|k|z)?sh"),   # -s: commands from stdin
     _interpreter("-c", "-s", "-i", valued=("-o", "-O", "--rcfile", "--init-file"))),
)


def script_index(words: tuple[str, ...]) -> int | None:
    """Which word names the script file the program runs: for a known interpreter the
    first word after its options, for java the word after -jar; None when there is none
    (another program, or the code is given another way)."""
    name = os.path.basename(words[0])
    if name == "java":
        return words.index("-jar") + 1 if "-jar" in words[:-1] else None
    interpreter = next((i for pattern, i in INTERPRETERS if pattern.fullmatch(name)), None)
    if interpreter is None:
        return None
    index = 1
    while index < len(words):
        word = words[index]
        if word == "--":
            return index + 1 if index + 1 < len(words) else None
        if word == "-":                       # the script comes from stdin
            return None
        if not word.startswith("-"):
            return index
        if word.startswith("--"):
            option = word.split("=", 1)[0]
            if option in interpreter.code:
                return None
            if option in interpreter.valued and "=" not in word:
                index += 1
        else:                                 # a cluster of short options: -Bc, -uW ignore
            for at in range(1, len(word)):
                option = word[0] + word[at]
                if option in interpreter.code:
                    return None
                if option in interpreter.valued:
                    if at == len(word) - 1:   # else the value is the rest of the word
                        index += 1
                    break
        index += 1
    return None


def _looks_like_path(word: str) -> bool:
    """A word that names a file: it has a '/' or a file extension (bot.py, main.js)."""
    return "/" in word or re.search(r"\.[A-Za-z][A-Za-z0-9]*$", word) is not None


def parse_command(command: str, base: str | os.PathLike[str] | None = None) -> BotCommand:
    """Read a shell-style command line, relative paths from base (default: the working
    directory); BotSpecError when it cannot be split or is empty."""
    try:
        words = tuple(shlex.split(command))
    except ValueError as exc:
        raise BotSpecError(f"cannot split into words ({exc}): check the quotes") from None
    if not words:
        raise BotSpecError("must name a program to run, got an empty command")
    root = Path(base if base is not None else os.getcwd())
    paths: list[Path | None] = []
    for i, word in enumerate(words):
        path = root / word
        paths.append(path.resolve() if ("/" in word or i > 0) and path.exists() else None)
    return BotCommand(text=command, base=root, words=words, paths=tuple(paths))


def _dialect_names(dialects: Sequence[str] | None) -> list[str]:
    """dialects, the names a run's registry knows; where a caller gave none, the loaded
    plugins' (built-in ones first)."""
    if dialects is not None:
        return list(dialects)
    from arena.plugins import plugins_or_loaded
    return plugins_or_loaded(None).dialects.names()


def command_spec(name: str, dialect: str, command: str, cwd: str | None = None,
                 readable: tuple[str, ...] = (), dialects: Sequence[str] | None = None) -> BotSpec:
    """A bot started by a shell-style command line; paths in it are made absolute and readable.
    dialects: the names a run's registry knows (default: the loaded plugins')."""
    known = _dialect_names(dialects)
    if dialect not in known:
        raise BotSpecError(f"unknown dialect {dialect!r} in {dialect}:{command}; "
                           f"known: {', '.join(known)}")
    try:
        parsed = parse_command(command, cwd)
    except BotSpecError as exc:
        raise BotSpecError(f"{exc} (in {dialect}:{command})") from None
    problem = parsed.program_problem() or parsed.script_problem()
    if problem is not None:
        raise BotSpecError(f"{problem} (in {dialect}:{command})")
    byte_compile(ARENA_PACKAGE_DIR)   # the bot may use the Python SDK
    shown = tuple(readable) + tuple(str(p) for p in parsed.shown())
    return BotSpec(name=name, argv=parsed.argv, dialect=dialect, readable=tuple(dict.fromkeys(shown)),
                   spec=f"{dialect}:{command}")


def _readable_for(path: Path) -> Path:
    """What a bot may read for a file or directory its command names: the directory, or for a
    file its directory, except the temp directory itself (shared by everything, and the root
    of every bot's scratch dir), where only the file is shown."""
    if path.is_dir() or path.parent == Path(tempfile.gettempdir()).resolve():
        return path
    return path.parent


def resolve_bot(text: str, registered: Callable[[str], BotSpec | None] | None = None,
                name: str | None = None, *, dialects: Sequence[str]) -> BotSpec:
    """BotSpec for 'DIALECT:COMMAND' (dialects: the names there are) or a registered bot name."""
    known = list(dialects)
    dialect, sep, command = text.partition(":")
    if sep and dialect in known:
        return command_spec(name or command.strip() or text, dialect, command, dialects=known)
    spec = registered(text) if registered else None
    if spec is None:
        raise BotSpecError(f"{text!r} is neither a registered bot nor DIALECT:COMMAND "
                           f"(dialects: {', '.join(known)}); `arena bots` lists the bots")
    if name:
        spec = dataclasses.replace(spec, name=name)
    return spec


# --- bots a plugin declares ------------------------------------------------------------------

def _code_path(target: str) -> str | None:
    """The package directory or module file of a 'module:Class' target's top-level name.

    Found from the target module itself where it exists (importing its parent packages, not
    the module): the top-level name alone would take a `bots/` directory in the working
    directory (a namespace package) for an installed `bots` package."""
    module = target.split(":", 1)[0]
    for name in (module, module.split(".", 1)[0]):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or spec.origin is None:
            continue
        path = Path(spec.origin)
        if spec.submodule_search_locations:     # a package: its __init__.py's directory
            path = path.parent
        for _ in range(name.count(".")):        # up to the top-level package
            path = path.parent
        return str(path)
    return None


def module_dir(target: str) -> str | None:
    """Directory holding the top-level package of a 'module:Class' target, without importing it."""
    path = _code_path(target)
    if path is None:
        return None
    resolved = Path(path).resolve()
    return str(resolved if resolved.is_dir() else resolved.parent)


def bot_spec(decl: BotDeclaration, options: Mapping[str, Any] | None = None, name: str | None = None,
             base_dir: str | Path | None = None) -> BotSpec:
    """The referee's BotSpec for a declared bot with the given options; file options are
    made absolute (from base_dir) and their files readable in the sandbox."""
    opts = decl.check_options(options or {})
    files: list[str] = []
    for key, option in decl.options.items():
        path = option.file_path(opts[key], base_dir)
        if path is not None:
            opts[key] = str(path)
            files.append(str(path))
    env: dict[str, str] = {}
    if decl.target is not None:
        argv = sdk_argv(decl.target, opts)
        for code in (ARENA_PACKAGE_DIR, _code_path(decl.target)):
            if code:
                byte_compile(code)
        where = module_dir(decl.target)
        readable = (ARENA_PACKAGE_DIR,) + code_paths(decl.target) + tuple(files)
        # the sandbox shows only these directories, so name their parents on the
        # import path rather than rely on how the packages were installed
        roots = [str(Path(ARENA_PACKAGE_DIR).parent)]
        if where:
            roots.append(where if _is_module_file_dir(decl.target, where) else str(Path(where).parent))
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(roots))
    elif decl.command is not None:
        argv = tuple(decl.command) + tuple(f"{k}={v}" for k, v in sorted(opts.items()))
        readable = (ARENA_PACKAGE_DIR,) + tuple(files)
    else:   # BotRegistry.add refuses such a declaration; one built by hand may reach here
        raise PluginError(f"bot {decl.name!r} needs exactly one of target or command")
    return BotSpec(name=name or decl.name, argv=argv, dialect=decl.dialect, readable=readable,
                   env=env, spec=decl.name, options=opts)


def code_paths(target: str) -> tuple[str, ...]:
    """What a Python bot may read of its own code: its package directory, or for a
    module that is a single file, that file and its compiled copy (never the directory
    around it, which may be site-packages or the user's working directory)."""
    path = _code_path(target)
    if path is None:
        return ()
    resolved = Path(path).resolve()
    if resolved.is_dir():
        return (str(resolved),)
    compiled = Path(importlib.util.cache_from_source(str(resolved)))
    return (str(resolved),) + ((str(compiled),) if compiled.is_file() else ())


def _is_module_file_dir(target: str, where: str) -> bool:
    """True when target's top-level module is a single file directly in where."""
    top = target.split(":", 1)[0].split(".", 1)[0]
    return (Path(where) / f"{top}.py").is_file()


def registered_bot_spec(name: str, plugins: Plugins | None = None) -> BotSpec | None:
    """BotSpec for a bot name the plugins (default: the loaded ones) registered, with its
    default options, or None."""
    from arena.plugins import plugins_or_loaded
    decl = plugins_or_loaded(plugins).bots.get(name)
    return None if decl is None else bot_spec(decl)
