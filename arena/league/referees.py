"""A run of a game played by a referee process (docs/referees.md): its referee built as a
bot's build is (skipped when unchanged) and fingerprinted, so that a changed referee is
another game (the store's league identity holds the fingerprint: changed, the run asks for
--new-season, as for changed rules); and its games watched, a run stopping in one line after
the game's referee_faults void games in a row."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from arena.games import Game
from arena.games.external import ExternalGame, RefereeSpec
from arena.record import GameRecord, Termination
from arena.registry import Registry

from .botentries import BotConfig
from .builds import build_bots, build_outputs
from .config import LeagueConfig
from .executors.base import RunError
from .refereegame import referee_bot
from .schedule import Fixture
from .store import Store
from .versions import HashCache, RunCache, fingerprint, manifest_of, store_files

Records = Iterator[tuple[Fixture, GameRecord]]


class RefereeFaults(RunError):
    """A run stopped: its referee failed too many games in a row."""


def referee_of(config: LeagueConfig, games: Registry[type[Game]]) -> RefereeSpec | None:
    """The league's referee: its `game:` mapping's, or a plugin's referee game's; None for a
    game of rules in arena."""
    if config.referee is not None:
        return config.referee
    made = config.made_game(games)
    return made.spec if isinstance(made, ExternalGame) else None


def referee_builds(config: LeagueConfig, games: Registry[type[Game]]) -> list[BotConfig]:
    """The referee as a build (arena.league.builds takes it with the bots'), if it has one."""
    spec = referee_of(config, games)
    return [referee_bot(spec)] if spec is not None and spec.build is not None else []


def fingerprinted(config: LeagueConfig, games: Registry[type[Game]], base_dir: Path, store_path: Path,
                  builds: Any, cache: HashCache) -> LeagueConfig:
    """The config with its referee's fingerprint (its files but what its build wrote, its
    command and build): what the run plays and stores by. builds: the store's build
    records. A game of rules in arena: the config as it is."""
    spec = referee_of(config, games)
    if spec is None:
        return config
    bot = referee_bot(spec)
    skip = store_files(store_path) | build_outputs([bot], base_dir, builds)
    return dataclasses.replace(config, referee=spec.fingerprinted(
        fingerprint(manifest_of(bot, None, cache, base_dir, skip))))


def match_referee(spec: RefereeSpec, store: Store | None, out: TextIO) -> RefereeSpec:
    """An `arena match`'s referee, built where it has a build (with a store, only when what
    it is made of changed: the store keeps its build's record, as a league's) and
    fingerprinted."""
    bot, home = referee_bot(spec), Path(spec.dir)
    records = store.caches.builds() if store is not None else {}
    cache = RunCache(store.caches.hashes() if store is not None else {})
    skip = store_files(store.path) if store is not None else frozenset()
    if spec.build is not None:
        records = build_bots([bot], home, records, cache, out, skip)
        if store is not None:
            store.caches.save_builds(records)
    fingerprint_of = fingerprint(manifest_of(bot, None, cache, home, skip | build_outputs([bot], home, records)))
    if store is not None and dict(cache) != store.caches.hashes():
        store.caches.save_hashes(cache)
    return spec.fingerprinted(fingerprint_of)


def watch_referee(records: Records, made: Game | None) -> Records:
    """An executor's records, passed on; for a game played by a referee process the run
    stops (RefereeFaults, once the last one is stored) after its referee_faults void games
    in a row."""
    if not isinstance(made, ExternalGame):
        return records
    return _watched(records, made.spec)


def _watched(records: Records, spec: RefereeSpec) -> Records:
    in_row = 0
    try:
        for fixture, record in records:
            if record.termination is Termination.REFEREE_FAULT:
                in_row += 1
            elif record.termination is not Termination.ABORTED:
                in_row = 0
            yield fixture, record
            if in_row >= spec.referee_faults:
                raise RefereeFaults(
                    f"{in_row} games in a row were void: the referee of {spec.name} failed them "
                    f"(referee_faults: {spec.referee_faults}); the run stops. Fix the referee and run "
                    "again (a changed referee asks for --new-season)")
    finally:
        close = getattr(records, "close", None)   # a generator's: it stops the workers
        if close is not None:
            close()


__all__ = ["RefereeFaults", "fingerprinted", "match_referee", "referee_builds", "referee_of", "watch_referee"]
