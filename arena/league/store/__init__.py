"""The league's results: one SQLite file, append-only, the source of truth.

`Store` is the front: it opens the file (opened.OpenStore: the connection, its lock, the
checks that it is still this store's) and reaches each job through a part of its own:

- `store.games` (games.Games): games stored as they finish, the fixtures still to play,
  the stored games read back in the order ratings read them;
- `store.bots` (bots.StoredBots): the bots' versions and their status (retired,
  suspended, forgotten);
- `store.caches` (caches.RunCaches): what a run keeps for the next (file hashes, builds);
- `store.league` (binding.LeagueBinding): the league or match the store belongs to, its
  season, config and stored facts.

The file itself (made, opened, checked, migrated) is arena.league.storefile's.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from arena.record import GameRecord

from ..config import LeagueConfig
from ..schedule import Fixture
from ..storefile import SCHEMA_VERSION, StoreDamagedError, StoreError, StoreGoneError, check_store_path
from ..versions import Manifest
from .binding import LeagueBinding
from .bots import StoredBots, VersionInfo, VersionNote
from .caches import RunCaches
from .games import Games, StandingsRule, StoredGame, fixture_key_of, stored_key
from .opened import OpenStore

__all__ = ["SCHEMA_VERSION", "StandingsRule", "Store", "StoreDamagedError", "StoreError",
           "StoreGoneError", "StoredGame", "VersionInfo", "VersionNote", "check_store_path", "fixture_key_of",
           "stored_key"]


class Store:
    """A league's SQLite results file, open (see OpenStore: for writing, checked whole
    first, or readonly), its jobs reached through its parts: games, bots, caches, league.
    Safe to share between threads of one process."""

    def __init__(self, path: str | os.PathLike[str], readonly: bool = False,
                 claim: bool = False) -> None:
        self._file = OpenStore(path, readonly, claim)
        self.path = self._file.path
        self.readonly = readonly
        #: damage found (and said) in a part of the file no reader reads
        self.damage = self._file.damage
        self.league = LeagueBinding(self._file)
        self.bots = StoredBots(self._file)
        self.games = Games(self._file, self.league, self.bots)
        self.caches = RunCaches(self._file)

    def check_file(self) -> None:
        """StoreGoneError if the file at the store's path is no longer the one open for
        writing (OpenStore.check_file)."""
        self._file.check_file()

    def claim(self, then: str = "wait for it to finish, or give this league another store") -> None:
        """Hold the store as a run does (OpenStore.claim): refused, saying then what to do,
        while a run holds it."""
        self._file.claim(then)

    def close(self) -> None:
        """Close the file (and give up a claim); the store is unusable afterwards."""
        self._file.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the names the tests call the parts by (new code calls the parts) ---

    def bind(self, config: LeagueConfig, openings: str | None = None, new_season: bool = False) -> None:
        self.league.bind(config, openings, new_season)

    def meta(self) -> dict[str, str]:
        return self.league.meta()

    def sync_versions(self, manifests: Mapping[str, Manifest], record: bool = True) -> list[VersionNote]:
        return self.bots.sync(manifests, record)

    def versions(self, bot: str | None = None) -> list[VersionInfo]:
        return self.bots.versions(bot)

    def current_versions(self) -> dict[str, int]:
        return self.bots.current()

    def versions_of(self, seats: Sequence[str]) -> tuple[int, ...]:
        return self.bots.versions_of(seats)

    def suspend(self, bot: str, version: int, reason: str) -> None:
        self.bots.suspend(bot, version, reason)

    def hash_cache(self) -> dict[str, tuple[int, int, str]]:
        return self.caches.hashes()

    def build_records(self) -> dict[tuple[str, str], Any]:
        return self.caches.builds()

    def save_build_records(self, records: Mapping[tuple[str, str], Any]) -> None:
        self.caches.save_builds(records)

    def add_game(self, fixture: Fixture, record: GameRecord) -> bool:
        return self.games.add(fixture, record)

    def done_keys(self) -> set[str]:
        return self.games.done_keys()

    def missing(self, fixtures: Iterable[Fixture]) -> list[Fixture]:
        return self.games.missing(fixtures)

    def count(self) -> int:
        return self.games.count()

    def games_since(self, after: int = 0) -> list[tuple[int, StoredGame, int, int]]:
        return [(id_, game, seats[0], seats[1]) for id_, game, seats in self.games.since(after)]

    def pairing_count(self, a: tuple[str, int], b: tuple[str, int]) -> int:
        return self.games.pairing_count(a, b)

    def records(self, current: bool = False, keys: Collection[str] | None = None) -> Iterator[StoredGame]:
        return self.games.records(current, keys)

    def rated_games(self, all_versions: bool = False
                    ) -> tuple[list[StoredGame], dict[str, tuple[int, str | None]]]:
        games, names = self.games.rated(all_versions)
        return [game for game, _versions in games], names
