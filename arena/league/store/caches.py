"""What a store keeps for the next run alone (no reader reads it): how the bots' files were
last hashed, for their fingerprints, and the last run of each build."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from .opened import OpenStore


class RunCaches:
    """The file hashes and the build records a store keeps between runs."""

    def __init__(self, file: OpenStore) -> None:
        self._file = file

    def hashes(self) -> dict[str, tuple[int, int, str]]:
        """How files were last hashed (path -> size, mtime_ns, sha256), for fingerprints."""
        with self._file.lock:
            return {p: (size, mtime, digest) for p, size, mtime, digest
                    in self._file.rows("SELECT path, size, mtime_ns, sha256 FROM file_hashes")}

    def save_hashes(self, cache: Mapping[str, tuple[int, int, str]]) -> None:
        """Keep the file hashes for the next run."""
        with self._file.transaction():
            self._file.db.execute("DELETE FROM file_hashes")
            self._file.db.executemany("INSERT INTO file_hashes VALUES (?, ?, ?, ?)",
                                      [(p, *v) for p, v in cache.items()])

    def builds(self) -> dict[tuple[str, str], Any]:
        """The last run of each build (see arena.league.builds), by (directory, command)."""
        with self._file.lock:
            try:
                rows = self._file.db.execute("SELECT dir, command, record FROM builds").fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):   # read as it is, from before builds were kept
                    return {}
                raise
        return {(where, command): json.loads(record) for where, command, record in rows}

    def save_builds(self, records: Mapping[tuple[str, str], Any]) -> None:
        """Keep the league's builds for the next run (and only those)."""
        with self._file.transaction():
            self._file.db.execute("DELETE FROM builds")
            self._file.db.executemany("INSERT INTO builds VALUES (?, ?, ?)",
                                      [(where, command, json.dumps(record, sort_keys=True))
                                       for (where, command), record in records.items()])
