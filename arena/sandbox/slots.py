"""Per-bot uids for a root referee: one unused uid per running bot.

RLIMIT_NPROC is ignored for root and counts every process of a uid, so a root
referee runs each bot under its own otherwise unused uid. The uid is held with
an flock(2) on a lock file for as long as the bot's processes may live, so two
referee processes on one machine never hand out the same uid at once.
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
from pathlib import Path

from .errors import HostError, SandboxError

SLOT_UID_BASE = 1_900_000_000  # far above real and subordinate (100000+) uid ranges
SLOT_COUNT = 4096

_held: set[int] = set()  # uids this process holds, to skip their lock files quickly


class UidSlot:
    """One locked uid; release() once every process of the bot is gone."""

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self._fd: int | None = fd

    def release(self) -> None:
        """Unlock the uid for the next bot (idempotent)."""
        if self._fd is not None:
            _held.discard(self.uid)
            os.close(self._fd)  # closing the fd drops the flock
            self._fd = None


def lock_dir() -> Path:
    """The root-only directory holding the slot lock files."""
    for base in (Path("/run"), Path(tempfile.gettempdir())):
        path = base / "arena-sandbox-slots"
        try:
            path.mkdir(mode=0o700, exist_ok=True)
            info = os.lstat(path)
        except OSError:
            continue
        # Refuse a directory someone else planted (e.g. in a shared /tmp).
        if stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and not info.st_mode & 0o022:
            return path
    raise SandboxError(
        "no usable directory for uid slot locks under '/run' or "
        f"{tempfile.gettempdir()!r}; hint: make /run writable for root"
    )


def acquire(directory: Path, base: int = SLOT_UID_BASE, count: int = SLOT_COUNT) -> UidSlot:
    """Lock and return the first free uid in [base, base + count)."""
    for uid in range(base, base + count):
        if uid in _held:
            continue
        fd = os.open(directory / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        _held.add(uid)
        return UidSlot(uid, fd)
    raise HostError(
        f"all {count!r} bot uids from {base!r} are in use; hint: close finished bots "
        "(SandboxedProcess.close) or run fewer bots at once"
    )
