"""A store's open file, which the store's parts share: the connection, its lock, writing.

Each finished game is committed on its own, so a crash (even kill -9 of the writer)
loses only the games still being played, and a re-run plays exactly what is missing.
WAL journal with synchronous=NORMAL: a commit is in the WAL before add_game returns,
so it survives any crash or kill of the process; only a power cut or OS crash can
lose the last few commits, and a re-run plays those again. FULL (an fsync per game)
cost more than a whole short game here, with leagues of 100 games/s in view. A writer
copies the WAL into the file itself (every CHECKPOINT_EVERY commits), each time after it
saw the file is still its own (check_file): one written over in place never gets its pages.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..storefile import (
    SCHEMA_VERSION,
    StoreError,
    StoreGoneError,
    begin_writing,
    file_identity,
    lock_holders,
    open_for_writing,
    open_readonly,
    transaction,
    unreadable,
)
from ..walfile import token_of

#: commits between two checkpoints of the -wal into the file (a game's commit is a few
#: pages: about what SQLite's own 1,000 pages would be)
CHECKPOINT_EVERY = 100


class OpenStore:
    """A league's SQLite results file, open; safe to share between threads of one process
    (every use of `db` holds `lock`: the parts of the store take it around their queries).

    Opened for writing (the default) the file is checked whole first (`PRAGMA quick_check`,
    every text and every record read once): a damaged store is refused, never written to;
    claim=True holds it for one run before anything is written, and the first write makes
    it ready (storefile.begin_writing). readonly=True opens it without writing anything, so
    a store on a read-only mount can still be read; damage in what readers read is
    refused, damage elsewhere kept in `damage` to be said; a damaged part met while
    reading is a StoreError naming the store, not a traceback.
    """

    def __init__(self, path: str | os.PathLike[str], readonly: bool = False,
                 claim: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.lock = threading.Lock()
        self._claim: int | None = None   # fd holding this run's flock, see claim()
        self._file: tuple[int, int] | None = None   # (device, inode) of the file opened for writing
        self._added = 0                  # games stored through this object
        self._token: int | None = None   # the file's token once this writer began (walfile)
        self._commits = 0                # since the last checkpoint
        self._overwritten = False        # the file was written over in place: never closed
        self._count_at_open = 0          # games in the file when this writer began
        #: damage found (and said) in a part of the file no reader reads
        self.damage: str | None = None
        self.db: sqlite3.Connection
        if readonly:
            self.db, self.damage = open_readonly(self.path)
            self._schema: int | None = SCHEMA_VERSION
        else:
            self.db, self._schema = open_for_writing(self.path)
            self._file = file_identity(self.path)   # the file just opened
            try:
                if claim:
                    self.claim()
                if self._schema != SCHEMA_VERSION:   # new, or from before versions: made now
                    self._begin()
            except BaseException:
                self.close()
                raise

    def _begin(self) -> None:
        """Make the file ready to be written (storefile.begin_writing), once, before the
        first write: nothing is written to a store a run refuses."""
        if self._token is None:
            self._token = begin_writing(self.db, self.path, self._schema)
            self._schema = SCHEMA_VERSION
            self._count_at_open = self.count_games()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """A query's rows; a part of the file that cannot be read is a StoreError naming it.
        The caller holds the lock."""
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise unreadable(exc, self.path, self.readonly) from None

    def count_games(self) -> int:
        """How many games the file holds (every season and version); the caller holds the lock."""
        return int(self.rows("SELECT count(*) FROM games")[0][0])

    def tables(self) -> set[str]:
        """The names of the file's tables (a store read as it is may be from before some of
        them); the caller holds the lock."""
        return {name for (name,) in self.rows("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def check_file(self) -> None:
        """StoreGoneError if the file at the store's path is no longer the one open for
        writing (deleted, replaced by another file, or written over in place: emptied, or
        another file's bytes put in it): games stored since are in no file."""
        if self._file is None:
            return
        now = file_identity(self.path)
        if now != self._file:
            how = "deleted" if now is None else "replaced by another file"
            lost = self.count_games()
        elif self._token is not None and not self._token_holds():
            self._overwritten = True
            how, lost = "overwritten", self._count_at_open + self._added
        else:
            return
        self._file = None   # said once
        raise StoreGoneError(
            f"{self.path}: the store file was {how} while this run stored games in it: its "
            f"{lost} game{'s' if lost != 1 else ''} ({self._added} played by this run) "
            f"{'are' if lost != 1 else 'is'} lost with it; nothing more is stored")

    def _token_holds(self) -> bool:
        """Whether the file's header still carries this store's token: the one this writer
        drew, or one another writer drew since (what SQLite reads now says so)."""
        for _ in range(3):
            on_disk = token_of(self.path)
            if on_disk == self._token:
                return True
            if on_disk is None:
                return False
            try:
                now = self.db.execute("PRAGMA application_id").fetchone()[0]
            except sqlite3.DatabaseError:
                return False
            if now == on_disk == token_of(self.path):
                self._token = now
                return True
        return False

    def claim(self, then: str = "wait for it to finish, or give this league another store") -> None:
        """Hold the store for one run: a second claim (another `arena run`, `arena forget`)
        is refused, saying then what to do, until this store is closed or its process dies."""
        fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holders = [f"pid {pid}: {command}" for pid, command in lock_holders(self.path)]
            who = f" ({'; '.join(holders[:1])})" if holders else ""
            raise StoreError(f"{self.path}: another `arena run` is playing into this store{who}; "
                             f"{then}") from None
        # closed only after the database: closing any fd of the file would drop
        # SQLite's own (POSIX) locks
        self._claim = fd

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an error; holds the store's lock. The
        first makes the file ready to be written."""
        with self.lock:
            self._begin()
            with transaction(self.db, self.path):
                yield
            self._commits += 1

    def stored(self, games: int) -> None:
        """After a game's commit (games: 1 if it was stored, 0 if it was there already):
        count it, see that the file is still this store's (a stat and the header's token: a
        store deleted or written over must not take more games with it, nor have this
        writer's pages copied into it) and checkpoint. The caller holds the lock."""
        self._added += games
        self.check_file()
        self._checkpoint()

    def _checkpoint(self) -> None:
        """Every CHECKPOINT_EVERY commits, copy the -wal into the file (what SQLite does by
        itself every 1,000 pages, done here after check_file: a file written over in place
        is seen before a checkpoint could write into it)."""
        if self._commits >= CHECKPOINT_EVERY:
            self._commits = 0
            self.db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        """Close the file (and give up a claim); the store is unusable afterwards. A store
        written over in place is left open: closing would copy this writer's -wal into the
        file that took its place."""
        if not self.readonly and self._token is not None and not self._overwritten:
            self._overwritten = file_identity(self.path) == self._file and not self._token_holds()
        if self._overwritten:   # kept open, and never freed: not even at the interpreter's exit
            import ctypes
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(self.db))
        else:
            self.db.close()
        if self._claim is not None:
            os.close(self._claim)
            self._claim = None


def now() -> str:
    """The time as the store writes every time: ISO 8601 UTC to the second (one format, so
    that text order is time order)."""
    return datetime.now(UTC).isoformat(timespec="seconds")
