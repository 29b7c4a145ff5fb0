"""The league's results: one SQLite file, append-only, the source of truth.

Each finished game is committed on its own, so a crash (even kill -9 of the writer)
loses only the games still being played, and a re-run plays exactly what is missing.
WAL journal with synchronous=NORMAL: a commit is in the WAL before add_game returns,
so it survives any crash or kill of the process; only a power cut or OS crash can
lose the last few commits, and a re-run plays those again. FULL (an fsync per game)
cost more than a whole short game here, with leagues of 100 games/s in view.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import threading
import urllib.parse
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from arena.record import GameRecord, Termination

from .config import LeagueConfig
from .schedule import Fixture, league_openings

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 30_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS league (
    key   TEXT PRIMARY KEY,     -- name, game, rules, seed, config, created, updated
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id            INTEGER PRIMARY KEY,
    fixture_key   TEXT NOT NULL UNIQUE,
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
    finished_at   TEXT NOT NULL       -- ISO 8601 UTC, when it was stored
);
CREATE INDEX IF NOT EXISTS games_in_order ON games (round, seed, fixture_key);
"""


def _same_rules(stored: str, current: str, game: str) -> bool:
    """Whether a store's rule options are the config's, counting an option the store predates
    (a game gained it since) as agreeing when the config leaves it at its default."""
    old, new = json.loads(stored), json.loads(current)
    if old == new:
        return True
    from arena.plugins import game_registry
    games = game_registry()
    if game not in games.names():  # e.g. a plugin game no longer installed
        return False
    defaults = {opt.name: opt.default for opt in games.get(game).info.options}
    return set(old) <= set(new) and all(
        old[k] == new[k] if k in old else k in defaults and new[k] == defaults[k] for k in new)


class StoreError(RuntimeError):
    """A store file that cannot be used for this league."""


class StoredGame(NamedTuple):
    """One stored game: its fixture key, its fixture index and its record."""

    key: str
    fixture_index: int      #: (not "index": that is a tuple method)
    record: GameRecord


class Store:
    """A league's SQLite results file; safe to share between threads of one process.

    Opened for writing (the default) the file is checked first (`PRAGMA quick_check`):
    a damaged store is refused, never written to. readonly=True opens it without
    writing anything, so a store on a read-only mount can still be read.
    """

    def __init__(self, path: str | os.PathLike[str], readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._lock = threading.Lock()
        self._claim: int | None = None   # fd holding this run's flock, see claim()
        self._db = self._open_readonly() if readonly else self._open_for_writing()

    def _open_for_writing(self) -> sqlite3.Connection:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot make its directory: {exc.strerror}") from None
        if not os.access(folder, os.W_OK | os.X_OK):
            raise StoreError(f"{self.path}: its directory {str(folder)!r} is not writable")
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000,   # busy_timeout
                                 isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the store ({exc})") from None
        self._db = db
        try:
            self._check_intact()
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            with self._transaction():
                for statement in _SCHEMA.split(";"):   # executescript() would COMMIT first
                    db.execute(statement)
                row = db.execute("SELECT version FROM schema_version").fetchone()
                if row is None:
                    db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
                elif row[0] != SCHEMA_VERSION:
                    raise StoreError(f"{self.path}: store schema version {row[0]}, this arena "
                                     f"reads version {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            db.close()
            raise StoreError(f"{self.path}: not a usable arena store ({exc})") from None
        except StoreError:
            db.close()
            raise
        return db

    def _open_readonly(self) -> sqlite3.Connection:
        if not self.path.is_file():
            raise StoreError(f"{self.path}: no such store file")
        uri = "file:" + urllib.parse.quote(str(self.path.absolute()))
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
                    raise StoreError(f"{self.path}: not an arena store (no schema)") from None
                problem = str(exc)
                continue
            except sqlite3.DatabaseError as exc:
                if db is not None:
                    db.close()
                raise StoreError(f"{self.path}: not a usable arena store ({exc})") from None
            if row is None or row[0] != SCHEMA_VERSION:
                db.close()
                raise StoreError(f"{self.path}: store schema version {row and row[0]}, this "
                                 f"arena reads version {SCHEMA_VERSION}")
            return db
        raise StoreError(f"{self.path}: cannot open the store to read ({problem})")

    def _check_intact(self) -> None:
        """Refuse a damaged file before anything is written to it."""
        rows = [row[0] for row in self._db.execute("PRAGMA quick_check(3)").fetchall()]
        if rows != ["ok"]:
            found = [" ".join(line.split()) for row in rows for line in str(row).splitlines()
                     if line.strip() and not line.startswith("***")]
            raise StoreError(f"{self.path}: the store is damaged ({'; '.join(found)}); nothing "
                             "was written to it: restore it from a backup or use another file")

    def claim(self) -> None:
        """Hold the store for one run: a second claim (another `arena run`) is refused
        until this store is closed or its process dies."""
        fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreError(f"{self.path}: another `arena run` is playing into this store; "
                             "wait for it to finish, or give this league another store") from None
        # closed only after the database: closing any fd of the file would drop
        # SQLite's own (POSIX) locks
        self._claim = fd

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an error; holds the store's lock."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.OperationalError as exc:   # disk full, read-only, locked too long
                raise StoreError(f"{self.path}: cannot write to the store ({exc})") from None

    def close(self) -> None:
        """Close the file (and give up a claim); the store is unusable afterwards."""
        self._db.close()
        if self._claim is not None:
            os.close(self._claim)
            self._claim = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the league the store belongs to ---

    def bind(self, config: LeagueConfig, openings: str | None = None) -> None:
        """Tie the store to a league: first use records it; later uses must agree.

        Game, rule options, seed and openings must match what the store was made with
        (other settings may change between runs, and bots may be added); the latest
        config snapshot is kept. openings is Openings.identity() (a book by its content);
        a store made before openings existed holds games without one ("none").
        """
        now = _now()
        if openings is None:
            openings = league_openings(config).identity()
        identity = {"game": config.game, "rules": json.dumps(dict(config.rules), sort_keys=True),
                    "seed": str(config.seed), "openings": openings}
        with self._transaction():
            meta = self._meta()
            if "match.bots" in meta:
                raise StoreError(f"{self.path}: this store holds an `arena match`, not a league; "
                                 "use another store file")
            if "game" in meta:
                meta.setdefault("openings", "none")
            for key, value in identity.items():
                if key == "rules" and key in meta and _same_rules(meta[key], value, config.game):
                    continue
                if key in meta and meta[key] != value:
                    raise StoreError(
                        f"{self.path}: this store holds a league with {key} {meta[key]}, the "
                        f"config says {value}; use another store file for a different league")
            fresh = {**identity, "name": config.name, "config": config.to_json(), "updated": now}
            if "created" not in meta:
                fresh["created"] = now
            self._db.executemany("INSERT OR REPLACE INTO league (key, value) VALUES (?, ?)",
                                 fresh.items())

    def bind_match(self, identity: dict[str, str], name: str) -> None:
        """Tie the store to an `arena match`: first use records identity (game, rules, seed,
        openings, the bots, settings, test); a later use must give the same, key by key."""
        now = _now()
        with self._transaction():
            meta = self._meta()
            if "game" in meta and "match.bots" not in meta:
                raise StoreError(f"{self.path}: this store holds a league, not a match; use "
                                 "another --store file")
            for key, value in identity.items():
                if key in meta and meta[key] != value:
                    where, old, new = _difference(key, meta[key], value)
                    raise StoreError(
                        f"{self.path}: this store holds another match: {where} is {old} there, "
                        f"{new} here; repeat the stored match's bots and settings to resume it, "
                        "or use another --store file")
            fresh = {**identity, "name": name, "updated": now}
            if "created" not in meta:
                fresh["created"] = now
            self._db.executemany("INSERT OR REPLACE INTO league (key, value) VALUES (?, ?)",
                                 fresh.items())

    def meta(self) -> dict[str, str]:
        """The league's stored facts: name, game, rules, seed, config (JSON), created, updated."""
        with self._lock:
            return self._meta()

    def _meta(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM league").fetchall())

    # --- games ---

    def add_game(self, fixture: Fixture, record: GameRecord) -> bool:
        """Store a finished game, durably, at once; False if its fixture was already stored."""
        names = [bot.name for bot in record.bots]
        if names != [fixture.seat0, fixture.seat1] or record.seed != fixture.seed \
                or record.opening != len(fixture.opening):
            raise ValueError(f"record does not match fixture {fixture.key!r}: seats {names} seed "
                             f"{record.seed} opening {record.opening} plies, expected "
                             f"{list(fixture.seats)} seed {fixture.seed} opening "
                             f"{len(fixture.opening)} plies")
        if record.termination is Termination.ABORTED:
            raise ValueError(f"fixture {fixture.key!r}: an aborted game is not a result; leave "
                             f"it out and the next run plays it again")
        row: tuple[Any, ...] = (
            fixture.key, fixture.index, fixture.round, fixture.seed, fixture.seat0, fixture.seat1,
            record.winner, record.termination.value, record.faulted, record.reason,
            record.to_json(), _now())
        with self._lock:
            try:
                cursor = self._db.execute(
                    "INSERT INTO games (fixture_key, fixture_index, round, seed, seat0, seat1,"
                    " winner, termination, faulted, reason, record, finished_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (fixture_key) DO NOTHING", row)
            except sqlite3.Error as exc:    # disk full, read-only, I/O error: nothing half-written
                raise StoreError(f"{self.path}: cannot store game {fixture.key!r} ({exc}); the "
                                 "games stored before it are intact") from None
            return cursor.rowcount == 1

    def done_keys(self) -> set[str]:
        """Keys of every stored fixture."""
        with self._lock:
            return {key for (key,) in self._db.execute("SELECT fixture_key FROM games")}

    def missing(self, fixtures: Iterable[Fixture]) -> list[Fixture]:
        """The fixtures not stored yet, in the order given."""
        done = self.done_keys()
        return [f for f in fixtures if f.key not in done]

    def count(self) -> int:
        """How many games are stored."""
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM games").fetchone()[0])

    def records(self) -> Iterator[StoredGame]:
        """Every stored game in fixture order (round, seed, key), whatever order they finished in."""
        with self._lock:
            rows = self._db.execute("SELECT fixture_key, fixture_index, record FROM games"
                                    " ORDER BY round, seed, fixture_key").fetchall()
        for key, index, text in rows:
            yield StoredGame(key, index, GameRecord.from_json(text))


_FIRST = {"name": 0, "spec": 1, "options": 2, "time": 3}


def _difference(key: str, stored: str, given: str) -> tuple[str, str, str]:
    """(where, stored part, given part) of the first difference of two values, JSON or text."""
    try:
        old, new = json.loads(stored), json.loads(given)
    except ValueError:
        return key, repr(stored), repr(given)
    where = key
    while True:
        if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
            # what a user wrote first (a bot's name, options), how it was resolved last
            part = next(k for k in sorted(old, key=lambda k: (_FIRST.get(k, 9), k))
                        if old[k] != new[k])
            where, old, new = f"{where}.{part}", old[part], new[part]
        elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            index = next(i for i, (a, b) in enumerate(zip(old, new)) if a != b)
            where, old, new = f"{where}[{index}]", old[index], new[index]
        else:
            return where, json.dumps(old), json.dumps(new)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
