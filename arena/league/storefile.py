"""A store's file: making, opening and checking the SQLite file a league's results live in.

What is here knows the file, not the league: where a store may be made (check_store_path),
its schema and the migration of a store from before versions, opening it to write (the
file checked whole first, so a damaged store is refused before anything is written) or
only to read (on a read-only mount too), the one line a failed read becomes, and the
file's identity, by which a run sees its store deleted or replaced under it. Store
(arena.league.store) holds what a league asks of the open file.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from arena.errors import ArenaError
from arena.userfiles import not_regular

from .versions import store_files

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 30_000

SCHEMA = """
CREATE TABLE IF NOT EXISTS league (
    key   TEXT PRIMARY KEY,     -- name, game, rules, seed, openings, time_control, season, ...
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id            INTEGER PRIMARY KEY,
    fixture_key   TEXT NOT NULL,      -- of more than two seats, "||V2.V3" after it (stored_key)
    fixture_index INTEGER NOT NULL,   -- index in the schedule that played it
    round         INTEGER NOT NULL,
    seed          INTEGER NOT NULL,
    seat0         TEXT NOT NULL,
    seat1         TEXT NOT NULL,
    winner        INTEGER,            -- 0, 1, or NULL for a draw
    termination   TEXT NOT NULL,
    faulted       INTEGER,
    reason        TEXT NOT NULL,
    record        TEXT NOT NULL,      -- GameRecord.to_json(): moves, times, everything
    finished_at   TEXT NOT NULL,      -- ISO 8601 UTC, when it was stored
    v0            INTEGER NOT NULL DEFAULT 1,   -- version of seat0's bot (table versions)
    v1            INTEGER NOT NULL DEFAULT 1,
    season        INTEGER NOT NULL DEFAULT 1,   -- league settings changed: a new season
    UNIQUE (fixture_key, v0, v1, season)
);
CREATE INDEX IF NOT EXISTS games_in_order ON games (round, seed, fixture_key);
-- what a ladder asks as it runs: a pairing's games (of given versions), a bot version's games
CREATE INDEX IF NOT EXISTS games_by_pairing ON games (seat0, seat1, v0, v1);
CREATE INDEX IF NOT EXISTS games_by_seat1 ON games (seat1, v1);
-- the bots of seats 2, 3, ... of a game of more than two seats (seat0, seat1, v0 and v1
-- hold the first two): a two-seat league's games have none
CREATE TABLE IF NOT EXISTS more_seats (
    game    INTEGER NOT NULL,     -- games.id
    seat    INTEGER NOT NULL,     -- 2, 3, ...
    bot     TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (game, seat)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS versions (
    bot         TEXT NOT NULL,
    version     INTEGER NOT NULL,     -- 1, 2, ... per bot
    fingerprint TEXT,                 -- NULL: games from before versions, not yet fingerprinted
    manifest    TEXT,                 -- JSON: what the fingerprint hashes (arena.league.versions)
    first_seen  TEXT NOT NULL,
    PRIMARY KEY (bot, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS retired (bot TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID;
-- a ladder's versions that faulted too often: they play no more (a new version does)
CREATE TABLE IF NOT EXISTS suspended (
    bot TEXT NOT NULL, version INTEGER NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (bot, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS file_hashes (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS builds (
    dir     TEXT NOT NULL,    -- where the build runs
    command TEXT NOT NULL,    -- the build command
    record  TEXT NOT NULL,    -- JSON: its last run's inputs and outputs (arena.league.builds)
    PRIMARY KEY (dir, command)
) WITHOUT ROWID
"""

class StoreError(ArenaError, RuntimeError):
    """A store file that cannot be used for this league."""


class StoreDamagedError(StoreError):
    """A store file SQLite opens but cannot read whole: a damaged page, text that is not UTF-8."""


class StoreGoneError(StoreError):
    """The store's file was deleted or replaced while it was open: what went into it is lost."""


def check_store_path(path: str | os.PathLike[str]) -> None:
    """StoreError unless a store can be made or written at path: it and the files SQLite
    writes beside it are regular files or absent, and the directory that holds it (or the
    nearest one that exists, where the missing ones would be made) is writable. Nothing
    is written: a run checks this before it builds or plays anything."""
    store = Path(path)
    for file in sorted(store_files(store)):   # the store, then the files beside it
        kind = not_regular(file)
        if kind is not None:
            raise StoreError(f"{store}: cannot be a store: {file} is {kind}, not a regular file")
    above = next(p for p in store.absolute().parents if p.exists())
    if not above.is_dir():
        raise StoreError(f"{store}: cannot make its directory: {above} is a file")
    if not os.access(above, os.W_OK | os.X_OK):
        raise StoreError(f"{store}: its directory {str(above)!r} is not writable")


@contextlib.contextmanager
def transaction(db: sqlite3.Connection, path: Path) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an error; a write SQLite refuses (disk
    full, read-only, locked too long) is a StoreError naming the store."""
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        raise StoreError(f"{path}: cannot write to the store ({exc})") from None


def open_for_writing(path: Path) -> sqlite3.Connection:
    """The store at path opened to write, made (and its directory) if it is not there:
    checked whole first (check_intact), in WAL mode, its schema made or migrated. A file
    that is no usable store is a StoreError, and nothing was written to it."""
    check_store_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{path}: cannot make its directory: {exc.strerror}") from None
    try:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000,   # busy_timeout
                             isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the store ({exc})") from None
    try:
        check_intact(db, path)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        with transaction(db, path):
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            if row is not None and row[0] == 1:
                migrate_from_1(db)
            elif row is not None and row[0] != SCHEMA_VERSION:
                raise StoreError(f"{path}: store schema version {row[0]}, this arena "
                                 f"reads version {SCHEMA_VERSION}")
            for statement in SCHEMA.split(";"):   # executescript() would COMMIT first
                db.execute(statement)
            if row is None:
                db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
    except sqlite3.DatabaseError as exc:
        db.close()
        raise StoreError(f"{path}: not a usable arena store ({exc})") from None
    except StoreError:
        db.close()
        raise
    return db


def open_readonly(path: Path) -> sqlite3.Connection:
    """The store at path opened only to read: nothing is written to the file; a store from
    before versions is migrated in memory."""
    if not path.is_file():
        raise StoreError(f"{path}: no such store file")
    uri = "file:" + urllib.parse.quote(str(path.absolute()))
    # read-write but query_only tidies the WAL files away on close; mode=ro still
    # needs the WAL index (-shm) beside the file; where that cannot be made (a
    # read-only mount) nobody can be writing, so immutable is safe
    for options in ("?mode=rw", "?mode=ro", "?mode=ro&immutable=1"):
        db = None
        try:
            db = sqlite3.connect(uri + options, uri=True, check_same_thread=False)
            db.execute("PRAGMA query_only = ON")
            row = db.execute("SELECT version FROM schema_version").fetchone()
        except sqlite3.OperationalError as exc:
            if db is not None:
                db.close()
            if "no such table" in str(exc):
                raise StoreError(f"{path}: not an arena store (no schema)") from None
            problem = str(exc)
            continue
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            raise StoreError(f"{path}: not a usable arena store ({exc})") from None
        if row is not None and row[0] == 1:   # from before versions: migrated in memory
            memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            db.backup(memory)
            db.close()
            migrate_from_1(memory)
            return memory
        if row is None or row[0] != SCHEMA_VERSION:
            db.close()
            raise StoreError(f"{path}: store schema version {row and row[0]}, this "
                             f"arena reads version {SCHEMA_VERSION}")
        return db
    raise StoreError(f"{path}: cannot open the store to read ({problem})")


def check_intact(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a damaged file before anything is written to it: its structure
    (quick_check) and every text in it, which SQLite stores unchecked and Python decodes
    as UTF-8 (0.05 s and 0.08 s of CPU for 20,000 games: benchmarks/store_check.py)."""
    rows = [row[0] for row in db.execute("PRAGMA quick_check(3)").fetchall()]
    if rows != ["ok"]:
        found = [" ".join(line.split()) for row in rows for line in str(row).splitlines()
                 if line.strip() and not line.startswith("***")]
        raise StoreDamagedError(f"{path}: the store is damaged ({'; '.join(found)}); "
                                "nothing was written to it: restore it from a backup or use "
                                "another file")
    try:
        tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError as exc:
        raise unreadable(exc, path, readonly=False) from None
    for (table,) in tables:
        try:
            for _row in db.execute(f'SELECT * FROM "{table}"'):
                pass
        except sqlite3.DatabaseError as exc:
            raise unreadable(exc, path, readonly=False, where=f"table {table!r}: ") from None


def unreadable(exc: sqlite3.DatabaseError, path: Path, readonly: bool, where: str = "") -> StoreError:
    """The one line for a read that failed: a damaged store, or the reason SQLite gives."""
    text = str(exc)
    column = re.match(r"Could not decode to UTF-8 column '([^']*)'", text)
    if column is not None:   # named when it is a column, not an expression
        named = f"column {column[1]!r}" if column[1].isidentifier() else "a column"
        text = f"{where}{named} holds text that is not UTF-8"
    elif isinstance(exc, sqlite3.OperationalError):     # locked, I/O error: not damage
        return StoreError(f"{path}: cannot read the store ({text})")
    else:
        text = where + text
    written = "; nothing was written to it" if not readonly else ""
    return StoreDamagedError(f"{path}: the store is damaged ({text}){written}: "
                             "restore it from a backup or use another file")


def migrate_from_1(db: sqlite3.Connection) -> None:
    """A store from before versions: its games become version 1 of each bot, season 1."""
    db.execute("ALTER TABLE games RENAME TO games_v1")
    db.execute("DROP INDEX IF EXISTS games_in_order")
    for statement in SCHEMA.split(";"):
        db.execute(statement)
    db.execute("INSERT INTO games (id, fixture_key, fixture_index, round, seed, seat0, seat1, winner,"
               " termination, faulted, reason, record, finished_at, v0, v1, season)"
               " SELECT id, fixture_key, fixture_index, round, seed, seat0, seat1, winner,"
               " termination, faulted, reason, record, finished_at, 1, 1, 1 FROM games_v1")
    db.execute("DROP TABLE games_v1")
    db.execute("INSERT INTO versions (bot, version, fingerprint, manifest, first_seen)"
               " SELECT bot, 1, NULL, NULL, min(at) FROM (SELECT seat0 AS bot, finished_at AS at"
               " FROM games UNION ALL SELECT seat1, finished_at FROM games) GROUP BY bot")
    db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at path now; None if there is none."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_dev, status.st_ino)
