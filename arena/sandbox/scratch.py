"""Scratch roots: each process keeps its bots' scratch dirs in one directory of its own,
locked (flock) while it lives, so whatever a killed process left (kill -9 ends it with no
chance to clean up) is found unlocked and cleaned by the next process that makes a root."""

from __future__ import annotations

import fcntl
import logging
import os
import tempfile
import threading
from pathlib import Path

from .process import remove_tree
from .procfs import ProcessHandle

logger = logging.getLogger("arena.sandbox")

#: a root's name: what the sweep looks for
PREFIX = "arena-bots-"
#: a root's name before it is locked, so that no sweep takes it for a dead process's
_UNLOCKED = "arena-new-"


class ScratchRoot:
    """The directory of this process's bot scratch dirs, inside `parent`: made at the first
    bot, removed once its last bot is closed (and made again at the next)."""

    def __init__(self, parent: Path) -> None:
        self.parent = parent
        self._lock = threading.Lock()   # threads of one process share its root
        self._path: Path | None = None
        self._fd = -1
        self._owner = 0                 # the pid that made it: a forked child makes its own
        _roots.append(self)

    def remove(self) -> None:
        """Remove this process's root and whatever is left in it: for a process on its way
        out, whose bots are closed (or die with it), so nothing it made outlives it."""
        with self._lock:
            if self._path is None or self._owner != os.getpid():
                return
            remove_tree(self._path)
            os.close(self._fd)
            self._path, self._fd = None, -1

    def new_dir(self) -> Path:
        """A new, private scratch dir for one bot."""
        with self._lock:
            return Path(tempfile.mkdtemp(prefix="arena-bot-", dir=self._root()))

    def remove_dir(self, path: Path) -> None:
        """Remove a bot's scratch dir, and the root with it once it holds no other."""
        remove_tree(path)
        with self._lock:
            if self._path is None or self._owner != os.getpid() or path.parent != self._path:
                return
            try:
                os.rmdir(self._path)
            except OSError:
                return      # another bot of this process still has its dir there
            os.close(self._fd)
            self._path, self._fd = None, -1

    def _root(self) -> Path:
        if self._path is not None and self._owner == os.getpid():
            return self._path
        made = Path(tempfile.mkdtemp(prefix=_UNLOCKED, dir=self.parent))
        fd = os.open(made, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        fcntl.flock(fd, fcntl.LOCK_EX)      # held until this process closes it or dies
        # searchable, not listable: a bot uid reaches its own dir, not the others' names
        os.chmod(made, 0o711)
        path = made.with_name(PREFIX + made.name[len(_UNLOCKED):])
        os.rename(made, path)
        self._path, self._fd, self._owner = path, fd, os.getpid()
        return path


#: every ScratchRoot of this process (and those a fork inherited, which remove() skips)
_roots: list[ScratchRoot] = []


def remove_own_roots() -> None:
    """Remove the scratch roots this process made, with what is left in them (a process
    that is exiting: its bots are closed, or die with it)."""
    for root in list(_roots):
        root.remove()


def sweep(parent: Path) -> int:
    """Clean the roots in `parent` whose process is gone (their lock is free): kill what
    still runs there (a bot, or a bwrap killed half-way through its set-up, whose
    command line or working directory names the root), then remove them. How many."""
    cleaned = 0
    try:
        names = [name for name in os.listdir(parent) if name.startswith(PREFIX)]
    except OSError:
        return 0
    for name in names:
        path = parent / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue        # removed meanwhile, or not a directory
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue    # its process is alive
            for pid in _processes_in(str(path)):
                ProcessHandle(pid).kill()
            remove_tree(path)
            cleaned += 1
            logger.info("removed %s, left by a process that was killed", path)
        finally:
            os.close(fd)
    return cleaned


def _processes_in(root: str) -> list[int]:
    """Live processes whose command line or working directory names `root`."""
    found = []
    mine = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or entry == mine:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                argv = file.read().decode(errors="replace")
        except OSError:
            continue        # gone
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            cwd = ""        # a zombie, or gone
        if root in argv or cwd == root or cwd.startswith(root + "/"):
            found.append(int(entry))
    return found
