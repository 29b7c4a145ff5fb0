"""The league's results: one SQLite file, append-only, the source of truth.

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
import ctypes
import dataclasses
import fcntl
import json
import os
import sqlite3
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from arena.record import GameRecord, Termination

from .config import LeagueConfig
from .identity import (
    difference,
    differs,
    fill_identity,
    fill_match_identity,
    league_identity,
    same_rules,
)
from .schedule import Fixture, league_openings, parse_fixture_key
from .storefile import (
    SCHEMA_VERSION,
    StoreDamagedError,
    StoreError,
    StoreGoneError,
    begin_writing,
    check_store_path,
    file_identity,
    lock_holders,
    open_for_writing,
    open_readonly,
    record_of,
    transaction,
    unreadable,
)
from .versions import Manifest, changes, fingerprint
from .walfile import token_of

#: commits between two checkpoints of the -wal into the file (a game's commit is a few
#: pages: about what SQLite's own 1,000 pages would be)
CHECKPOINT_EVERY = 100

__all__ = ["SCHEMA_VERSION", "Store", "StoreDamagedError", "StoreError", "StoreGoneError",
           "StoredGame", "VersionInfo", "VersionNote", "check_store_path", "fixture_key_of",
           "stored_key"]


class StoredGame(NamedTuple):
    """One stored game: its fixture key, its fixture index and its record."""

    key: str
    fixture_index: int      #: (not "index": that is a tuple method)
    record: GameRecord


class Store:
    """A league's SQLite results file; safe to share between threads of one process.

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
        self._lock = threading.Lock()
        self._season = 1
        self._current: dict[str, int] = {}   #: bot -> the version add_game stores games for
        self._claim: int | None = None   # fd holding this run's flock, see claim()
        self._file: tuple[int, int] | None = None   # (device, inode) of the file opened for writing
        self._added = 0                  # games add_game stored through this object
        self._token: int | None = None   # the file's token once this writer began (walfile)
        self._commits = 0                # since the last checkpoint
        self._overwritten = False        # the file was written over in place: never closed
        self._count_at_open = 0          # games in the file when this writer began
        #: damage found (and said) in a part of the file no reader reads
        self.damage: str | None = None
        if readonly:
            self._db, self.damage = open_readonly(self.path)
            self._schema: int | None = SCHEMA_VERSION
        else:
            self._db, self._schema = open_for_writing(self.path)
            self._file = file_identity(self.path)   # the file just opened
            try:
                if claim:
                    self.claim()
                if self._schema != SCHEMA_VERSION:   # new, or from before versions: made now
                    self._begin()
            except BaseException:
                self.close()
                raise
        self._season = int(self._meta().get("season", "1"))

    def _begin(self) -> None:
        """Make the file ready to be written (storefile.begin_writing), once, before the
        first write: nothing is written to a store a run refuses."""
        if self._token is None:
            self._token = begin_writing(self._db, self.path, self._schema)
            self._schema = SCHEMA_VERSION
            self._count_at_open = self._count()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """A query's rows; a part of the file that cannot be read is a StoreError naming it."""
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise unreadable(exc, self.path, self.readonly) from None

    def check_file(self) -> None:
        """StoreGoneError if the file at the store's path is no longer the one open for
        writing (deleted, replaced by another file, or written over in place: emptied, or
        another file's bytes put in it): games stored since are in no file."""
        if self._file is None:
            return
        now = file_identity(self.path)
        if now != self._file:
            how = "deleted" if now is None else "replaced by another file"
            lost = self._count()
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
                now = self._db.execute("PRAGMA application_id").fetchone()[0]
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
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an error; holds the store's lock. The
        first makes the file ready to be written."""
        with self._lock:
            self._begin()
            with transaction(self._db, self.path):
                yield
            self._commits += 1

    def _checkpoint(self) -> None:
        """Every CHECKPOINT_EVERY commits, copy the -wal into the file (what SQLite does by
        itself every 1,000 pages, done here after check_file: a file written over in place
        is seen before a checkpoint could write into it)."""
        if self._commits >= CHECKPOINT_EVERY:
            self._commits = 0
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        """Close the file (and give up a claim); the store is unusable afterwards. A store
        written over in place is left open: closing would copy this writer's -wal into the
        file that took its place."""
        if not self.readonly and self._token is not None and not self._overwritten:
            self._overwritten = file_identity(self.path) == self._file and not self._token_holds()
        if self._overwritten:   # kept open, and never freed: not even at the interpreter's exit
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(self._db))
        else:
            self._db.close()
        if self._claim is not None:
            os.close(self._claim)
            self._claim = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the league the store belongs to ---

    def bind(self, config: LeagueConfig, openings: str | None = None,
             new_season: bool = False) -> None:
        """Tie the store to a league: first use records it; later uses must agree.

        Game, rule options, seed, openings, time control and timeout policy must match what
        the store was made with, unless new_season: then a new season begins and the old
        games stay as history. Other settings may change between runs, and bots may be
        added; the latest config snapshot is kept. openings is Openings.identity().
        """
        with self._transaction():
            fresh, season = self._binding(self._meta(), config, openings, new_season)
            self._db.executemany("INSERT OR REPLACE INTO league (key, value) VALUES (?, ?)",
                                 fresh.items())
            self._season = season

    def check_bind(self, config: LeagueConfig, openings: str | None = None,
                   new_season: bool = False) -> None:
        """StoreError where bind would refuse, writing nothing: a run asks before it builds."""
        with self._lock:
            self._binding(self._meta(), config, openings, new_season)

    def _binding(self, meta: dict[str, str], config: LeagueConfig, openings: str | None,
                 new_season: bool) -> tuple[dict[str, str], int]:
        """What bind writes (the league's rows) and the season it begins, from the stored
        meta; StoreError for a store of another league or of a match."""
        now = _now()
        if openings is None:
            openings = league_openings(config).identity()
        identity = league_identity(config, openings)
        if "match.bots" in meta:
            raise StoreError(f"{self.path}: this store holds an `arena match`, not a league; "
                             "use another store file")
        if "game" in meta:
            fill_identity(meta)
        changed = [key for key, value in identity.items() if key in meta and meta[key] != value
                   and not (key == "rules" and same_rules(meta[key], value, config.game))]
        season = int(meta.get("season", "1"))
        if "game" in meta and new_season:
            season += 1
        elif changed:
            key = changed[0]
            more = f" (and {', '.join(changed[1:])})" if changed[1:] else ""
            raise StoreError(
                f"{self.path}: this store holds a league with {differs(key, meta[key], identity[key])}"
                f"{more}; use another store file for a different league, or run with "
                f"--new-season to play it again in this store (its {self._count()} games stay "
                f"as history)")
        fresh = {**identity, "name": config.name, "config": config.to_json(), "updated": now,
                 "season": str(season)}
        if "created" not in meta:
            fresh["created"] = now
        return fresh, season

    @property
    def season(self) -> int:
        """The league's current season: 1, and one more for every --new-season."""
        return self._season

    def check_match(self, identity: dict[str, str]) -> None:
        """StoreError unless the store is empty or holds this `arena match` (bind_match)."""
        with self._lock:
            self._check_match(self._meta(), identity)

    def _check_match(self, meta: dict[str, str], identity: dict[str, str]) -> None:
        if "game" in meta and "match.bots" not in meta:
            raise StoreError(f"{self.path}: this store holds a league, not a match; use "
                             "another --store file")
        fill_match_identity(meta)
        for key, value in identity.items():
            if key in meta and meta[key] != value:
                where, old, new = difference(key, meta[key], value)
                raise StoreError(
                    f"{self.path}: this store holds another match: {where} is {old} there, "
                    f"{new} here; repeat the stored match's bots and settings to resume it, "
                    "or use another --store file")

    def bind_match(self, identity: dict[str, str], name: str) -> None:
        """Tie the store to an `arena match`: first use records identity (game, rules, seed,
        openings, the bots' names, settings, test); a later use must give the same, key by
        key. What each bot is (command, options, files) is its version (sync_versions)."""
        now = _now()
        with self._transaction():
            meta = self._meta()
            self._check_match(meta, identity)
            fresh = {**identity, "name": name, "updated": now}
            if "created" not in meta:
                fresh["created"] = now
            self._db.executemany("INSERT OR REPLACE INTO league (key, value) VALUES (?, ?)",
                                 fresh.items())

    def snapshot(self) -> dict[str, Any]:
        """The config of the league as last bound (LeagueConfig.to_dict()), or {} without one."""
        with self._lock:
            return self._snapshot()

    def _snapshot(self) -> dict[str, Any]:
        try:
            snapshot = json.loads(self._meta().get("config", "{}"))
        except ValueError:   # written by something else: read as a league without settings
            return {}
        return snapshot if isinstance(snapshot, dict) else {}

    def meta(self) -> dict[str, str]:
        """The league's stored facts: name, game, rules, seed, config (JSON), created, updated."""
        with self._lock:
            return self._meta()

    def _meta(self) -> dict[str, str]:
        return dict(self._rows("SELECT key, value FROM league"))

    def last_change(self) -> str:
        """When the store last changed (ISO 8601 UTC, "" if never): the latest of the league's
        `updated` (a run bound it), its last game, a version first seen, a bot retired or
        suspended. `updated` alone misses every game a run stored after it began."""
        times = {"games": "finished_at", "versions": "first_seen", "retired": "at", "suspended": "at"}
        with self._lock:
            # a store read as it is may be from before some of these tables
            tables = {name for (name,) in self._rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
            found = [self._meta().get("updated", "")]
            found += [self._rows(f"SELECT max({column}) FROM {table}")[0][0] or ""
                      for table, column in times.items() if table in tables]
        return max(found)   # every time is written by _now(): the same format, so text order is time order

    # --- bot versions ---

    def sync_versions(self, manifests: Mapping[str, Manifest], record: bool = True) -> list[VersionNote]:
        """Record each bot's current version (by its manifest's fingerprint): a known
        fingerprint is its version again, a new one a new version. What changed, per bot.

        record=False writes nothing: games are then stored (and looked up) for the versions
        found, and a later call with record=True records them. A run does so once its bots
        have started, so a bot that never played is no version of its own."""
        notes: list[VersionNote] = []
        now = _now()
        with self._transaction() if record else self._lock:
            for bot, manifest in manifests.items():
                print_ = fingerprint(manifest)
                text = json.dumps(manifest, sort_keys=True)
                found = self._rows(
                    "SELECT version, fingerprint, manifest FROM versions WHERE bot = ?"
                    " ORDER BY version DESC LIMIT 1", (bot,))
                latest = found[0] if found else None
                write: tuple[str, tuple[Any, ...]] | None = None
                if latest is None:
                    version, why = 1, ["new bot"]
                    write = ("INSERT INTO versions VALUES (?, ?, ?, ?, ?)", (bot, 1, print_, text, now))
                elif latest[1] is None:   # games from before versions: they are this version's
                    version, why = latest[0], ["games from before versions, fingerprinted now"]
                    write = ("UPDATE versions SET fingerprint = ?, manifest = ? WHERE bot = ?"
                             " AND version = ?", (print_, text, bot, latest[0]))
                elif latest[1] == print_:
                    version, why = latest[0], []
                else:
                    version, why = latest[0] + 1, changes(json.loads(latest[2]), manifest)
                    write = ("INSERT INTO versions VALUES (?, ?, ?, ?, ?)",
                             (bot, version, print_, text, now))
                if record and write is not None:
                    self._db.execute(*write)
                self._current[bot] = version
                if why:
                    notes.append(VersionNote(bot, version, print_, why))
        return notes

    def versions(self, bot: str | None = None) -> list[VersionInfo]:
        """Every version of every bot (or of one), with its games and when they were played."""
        with self._lock:
            more = self._has_more_seats()
        seated = (" OR g.id IN (SELECT game FROM more_seats m WHERE m.bot = v.bot AND"
                  " m.version = v.version)" if more else "")
        played = ("(SELECT id, finished_at FROM games g WHERE (g.seat0 = v.bot AND g.v0 = v.version)"
                  f" OR (g.seat1 = v.bot AND g.v1 = v.version){seated})")
        query = ("SELECT v.bot, v.version, v.fingerprint, v.first_seen,"
                 f" (SELECT count(*) FROM {played}), (SELECT min(finished_at) FROM {played}),"
                 f" (SELECT max(finished_at) FROM {played}),"
                 " v.bot IN (SELECT bot FROM retired),"
                 " v.version = (SELECT max(version) FROM versions w WHERE w.bot = v.bot)"
                 " FROM versions v" + (" WHERE v.bot = ?" if bot is not None else "") +
                 " ORDER BY v.bot, v.version")
        with self._lock:
            rows = self._rows(query, (bot,) if bot is not None else ())
        return [VersionInfo(bot=row[0], version=row[1], fingerprint=row[2], first_seen=row[3],
                            games=row[4], first_played=row[5], last_played=row[6],
                            retired=bool(row[7]), current=bool(row[8])) for row in rows]

    def current_versions(self) -> dict[str, int]:
        """Each bot's current (latest) version."""
        with self._lock:
            return dict(self._rows("SELECT bot, max(version) FROM versions GROUP BY bot"))

    def forget(self, bot: str, version: int | None = None) -> int:
        """Delete a bot's games (of one version, or all of them) and its version(s); how many games."""
        match = "(seat0 = ? AND (? IS NULL OR v0 = ?)) OR (seat1 = ? AND (? IS NULL OR v1 = ?))"
        seated = "id IN (SELECT game FROM more_seats WHERE bot = ? AND (? IS NULL OR version = ?))"
        with self._transaction():
            gone = self._db.execute(f"DELETE FROM games WHERE {match} OR {seated}",
                                    (bot, version, version) * 3).rowcount
            self._db.execute("DELETE FROM more_seats WHERE game NOT IN (SELECT id FROM games)")
            self._db.execute("DELETE FROM versions WHERE bot = ? AND (? IS NULL OR version = ?)",
                             (bot, version, version))
            if version is None:
                self._db.execute("DELETE FROM retired WHERE bot = ?", (bot,))
        return int(gone)

    def retire(self, bot: str, retired: bool = True) -> None:
        """Retire a bot (its games stay as history, it plays no new ones), or bring it back."""
        with self._transaction():
            if retired:
                self._db.execute("INSERT OR REPLACE INTO retired VALUES (?, ?)", (bot, _now()))
            else:
                self._db.execute("DELETE FROM retired WHERE bot = ?", (bot,))

    def retired(self) -> set[str]:
        """Names of the retired bots."""
        with self._lock:
            return {bot for (bot,) in self._rows("SELECT bot FROM retired")}

    def suspend(self, bot: str, version: int, reason: str) -> None:
        """Suspend a version of a bot in a ladder (it plays no more): reason says why."""
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO suspended VALUES (?, ?, ?, ?)",
                             (bot, version, reason, _now()))

    def suspended(self) -> dict[tuple[str, int], str]:
        """The suspended versions, (bot, version) -> why."""
        with self._lock:
            try:
                rows = self._db.execute("SELECT bot, version, reason FROM suspended").fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):   # read as it is, from before ladders
                    return {}
                raise
        return {(bot, version): reason for bot, version, reason in rows}

    def hash_cache(self) -> dict[str, tuple[int, int, str]]:
        """How files were last hashed (path -> size, mtime_ns, sha256), for fingerprints."""
        with self._lock:
            return {p: (size, mtime, digest) for p, size, mtime, digest
                    in self._rows("SELECT path, size, mtime_ns, sha256 FROM file_hashes")}

    def save_hash_cache(self, cache: Mapping[str, tuple[int, int, str]]) -> None:
        """Keep the file hashes for the next run."""
        with self._transaction():
            self._db.execute("DELETE FROM file_hashes")
            self._db.executemany("INSERT INTO file_hashes VALUES (?, ?, ?, ?)",
                                 [(p, *v) for p, v in cache.items()])

    def build_records(self) -> dict[tuple[str, str], Any]:
        """The last run of each build (see arena.league.builds), by (directory, command)."""
        with self._lock:
            try:
                rows = self._db.execute("SELECT dir, command, record FROM builds").fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):   # read as it is, from before builds were kept
                    return {}
                raise
        return {(where, command): json.loads(record) for where, command, record in rows}

    def save_build_records(self, records: Mapping[tuple[str, str], Any]) -> None:
        """Keep the league's builds for the next run (and only those)."""
        with self._transaction():
            self._db.execute("DELETE FROM builds")
            self._db.executemany("INSERT INTO builds VALUES (?, ?, ?)",
                                 [(where, command, json.dumps(record, sort_keys=True))
                                  for (where, command), record in records.items()])

    # --- games ---

    def add_game(self, fixture: Fixture, record: GameRecord) -> bool:
        """Store a finished game, durably, at once; False if its fixture was already stored."""
        names = [bot.name for bot in record.bots]
        if names != list(fixture.seats) or record.seed != fixture.seed \
                or record.opening != len(fixture.opening):
            raise ValueError(f"record does not match fixture {fixture.key!r}: seats {names} seed "
                             f"{record.seed} opening {record.opening} plies, expected "
                             f"{list(fixture.seats)} seed {fixture.seed} opening "
                             f"{len(fixture.opening)} plies")
        if record.termination is Termination.ABORTED:
            raise ValueError(f"fixture {fixture.key!r}: an aborted game is not a result; leave "
                             f"it out and the next run plays it again")
        versions = fixture.versions or self.versions_of(fixture.seats)
        row: tuple[Any, ...] = (
            stored_key(fixture.key, versions), fixture.index, fixture.round, fixture.seed,
            fixture.seat0, fixture.seat1, record.winner, record.termination.value, record.faulted, record.reason,
            record.to_json(), _now(), *versions[:2], self._season)
        try:
            with self._transaction():   # the game and its more seats at once, or neither
                cursor = self._insert_game(row)
                if cursor.rowcount == 1 and len(versions) > 2:
                    self._db.executemany(
                        "INSERT INTO more_seats (game, seat, bot, version) VALUES (?, ?, ?, ?)",
                        [(cursor.lastrowid, seat, bot, version) for seat, (bot, version)
                         in enumerate(zip(fixture.seats[2:], versions[2:]), 2)])
        except sqlite3.Error as exc:    # disk full, read-only, I/O error: nothing half-written
            raise StoreError(f"{self.path}: cannot store game {fixture.key!r} ({exc}); the "
                             "games stored before it are intact") from None
        with self._lock:
            self._added += cursor.rowcount
            # a stat and the header's token: a store deleted or written over must not take
            # more games with it, nor have this writer's pages copied into it
            self.check_file()
            self._checkpoint()
            return cursor.rowcount == 1

    def _insert_game(self, row: tuple[Any, ...]) -> sqlite3.Cursor:
        return self._db.execute(
            "INSERT INTO games (fixture_key, fixture_index, round, seed, seat0, seat1,"
            " winner, termination, faulted, reason, record, finished_at, v0, v1, season)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (fixture_key, v0, v1, season) DO NOTHING", row)

    def versions_of(self, seats: Sequence[str]) -> tuple[int, ...]:
        """The versions games of these bots are stored for: as synced, else each bot's latest."""
        if any(bot not in self._current for bot in seats):
            self._current = {**self.current_versions(), **self._current}
        return tuple(self._current.get(bot, 1) for bot in seats)

    def _has_more_seats(self) -> bool:
        """Whether the file has the more_seats table: a store from before, read without being
        written, has none (and no game of more than two seats)."""
        return bool(self._rows("SELECT 1 FROM sqlite_master WHERE name = 'more_seats'"))

    def _more_seats(self) -> dict[int, list[tuple[str, int]]]:
        """The (bot, version) of seats 2, 3, ... by game id (none in a two-seat league)."""
        more: dict[int, list[tuple[str, int]]] = {}
        if not self._has_more_seats():
            return more
        for game, bot, version in self._rows("SELECT game, bot, version FROM more_seats"
                                             " ORDER BY game, seat"):
            more.setdefault(game, []).append((bot, version))
        return more

    def done_keys(self) -> set[str]:
        """Keys of the fixtures stored for the current season and the bots' current versions."""
        with self._lock:
            rows = self._rows("SELECT id, fixture_key, seat0, seat1, v0, v1 FROM games"
                              " WHERE season = ?", (self._season,))
            more = self._more_seats()
        done = set()
        for id_, key, seat0, seat1, v0, v1 in rows:
            seats = [(seat0, v0), (seat1, v1), *more.get(id_, ())]
            if self.versions_of([bot for bot, _ in seats]) == tuple(v for _, v in seats):
                done.add(fixture_key_of(key))
        return done

    def missing(self, fixtures: Iterable[Fixture]) -> list[Fixture]:
        """The fixtures not stored yet, in the order given."""
        done = self.done_keys()
        return [f for f in fixtures if f.key not in done]

    def count(self) -> int:
        """How many games are stored (every season and version)."""
        with self._lock:
            return self._count()

    def games_since(self, after: int = 0) -> list[tuple[int, StoredGame, int, int]]:
        """This season's games stored after the one whose id is `after`, in the order they
        were stored (played), each as (id, game, v0, v1): what ratings updated game by game
        read as a run goes on; the last id is the next call's `after`."""
        return [(id_, game, versions[0], versions[1])
                for id_, game, versions in self.seated_since(after)]

    def seated_since(self, after: int = 0) -> list[tuple[int, StoredGame, tuple[int, ...]]]:
        """games_since(), each with the versions of its bots by seat."""
        with self._lock:
            rows = self._rows(
                "SELECT id, fixture_key, fixture_index, record, seat0, seat1, v0, v1 FROM games"
                " WHERE id > ? AND season = ? ORDER BY id", (after, self._season))
            more = self._more_seats() if rows else {}
        found = []
        for id_, stored, index, text, seat0, seat1, v0, v1 in rows:
            seats = [(seat0, v0), (seat1, v1), *more.get(id_, ())]
            key = fixture_key_of(stored)
            found.append((id_, StoredGame(key, index, self._record(text, key, seats)),
                          tuple(v for _, v in seats)))
        return found

    def _record(self, text: str, key: str, seats: Sequence[tuple[str, int]]) -> GameRecord:
        """The record of a games row whose seats are (bot, version); StoreDamagedError naming
        the game for text that is no record, or a record of other bots."""
        return record_of(text, key, [bot for bot, _ in seats], self.path)

    def pairing_count(self, a: tuple[str, int], b: tuple[str, int]) -> int:
        """How many games of this season two bot versions (name, version) played, either
        seat first."""
        with self._lock:
            return int(self._db.execute(
                "SELECT count(*) FROM games WHERE season = ? AND ((seat0 = ? AND v0 = ? AND"
                " seat1 = ? AND v1 = ?) OR (seat0 = ? AND v0 = ? AND seat1 = ? AND v1 = ?))",
                (self._season, *a, *b, *b, *a)).fetchone()[0])

    def _count(self) -> int:
        return int(self._rows("SELECT count(*) FROM games")[0][0])

    def records(self, current: bool = False, keys: Collection[str] | None = None) -> Iterator[StoredGame]:
        """Stored games in the order ratings read them: a league's in fixture order (round,
        seed, key), whatever order they finished in; a ladder's, which has no fixture order,
        in the order they were stored (played).

        current: only the games of this season between the current versions of bots that
        are not retired, of the fixtures the league has now (games_per_pairing lowered
        leaves games of pairs beyond it out); keys: only these fixtures.
        """
        for game, _v0, _v1 in self.versioned_records(current, keys):
            yield game

    def versioned_records(self, current: bool = False, keys: Collection[str] | None = None
                          ) -> Iterator[tuple[StoredGame, int, int]]:
        """records(), each with the versions of its first two bots."""
        for game, versions in self.seated_records(current, keys):
            yield game, versions[0], versions[1]

    def seated_records(self, current: bool = False, keys: Collection[str] | None = None
                       ) -> Iterator[tuple[StoredGame, tuple[int, ...]]]:
        """records(), each with the versions of its bots by seat."""
        if self.readonly and current:
            # a reader kept open (arena serve's) reads a store a run writes: the current
            # versions are read again, not those of its first reading
            self._current = self.current_versions()
        with self._lock:
            snapshot = self._snapshot()
            ladder = snapshot.get("schedule") == "ladder"
            rows = self._rows("SELECT id, fixture_key, fixture_index, record, seat0, seat1, v0, v1,"
                              " season FROM games ORDER BY "
                              + ("id" if ladder else "round, seed, fixture_key"))
            more = self._more_seats()
            pairs = None
            if current:
                # a ladder's pairs are not bounded: its pairings meet as often as it chooses;
                # a free-for-all's games are numbered, below its `games`
                pairs = (None if ladder else int(snapshot["games"]) if "games" in snapshot
                         else int(snapshot.get("games_per_pairing", 0)) // 2 or None)
        retired = self.retired() if current else set()
        for id_, stored, index, text, seat0, seat1, v0, v1, season in rows:
            key = fixture_key_of(stored)
            if keys is not None and key not in keys:
                continue
            seats = [(seat0, v0), (seat1, v1), *more.get(id_, ())]
            names = [bot for bot, _ in seats]
            if current and (season != self._season
                            or self.versions_of(names) != tuple(v for _, v in seats)
                            or any(bot in retired for bot in names)
                            or (pairs is not None and _pair_number(key) >= pairs)):
                continue
            yield StoredGame(key, index, self._record(text, key, seats)), tuple(v for _, v in seats)


    def rated_games(self, all_versions: bool = False
                    ) -> tuple[list[StoredGame], dict[str, tuple[int, str | None]]]:
        """The games a leaderboard rates and each rated name's (version, fingerprint): the
        current games under the bots' names, or every stored game with each bot as
        NAME@VERSION."""
        prints = {(v.bot, v.version): v.fingerprint for v in self.versions()}
        if not all_versions:
            current = self.current_versions()
            return (list(self.records(current=True)),
                    {bot: (v, prints.get((bot, v))) for bot, v in current.items()})
        games, info = [], {}
        for game, versions in self.seated_records():
            bots = [dataclasses.replace(entry, name=f"{entry.name}@{v}")
                    for entry, v in zip(game.record.bots, versions)]
            for entry, v in zip(game.record.bots, versions):
                info[f"{entry.name}@{v}"] = (v, prints.get((entry.name, v)))
            games.append(game._replace(record=dataclasses.replace(game.record, bots=bots)))
        return games, info


class VersionNote(NamedTuple):
    """What sync_versions found for a bot: its version now, and why it is new (if it is)."""

    bot: str
    version: int
    fingerprint: str
    why: list[str]

    def __str__(self) -> str:
        return f"{self.bot}: {'; '.join(self.why)} (now v{self.version}, {self.fingerprint})"


class VersionInfo(NamedTuple):
    """One version of a bot in a store."""

    bot: str
    version: int
    fingerprint: str | None
    first_seen: str
    games: int
    first_played: str | None
    last_played: str | None
    retired: bool = False
    current: bool = False


def stored_key(key: str, versions: Sequence[int]) -> str:
    """What the games table keeps as a game's fixture key: the key, and for more than two
    seats "||" and the versions of seats 2.. ("a|b|c||7||1.2"), so that a version changed
    in any seat stores a new game beside the old one (the table is unique on the key and
    the versions of seats 0 and 1 alone, as two-seat stores have always been)."""
    return key if len(versions) <= 2 else f"{key}||{'.'.join(map(str, versions[2:]))}"


def fixture_key_of(stored: str) -> str:
    """The fixture key of a games table's key (stored_key undone); no name is empty, so only
    a free-for-all's key holds "||", once."""
    return stored.rsplit("||", 1)[0] if stored.count("||") == 2 else stored


def _pair_number(key: str) -> int:
    """k of a fixture key (0 for a key of another shape)."""
    parts = parse_fixture_key(key)
    return parts.pair if parts is not None else 0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
