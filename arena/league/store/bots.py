"""The bots of a store: each one's versions (by the fingerprint of what it is), the versions
games are stored for, and its status: retired (arena retire), suspended (a ladder's version
that faulted too often), forgotten (arena forget)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ..versions import Manifest, changes, fingerprint
from .opened import OpenStore, now


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


class StoredBots:
    """The versions and status of a store's bots."""

    def __init__(self, file: OpenStore) -> None:
        self._file = file
        self._current: dict[str, int] = {}   #: bot -> the version games are stored for

    def sync(self, manifests: Mapping[str, Manifest], record: bool = True) -> list[VersionNote]:
        """Record each bot's current version (by its manifest's fingerprint): a known
        fingerprint is its version again, a new one a new version. What changed, per bot.

        record=False writes nothing: games are then stored (and looked up) for the versions
        found, and a later call with record=True records them. A run does so once its bots
        have started, so a bot that never played is no version of its own."""
        notes: list[VersionNote] = []
        at = now()
        with self._file.transaction() if record else self._file.lock:
            for bot, manifest in manifests.items():
                print_ = fingerprint(manifest)
                text = json.dumps(manifest, sort_keys=True)
                found = self._file.rows(
                    "SELECT version, fingerprint, manifest FROM versions WHERE bot = ?"
                    " ORDER BY version DESC LIMIT 1", (bot,))
                latest = found[0] if found else None
                write: tuple[str, tuple[Any, ...]] | None = None
                if latest is None:
                    version, why = 1, ["new bot"]
                    write = ("INSERT INTO versions VALUES (?, ?, ?, ?, ?)", (bot, 1, print_, text, at))
                elif latest[1] is None:   # games from before versions: they are this version's
                    version, why = latest[0], ["games from before versions, fingerprinted now"]
                    write = ("UPDATE versions SET fingerprint = ?, manifest = ? WHERE bot = ?"
                             " AND version = ?", (print_, text, bot, latest[0]))
                elif latest[1] == print_:
                    version, why = latest[0], []
                else:
                    version, why = latest[0] + 1, changes(json.loads(latest[2]), manifest)
                    write = ("INSERT INTO versions VALUES (?, ?, ?, ?, ?)",
                             (bot, version, print_, text, at))
                if record and write is not None:
                    self._file.db.execute(*write)
                self._current[bot] = version
                if why:
                    notes.append(VersionNote(bot, version, print_, why))
        return notes

    def versions(self, bot: str | None = None) -> list[VersionInfo]:
        """Every version of every bot (or of one), with its games and when they were played."""
        with self._file.lock:
            more = "more_seats" in self._file.tables()
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
        with self._file.lock:
            rows = self._file.rows(query, (bot,) if bot is not None else ())
        return [VersionInfo(bot=row[0], version=row[1], fingerprint=row[2], first_seen=row[3],
                            games=row[4], first_played=row[5], last_played=row[6],
                            retired=bool(row[7]), current=bool(row[8])) for row in rows]

    def fingerprints(self) -> dict[tuple[str, int], str | None]:
        """Each version's fingerprint, by (bot, version) (None: from before versions, not
        fingerprinted yet)."""
        with self._file.lock:
            return {(bot, version): print_ for bot, version, print_
                    in self._file.rows("SELECT bot, version, fingerprint FROM versions")}

    def current(self) -> dict[str, int]:
        """Each bot's current (latest) version."""
        with self._file.lock:
            return dict(self._file.rows("SELECT bot, max(version) FROM versions GROUP BY bot"))

    def versions_of(self, seats: Sequence[str]) -> tuple[int, ...]:
        """The versions games of these bots are stored for: as synced, else each bot's latest."""
        if any(bot not in self._current for bot in seats):
            self._current = {**self.current(), **self._current}
        return tuple(self._current.get(bot, 1) for bot in seats)

    def in_play(self) -> dict[str, int]:
        """versions_of() of every bot the store knows or a run synced: the versions games
        are stored for, by bot."""
        return {**self.current(), **self._current}

    def read_current(self) -> None:
        """Read the bots' current versions again (a reader kept open, arena serve's, reads
        a store a run writes: not those of its first reading)."""
        self._current = self.current()

    def forget(self, bot: str, version: int | None = None) -> int:
        """Delete a bot's games (of one version, or all of them) and its version(s); how many games."""
        match = "(seat0 = ? AND (? IS NULL OR v0 = ?)) OR (seat1 = ? AND (? IS NULL OR v1 = ?))"
        seated = "id IN (SELECT game FROM more_seats WHERE bot = ? AND (? IS NULL OR version = ?))"
        db = self._file.db
        with self._file.transaction():
            gone = db.execute(f"DELETE FROM games WHERE {match} OR {seated}",
                              (bot, version, version) * 3).rowcount
            db.execute("DELETE FROM more_seats WHERE game NOT IN (SELECT id FROM games)")
            db.execute("DELETE FROM versions WHERE bot = ? AND (? IS NULL OR version = ?)",
                       (bot, version, version))
            if version is None:
                db.execute("DELETE FROM retired WHERE bot = ?", (bot,))
        return int(gone)

    def retire(self, bot: str, retired: bool = True) -> None:
        """Retire a bot (its games stay as history, it plays no new ones), or bring it back."""
        with self._file.transaction():
            if retired:
                self._file.db.execute("INSERT OR REPLACE INTO retired VALUES (?, ?)", (bot, now()))
            else:
                self._file.db.execute("DELETE FROM retired WHERE bot = ?", (bot,))

    def retired(self) -> set[str]:
        """Names of the retired bots."""
        with self._file.lock:
            return {bot for (bot,) in self._file.rows("SELECT bot FROM retired")}

    def suspend(self, bot: str, version: int, reason: str) -> None:
        """Suspend a version of a bot in a ladder (it plays no more): reason says why."""
        with self._file.transaction():
            self._file.db.execute("INSERT OR REPLACE INTO suspended VALUES (?, ?, ?, ?)",
                                  (bot, version, reason, now()))

    def suspended(self) -> dict[tuple[str, int], str]:
        """The suspended versions, (bot, version) -> why."""
        with self._file.lock:
            try:
                rows = self._file.db.execute("SELECT bot, version, reason FROM suspended").fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):   # read as it is, from before ladders
                    return {}
                raise
        return {(bot, version): reason for bot, version, reason in rows}
