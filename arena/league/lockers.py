"""Which processes hold locks on a file, as Linux's /proc/locks tells: a run's claim on its
store (flock), SQLite's own locks on a store and its -shm (POSIX). Said when a store is
refused because another process holds it, and read to tell a -wal in use (walfile)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple


class Lock(NamedTuple):
    """A lock some process holds on one of the files asked about."""

    path: Path
    pid: int
    writing: bool     #: a write (exclusive) lock, not a read (shared) one


def locks_on(paths: Iterable[Path]) -> list[Lock] | None:
    """The locks held on these files (this process's too), in /proc/locks' order; None
    where /proc/locks cannot be read (not Linux)."""
    files: dict[tuple[int, int, int], Path] = {}
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            continue
        files[(os.major(status.st_dev), os.minor(status.st_dev), status.st_ino)] = Path(path)
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    found = []
    for line in lines:
        fields = line.split()
        if "->" in fields:   # a lock waited for, not held
            continue
        try:
            kind, pid, where = fields[3], int(fields[4]), fields[5].split(":")
            file = (int(where[0], 16), int(where[1], 16), int(where[2]))
        except (IndexError, ValueError):
            continue
        if file in files and pid > 0:
            found.append(Lock(files[file], pid, kind == "WRITE"))
    return found


def command_of(pid: int) -> str:
    """A process's command line on one line, shortened; "?" where it cannot be read."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    text = " ".join(" ".join(arg.decode(errors="replace").split()) for arg in argv if arg)
    return text if len(text) <= 80 else text[:77] + "..."
