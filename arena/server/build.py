"""A submission's build: `sh -c COMMAND` in its directory in the bwrap sandbox, within the
server's build limits, and what it may leave behind for the ladder to read."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, fields
from pathlib import Path

from arena.bounds import BIG, bounded, problem
from arena.league.sight import inside
from arena.sandbox import Limits, Sandbox, SandboxError
from arena.sandbox.limits import MIB
from arena.userfiles import kind_of

from .process import STDERR_TAIL, SubmissionError, bwrap_sandbox, run_to_end


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
    box = bwrap_sandbox(Limits(memory_mb=limits.memory_mb, cpu_seconds=limits.seconds,
                        file_size_mb=limits.file_mb, processes=limits.processes,
                        scratch_mb=max(64, limits.file_mb)), sandbox, "a submission's build")
    try:
        proc = box.start(["sh", "-c", _BUILD_SHELL, "build", str(workdir.resolve()), command],
                         writable=[workdir])
    except SandboxError as exc:
        raise SubmissionError(f"the build could not start: {exc}") from None
    # the directory is the host's disk, which no RLIMIT bounds as a whole: watched as it runs
    ended = run_to_end(proc, limits.seconds, limits.output_kb * 1024, STDERR_TAIL,
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



__all__ = ["BuildLimits", "BuildResult", "build"]
