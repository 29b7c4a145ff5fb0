"""Small, cheap readers of /proc and process-handle helpers (Linux)."""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import NamedTuple

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
TICK_NS = 1_000_000_000 // CLOCK_TICKS
PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class Stat:
    """The fields of /proc/<pid>/stat the sandbox uses (times in clock ticks)."""

    state: str
    ppid: int
    pgrp: int
    session: int
    utime: int
    stime: int
    cutime: int
    cstime: int
    num_threads: int
    starttime: int


def parse_stat(data: bytes) -> Stat:
    """Parse the text of /proc/<pid>/stat."""
    # The command name (field 2) may contain spaces and ')': split after the last ')'.
    rest = data[data.rindex(b")") + 2 :].split()
    return Stat(
        state=rest[0].decode(),
        ppid=int(rest[1]),
        pgrp=int(rest[2]),
        session=int(rest[3]),
        utime=int(rest[11]),
        stime=int(rest[12]),
        cutime=int(rest[13]),
        cstime=int(rest[14]),
        num_threads=int(rest[17]),
        starttime=int(rest[19]),
    )


def read_stat(pid: int) -> Stat | None:
    """/proc/<pid>/stat of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return parse_stat(file.read())
    except (OSError, ValueError, IndexError):
        return None


def _cpu_clock(pid: int) -> int:
    """The clock id of a process's CPU-time clock (clock_getcpuclockid's)."""
    return (~pid << 3) | 2   # CPUCLOCK_SCHED of the whole process


def process_cpu_ns(pid: int) -> int | None:
    """CPU time of one process, all its threads (exited ones too), in ns: its CPU-time
    clock, one system call and no file. None if there is no such process."""
    try:
        return time.clock_gettime_ns(_cpu_clock(pid))
    except OSError:
        return None


class CpuMark(NamedTuple):
    """The CPU clocks of a tree's processes at one moment (TreeSampler.mark)."""

    clocks: list[tuple[int, int | None]]   #: (pid, ns or None) of each process whose clock the sampler reads
    walks: int = 0                         #: the sampler's walks then: another since, the tree changed
    sampler: TreeSampler | None = None     #: whose tree it is, to find the processes born since


def cpu_since(mark: CpuMark) -> float | None:
    """Seconds of CPU the marked tree has used from the mark to the sampler's sample since
    (to now without one), or None where that cannot be known. Take it just after a
    sample: the clocks that sample read are the end (none is read twice, and the sample's
    CPU time starts where this ends); a process that sample found and the mark did not
    (born since) counts all its CPU time. None if a marked process is gone (its time
    since the mark is then in its parent's children times, and so in the sample), or if
    the tree changed and the sample could not follow it whole. Not exact for a pid reused in between (the new process's
    clock is read; one that went back counts nothing): the caller bounds the count by the
    CPU time the wall time allows (MoveMeter.sent)."""
    sampler = mark.sampler
    sampled = sampler.clocks if sampler is not None else {}
    total = 0
    for pid, before in mark.clocks:
        now = sampled.get(pid)
        if now is None:
            now = process_cpu_ns(pid)   # not in the sample: gone, or a mark of no sampler's
            if now is None:
                return None
        if before is not None and now > before:
            total += now - before
    if sampler is not None and sampler.walks != mark.walks:
        if sampler.pids() is None:
            return None
        marked = {pid for pid, _ in mark.clocks}
        total += sum(ns for pid, ns in sampled.items() if pid not in marked)
    return total / 1e9


class TreeUsage(NamedTuple):
    """A process tree at one moment: CPU used so far, run-queue wait of each thread.
    (A named tuple: one is made at every reading, and a tuple is the cheapest to make.)"""

    cpu_seconds: float                 #: CPU time of every process (ns), and what reaped ones left (ticks)
    waits: dict[int, float]            #: thread id -> seconds it has waited, runnable, for a CPU
    runnable: bool = False             #: some thread is running or waiting for a CPU right now


class _Task:
    """One thread of a sampled process, with the files a sample reads kept open."""

    __slots__ = ("tid", "sched_fd", "children_fd", "kids", "stat_fd")

    def __init__(self, tid: int, sched_fd: int, children_fd: int, kids: bytes, stat_fd: int | None) -> None:
        self.tid = tid
        self.sched_fd = sched_fd    #: -1: the task's waits are not read
        self.children_fd = children_fd
        self.kids = kids            #: the children file as last read
        self.stat_fd = stat_fd      #: the thread's own stat (threads of a multi-threaded process)


class _Proc:
    """One process of the tree as the last walk found it."""

    __slots__ = ("pid", "stat_fd", "threads", "tasks", "clocked", "ticked")

    def __init__(self, pid: int, stat_fd: int, threads: int, tasks: list[_Task], clocked: bool,
                 ticked: bool) -> None:
        self.pid = pid
        self.stat_fd = stat_fd
        self.threads = threads
        self.tasks = tasks
        self.clocked = clocked      #: its own CPU time is its CPU clock (all but a sandbox's init)
        self.ticked = ticked        #: ... or its stat's ticks, where the clock cannot be read


class _Walk:
    """What a walk of a tree (TreeSampler._walk) has found so far, and the processes it is
    still to read."""

    def __init__(self, root: int, states: bool) -> None:
        self.states = states        #: whether threads' states are read (runnable)
        self.todo = [root]
        self.plan: list[_Proc] = []
        self.complete = True
        self.ns = self.ticks = 0
        self.clocks: dict[int, int] = {}
        self.waits: dict[int, float] = {}
        self.runnable = False


class _Changed(Exception):
    """The tree is not what the last walk found: walk it again."""


class TreeSampler:
    """Reads a process tree's CPU time and per-thread run-queue wait from /proc.

    A process's CPU time is its CPU-time clock (process_cpu_ns: nanoseconds, its exited
    threads included, a system call and no file), read just before its stat: a stat still
    readable through its fd means the clock was that process's (a live process whose
    clock cannot be read counts its stat's ticks instead). Only what its reaped
    children left (cutime + cstime in the stat) is in clock ticks, the one place the
    kernel keeps it: a child reaped between two samples moves from nanoseconds to ticks,
    up to two ticks fewer, so the sum may fall back by that much (never rise).

    Files stay open between samples (a pread is a few microseconds; an open is more)
    and each fd stays bound to the process it was opened for, so a reused pid is
    never read by mistake. Parents are read before their children, so a process
    exiting during a sample is missed rather than counted twice (by itself and in
    its parent's children times): CPU time is never overstated.

    The tree's shape is kept from the last walk: a sample reads the same files a walk
    would (every process's stat, every thread's schedstat and children) and walks
    again, from the top, as soon as one differs in shape (a thread count, a children
    list, a process gone), so a sample sees every process a walk would.
    """

    MAX_FDS = 256

    def __init__(self, root: int, root_is_init: bool = False) -> None:
        """root_is_init: the root is a sandbox's init, which only waits for the bot: neither
        its run-queue wait nor its own CPU time is the bot's, and neither is read (one file
        and one clock fewer at every reading); what its reaped children left still counts."""
        self.root = root
        self.root_is_init = root_is_init
        self._fds: dict[str, int] = {}
        self._plan: list[_Proc] | None = None
        self._closes = 0   #: close() calls: a walk that saw one holds closed fds
        self.walks = 0     #: full walks so far (the rest of the samples followed the plan)
        self.clocks: dict[int, int] = {}   #: pid -> CPU clock (ns) as the last sample read it

    def _open(self, path: str) -> int | None:
        fd = self._fds.get(path)
        if fd is None:
            if len(self._fds) >= self.MAX_FDS:
                self.close()
            try:
                fd = self._fds[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return None
        return fd

    def _read(self, path: str) -> tuple[int, bytes] | None:
        fd = self._open(path)
        if fd is None:
            return None
        try:
            return fd, os.pread(fd, 4096, 0)
        except OSError:
            os.close(self._fds.pop(path))
            return None

    def sample(self, states: bool = False) -> TreeUsage:
        """CPU and waits of the root and all its descendants now; with states, also
        whether any of their threads is runnable (costs one more read a thread)."""
        if self._plan is not None:
            try:
                return self._follow(self._plan, states)
            except _Changed:
                pass
        return self._walk(states)

    def mark(self) -> CpuMark | None:
        """The CPU clocks of the processes the last sample found, now (a system call a
        process, no file): cpu_since(mark), after the next sample, says how much the tree
        ran meanwhile. None before the first sample, or when the last one found the tree
        changing."""
        pids = self.pids()
        if pids is None:
            return None
        self.clocks = {}   # cpu_since counts up to the next sample's clocks, or to now
        return CpuMark([(pid, process_cpu_ns(pid)) for pid in pids], self.walks, self)

    def pids(self) -> list[int] | None:
        """The processes whose CPU time the last sample read (a sandbox's init is not one),
        parents first; None when it found the tree changing (the next sample walks it afresh)."""
        return None if self._plan is None else [proc.pid for proc in self._plan if proc.clocked]

    def _follow(self, plan: list[_Proc], states: bool) -> TreeUsage:
        """A sample along the last walk's plan; _Changed if the tree's shape changed."""
        pread = os.pread
        clock = time.clock_gettime_ns
        ns = ticks = 0
        clocks: dict[int, int] = {}
        waits: dict[int, float] = {}
        runnable = False
        try:
            for proc in plan:
                if proc.clocked:   # the clock before the stat: the stat read says it was this process's
                    clocks[proc.pid] = own = clock(_cpu_clock(proc.pid))
                    ns += own
                data = pread(proc.stat_fd, 4096, 0)
                rest = data[data.rindex(b")") + 2:].split(None, 18)
                if int(rest[17]) != proc.threads:
                    raise _Changed
                ticks += int(rest[13]) + int(rest[14])
                if proc.ticked:
                    ticks += int(rest[11]) + int(rest[12])
                if states and proc.threads == 1 and rest[0] == b"R":
                    runnable = True
                for task in proc.tasks:
                    if task.sched_fd >= 0:
                        waits[task.tid] = int(pread(task.sched_fd, 4096, 0).split()[1]) / 1e9
                    if pread(task.children_fd, 4096, 0) != task.kids:
                        raise _Changed
                    if states and task.stat_fd is not None and not runnable:
                        tstat = pread(task.stat_fd, 4096, 0)
                        runnable = tstat[tstat.rindex(b")") + 2:][:1] == b"R"
        except (OSError, ValueError, IndexError):
            raise _Changed from None  # a process gone or a file unreadable: walk again
        self.clocks = clocks
        return TreeUsage((ns + ticks * TICK_NS) / 1e9, waits, runnable)

    def _walk(self, states: bool) -> TreeUsage:
        """A sample that finds the tree afresh, from the root down, and keeps its plan."""
        self.walks += 1
        closes = self._closes
        walk = _Walk(self.root, states)
        while walk.todo:
            proc = self._walk_process(walk, walk.todo.pop())
            if proc is None:
                walk.complete = False
            else:
                walk.plan.append(proc)
        # a tree read with a gap (a thread gone mid-walk) is walked again next time
        self._plan = walk.plan if walk.complete and closes == self._closes else None
        self.clocks = walk.clocks
        return TreeUsage((walk.ns + walk.ticks * TICK_NS) / 1e9, walk.waits, walk.runnable)

    def _walk_process(self, walk: _Walk, pid: int) -> _Proc | None:
        """One process of a walk: its CPU time and its threads read, its children queued;
        None where a file of it could not be read."""
        init = pid == self.root and self.root_is_init
        own = None if init else process_cpu_ns(pid)   # before the stat, as in _follow
        got = self._read(f"/proc/{pid}/stat")
        if got is None:
            return None
        stat_fd, data = got
        # alive (its stat read after) yet no clock: a host that keeps CPU clocks from
        # us; its stat's ticks are better than nothing
        ticked = own is None and not init
        try:
            rest = data[data.rindex(b")") + 2:].split()
            threads = int(rest[17])
            walk.ticks += int(rest[13]) + int(rest[14]) + (int(rest[11]) + int(rest[12]) if ticked else 0)
        except (ValueError, IndexError):
            return None
        if own is not None:
            walk.ns += own
            walk.clocks[pid] = own
        if threads == 1:
            tids = [pid]
            walk.runnable = walk.runnable or (walk.states and rest[0] == b"R")
        else:
            try:
                tids = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
            except OSError:
                return None
        read = [self._walk_task(walk, f"/proc/{pid}/task/{tid}", tid, init, threads > 1) for tid in tids]
        tasks = [task for task in read if task is not None]
        if len(tasks) < len(read):
            return None
        return _Proc(pid, stat_fd, threads, tasks, own is not None, ticked)

    def _walk_task(self, walk: _Walk, task: str, tid: int, init: bool, threaded: bool) -> _Task | None:
        """One thread of a walk (`task` its /proc directory): its run-queue wait read (not
        an init's), whether it is runnable, its children queued; None where a file of it
        could not be read."""
        sched: tuple[int, bytes] | None = (-1, b"") if init else self._read(task + "/schedstat")  # -1: not read
        if sched is not None and sched[0] >= 0:
            try:
                walk.waits[tid] = int(sched[1].split()[1]) / 1e9
            except (ValueError, IndexError):
                sched = None
        tstat_fd = None
        if threaded:
            tstat = self._read(task + "/stat")
            if tstat is not None:
                tstat_fd = tstat[0]
                if walk.states and not walk.runnable:
                    walk.runnable = tstat[1][tstat[1].rindex(b")") + 2:][:1] == b"R"
        kids = self._read(task + "/children")
        if kids is not None:
            walk.todo.extend(int(child) for child in kids[1].split())
        if sched is None or kids is None or (threaded and tstat_fd is None):
            return None
        return _Task(tid, sched[0], kids[0], kids[1], tstat_fd)

    def close(self) -> None:
        """Close every open file (a later sample opens them again)."""
        self._plan = None
        self._closes += 1
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()


_OWN = threading.local()


def _forget_own_wait() -> None:
    fd = _OWN.__dict__.pop("fd", None)
    if fd is not None:
        os.close(fd)     # the parent thread's schedstat: a forked child opens its own


os.register_at_fork(after_in_child=_forget_own_wait)


def own_wait_seconds() -> float:
    """Run-queue delay of the calling thread so far (0.0 where schedstat is missing)."""
    fd = getattr(_OWN, "fd", None)
    try:
        if fd is None:
            fd = _OWN.fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        return int(os.pread(fd, 128, 0).split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class StatReader:
    """Re-reads /proc/<pid>/stat through one open fd (a few microseconds a read).

    The open fd stays bound to the process it was opened for, so a reused pid
    can never be read by mistake: reads of a reaped process fail instead.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._fd: int | None = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)

    def read(self) -> Stat | None:
        """The current stat, or None once the process has been reaped."""
        if self._fd is None:
            return None
        try:
            return parse_stat(os.pread(self._fd, 2048, 0))
        except (OSError, ValueError, IndexError):
            self.close()
            return None

    def cpu_ticks(self) -> int | None:
        """utime + stime + cutime + cstime now (clock ticks), or None once reaped: the
        per-move reading, parsed no further than it needs."""
        if self._fd is None:
            return None
        try:
            data = os.pread(self._fd, 2048, 0)
            rest = data[data.rindex(b")") + 2:].split(None, 16)
            return int(rest[11]) + int(rest[12]) + int(rest[13]) + int(rest[14])
        except (OSError, ValueError, IndexError):
            self.close()
            return None

    def close(self) -> None:
        """Release the fd; later reads return None."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def children(pid: int, all_threads: bool = False) -> list[int]:
    """Direct children of `pid` (of its main thread only, unless all_threads)."""
    tids = [pid]
    if all_threads:
        try:
            tids = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            return []
    found: list[int] = []
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as file:
                found.extend(int(child) for child in file.read().split())
        except OSError:
            continue
    return found


def tree_rss_bytes(root: int) -> int:
    """Resident memory of a process and all its descendants, in bytes (each process's RSS:
    pages shared between them count once per process, so this errs on the high side);
    0 for a process that is gone."""
    page = os.sysconf("SC_PAGE_SIZE")
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/statm", "rb") as file:
                total += int(file.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue      # gone meanwhile: nothing of it is resident
        todo.extend(children(pid, all_threads=True))
    return total


def real_uid(pid: int) -> int | None:
    """The real uid of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as file:
            for line in file:
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def count_user_tasks(uid: int) -> int:
    """Processes and threads owned by `uid` now (what RLIMIT_NPROC counts)."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
        except OSError:
            continue
        stat = read_stat(int(entry.name))
        total += stat.num_threads if stat else 0
    return total


class ProcessHandle:
    """Signals one process without the risk of hitting a reused pid (pidfd)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.fd: int | None = None
        try:
            self.fd = os.pidfd_open(pid)
        except ProcessLookupError:
            self.pid = 0  # already gone: nothing to signal, ever
        except (OSError, AttributeError):
            self.fd = None  # old kernel: fall back to the plain pid

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send `sig`; a process that is already gone is not an error."""
        try:
            if self.fd is not None:
                signal.pidfd_send_signal(self.fd, sig)
            elif self.pid > 0:
                os.kill(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def close(self) -> None:
        """Release the pidfd; later kill() calls do nothing."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self.pid = 0  # never fall back to a pid that may belong to someone else by now


_subreaper_set = False


def become_child_subreaper() -> bool:
    """Make this process adopt its orphaned descendants; True if it worked."""
    global _subreaper_set
    if not _subreaper_set:
        import ctypes  # here alone: the clocks that read this module need none of it
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper_set = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _subreaper_set = False
    return _subreaper_set
