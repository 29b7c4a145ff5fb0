"""A submission's untrusted steps, each in the bwrap sandbox: its build, the bots a wheel's
plugin declares, its validation match against a bot of the ladder; and the roster file the
running ladder watches, where an accepted bot joins.

Nothing of a submission runs in the calling process: a build is `sh -c` in bwrap with its
work directory the only place it may write, a wheel's plugin is imported by a loader of ours
in bwrap (arena.server.wheel_loader), and a validation game is the referee's, as in any league.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import select
import shlex
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from arena.bounds import BIG, bounded, problem
from arena.errors import ArenaError
from arena.league.config import BotConfig, ConfigError, LeagueConfig, validate_entrant
from arena.league.configfile import format_path, read_yaml
from arena.league.progress import Progress
from arena.league.runner import known_bots_check, load_league, run_league
from arena.league.sight import inside, shared
from arena.league.store import Store
from arena.plugins import Plugins, plugins_or_loaded
from arena.referee.botspec import ARENA_PACKAGE_DIR, parse_command, sdk_argv
from arena.sandbox import Limits, Sandbox, SandboxedProcess, SandboxError
from arena.sandbox.limits import MIB
from arena.userfiles import kind_of

#: what a wheel's loader may use: it only imports a plugin and calls one hook
LOADER_LIMITS = Limits(cpu_seconds=20, memory_mb=1024, file_size_mb=1, processes=16)
LOADER_SECONDS = 30          #: wall time of the loader
LOADER_OUTPUT = 1 * MIB      #: bytes of declarations read from the loader at most
STDERR_TAIL = 4096           #: bytes of the loader's stderr kept for a message
WATCH_SECONDS = 0.5          #: how often a build's directory is measured while it runs
#: the stop conditions of a ladder, which the roster leaves out: the server's ladder plays on
STOP_KEYS = ("games", "hours", "until")


class SubmissionError(ArenaError):
    """A submission cannot be built, read or validated as given: str() is one line for its
    owner, naming what is wrong and what is allowed."""


@dataclass(frozen=True)
class BuildLimits:
    """What a submission's build may use: the `server: {build: ...}` section."""

    seconds: int = bounded(120, min=1, max=24 * 3600)   #: wall time, and CPU seconds of each process
    memory_mb: int = bounded(1024, min=16, max=BIG)     #: RLIMIT_DATA of each process
    file_mb: int = bounded(64, min=1, max=BIG)          #: RLIMIT_FSIZE: the largest file it may write
    output_kb: int = bounded(256, min=1, max=64 * 1024)  #: of its output (stdout and stderr) kept
    processes: int = bounded(64, min=4, max=BIG)        #: RLIMIT_NPROC: processes and threads
    dir_mb: int = bounded(256, min=1, max=BIG)          #: what its directory may hold at most
    dir_files: int = bounded(10_000, min=1, max=BIG)    #: files and directories in it at most

    def __post_init__(self) -> None:
        for field in fields(self):
            wrong = problem(getattr(self, field.name), int, field.metadata)
            if wrong is not None:
                raise SubmissionError(f"build limit {field.name} {wrong}")


@dataclass(frozen=True)
class BuildResult:
    """How a build ended: ok, its output (capped, saying so where it was cut) and, when not
    ok, why in words ('exit code 2', 'timed out after 120 s')."""

    ok: bool
    log: str
    reason: str


@dataclass(frozen=True)
class Validation:
    """How a validation match ended: ok when every game ended without a fault of the
    candidate; else the first fault in words, with the candidate's stderr tail of that game."""

    ok: bool
    fault: str | None
    stderr_tail: str
    games: int


# --- running one sandboxed process to its end ------------------------------------------------

class _Kept:
    """A stream's bytes up to a cap: its first three quarters and its last quarter, and how
    many were cut between them."""

    def __init__(self, cap: int) -> None:
        self.head_cap = cap - cap // 4
        self.tail_cap = cap // 4
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_cap:
            self.tail += chunk
            del self.tail[:-self.tail_cap]

    @property
    def cut(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self, what: str = "output") -> str:
        """The bytes kept as text, with a line where some were cut."""
        head = self.head.decode(errors="replace")
        if not self.cut:
            return head + self.tail.decode(errors="replace")
        note = (f"\n[{what} cut: {self.total:,} bytes printed, {self.cut:,} left out; kept the "
                f"first {len(self.head):,} and the last {len(self.tail):,}]\n")
        return head + note + self.tail.decode(errors="replace")


@dataclass
class _Ended:
    """A sandboxed process run to its end: its output and how it ended."""

    out: _Kept
    err: _Kept
    timed_out: bool
    returncode: int | None
    description: str
    stopped: str | None = None   #: why the watch stopped it


def _run(proc: SandboxedProcess, seconds: float, out_cap: int, err_cap: int,
         watch: Callable[[], str | None] | None = None) -> _Ended:
    """Read a started process's stdout and stderr until both end, killing its whole tree
    after `seconds` of wall time, or when watch (asked every WATCH_SECONDS) says why;
    closes it."""
    out, err = _Kept(out_cap), _Kept(err_cap)
    deadline = time.monotonic() + seconds
    timed_out = False
    stopped = None
    watched = time.monotonic()
    try:
        proc.close_stdin()
        kept = {proc.stdout_fd: out, proc.stderr_fd: err}
        poller = select.poll()
        for fd in kept:
            poller.register(fd, select.POLLIN)
        while kept:
            now = time.monotonic()
            if watch is not None and now - watched >= WATCH_SECONDS:
                watched = now
                stopped = watch()
                if stopped is not None:
                    proc.kill_tree()
                    break
            left = deadline - now
            if left <= 0:
                timed_out = True
                proc.kill_tree()
                break
            for fd, _event in poller.poll(min(left, WATCH_SECONDS) * 1000):
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if chunk:
                    kept[fd].add(chunk)
                else:   # end of file: in bwrap, once every process of it has gone
                    poller.unregister(fd)
                    del kept[fd]
        if proc.wait(5.0) is None:
            proc.kill_tree()
        proc.wait()
        return _Ended(out, err, timed_out, proc.poll(), proc.exit_description(), stopped)
    finally:
        proc.close()


def _bwrap(limits: Limits, sandbox: Sandbox | None, what: str) -> Sandbox:
    """The bwrap sandbox to run `what` in (the given one, else one with limits); refused in
    any other mode, where an upload could read other bots' files."""
    if sandbox is None:
        try:
            sandbox = Sandbox(limits, mode="bwrap")
        except SandboxError as exc:
            raise SubmissionError(f"{what} runs only in the bwrap sandbox, which is not usable "
                                  f"here: {exc}") from None
    if sandbox.mode != "bwrap":
        raise SubmissionError(f"{what} runs only in the bwrap sandbox, not in mode "
                              f"{sandbox.mode!r} (where it could read other bots' files); "
                              "hint: apt-get install -y bubblewrap")
    return sandbox


# --- the build -------------------------------------------------------------------------------

#: the build's shell: in its work directory, stderr merged into stdout, then the command
_BUILD_SHELL = 'cd -- "$1" || exit 1; exec 2>&1; exec sh -c "$2"'


def build(workdir: Path, command: str, limits: BuildLimits, *,
          sandbox: Sandbox | None = None) -> BuildResult:
    """Run `sh -c command` in workdir in the bwrap sandbox: no network, workdir the only
    directory it may write (besides a private /tmp), each process within the limits, the
    whole tree killed at `limits.seconds` of wall time; its output (stdout and stderr
    merged) kept up to `limits.output_kb`. SubmissionError if bwrap is not usable (or the
    given sandbox is another mode), or workdir is no directory."""
    workdir = Path(workdir)
    if not workdir.is_dir():
        raise SubmissionError(f"build directory {str(workdir)!r} does not exist")
    if not command.strip():
        raise SubmissionError("the build command is empty; give one such as 'make'")
    box = _bwrap(Limits(memory_mb=limits.memory_mb, cpu_seconds=limits.seconds,
                        file_size_mb=limits.file_mb, processes=limits.processes,
                        scratch_mb=max(64, limits.file_mb)), sandbox, "a submission's build")
    try:
        proc = box.start(["sh", "-c", _BUILD_SHELL, "build", str(workdir.resolve()), command],
                         writable=[workdir])
    except SandboxError as exc:
        raise SubmissionError(f"the build could not start: {exc}") from None
    # the directory is the host's disk, which no RLIMIT bounds as a whole: watched as it runs
    ended = _run(proc, limits.seconds, limits.output_kb * 1024, STDERR_TAIL,
                 watch=lambda: _too_much(workdir, limits))
    # stderr holds only what the sandbox itself said (a bwrap set-up failure)
    log = ended.out.text("build output") + ended.err.text()
    if ended.timed_out:
        return BuildResult(False, log, f"timed out after {limits.seconds} s")
    # what it left is read by the ladder on the host (its versions hash every file)
    problem = ended.stopped or _too_much(workdir, limits) or _left_behind(workdir)
    if problem is not None:
        return BuildResult(False, log, problem)
    if ended.returncode != 0:
        return BuildResult(False, log, ended.description)
    return BuildResult(True, log, "")


def _too_much(workdir: Path, limits: BuildLimits) -> str | None:
    """Why a build's directory holds more than its limits allow, or None. A file counts its
    apparent size, not the blocks it takes: a sparse file of 63 MiB takes none, but the
    ladder would read its every byte to fingerprint the bot."""
    size = count = 0
    for folder, dirs, names in os.walk(workdir):
        for name in dirs + names:
            count += 1
            try:
                size += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue   # gone meanwhile
        if count > limits.dir_files:
            return f"it made more than {limits.dir_files:,} files and directories"
        if size > limits.dir_mb * MIB:
            return f"it wrote more than {limits.dir_mb} MiB into its directory"
    return None


def _left_behind(workdir: Path) -> str | None:
    """Why what a build left cannot stay: a link out of its directory, or a file that is no
    regular file (a FIFO would block whoever opens it); None when all is files, directories
    and links within it."""
    top = os.path.realpath(workdir)
    for folder, dirs, names in os.walk(top):
        for name in dirs + names:
            path = os.path.join(folder, name)
            shown = os.path.relpath(path, top)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                if not inside(Path(os.path.realpath(path)), Path(top)):
                    return f"it left {shown!r}, a link out of its directory"
            elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                return f"it left {shown!r}, {kind_of(mode)}"
    return None


# --- a wheel's bots --------------------------------------------------------------------------

def wheel_bots(wheel_dir: Path, game: str, *, sandbox: Sandbox | None = None) -> list[dict[str, Any]]:
    """The bots for `game` that the plugin of the wheel unpacked in wheel_dir declares, as a
    league config's bot entries (name, command, dialect, dir: the wheel's directory). Its
    plugin is imported only by the loader in the sandbox. SubmissionError (one line) when
    the plugin cannot be loaded, fails, or declares no bot for the game."""
    wheel_dir = Path(wheel_dir).resolve()
    if not wheel_dir.is_dir():
        raise SubmissionError(f"wheel directory {str(wheel_dir)!r} does not exist")
    box = _bwrap(LOADER_LIMITS, sandbox, "a wheel's plugin")
    try:
        proc = box.start([sys.executable, "-m", "arena.server.wheel_loader", str(wheel_dir), game],
                         readable=[wheel_dir, ARENA_PACKAGE_DIR],
                         env={"PYTHONPATH": _python_path(wheel_dir)})
    except SandboxError as exc:
        raise SubmissionError(f"the wheel's plugin could not be loaded: {exc}") from None
    ended = _run(proc, LOADER_SECONDS, LOADER_OUTPUT, STDERR_TAIL)
    said = _last_line(ended.err.text())
    if ended.timed_out:
        raise SubmissionError(f"the wheel's plugin took over {LOADER_SECONDS} s to load")
    lines = ended.out.text().strip().splitlines()
    try:
        found = json.loads(lines[-1]) if ended.returncode == 0 and lines and not ended.out.cut else None
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise SubmissionError(f"the wheel's plugin could not be loaded ({ended.description})"
                              + (f": {said}" if said else ""))
    try:   # what the loader printed came from a process the plugin ran in: read it warily
        if found.get("errors"):
            raise SubmissionError(f"the wheel's plugin failed: {str(found['errors'][0])[:500]}")
        entries = [_entry(decl, wheel_dir) for decl in found.get("bots", [])]
        others = ", ".join(f"{name} ({plays})" for name, plays in found.get("others", []))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise SubmissionError("the wheel's plugin could not be loaded: its loader printed "
                              "declarations of another shape") from None
    if not entries:
        raise SubmissionError(f"the wheel's plugin declares no bot for {game}"
                              + (f" (it declares {others})" if others else ""))
    return entries


def _python_path(wheel_dir: Path) -> str:
    """PYTHONPATH of the wheel's code: arena first (a wheel cannot stand in for it), then
    the wheel's directory, where its packages lie."""
    return os.pathsep.join((str(Path(ARENA_PACKAGE_DIR).parent), str(wheel_dir)))


def _entry(decl: Mapping[str, Any], wheel_dir: Path) -> dict[str, Any]:
    """A config bot entry for a declaration, run as an installed plugin's bot would be, with
    the wheel's directory on the import path: a target through the SDK, a command with its
    words; both with the declared options' defaults, as a registered bot's start passes them.
    This Python is named by its file name, which the sandbox's PATH finds first: a config
    resolves a path's symbolic links, and a venv's python resolved is not the venv's."""
    options = dict(decl.get("options") or {})
    if decl.get("target"):
        argv = sdk_argv(str(decl["target"]), options)
    else:
        argv = tuple(str(word) for word in decl["command"]) + tuple(
            f"{key}={value}" for key, value in sorted(options.items()))
    if argv and argv[0] == sys.executable:
        argv = (os.path.basename(sys.executable), *argv[1:])
    words = ("env", f"PYTHONPATH={_python_path(wheel_dir)}", *argv)
    return {"name": str(decl["name"]), "command": shlex.join(words),
            "dialect": str(decl.get("dialect") or "arena"), "dir": str(wheel_dir)}


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


# --- validation ------------------------------------------------------------------------------

def validate(config_path: Path, entry: Mapping[str, Any], against: str, games: int,
             workdir: Path, *, plugins: Plugins | None = None) -> Validation:
    """Play `games` games (seat-swapped pairs) of the candidate bot entry against the bot
    `against` of the ladder config, under the ladder's game, rules, time control and
    sandbox, through the league's own runner, with the store in workdir (which no bot
    reads). SubmissionError for an entry the config would not take or an `against` it
    lacks; RunError when the host cannot play (no fault of the bot); KeyboardInterrupt
    when a stop (Ctrl-C, SIGTERM) cut its games short, which is no verdict. plugins: the
    server's (by default the loaded ones)."""
    plugins = plugins_or_loaded(plugins)
    config = _load(config_path, plugins)
    if "build" in entry:
        raise SubmissionError("a submission's build runs in the sandbox (build()), never as a "
                              "league's build: on the host; leave 'build' out of its entry")
    if games < 2 or games % 2:
        raise SubmissionError(f"validation games must be an even number >= 2 (seat-swapped "
                              f"pairs), got {games!r}")
    if config.made_game(plugins.games).seats != 2:   # (its referee process's, or registered)
        raise SubmissionError(f"validation plays games of two seats; {config.game} here has more")
    opponent = next((bot for bot in config.bots if bot.name == against), None)
    if opponent is None:
        raise SubmissionError(f"validate.against: no bot {against!r} in {config_path}; "
                              f"its bots are {', '.join(config.bot_names)}")
    try:   # as the ladder would take it: no organiser's bot's name, nothing of theirs to read
        candidate = validate_entrant(dict(entry), config, known_bots_check(plugins, config.base_dir),
                                     plugins=plugins)
    except ConfigError as exc:
        raise SubmissionError(_entry_problem(exc)) from None
    confine(candidate, entry, config)
    # the organiser's bot as the ladder built it: its build ran already, on the host
    opponent = dataclasses.replace(opponent, build=None)
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    seen = [path for path in (candidate.dir, *candidate.readable) if path is not None]
    if any(workdir == path or path in workdir.parents for path in seen):
        raise SubmissionError(f"the validation's directory {str(workdir)!r} lies in what the "
                              "bot reads; give one outside it")
    league = dataclasses.replace(
        config, bots=(candidate, opponent), schedule="round-robin", candidates=(), ladder=None,
        games=None, games_per_pairing=games, workers=1, executor="local", ray=None,
        sandbox_mode="bwrap", store=workdir / "validation.sqlite", publish=None, source=None)
    quiet = io.StringIO()
    summary = run_league(league, plugins, workers=1, progress=Progress(0, stream=quiet, tty=False),
                         keep_going=True, standings=0, out=quiet)
    if summary.interrupted:   # Ctrl-C or SIGTERM: its games were cut short, no verdict on the bot
        raise KeyboardInterrupt
    return _verdict(league, candidate.name, games)


def confine(bot: BotConfig, entry: Mapping[str, Any], config: LeagueConfig) -> None:
    """SubmissionError unless a submitted bot (entry, as config reads it) reads only its
    own directory, given as its `dir` and no other bot's, and the system and this Python,
    which every bot reads: the sandbox shows a bot every path its command names, and a
    league's own check allows two bots one directory (one program, two options) and knows
    nothing of the server's files (its database, other submissions)."""
    if bot.command is None:
        return   # a registered bot: the organiser's plugins declare it
    if bot.dir is None or "dir" not in entry:
        raise SubmissionError(f"bot {bot.name!r}: a submission's entry needs its 'dir', its "
                              "own directory")
    own = bot.dir.resolve()
    for other in config.bots:
        if other.name != bot.name and other.dir is not None and (
                inside(own, other.dir.resolve()) or inside(other.dir.resolve(), own)):
            raise SubmissionError(f"bot {bot.name!r}: its directory {str(own)!r} overlaps the "
                                  f"directory of bot {other.name!r}; a submission has one of its own")
    named = [path for path in parse_command(bot.command, config.base_dir).paths if path is not None]
    for path in [*named, *bot.readable]:
        if not (inside(path.resolve(), own) or shared(path.resolve())):
            raise SubmissionError(f"bot {bot.name!r}: its command or readable names {str(path)!r}, "
                                  f"outside its own directory {str(own)!r}; a submission may read "
                                  "only its own files")


def _entry_problem(exc: ConfigError) -> str:
    """What is wrong with a submission's entry, without the organiser's config file and line
    it would be read at (`ladder.yaml:9: bots[7].command: ...` is `command: ...`)."""
    if exc.path[:1] == ("bots",) and len(exc.path) > 1 and isinstance(exc.path[1], int):
        key = format_path(exc.path[2:])
        return f"{key}: {exc.problem}" if key else exc.problem
    return str(exc)


def _load(config_path: Path, plugins: Plugins) -> LeagueConfig:
    try:
        return load_league(str(config_path), plugins)
    except ConfigError as exc:
        raise SubmissionError(f"the ladder's config is not valid: {exc}") from None


def _verdict(league: LeagueConfig, name: str, games: int) -> Validation:
    """The validation's result as its store has it: the candidate's first fault, if any."""
    with Store(league.store, readonly=True) as store:
        records = [game.record for game in store.games.records()]
    for record in records:
        if record.faulted is not None and record.bots[record.faulted].name == name:
            fault = record.termination.label + (f": {record.reason}" if record.reason else "")
            return Validation(False, fault, record.stderr_tails[record.faulted], len(records))
    if len(records) < games:
        return Validation(False, f"validation stopped after {len(records)} of {games} games", "",
                          len(records))
    return Validation(True, None, "", len(records))


# --- the roster ------------------------------------------------------------------------------

class _PlainDumper(yaml.SafeDumper):
    """YAML without anchors: every entry written out in full."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def roster_path(config_path: Path) -> Path:
    """Where the roster of a ladder config lies: beside it, `.<stem>.serve.yaml`."""
    config_path = Path(config_path)
    return config_path.with_name(f".{config_path.stem}.serve.yaml")


def write_roster(config_path: Path, extra: Sequence[Mapping[str, Any]], *,
                 plugins: Plugins | None = None) -> Path:
    """Write the file the running ladder watches: the organiser's config with the `extra`
    bot entries appended and its stop conditions (ladder: games, hours, until) left out,
    beside it so that its relative paths hold. It is checked as `arena run` reads it
    before it replaces the last one at once (os.replace); SubmissionError (the roster as
    it was) when it would not be taken. Its path."""
    config_path = Path(config_path).resolve()
    try:
        data, _reader = read_yaml(config_path)
    except ConfigError as exc:
        raise SubmissionError(f"the ladder's config is not valid: {exc}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("bots"), list):
        raise SubmissionError(f"{config_path}: the ladder's config has no list of bots")
    for item in extra:
        if "build" in item:
            raise SubmissionError(f"bot {item.get('name')!r}: a submission's build runs in the "
                                  "sandbox (build()), never as a league's build: on the host")
    roster = dict(data)
    roster["bots"] = [*data["bots"], *(_plain(dict(item)) for item in extra)]
    if isinstance(roster.get("ladder"), Mapping):
        roster["ladder"] = {k: v for k, v in roster["ladder"].items() if k not in STOP_KEYS}
    target = roster_path(config_path)
    text = yaml.dump(roster, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True)
    fd, temp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(f"# written by arena serve from {config_path.name}: edit that file instead\n")
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        try:
            taken = load_league(temp, plugins_or_loaded(plugins))
        except ConfigError as exc:
            raise SubmissionError(str(exc).replace(temp, str(target))) from None
        for bot, item in zip(taken.bots[len(taken.bots) - len(extra):], extra):
            confine(bot, item, taken)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target


def _plain(value: Any) -> Any:
    """Entries as YAML writes them: paths as text, tuples as lists."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


__all__ = ["BuildLimits", "BuildResult", "SubmissionError", "Validation", "build", "confine", "roster_path",
           "validate", "wheel_bots", "write_roster"]
