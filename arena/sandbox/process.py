"""One running sandboxed bot: its pipes, exit status, CPU time, and tree kill."""

from __future__ import annotations

import logging
import os
import select
import shutil
import signal
import stat
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import procfs
from .limits import Limits
from .procfs import CpuMark, ProcessHandle, StatReader, TreeSampler, TreeUsage
from .slots import UidSlot

logger = logging.getLogger("arena.sandbox")

# bwrap and the unshare init report a bot killed by signal N as exit code 128+N.
_SIGNAL_CODES = range(129, 129 + 64)
_LAUNCHER_GRACE = 2.0  # seconds for the launcher to exit once its namespace is dead


@dataclass
class Launch:
    """What Sandbox.start hands over to a SandboxedProcess."""

    popen: subprocess.Popen[bytes]
    mode: str
    limits: Limits
    scratch_dir: Path
    stdin_fd: int
    stdout_fd: int
    stderr_fd: int
    init_pid: int | None = None  # host pid of the namespace's init, when known at start
    slot: UidSlot | None = None
    kill_as_uid: list[str] = field(default_factory=list)  # argv: kill -9 -1 as the bot uid
    own_uid_orphans: bool = False  # mode none as root: orphans are recognised by their uid
    remove_scratch: Callable[[Path], None] | None = None   # removes scratch_dir (else remove_tree)
    give_back: Callable[[], None] | None = None   # returns the writable dirs lent to the bot uid


# Launchers (of any mode) not yet reaped: the orphan hunt of mode 'none' spares them.
_live_launchers: set[int] = set()


class SandboxedProcess:
    """A bot started by Sandbox.start; call close() in a finally block."""

    def __init__(self, launch: Launch) -> None:
        self._popen = launch.popen
        self._launch = launch
        self.mode = launch.mode
        self.limits = launch.limits
        self.pid: int = launch.popen.pid  # the launcher: prlimit exec'd into bwrap/unshare/setpriv
        self.scratch_dir: Path = launch.scratch_dir
        self.stdin_fd: int = launch.stdin_fd
        self.stdout_fd: int = launch.stdout_fd
        self.stderr_fd: int = launch.stderr_fd
        launcher_stat = procfs.read_stat(self.pid)
        self._start_ticks = launcher_stat.starttime if launcher_stat else 0
        self._launcher = ProcessHandle(self.pid)
        self._init: ProcessHandle | None = ProcessHandle(launch.init_pid) if launch.init_pid else None
        self._init_stat: StatReader | None = None
        self._bot_stat: StatReader | None = None
        self._tree: TreeSampler | None = None
        self._bot_pid: int | None = self.pid if self.mode == "none" else None
        self._raw_status: int | None = None  # as os.waitstatus_to_exitcode
        self._returncode: int | None = None
        self._final_cpu: float | None = None
        self._last_cpu = 0.0
        self._killed = False  # kill_tree() found the bot still running
        self._swept = False   # kill(-1) has run as the bot's uid (mode none as root)
        self._sessions = {self.pid}  # session ids seen in the bot's tree (mode none)
        self._closed = False
        self._released = False  # close() has given back the uid slot and handles
        self._fds_open = {self.stdin_fd, self.stdout_fd, self.stderr_fd}
        _live_launchers.add(self.pid)

    # -- status ---------------------------------------------------------------

    def poll(self) -> int | None:
        """The exit status like Popen.returncode (negative: killed by that signal), or None."""
        if self._returncode is None and self._raw_status is None:
            self._reap(os.WNOHANG)
        return self._returncode

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait for the exit (at most `timeout` seconds); the status, or None on timeout."""
        if self.poll() is not None:
            return self._returncode
        if timeout is None:
            self._reap(0)
            return self._returncode
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            left = deadline - time.monotonic()
            if self._launcher.fd is not None:
                poller = select.poll()
                poller.register(self._launcher.fd, select.POLLIN)  # readable once it exits
                poller.poll(max(left, 0.0) * 1000)
            else:
                time.sleep(min(max(left, 0.0), 0.01))
            if self.poll() is not None or time.monotonic() >= deadline:
                return self._returncode

    def _reap(self, flags: int) -> None:
        try:
            pid, status, usage = os.wait4(self.pid, flags)
        except ChildProcessError:
            # Someone else reaped our child (a waitpid(-1) elsewhere): status unknown.
            pid, status, usage = self.pid, 255 << 8, None
        if pid == 0:
            return
        _live_launchers.discard(self.pid)
        raw = os.waitstatus_to_exitcode(status)
        self._raw_status = raw
        self._popen.returncode = raw  # keeps Popen from reaping or warning later
        self._final_cpu = self._last_cpu
        if usage is not None:
            # wait4's usage covers the launcher and everything reaped below it: the
            # namespace init, the bot, and the bot's own reaped descendants.
            self._final_cpu = max(self._last_cpu, usage.ru_utime + usage.ru_stime)
        if self.mode != "none" and raw in _SIGNAL_CODES:
            code = -(raw - 128)
        else:
            code = raw
        if self._killed and self.mode == "unshare" and code != -signal.SIGKILL:
            # unshare(1) cannot report the death of its init by our SIGKILL as a signal.
            code = -signal.SIGKILL
        self._returncode = code
        for reader in (self._init_stat, self._bot_stat, self._tree):
            if reader:
                reader.close()

    @property
    def killed_by_sandbox(self) -> bool:
        """True if kill_tree()/close() ended the bot while it was still running."""
        return self._killed

    def exit_description(self) -> str:
        """Plain words for the exit: 'exit code 3', 'killed by signal 9 (SIGKILL)', ..."""
        code = self.poll()
        if code is None:
            return "still running"
        if code >= 0:
            return f"exit code {code}"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown signal"
        text = f"killed by signal {-code} ({name})"
        hit = self.resource_limit_hit()
        if hit:
            text += f": {hit}"
        elif self._killed:
            text += ": killed by the sandbox"
        return text

    def resource_limit_hit(self) -> str | None:
        """Which limit killed the bot, judged from its death signal (best effort)."""
        code = self.poll()
        if code == -signal.SIGXCPU:
            return "CPU time limit"
        if code == -signal.SIGXFSZ:
            return "file size limit"
        # The hard CPU limit (soft + 1 s) ends a bot that ignored SIGXCPU.
        if code == -signal.SIGKILL and not self._killed and self.cpu_seconds() >= self.limits.cpu_seconds:
            return "CPU time limit"
        return None

    # -- CPU time -------------------------------------------------------------

    def _discover(self) -> None:
        """Find the namespace init and the bot below the launcher (once each)."""
        if self._raw_status is not None:
            return
        if self.mode != "none" and self._init is None:
            kids = procfs.children(self.pid)
            if not kids:
                return
            self._init = ProcessHandle(kids[0])
        if self.mode != "none" and self._init is not None and self._init_stat is None:
            try:
                self._init_stat = StatReader(self._init.pid)
            except OSError:
                return
        if self._bot_pid is None and self._init is not None:
            kids = procfs.children(self._init.pid)
            if kids:
                self._bot_pid = kids[0]  # the init's first child is the bot command
        if self._bot_pid is not None and self._bot_stat is None:
            try:
                self._bot_stat = StatReader(self._bot_pid)
            except OSError:
                self._bot_stat = None

    def usage(self, states: bool = False) -> TreeUsage:
        """CPU time (ns; what reaped processes left in ticks) and per-thread run-queue wait
        of every process and thread of the bot (all below the namespace's init, or the
        launcher and all below it); with states, whether one is runnable now.
        Empty once the launcher is reaped: its pid may then belong to someone else."""
        if self._raw_status is not None or self._released:
            return TreeUsage(self.cpu_seconds(), {})
        if self._tree is None:
            self._discover()
            # below the namespace's init when it is known: the launcher outside (bwrap)
            # is not the bot, and each process read costs a few microseconds
            init = self._init.pid if self._init is not None else 0
            self._tree = TreeSampler(init or self.pid, root_is_init=bool(init))
        return self._tree.sample(states)

    def memory_bytes(self) -> int:
        """Resident memory of the bot's processes now (the launcher's tree), in bytes;
        0 once it has exited or been closed."""
        if self._raw_status is not None or self._released:
            return 0
        return procfs.tree_rss_bytes(self.pid)

    def cpu_mark(self) -> CpuMark | None:
        """A cheap note of the bot's processes' CPU clocks now, for procfs.cpu_since (those
        the last usage() found); None where there is none to take."""
        if self._raw_status is not None or self._released or self._tree is None:
            return None
        return self._tree.mark()

    def stdout_held(self) -> bool | None:
        """False if no process of the bot still has its stdout pipe open (it closed it while
        alive); None where that is not known. In bwrap and unshare modes the launcher and
        the namespace's init keep a copy, so the referee never reads end of file there."""
        if self.mode == "none" or self._raw_status is not None or self._released:
            return None
        self._discover()
        if self._init is None or not self._init.pid:
            return None
        target = f"pipe:[{os.fstat(self.stdout_fd).st_ino}]"
        todo = procfs.children(self._init.pid)
        while todo:
            pid = todo.pop()
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except FileNotFoundError:
                continue  # it exited during the walk
            except OSError:
                return None  # not ours to look at
            for fd in fds:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                        return True
                except OSError:
                    continue
            todo.extend(procfs.children(pid, all_threads=True))
        return False

    def cpu_seconds(self) -> float:
        """User+system CPU seconds of the bot's processes so far (never decreases)."""
        if self._final_cpu is not None:
            return self._final_cpu
        self._discover()
        ticks = 0
        # The init first: its children times then exclude a bot that is still
        # running; read the other way round a bot reaped in between counts twice.
        for reader in (self._init_stat, self._bot_stat):
            if reader is not None:
                ticks += reader.cpu_ticks() or 0
        self._last_cpu = max(self._last_cpu, ticks / procfs.CLOCK_TICKS)
        return self._last_cpu

    # -- stopping -------------------------------------------------------------

    def kill_tree(self) -> None:
        """SIGKILL every process of the bot, setsid escapees included (idempotent)."""
        if self._released:
            return  # after close() the bot's uid and pids may belong to another bot
        if self.poll() is None:
            self._killed = True
        if self.mode in ("bwrap", "unshare"):
            if self._init is None and self._raw_status is None:
                kids = procfs.children(self.pid)  # unshare: its child is the init
                if kids:
                    self._init = ProcessHandle(kids[0])
            if self._init is not None and self._raw_status is None:
                # The init of the pid namespace: its death makes the kernel kill
                # every process in the namespace. The launcher then exits by itself.
                self._init.kill()
            elif self._raw_status is None:
                self._launcher.kill()  # no init yet: the launcher's death ends it all
            return
        self._kill_plain_tree()

    def _kill_plain_tree(self) -> None:
        """Mode none: no namespace, so hunt the processes down."""
        if self._launch.kill_as_uid and not self._swept:
            # As the bot's own uid, kill(-1) reaches exactly the bot's processes,
            # wherever they went; the kernel blocks forks during that sweep. Once is
            # enough: then no process has the uid, and only a process of the uid, or
            # the launcher (killed below by pid), could start one before close()
            # frees it. (Each sweep starts a process: 5-9 ms.)
            subprocess.run(self._launch.kill_as_uid, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            self._swept = True
        for _ in range(50):  # rounds: a process may fork while we walk
            found = self._plain_tree() + self._orphans()
            alive = [pid for pid in found if _running(pid)]
            for pid in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if self._raw_status is None:
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                self._launcher.kill()
            if not alive:
                break

    def _plain_tree(self) -> list[int]:
        """The launcher's live descendants (mode none), recording their sessions."""
        if self._raw_status is not None:
            return []
        found: list[int] = []
        todo = [self.pid]
        while todo:
            pid = todo.pop()
            for child in procfs.children(pid, all_threads=True):
                found.append(child)
                todo.append(child)
                child_stat = procfs.read_stat(child)
                if child_stat:
                    self._sessions.add(child_stat.session)
        return found

    def _orphans(self) -> list[int]:
        """Bot processes orphaned to the referee (a child subreaper in mode none)."""
        mine = os.getpid()
        found = []
        for child in procfs.children(mine, all_threads=True):
            if child in _live_launchers:
                continue
            if self._launch.own_uid_orphans:
                # Exact: the bot's uid is used by nobody else.
                if self._launch.slot is not None and procfs.real_uid(child) == self._launch.slot.uid:
                    found.append(child)
                continue
            child_stat = procfs.read_stat(child)
            if child_stat is None:
                continue
            # Heuristic for a normal user: an orphan in one of the bot's sessions,
            # or one that left the referee's session after the bot started.
            if child_stat.session in self._sessions or (
                child_stat.session != os.getsid(0) and child_stat.starttime >= self._start_ticks
            ):
                found.append(child)
        return found

    def _reap_orphans(self) -> None:
        deadline = time.monotonic() + 1.0
        pending = set(self._orphans())
        while pending and time.monotonic() < deadline:
            for pid in list(pending):
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid
                if done:
                    pending.discard(pid)
            if pending:
                time.sleep(0.002)

    def close_stdin(self) -> None:
        """Close the bot's stdin (it reads EOF); use this, never os.close(stdin_fd)."""
        self._close_fd(self.stdin_fd)

    def _close_fd(self, fd: int) -> None:
        if fd in self._fds_open:
            self._fds_open.discard(fd)
            os.close(fd)

    def close(self) -> None:
        """Kill the tree, reap it, close the pipes, remove the scratch dir (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.kill_tree()
            if self.wait(_LAUNCHER_GRACE) is None:
                self._launcher.kill()
                self.wait()
            if self.mode == "none":
                self._kill_plain_tree()  # orphans that were still being born
                self._reap_orphans()
        finally:
            for fd in list(self._fds_open):
                self._close_fd(fd)
            if self._tree is not None:
                self._tree.close()
            for reader in (self._init_stat, self._bot_stat):
                if reader:
                    reader.close()
            for handle in (self._launcher, self._init):
                if handle:
                    handle.close()
            self._released = True
            if self._launch.give_back is not None:   # no process of the bot is left to race it
                self._launch.give_back()
            (self._launch.remove_scratch or remove_tree)(self.scratch_dir)
            if self._launch.slot is not None:
                self._launch.slot.release()

    def __repr__(self) -> str:
        return f"<SandboxedProcess pid={self.pid} mode={self.mode} {self.exit_description()}>"


def _running(pid: int) -> bool:
    """True if `pid` exists and is not a zombie."""
    found = procfs.read_stat(pid)
    return found is not None and found.state not in "ZX"


def remove_tree(path: Path) -> None:
    """Remove a scratch dir even if the bot made parts of it unreadable."""

    def make_writable(func: Callable[[str], object], failed: str, _exc: object) -> None:
        try:
            os.chmod(os.path.dirname(failed), stat.S_IRWXU)
            os.chmod(failed, stat.S_IRWXU)
            func(failed)
        except OSError as exc:
            logger.warning("could not remove %r from a bot scratch dir: %s", failed, exc)

    if path.exists():
        shutil.rmtree(path, onerror=make_writable)
