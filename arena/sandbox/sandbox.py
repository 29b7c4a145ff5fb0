"""Sandbox: starts bot commands isolated as far as this machine allows."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from . import command, slots
from .detect import detect
from .errors import HostError, SandboxError, SandboxWarning
from .limits import MIB, Limits, prlimit_argv
from .process import Launch, SandboxedProcess
from .procfs import become_child_subreaper
from .scratch import ScratchRoot, sweep

logger = logging.getLogger("arena.sandbox")

_INFO_TIMEOUT = 10.0  # seconds to wait for bwrap to report its child's pid
# Launch helpers that run as the bot's uid (and so count in RLIMIT_NPROC) for a
# non-root referee: the launcher (bwrap or unshare) and the namespace's init shell.
_HELPERS = {"bwrap": 2, "unshare": 2, "none": 0}


class Sandbox:
    """Starts bot commands in their own sandbox with resource limits."""

    def __init__(
        self,
        limits: Limits | None = None,
        mode: str = "auto",
        *,
        bwrap_path: str | None = None,
        unshare_path: str | None = None,
        scratch_root: str | Path | None = None,
    ) -> None:
        if limits is None:
            limits = Limits()
        if not isinstance(limits, Limits):
            raise SandboxError(f"limits must be a Limits, got {limits!r}; hint: Sandbox(limits=Limits(...))")
        found = detect(mode, bwrap_path, unshare_path)
        self.limits = limits
        self.requested_mode = mode
        self.mode: str = found.mode
        self._tools = found.tools
        self._root = os.geteuid() == 0
        self._lock_dir = slots.lock_dir() if self._root else None
        root_dir = Path(scratch_root if scratch_root is not None else tempfile.gettempdir())
        if not root_dir.is_dir():
            raise SandboxError(
                f"scratch_root {str(root_dir)!r} is not a directory; hint: create it or pass another"
            )
        self._scratch_root = root_dir.resolve()
        self._scratch = ScratchRoot(self._scratch_root)
        _sweep_once(self._scratch_root)
        # A root referee runs bots under uids that own nothing: outside bwrap they
        # can only run this Python if every parent directory is world-searchable.
        self._python_visible = not self._root or not any(
            command.blocked_by(path, 0o005, check_parents=self.mode != "bwrap")
            for path in (os.path.realpath(sys.executable), os.path.dirname(sys.executable))
        )
        self._path = command.search_path(self._python_visible)
        if self._root:
            self._nproc = limits.processes
        else:
            self._nproc = found.user_tasks + limits.processes + _HELPERS[self.mode]
        if self.mode == "none":
            # Orphans of a bot (setsid escapees whose parent exited) come to the
            # referee instead of PID 1, so close() can find, kill and reap them.
            become_child_subreaper()
        self._user_tasks = found.user_tasks
        self._kill = shutil.which("kill", path=":".join(command.SYSTEM_PATH)) or "/bin/kill"
        self.warnings: list[str] = self._missing_protections(found.notes)
        for text in self.warnings:
            logger.warning("sandbox: %s", text)
            warnings.warn(text, SandboxWarning, stacklevel=2)

    def _missing_protections(self, notes: Sequence[str]) -> list[str]:
        said: list[str] = []
        if notes:
            said.append(f"bubblewrap sandbox not used, running in mode {self.mode!r}: " + "; ".join(notes))
        if self.mode in ("unshare", "none"):
            who = "their own uid" if self._root else "your user"
            said.append(
                f"files are NOT hidden from bots (mode {self.mode!r}): a bot can read every file "
                f"{who} can read, including other bots' code; install bubblewrap to hide them"
            )
            said.append(
                f"scratch size is NOT limited (mode {self.mode!r}): only each file is limited "
                f"(file_size_mb={self.limits.file_size_mb!r}), not their number"
            )
        if self.mode == "none":
            said.append("network is NOT isolated (mode 'none'): bots can open connections to any host")
            said.append(
                "no pid namespace (mode 'none'): close() hunts escaped processes "
                + ("by the bot's own uid (complete)" if self._root
                   else "through the process tree and the referee as child subreaper (best effort)")
            )
            if not self._root:
                said.append(
                    "bots run as your own user (mode 'none', not root): they can signal or "
                    "ptrace the referee and every other process of yours"
                )
        if not self._root:
            said.append(
                f"the processes limit counts every process and thread of uid {os.getuid()!r} "
                f"({self._user_tasks!r} when the sandbox was set up), so it is shared with the "
                "referee and the other bots; run the referee as root for a per-bot limit"
            )
        if not self._python_visible:
            said.append(
                f"this Python ({sys.executable!r}) is not reachable by the bot uids outside bwrap "
                "(a parent directory is not world-searchable): 'python3' in a bot means the system's"
            )
        return said

    def protections(self) -> dict[str, object]:
        """What is enforced on every bot, in plain data (for docs, records and output)."""
        namespaces = self.mode in ("bwrap", "unshare")
        limits = asdict(self.limits)
        if self.mode != "bwrap":
            limits["scratch_mb"] = None
        if self._root:
            nproc = f"per bot: each running bot has a uid of its own (from {slots.SLOT_UID_BASE!r})"
        else:
            nproc = f"per user: RLIMIT_NPROC={self._nproc!r} counts all processes of uid {os.getuid()!r}"
        kill = {
            "bwrap": "pid namespace: SIGKILL to its init (sh) ends every process in it",
            "unshare": "pid namespace: SIGKILL to its init (sh) ends every process in it",
            "none": "kill(-1) as the bot's uid" if self._root
            else "process group, process tree walk and orphans adopted by the referee (subreaper)",
        }[self.mode]
        return {
            "mode": self.mode,
            "requested_mode": self.requested_mode,
            "running_as_root": self._root,
            "bot_uid": "one unused uid per running bot" if self._root
            else f"the referee's uid {os.getuid()!r}",
            "network_isolated": namespaces,
            "filesystem_hidden": self.mode == "bwrap",
            "pid_namespace": namespaces,
            "ipc_and_uts_namespaces": namespaces,
            "no_new_privileges": True,
            "environment_scrubbed": True,
            "limits": limits,
            "limits_set_by": "prlimit in the launch argv: RLIMIT_DATA, RLIMIT_CPU (hard = soft + 1 s), "
            "RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_CORE=0",
            "nproc_enforced": nproc,
            "scratch_size_enforced": self.mode == "bwrap",
            "kill_tree": kill,
            "warnings": list(self.warnings),
        }

    # -- starting a bot -------------------------------------------------------

    def start(
        self,
        argv: Sequence[str],
        *,
        readable: Sequence[str | Path] = (),
        writable: Sequence[str | Path] = (),
        env: Mapping[str, str] | None = None,
        cwd_files: Mapping[str, bytes] | None = None,
    ) -> SandboxedProcess:
        """Start `argv` in a new sandbox; raises SandboxError if it cannot be started.

        `writable` directories are shown read-write at their own paths (a build's work
        directory); as root they are lent to the bot's uid until close() gives them back.
        A Ctrl-C or SIGTERM arriving meanwhile takes effect once the launch is done (the
        bot is then closed at once): raised between fork and exec it would leave a
        launcher behind that never learnt whose death to follow."""
        with _signals_held() as held:
            proc = self._start(argv, readable=readable, writable=writable, env=env,
                               cwd_files=cwd_files)
            if held:
                proc.close()
        return proc

    def _start(
        self,
        argv: Sequence[str],
        *,
        readable: Sequence[str | Path] = (),
        writable: Sequence[str | Path] = (),
        env: Mapping[str, str] | None = None,
        cwd_files: Mapping[str, bytes] | None = None,
    ) -> SandboxedProcess:
        if isinstance(argv, (str, bytes)) or not argv or not all(isinstance(a, str) for a in argv):
            raise SandboxError(
                f"argv must be a non-empty list of str, got {argv!r}; hint: ['./bot', '--fast']"
            )
        path = (env or {}).get("PATH", self._path)
        exe = command.resolve_executable(argv[0], path, os.getcwd(), argv[1:])
        ro = self._readable_paths(exe, readable)
        rw = self._writable_paths(writable)
        start = _Start(argv=argv, program=[exe, *argv[1:]], path=path, env=env,
                       ro=[item for item in ro if item not in rw], rw=rw, files=_check_files(cwd_files))
        taken = _Taken(slots.acquire(self._lock_dir) if self._lock_dir is not None else None)
        try:
            if taken.uid is not None:
                self._check_reachable(exe, start.ro, rw)
                for directory in rw:
                    _lend(directory, taken.uid, taken.lent)
            taken.scratch = self._make_scratch(start.files, taken.uid)
            taken.open_pipes()
            popen = self._popen(start, taken)
            # All three non-blocking: a bot that stops reading its stdin must not
            # be able to block the referee in a write once the pipe is full.
            for fd in taken.ours[:3]:
                os.set_blocking(fd, False)
            return self._process(popen, taken)
        except BaseException:
            taken.give_back(self._scratch.remove_dir)
            raise

    def _popen(self, start: _Start, taken: _Taken) -> subprocess.Popen[bytes]:
        """The launcher started on the pipes' far ends (closed here once it has them)."""
        assert taken.scratch is not None
        full_argv = prlimit_argv(self._tools.prlimit, self.limits, self._nproc) + self._launch_argv(start, taken)
        theirs = taken.theirs
        try:
            taken.popen = subprocess.Popen(
                full_argv, stdin=theirs[0], stdout=theirs[1], stderr=theirs[2],
                env=command.bot_env(str(taken.scratch), start.path, start.env), cwd=taken.scratch,
                close_fds=True, pass_fds=theirs[3:], start_new_session=True,
            )
        except OSError as exc:   # the launcher (prlimit), not the bot's program: the host's
            raise HostError(
                f"could not launch {full_argv[0]!r} for bot {start.argv!r}: {exc}; hint: check util-linux"
            ) from exc
        finally:
            while theirs:
                os.close(theirs.pop())
        return taken.popen

    def _launch_argv(self, start: _Start, taken: _Taken) -> list[str]:
        """The launch argv of this sandbox's mode. For bwrap: with the pipe on which it tells
        its child's pid, and the descriptors of the files it copies into the scratch dir."""
        if self.mode == "unshare":
            return command.unshare_argv(self._tools, uid=taken.uid, command=start.program)
        if self.mode != "bwrap":
            return command.plain_argv(self._tools, uid=taken.uid, command=start.program)
        assert taken.scratch is not None
        taken.info_r, info_w = os.pipe()
        taken.ours.append(taken.info_r)
        taken.theirs.append(info_w)
        file_fds = []
        for name in start.files:
            fd = os.open(taken.scratch / name, os.O_RDONLY | os.O_CLOEXEC)
            taken.theirs.append(fd)
            file_fds.append((fd, name))
        ro = command.minimal_paths([*command.python_dirs(), *start.ro], command.system_binds()[1])
        mounts = command.Mounts(str(taken.scratch), self.limits.scratch_mb * MIB, ro, start.rw, file_fds)
        return command.bwrap_argv(self._tools, mounts, uid=taken.uid, info_fd=info_w, command=start.program)

    def _process(self, popen: subprocess.Popen[bytes], taken: _Taken) -> SandboxedProcess:
        """The started bot, handed what it owns from now on (its namespace's init read
        from bwrap's pipe)."""
        ours, uid = taken.ours, taken.uid
        init_pid = None
        if taken.info_r is not None:
            init_pid = _read_child_pid(taken.info_r)
            ours.remove(taken.info_r)
            os.close(taken.info_r)
        assert taken.scratch is not None
        lent = taken.lent
        return SandboxedProcess(Launch(
            popen=popen, mode=self.mode, limits=self.limits, scratch_dir=taken.scratch,
            stdin_fd=ours[0], stdout_fd=ours[1], stderr_fd=ours[2], init_pid=init_pid, slot=taken.slot,
            kill_as_uid=self._kill_as(uid), own_uid_orphans=uid is not None,
            remove_scratch=self._scratch.remove_dir,
            give_back=functools.partial(_give_back, lent) if lent else None,
        ))

    def _make_scratch(self, files: Mapping[str, bytes], uid: int | None) -> Path:
        """A new private scratch dir holding `files`, owned by the bot uid outside bwrap."""
        scratch = self._scratch.new_dir()
        for name, data in files.items():
            target = scratch / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if uid is not None and self.mode != "bwrap":
            # Outside bwrap the bot works in this very directory, as its own uid.
            for folder, dirs, names in os.walk(scratch):
                for item in [folder, *(os.path.join(folder, name) for name in dirs + names)]:
                    os.chown(item, uid, uid)
        return scratch

    def _kill_as(self, uid: int | None) -> list[str]:
        """argv that runs kill(-1, SIGKILL) as `uid` (mode none as root), else []."""
        if uid is None or self.mode != "none":
            return []
        return [*command.drop_privileges(self._tools, uid), "--", self._kill, "-KILL", "-1"]

    def _readable_paths(self, exe: str, readable: Sequence[str | Path]) -> list[str]:
        """The paths to show read-only: the program's directory and `readable`."""
        if isinstance(readable, (str, bytes, Path)):
            raise SandboxError(
                f"readable must be a list of paths, got {readable!r}; hint: readable=[bot_dir]"
            )
        root = str(self._scratch_root)
        exe_dir = os.path.dirname(exe)
        # A program lying directly in the scratch root (/tmp/bot): show only the file,
        # never the directory holding every other bot's scratch dir.
        paths = [exe if command.inside(root, exe_dir) else exe_dir]
        for item in readable:
            if not isinstance(item, (str, Path)):
                raise SandboxError(f"readable entries must be str or Path, got {item!r}")
            path = os.path.abspath(os.fspath(item))
            if not os.path.exists(path):
                raise SandboxError(
                    f"readable path {str(item)!r} does not exist; hint: pass the bot's own directory"
                )
            if command.inside(root, path):
                raise SandboxError(
                    f"readable path {str(item)!r} contains the scratch root {root!r} (every bot's "
                    "scratch dir); hint: list narrower directories, or pass Sandbox(scratch_root=...)"
                )
            paths.append(path)
        return paths

    def _writable_paths(self, writable: Sequence[str | Path]) -> list[str]:
        """The directories to show read-write: existing, absolute, none holding the scratch root."""
        if isinstance(writable, (str, bytes, Path)):
            raise SandboxError(
                f"writable must be a list of directories, got {writable!r}; hint: writable=[work_dir]"
            )
        root = str(self._scratch_root)
        paths = []
        for item in writable:
            if not isinstance(item, (str, Path)):
                raise SandboxError(f"writable entries must be str or Path, got {item!r}")
            path = os.path.realpath(os.fspath(item))
            if not os.path.isdir(path):
                raise SandboxError(
                    f"writable path {str(item)!r} is not a directory; hint: create it first"
                )
            if command.inside(root, path) or any(command.inside(path, top)
                                                  for top in command.system_binds()[1]):
                raise SandboxError(
                    f"writable path {str(item)!r} contains the scratch root {root!r} or lies in "
                    "the system tree; hint: pass a directory of its own, e.g. a build's work dir"
                )
            paths.append(path)
        return list(dict.fromkeys(paths))

    def _check_reachable(self, exe: str, ro: Sequence[str], rw: Sequence[str] = ()) -> None:
        """Fail early if the bot uid (which owns nothing) could not run or read its code, or
        reach a writable directory (lent to it, so only the parents' modes matter)."""
        # Inside bwrap every bound path gets world-searchable parents; outside it
        # the host's parents (e.g. /root, 0700) are in the way.
        parents = self.mode != "bwrap"
        checks = [(exe, 0o005, "run")] + [
            (path, 0o005 if os.path.isdir(path) else 0o004, "read") for path in ro[1:]
        ] + [(os.path.dirname(path), 0o001, "reach") for path in rw if parents]
        for path, bits, verb in checks:
            blocker = command.blocked_by(path, bits, parents)
            if blocker is not None:
                need = "o+x" if blocker != path else ("o+rx" if bits & 1 else "o+r")
                raise SandboxError(
                    f"the bot's uid (not root, owning nothing) cannot {verb} {path!r}: {blocker!r} "
                    f"lacks {need}; hint: chmod {need} {blocker!r}"
                    + (", or install bubblewrap (mode 'bwrap' shows only what it binds)" if parents else "")
                )


@dataclass(frozen=True)
class _Start:
    """What starting one bot needs, checked: its argv as given and as run (the program's
    path resolved), its PATH and extra environment, the paths shown read-only and
    read-write, and the files put in its scratch dir."""

    argv: Sequence[str]
    program: list[str]
    path: str
    env: Mapping[str, str] | None
    ro: list[str]
    rw: list[str]
    files: dict[str, bytes]


class _Taken:
    """What a start has taken so far, all given back if it fails: the uid slot (as root),
    the writable directories lent to its uid, the scratch dir, the pipes and the launcher."""

    def __init__(self, slot: slots.UidSlot | None) -> None:
        self.slot = slot
        self.uid = slot.uid if slot else None
        self.lent: list[tuple[str, int, int]] = []   # writable dirs lent to the bot uid, and their owners
        self.scratch: Path | None = None
        self.ours: list[int] = []     # our ends of the pipes, closed here if the start fails
        self.theirs: list[int] = []   # the launcher's ends, closed here once it has them
        self.info_r: int | None = None   # where bwrap tells its child's pid
        self.popen: subprocess.Popen[bytes] | None = None

    def open_pipes(self) -> None:
        """stdin, stdout and stderr: ours[i] and theirs[i] the two ends of each."""
        for _ in range(3):
            read_end, write_end = os.pipe()
            self.ours.append(read_end)
            self.theirs.append(write_end)
        stdin_r, stdin_w = self.ours[0], self.theirs[0]  # stdin flows the other way round
        self.ours[0], self.theirs[0] = stdin_w, stdin_r

    def give_back(self, remove_dir: Callable[[Path], None]) -> None:
        """Undo a start that failed: the launcher killed, every descriptor closed, the
        scratch dir removed, the lent directories and the uid slot given back."""
        if self.popen is not None:
            self.popen.kill()  # bwrap and unshare take their namespace down with them
            self.popen.wait()
        for fd in self.ours + self.theirs:
            try:
                os.close(fd)
            except OSError:
                pass
        if self.scratch is not None:
            remove_dir(self.scratch)
        _give_back(self.lent)
        if self.slot is not None:
            self.slot.release()


#: (process, directory) pairs whose dead processes' scratch roots have been cleaned
_swept: set[tuple[int, Path]] = set()


def _sweep_once(parent: Path) -> None:
    """Clean what killed processes left in `parent`, once a process (ScratchRoot)."""
    if (os.getpid(), parent) not in _swept:
        _swept.add((os.getpid(), parent))
        sweep(parent)


@contextlib.contextmanager
def _signals_held() -> Iterator[list[int]]:
    """SIGINT and SIGTERM recorded, not handled, inside the block (main thread only: other
    threads never run signal handlers); delivered again when it ends."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    held: list[int] = []
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, lambda got, frame: held.append(got))
    try:
        yield held
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        for got in dict.fromkeys(held):
            signal.raise_signal(got)


def _check_files(cwd_files: Mapping[str, bytes] | None) -> dict[str, bytes]:
    """cwd_files with every name checked to stay inside the scratch dir."""
    checked: dict[str, bytes] = {}
    for name, data in (cwd_files or {}).items():
        norm = os.path.normpath(name) if isinstance(name, str) and name else ""
        if not norm or os.path.isabs(norm) or norm == ".." or norm.startswith("../") or norm == ".":
            raise SandboxError(
                f"cwd_files name {name!r} must be a relative path inside the scratch dir; "
                "hint: 'book.txt'"
            )
        if not isinstance(data, (bytes, bytearray)):
            raise SandboxError(
                f"cwd_files[{name!r}] must be bytes, got {type(data).__name__}; hint: text.encode()"
            )
        checked[norm] = bytes(data)
    return checked


def _lend(path: str, uid: int, lent: list[tuple[str, int, int]]) -> None:
    """Give a writable directory's tree to the bot uid (root only: that uid owns nothing
    else, so this is what lets it write there), noting it and its owner in `lent` first
    (for _give_back, even if the chown fails half-way)."""
    st = os.lstat(path)
    lent.append((path, st.st_uid, st.st_gid))
    _chown_tree(path, uid, uid)


def _give_back(lent: Sequence[tuple[str, int, int]]) -> None:
    """Return lent directories to their owners, once no process of the bot is left: whatever
    the bot made there becomes theirs, without set-user-ID or set-group-ID bits."""
    for path, uid, gid in lent:
        _chown_tree(path, uid, gid, strip_setid=True)


def _chown_tree(top: str, uid: int, gid: int, strip_setid: bool = False) -> None:
    """chown a tree, never following a symbolic link (a bot may plant one to anywhere)."""
    _chown(top, uid, gid, strip_setid)
    for folder, dirs, names in os.walk(top):
        for name in dirs + names:
            _chown(os.path.join(folder, name), uid, gid, strip_setid)


def _chown(path: str, uid: int, gid: int, strip_setid: bool) -> None:
    try:
        os.chown(path, uid, gid, follow_symlinks=False)
        mode = os.lstat(path).st_mode
        if strip_setid and not stat.S_ISLNK(mode) and mode & (stat.S_ISUID | stat.S_ISGID):
            os.chmod(path, stat.S_IMODE(mode) & ~(stat.S_ISUID | stat.S_ISGID))
    except FileNotFoundError:
        pass


def _read_child_pid(fd: int) -> int | None:
    """The host pid of bwrap's child (the namespace init) from its --info-fd."""
    data = b""
    # poll, not select: a worker keeping many bots holds descriptors past select's 1024
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while True:
        if not poller.poll(_INFO_TIMEOUT * 1000):
            return None
        chunk = os.read(fd, 4096)
        if not chunk:  # bwrap closes it right after writing, or on failure
            break
        data += chunk
    try:
        return int(json.loads(data)["child-pid"])
    except (ValueError, KeyError, TypeError):
        return None
