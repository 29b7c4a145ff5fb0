"""The league a store belongs to (or the `arena match`): its identity bound once and checked
on every later use, its season, the config as last bound and the league's stored facts."""

from __future__ import annotations

import json
from typing import Any

from arena.games import Game
from arena.registry import Registry

from ..config import LeagueConfig
from ..identity import difference, differs, fill_identity, fill_match_identity, league_identity, same_rules
from ..schedule import league_openings
from ..storefile import StoreError
from .opened import OpenStore, now


class LeagueBinding:
    """The store's league (or match): what was bound, and whether a league or a match
    given now is the same one."""

    def __init__(self, file: OpenStore) -> None:
        self._file = file
        self._season = int(self.meta().get("season", "1"))

    def bind(self, config: LeagueConfig, openings: str | None = None,
             new_season: bool = False, games: Registry[type[Game]] | None = None) -> None:
        """Tie the store to a league: first use records it; later uses must agree.

        Game, rule options, seed, openings, time control and timeout policy must match what
        the store was made with, unless new_season: then a new season begins and the old
        games stay as history. Other settings may change between runs, and bots may be
        added; the latest config snapshot is kept. openings is Openings.identity(); games:
        the registry the league's game is read from (by default the loaded plugins').
        """
        with self._file.transaction():
            fresh, season = self._binding(self._meta(), config, openings, new_season, games)
            self._file.db.executemany("INSERT OR REPLACE INTO league (key, value) VALUES (?, ?)",
                                      fresh.items())
            self._season = season

    def check_bind(self, config: LeagueConfig, openings: str | None = None,
                   new_season: bool = False, games: Registry[type[Game]] | None = None) -> None:
        """StoreError where bind would refuse, writing nothing: a run asks before it builds."""
        with self._file.lock:
            self._binding(self._meta(), config, openings, new_season, games)

    def _binding(self, meta: dict[str, str], config: LeagueConfig, openings: str | None,
                 new_season: bool, games: Registry[type[Game]] | None) -> tuple[dict[str, str], int]:
        """What bind writes (the league's rows) and the season it begins, from the stored
        meta; StoreError for a store of another league or of a match."""
        at = now()
        if openings is None:
            openings = league_openings(config, games).identity()
        identity = league_identity(config, openings)
        if "match.bots" in meta:
            raise StoreError(f"{self._file.path}: this store holds an `arena match`, not a league; "
                             "use another store file")
        if "game" in meta:
            fill_identity(meta)
        changed = [key for key, value in identity.items() if key in meta and meta[key] != value
                   and not (key == "rules" and same_rules(meta[key], value, config.game, games))]
        season = int(meta.get("season", "1"))
        if "game" in meta and new_season:
            season += 1
        elif changed:
            key = changed[0]
            more = f" (and {', '.join(changed[1:])})" if changed[1:] else ""
            raise StoreError(
                f"{self._file.path}: this store holds a league with "
                f"{differs(key, meta[key], identity[key])}{more}; use another store file for a "
                f"different league, or run with --new-season to play it again in this store (its "
                f"{self._file.count_games()} games stay as history)")
        fresh = {**identity, "name": config.name, "config": config.to_json(), "updated": at,
                 "season": str(season)}
        if "created" not in meta:
            fresh["created"] = at
        return fresh, season

    @property
    def season(self) -> int:
        """The league's current season: 1, and one more for every --new-season."""
        return self._season

    def check_match(self, identity: dict[str, str]) -> None:
        """StoreError unless the store is empty or holds this `arena match` (bind_match)."""
        with self._file.lock:
            self._check_match(self._meta(), identity)

    def _check_match(self, meta: dict[str, str], identity: dict[str, str]) -> None:
        if "game" in meta and "match.bots" not in meta:
            raise StoreError(f"{self._file.path}: this store holds a league, not a match; use "
                             "another --store file")
        fill_match_identity(meta)
        for key, value in identity.items():
            if key in meta and meta[key] != value:
                where, old, new = difference(key, meta[key], value)
                raise StoreError(
                    f"{self._file.path}: this store holds another match: {where} is {old} "
                    f"there, {new} here; repeat the stored match's bots and settings to resume "
                    "it, or use another --store file")

    def bind_match(self, identity: dict[str, str], name: str) -> None:
        """Tie the store to an `arena match`: first use records identity (game, rules, seed,
        openings, the bots' names, settings, test); a later use must give the same, key by
        key. What each bot is (command, options, files) is its version (StoredBots.sync)."""
        at = now()
        with self._file.transaction():
            meta = self._meta()
            self._check_match(meta, identity)
            fresh = {**identity, "name": name, "updated": at}
            if "created" not in meta:
                fresh["created"] = at
            self._file.db.executemany("INSERT OR REPLACE INTO league (key, value) VALUES (?, ?)",
                                      fresh.items())

    def snapshot(self) -> dict[str, Any]:
        """The config of the league as last bound (LeagueConfig.to_dict()), or {} without one."""
        with self._file.lock:
            text = self._meta().get("config", "{}")
        try:
            snapshot = json.loads(text)
        except ValueError:   # written by something else: read as a league without settings
            return {}
        return snapshot if isinstance(snapshot, dict) else {}

    def meta(self) -> dict[str, str]:
        """The league's stored facts: name, game, rules, seed, config (JSON), created, updated."""
        with self._file.lock:
            return self._meta()

    def _meta(self) -> dict[str, str]:
        return dict(self._file.rows("SELECT key, value FROM league"))

    def last_change(self) -> str:
        """When the store last changed (ISO 8601 UTC, "" if never): the latest of the league's
        `updated` (a run bound it), its last game, a version first seen, a bot retired or
        suspended. `updated` alone misses every game a run stored after it began."""
        times = {"games": "finished_at", "versions": "first_seen", "retired": "at", "suspended": "at"}
        with self._file.lock:
            tables = self._file.tables()   # a store read as it is may be from before some
            found = [self._meta().get("updated", "")]
            found += [self._file.rows(f"SELECT max({column}) FROM {table}")[0][0] or ""
                      for table, column in times.items() if table in tables]
        return max(found)   # every time is written by now(): one format, so text order is time order
