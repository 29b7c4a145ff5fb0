"""Whether the -wal file beside a store is the store's own, read without SQLite.

SQLite applies whatever valid -wal file lies beside a database: its header and frames
carry salts and checksums of their own, nothing that ties them to the file. A store
deleted or replaced while a run plays into it leaves its -wal behind, and the next
command that opens a backup copied or moved in its place would read the dead run's
pages into it (and, closing, write them there): the backup then holds another file's
games, or no longer reads at all.

So every arena writer marks page 1 of the store, which SQLite writes first in each
commit's frames: the database header's application_id is the store's token, drawn anew
(rotate) when a writer first writes, and its user_version counts commits (stamp), so
that each WAL begins with a page 1 saying which file, at which commit, it follows. The
rotation is checkpointed into the file before anything else is written, so a copy of the
store made before a run never matches that run's -wal. foreign_wal reads the store's
page 1 and the -wal's frames (the file format: sqlite.org/fileformat.html#walformat)
and says when the -wal follows some other file; storefile refuses such a store in one
line and changes nothing. A -wal in use right now is judged by who uses it instead
(lockers): SQLite shares it among the processes that have this very file open, whatever
wrote it (an sqlite3 shell too); one of them with another file open as the store (deleted
or replaced under it) makes it another file's.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import stat
import struct
import time
from pathlib import Path
from typing import NamedTuple

from .lockers import command_of, locks_on

#: where page 1's header keeps the commit count and the store's token (4 bytes, big-endian)
SEQ_AT, TOKEN_AT = 60, 68
_BOUND = 1 << 31                    # both are positive signed 32-bit numbers
_WAL_MAGIC = (0x377F0682, 0x377F0683)   # checksums little-endian, big-endian
_WAL_VERSION = 3007000
_HEADER, _FRAME_HEADER = 32, 24
#: a verdict of "not its own" is read again this many times (a live writer may have been
#: checkpointing or restarting its -wal while it was read)
_READS = 4


def stamp(db: sqlite3.Connection) -> None:
    """Mark page 1 with the next commit count, keeping the token: called first in every
    write transaction, so every commit's frames begin with page 1."""
    seq = db.execute("PRAGMA user_version").fetchone()[0]
    db.execute(f"PRAGMA user_version = {(seq + 1) % _BOUND}")


def rotate(db: sqlite3.Connection) -> int:
    """Draw the store a new token (in a write transaction): page 1 then says the new token
    and, as its commit count, the old token (a -wal that begins with this commit follows
    a file of the old token). Returns the new token."""
    old = db.execute("PRAGMA application_id").fetchone()[0]
    new = old
    while new in (old, 0):
        new = 1 + secrets.randbelow(_BOUND - 1)
    db.execute(f"PRAGMA application_id = {new}")
    db.execute(f"PRAGMA user_version = {old % _BOUND}")
    return new


def token_of(path: Path) -> int | None:
    """The token in the store file's header as it is on disk; None when the file is
    missing, empty or no SQLite file (emptied or overwritten)."""
    head = _page_one(path)
    if not head.startswith(b"SQLite format 3\x00"):
        return None
    return int.from_bytes(head[TOKEN_AT:TOKEN_AT + 4], "big")


#: a file descriptor of each store file this process read a header of, by (device, inode),
#: never closed: closing any descriptor of a file drops every POSIX lock this process holds
#: on it, SQLite's own among them (sqlite.org/howtocorrupt.html, 2.2), and a process reading
#: a store's header may well have it open in SQLite
_KEPT: dict[tuple[int, int], int] = {}


def _kept_fd(path: Path) -> int | None:
    """A read-only descriptor of the file now at path (kept open: _KEPT); None if none."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(status.st_mode):
        return None
    if (status.st_dev, status.st_ino) not in _KEPT:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        now = os.fstat(fd)
        status = now if (now.st_dev, now.st_ino) not in _KEPT else status   # a file put there meanwhile
        _KEPT.setdefault((now.st_dev, now.st_ino), fd)
    return _KEPT.get((status.st_dev, status.st_ino))


class _Frame(NamedTuple):
    page: int       #: the page number it holds
    commit: bool    #: the last frame of a commit
    offset: int     #: where its page's bytes start in the -wal


def foreign_wal(path: Path) -> str | None:
    """Why the -wal beside the store at path is not the store's own (SQLite would apply
    another file's pages to it), or None: no -wal, nothing in it SQLite would apply, one in
    use by processes that have this very file open (SQLite shares it among them), or one
    whose frames follow this file."""
    wal = Path(f"{path}-wal")
    if not wal.exists():
        return None
    problem = None
    for attempt in range(_READS):
        if attempt:
            time.sleep(0.05 * attempt)
        problem = _in_use(path)
        if problem == "":
            return None
        if problem is None:
            try:
                problem = _read_and_judge(path, wal)
            except _Moving:
                continue
        if problem is None:
            return None
    return problem


def _in_use(path: Path) -> str | None:
    """"" when the -wal is in use by processes that all have this file open (in WAL mode
    every connection holds a lock on the database file and on its -shm for as long as it is
    open), why not when one has another file open as the store (one deleted or replaced
    since), None when nobody uses it (or /proc/locks does not tell)."""
    shm = Path(f"{path}-shm")
    locks = locks_on([path, shm])
    users = {lock.pid for lock in locks or () if lock.path == shm}
    if not users:
        return None
    strangers = sorted(users - {lock.pid for lock in locks or () if lock.path == path})
    if not strangers:
        return ""
    return (f"its -wal file is in use by pid {strangers[0]} ({command_of(strangers[0])}) for "
            "another file, the store it opened before it was deleted or replaced")


class _Moving(Exception):
    """The store or its -wal changed while read (a live writer): read again."""


def _read_and_judge(path: Path, wal: Path) -> str | None:
    try:
        fd = os.open(wal, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"its -wal file cannot be read ({exc.strerror})"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "its -wal file is not a regular file"
        head = os.pread(fd, _HEADER, 0)
        page_one = _page_one(path)
        frames = _committed_frames(fd, head)
        if os.pread(fd, _HEADER, 0) != head or _page_one(path) != page_one:
            raise _Moving
        if not frames:
            return None     # SQLite would apply nothing
        return _judge(page_one, [os.pread(fd, 100, f.offset) for f in frames if f.page == 1],
                      frames[0].page == 1)
    finally:
        os.close(fd)


def _page_one(path: Path) -> bytes:
    """The header of the store's page 1 (its first 100 bytes) as it is on disk (b"" for an
    empty or missing file), read through a descriptor that is never closed (_KEPT)."""
    fd = _kept_fd(path)
    if fd is None:
        return b""
    try:
        head = os.pread(fd, 100, 0)
    except OSError:
        return b""
    return head if len(head) == 100 else b""


def _committed_frames(fd: int, head: bytes) -> list[_Frame]:
    """The frames of the -wal's current generation (its salts), if SQLite would apply any:
    the checksums hold up to the first commit. Empty when nothing would be applied."""
    if len(head) < _HEADER:
        return []
    magic, version, page_size, _seq, salt1, salt2, sum1, sum2 = struct.unpack(">8I", head)
    if magic not in _WAL_MAGIC or version != _WAL_VERSION or page_size < 512 \
            or page_size & (page_size - 1):
        return []
    order = ">" if magic & 1 else "<"
    if _checksum(head[:24], (0, 0), order) != (sum1, sum2):
        return []
    frames: list[_Frame] = []
    sums = (sum1, sum2)
    committed = False
    offset = _HEADER
    while True:
        header = os.pread(fd, _FRAME_HEADER, offset)
        if len(header) < _FRAME_HEADER:
            break
        page, size_after, s1, s2, c1, c2 = struct.unpack(">6I", header)
        if (s1, s2) != (salt1, salt2) or page == 0:
            break
        if not committed:   # the checksums chain from the header: SQLite applies up to a commit
            data = os.pread(fd, page_size, offset + _FRAME_HEADER)
            if len(data) < page_size:
                break
            sums = _checksum(header[:8] + data, sums, order)
            if sums != (c1, c2):
                break
        frames.append(_Frame(page, size_after != 0, offset + _FRAME_HEADER))
        committed = committed or size_after != 0
        offset += _FRAME_HEADER + page_size
    if not committed:
        return []
    return frames


def _checksum(data: bytes, sums: tuple[int, int], order: str) -> tuple[int, int]:
    """SQLite's WAL checksum of data (a multiple of 8 bytes), carried on from sums."""
    s1, s2 = sums
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return s1, s2


def _marks(page: bytes) -> tuple[int, int]:
    """(token, commit count) of a page 1 (0, 0 for none)."""
    if len(page) < 100:
        return 0, 0
    return (int.from_bytes(page[TOKEN_AT:TOKEN_AT + 4], "big"),
            int.from_bytes(page[SEQ_AT:SEQ_AT + 4], "big"))


def _judge(page_one: bytes, wal_page_ones: list[bytes], first_is_page_one: bool) -> str | None:
    """None when the -wal's frames follow the store whose page 1 is page_one: the store's
    page 1 is one the -wal wrote (checkpointed into it: its token and commit count), or the
    -wal's first commit comes right after the store's last (its token, the next count) or
    draws its token anew from the store's. Else why not."""
    token, seq = _marks(page_one)
    if token and (token, seq) in {_marks(page) for page in wal_page_ones}:
        return None
    first_token, first_seq = _marks(wal_page_ones[0]) if first_is_page_one else (0, 0)
    if first_token:
        if first_token == token and first_seq == (seq + 1) % _BOUND:
            return None
        if first_token != token and first_seq == token:
            return None
        return ("its -wal file belongs to another file (a store deleted or replaced while a run "
                "played into it leaves its -wal behind)")
    if token == seq == 0:
        return None         # neither marked: both from an arena from before the marks
    return ("its -wal file was left by another program than arena, and cannot be told to be "
            "this store's (if it is, open the store once with SQLite itself to apply it)")
