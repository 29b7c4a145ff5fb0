"""A store's file: making, opening and checking the SQLite file a league's results live in.

What is here knows the file, not the league: where a store may be made (check_store_path),
its schema and the migration of a store from before versions, opening it to write (the
file checked whole first, and nothing written until the writer begins: a store refused
is left byte for byte) or only to read (on a read-only mount too, what readers read
checked), the -wal beside it checked to be its own before SQLite opens it (walfile), the
one line a failed read or a lock becomes, and the file's identity, by which a run sees
its store deleted or replaced under it. Store (arena.league.store) holds what a league
asks of the open file.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from arena.errors import ArenaError
from arena.record import GameRecord, RecordError
from arena.userfiles import not_regular

from .lockers import command_of, locks_on
from .versions import store_files
from .walfile import foreign_wal, rotate, stamp

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
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an error; page 1 marked first (walfile:
    every commit's frames begin with it); a write SQLite refuses (disk full, read-only,
    locked too long) is a StoreError naming the store."""
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            stamp(db)
            yield
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        raise locked(path, exc) or StoreError(f"{path}: cannot write to the store ({exc})") from None


class Opened(NamedTuple):
    """A store opened to write, nothing written to it yet."""

    db: sqlite3.Connection
    schema: int | None      #: its schema version; None for a new (empty) file


def open_for_writing(path: Path) -> Opened:
    """The store at path opened to write, made (and its directory) if it is not there, and
    checked whole (a -wal beside it that is not its own, the file's structure, every text
    and every game's record): a file that is no usable store is a StoreError, and nothing
    was written to it. Nothing is written here: begin_writing makes the file ready before
    its first write, once whatever else the caller checks (its claim) has passed."""
    check_store_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{path}: cannot make its directory: {exc.strerror}") from None
    refuse_foreign_wal(path)
    try:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000,   # busy_timeout
                             isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the store ({exc})") from None
    try:
        check_intact(db, path)
        schema = schema_of(db, path)
        if schema is not None and schema not in (1, SCHEMA_VERSION):
            raise StoreError(f"{path}: store schema version {schema}, this arena reads version "
                             f"{SCHEMA_VERSION}; nothing was written to it")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA wal_autocheckpoint = 0")   # the Store checkpoints (Store.check_file)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise locked(path, exc) or StoreError(f"{path}: not a usable arena store ({exc})") from None
    except StoreError:
        db.close()
        raise
    return Opened(db, schema)


def begin_writing(db: sqlite3.Connection, path: Path, schema: int | None) -> int:
    """Make a store opened by open_for_writing ready to be written: in WAL mode, its schema
    made or migrated, a new token drawn and checkpointed into the file (walfile), so that
    no copy of it made before this writer matches the -wal it writes. Returns the token."""
    try:
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode = WAL")
        with transaction(db, path):
            if schema is None:
                db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            elif schema == 1:
                migrate_from_1(db)
            for statement in SCHEMA.split(";"):   # executescript() would COMMIT first
                db.execute(statement)
            token = rotate(db)
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise locked(path, exc) or StoreError(f"{path}: cannot write to the store ({exc})") from None
    if busy:
        raise locked(path, sqlite3.OperationalError("database is locked")) or StoreError(
            f"{path}: cannot begin writing: the store stayed busy for {BUSY_TIMEOUT_MS // 1000} s")
    return token


def schema_of(db: sqlite3.Connection, path: Path) -> int | None:
    """The schema version of an arena store; None for a file with no tables yet (new);
    StoreError for an SQLite file of other tables (no arena store: nothing is added to it)."""
    tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    if "schema_version" not in tables:
        if tables:
            raise StoreError(f"{path}: not an arena store: it holds tables of its own "
                             f"({', '.join(sorted(tables)[:3])}); nothing was written to it")
        return None
    row = db.execute("SELECT version FROM schema_version").fetchone()
    return None if row is None else int(row[0])


def refuse_foreign_wal(path: Path) -> None:
    """StoreError, before SQLite opens the file, when the -wal beside it is not its own."""
    problem = foreign_wal(path)
    if problem is not None:
        raise StoreError(
            f"{path}: {problem}: nothing was read or written; move {path.name}-wal and "
            f"{path.name}-shm out of the way to use the store as it is")


def open_readonly(path: Path) -> tuple[sqlite3.Connection, str | None]:
    """The store at path opened only to read: nothing is written to the file; a store from
    before versions is migrated in memory. Refused (StoreError) like open_for_writing for a
    -wal that is not its own, and for damage in what a reader reads; damage only in what
    no reader reads is returned with it, to be said (check_readable)."""
    if not path.is_file():
        raise StoreError(f"{path}: no such store file")
    refuse_foreign_wal(path)
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
            busy = locked(path, exc)
            if busy is not None:
                raise busy from None
            problem = str(exc)
            continue
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            raise StoreError(f"{path}: not a usable arena store ({exc})") from None
        if row is None or row[0] not in (1, SCHEMA_VERSION):
            db.close()
            raise StoreError(f"{path}: store schema version {row and row[0]}, this "
                             f"arena reads version {SCHEMA_VERSION}")
        try:
            damage = check_readable(db, path)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise unreadable(exc, path, readonly=True) from None
        except BaseException:
            db.close()
            raise
        if row[0] == 1:   # from before versions: migrated in memory
            memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            db.backup(memory)
            db.close()
            migrate_from_1(memory)
            db = memory
        return db, damage
    raise StoreError(f"{path}: cannot open the store to read ({problem})")


#: tables a store keeps for the runs alone (file hashes, builds): a reader needs none of them
RUN_ONLY_TABLES = ("file_hashes", "builds")


def check_readable(db: sqlite3.Connection, path: Path) -> str | None:
    """Refuse damage in what a reader reads (every table but the runs' own, with its
    indexes: PRAGMA quick_check, the whole file, then table by table where it found any):
    a StoreDamagedError naming it. Damage only elsewhere (the runs' tables, pages of no
    table) is returned, to be said: a reader shows what it read, and says what it did not."""
    found = _damage(db)
    if found is None:
        return None
    for table, rows in _damaged_tables(db):
        if table not in RUN_ONLY_TABLES:
            raise StoreDamagedError(f"{path}: the store is damaged (table {table!r}: "
                                    f"{_said(rows)}): restore it from a backup or use another file")
    return found


def _damage(db: sqlite3.Connection) -> str | None:
    """What PRAGMA quick_check finds wrong in the whole file, in one line; None if nothing.
    A file SQLite cannot read as a database at all raises."""
    try:
        rows = [str(row[0]) for row in db.execute("PRAGMA quick_check(3)").fetchall()]
    except sqlite3.DatabaseError:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()   # raises: no database
        # a damaged page the check stopped on: found again table by table, to name it
        return "; ".join(f"table {table!r}: {_said(rows)}" for table, rows in _damaged_tables(db)) \
            or "database disk image is malformed"
    return None if rows == ["ok"] else _said(rows)


def _damaged_tables(db: sqlite3.Connection) -> list[tuple[str, list[str]]]:
    """Each table (with its indexes) PRAGMA quick_check finds damaged, and what it found."""
    found = []
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        try:
            rows = [str(row[0]) for row in db.execute(f'PRAGMA quick_check("{table}")').fetchall()]
        except sqlite3.DatabaseError as exc:
            rows = [str(exc)]
        if rows != ["ok"]:
            found.append((table, rows))
    return found


def damage_warning(path: Path, damage: str) -> str:
    """The warning a reader gives for damage outside what it read (check_readable)."""
    return (f"{path}: part of the store is damaged ({damage}), none of what this command "
            "reads: restore the store from a backup before the next run, which refuses it")


def _said(rows: list[str]) -> str:
    """quick_check's findings in one line."""
    return "; ".join(" ".join(line.split()) for row in rows for line in row.splitlines()
                     if line.strip() and not line.startswith("***"))


def check_intact(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a damaged file before anything is written to it: its structure
    (quick_check), every text in it, which SQLite stores unchecked and Python decodes
    as UTF-8, and every game's record, which must be one (GameRecord.from_json) of the
    bots its row names (0.06 s, 0.11 s and 3.3-4.3 s of CPU for 20,000 games on a loaded
    machine: benchmarks/store_check.py)."""
    found = _damage(db)
    if found is not None:
        raise StoreDamagedError(f"{path}: the store is damaged ({found}); nothing was written "
                                "to it: restore it from a backup or use another file")
    try:
        tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError as exc:
        raise unreadable(exc, path, readonly=False) from None
    for (table,) in tables:
        try:
            cursor = db.execute(f'SELECT * FROM "{table}"')
            columns = [c[0] for c in cursor.description]
            games = table == "games" and {"fixture_key", "seat0", "seat1", "record"} <= set(columns)
            key, seat0, seat1, text = (columns.index(c) for c in ("fixture_key", "seat0", "seat1", "record")) \
                if games else (0, 0, 0, 0)
            for row in cursor:
                if games:
                    record_of(row[text], row[key], (row[seat0], row[seat1]), path, before_writing=True)
        except sqlite3.DatabaseError as exc:
            raise unreadable(exc, path, readonly=False, where=f"table {table!r}: ") from None


def record_of(text: str, key: str, seats: Sequence[str], path: Path,
              before_writing: bool = False) -> GameRecord:
    """The record a games row holds (key: its fixture key; seats: the bots of its seats as
    the row names them, the first two or all); StoreDamagedError naming the game when the
    text is no record or a record of other bots (before_writing: the check of a store
    opened to write, which says nothing was written)."""
    try:
        record = GameRecord.from_json(text)
    except RecordError as exc:
        problem = f"its record cannot be read: {exc}"
    else:
        names = [bot.name for bot in record.bots]
        if names[:len(seats)] == list(seats):
            return record
        problem = f"its record names the bots {names}, its row {list(seats)}"
    written = "; nothing was written to it" if before_writing else ""
    raise StoreDamagedError(f"{path}: the store is damaged (game {key!r}: {problem}){written}: "
                            "restore it from a backup or use another file")


def locked(path: Path, exc: sqlite3.Error) -> StoreError | None:
    """The one line for a store SQLite found locked (after its busy timeout), naming the
    processes that hold locks on it (from /proc/locks: a run's claim, SQLite's own locks);
    None for any other error."""
    if "locked" not in str(exc):
        return None
    holders = lock_holders(path)
    who = "; ".join(f"pid {pid}: {command}" for pid, command in holders[:3]) or "which one is unknown"
    return StoreError(f"{path}: another process holds the store ({who}); wait for it to end "
                      "or stop it, then try again")


def lock_holders(path: Path) -> list[tuple[int, str]]:
    """(pid, command line) of each other process holding a lock on the store or the files
    SQLite keeps beside it, writers first (empty where /proc/locks does not tell)."""
    held = [lock for lock in locks_on(store_files(path)) or () if lock.pid != os.getpid()]
    pids = [lock.pid for lock in held if lock.writing] + [lock.pid for lock in held]
    return [(pid, command_of(pid)) for pid in dict.fromkeys(pids)]


def unreadable(exc: sqlite3.DatabaseError, path: Path, readonly: bool, where: str = "") -> StoreError:
    """The one line for a read that failed: a damaged store, or the reason SQLite gives."""
    text = str(exc)
    column = re.match(r"Could not decode to UTF-8 column '([^']*)'", text)
    if column is not None:   # named when it is a column, not an expression
        named = f"column {column[1]!r}" if column[1].isidentifier() else "a column"
        text = f"{where}{named} holds text that is not UTF-8"
    elif isinstance(exc, sqlite3.OperationalError):     # locked, I/O error: not damage
        return locked(path, exc) or StoreError(f"{path}: cannot read the store ({text})")
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
