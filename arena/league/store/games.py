"""A store's games: each finished game stored at once and durably, the fixtures still to
play, and the stored games read back in the order ratings read them."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from arena.record import GameRecord, Termination

from ..schedule import Fixture, parse_fixture_key
from ..storefile import StoreError, record_of
from .binding import LeagueBinding
from .bots import StoredBots
from .opened import OpenStore, now


class StoredGame(NamedTuple):
    """One stored game: its fixture key, its fixture index and its record."""

    key: str
    fixture_index: int      #: (not "index": that is a tuple method)
    record: GameRecord


#: a stored game with the versions of its bots by seat
SeatedGame = tuple[StoredGame, tuple[int, ...]]
#: what a leaderboard rates: the games with their versions, and each rated name's
#: (version, fingerprint)
RatedGames = tuple[list[SeatedGame], dict[str, tuple[int, str | None]]]


class StandingsRule(NamedTuple):
    """Which stored games the standings count, and which bots they give a row: the one
    rule, read from a store now by Games.standings_rule(). Games.seated(current=True) reads
    a store by it (and through it boards.standings: the commands, a run's live table), and
    arena.publish.data.LeagueReader counts a ladder's games by it as they are stored."""

    season: int
    versions: Mapping[str, int]   #: each bot's version games are stored for (a bot not there: 1)
    retired: frozenset[str]
    #: a league's pairs per pairing now (games_per_pairing lowered leaves the games of the
    #: pairs beyond it out), or a free-for-all's games; None: no bound (a ladder's)
    pairs: int | None

    def counts(self, key: str, names: Sequence[str], versions: Sequence[int], season: int) -> bool:
        """Whether a stored game counts (its fixture key, its bots and their versions by
        seat, the season it was played in): a game of this season between the current
        versions of bots none of which is retired, of a fixture the league has now."""
        return (season == self.season
                and all(self.versions.get(name, 1) == version for name, version in zip(names, versions))
                and self.retired.isdisjoint(names)
                and (self.pairs is None or _pair_number(key) < self.pairs))

    def rated(self, names: Sequence[str] | None) -> list[str] | None:
        """The bots of names (the league's) the standings give a row: all but the retired
        (history only); None for None: every bot met in the games counted."""
        return None if names is None else [name for name in names if name not in self.retired]


class Games:
    """The games of a store, stored for the league's season (its binding) and the versions
    of their bots (its bots)."""

    def __init__(self, file: OpenStore, league: LeagueBinding, bots: StoredBots) -> None:
        self._file = file
        self._league = league
        self._bots = bots

    def add(self, fixture: Fixture, record: GameRecord) -> bool:
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
        versions = fixture.versions or self._bots.versions_of(fixture.seats)
        row: tuple[Any, ...] = (
            stored_key(fixture.key, versions), fixture.index, fixture.round, fixture.seed,
            fixture.seat0, fixture.seat1, record.winner, record.termination.value, record.faulted, record.reason,
            record.to_json(), now(), *versions[:2], self._league.season)
        try:
            with self._file.transaction():   # the game and its more seats at once, or neither
                cursor = self._insert(row)
                if cursor.rowcount == 1 and len(versions) > 2:
                    self._file.db.executemany(
                        "INSERT INTO more_seats (game, seat, bot, version) VALUES (?, ?, ?, ?)",
                        [(cursor.lastrowid, seat, bot, version) for seat, (bot, version)
                         in enumerate(zip(fixture.seats[2:], versions[2:]), 2)])
        except sqlite3.Error as exc:    # disk full, read-only, I/O error: nothing half-written
            raise StoreError(f"{self._file.path}: cannot store game {fixture.key!r} ({exc}); the "
                             "games stored before it are intact") from None
        with self._file.lock:
            self._file.stored(cursor.rowcount)
            return cursor.rowcount == 1

    def _insert(self, row: tuple[Any, ...]) -> sqlite3.Cursor:
        return self._file.db.execute(
            "INSERT INTO games (fixture_key, fixture_index, round, seed, seat0, seat1,"
            " winner, termination, faulted, reason, record, finished_at, v0, v1, season)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (fixture_key, v0, v1, season) DO NOTHING", row)

    def _more_seats(self) -> dict[int, list[tuple[str, int]]]:
        """The (bot, version) of seats 2, 3, ... by game id (none in a two-seat league; a
        store from before, read without being written, has no more_seats table). The
        caller holds the lock."""
        more: dict[int, list[tuple[str, int]]] = {}
        if "more_seats" not in self._file.tables():
            return more
        for game, bot, version in self._file.rows("SELECT game, bot, version FROM more_seats"
                                                  " ORDER BY game, seat"):
            more.setdefault(game, []).append((bot, version))
        return more

    def done_keys(self) -> set[str]:
        """Keys of the fixtures stored for the current season and the bots' current versions."""
        with self._file.lock:
            rows = self._file.rows("SELECT id, fixture_key, seat0, seat1, v0, v1 FROM games"
                                   " WHERE season = ?", (self._league.season,))
            more = self._more_seats()
        done = set()
        for id_, key, seat0, seat1, v0, v1 in rows:
            seats = [(seat0, v0), (seat1, v1), *more.get(id_, ())]
            if self._bots.versions_of([bot for bot, _ in seats]) == tuple(v for _, v in seats):
                done.add(fixture_key_of(key))
        return done

    def missing(self, fixtures: Iterable[Fixture]) -> list[Fixture]:
        """The fixtures not stored yet, in the order given."""
        done = self.done_keys()
        return [f for f in fixtures if f.key not in done]

    def count(self) -> int:
        """How many games are stored (every season and version)."""
        with self._file.lock:
            return self._file.count_games()

    def since(self, after: int = 0) -> list[tuple[int, StoredGame, tuple[int, ...]]]:
        """This season's games stored after the one whose id is `after`, in the order they
        were stored (played), each as (id, game, the versions of its bots by seat): what
        ratings updated game by game read as a run goes on; the last id is the next call's
        `after`."""
        with self._file.lock:
            rows = self._file.rows(
                "SELECT id, fixture_key, fixture_index, record, seat0, seat1, v0, v1 FROM games"
                " WHERE id > ? AND season = ? ORDER BY id", (after, self._league.season))
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
        return record_of(text, key, [bot for bot, _ in seats], self._file.path)

    def pairing_count(self, a: tuple[str, int], b: tuple[str, int]) -> int:
        """How many games of this season two bot versions (name, version) played, either
        seat first."""
        with self._file.lock:
            return int(self._file.db.execute(
                "SELECT count(*) FROM games WHERE season = ? AND ((seat0 = ? AND v0 = ? AND"
                " seat1 = ? AND v1 = ?) OR (seat0 = ? AND v0 = ? AND seat1 = ? AND v1 = ?))",
                (self._league.season, *a, *b, *b, *a)).fetchone()[0])

    def records(self, current: bool = False, keys: Collection[str] | None = None) -> Iterator[StoredGame]:
        """Stored games in the order ratings read them: a league's in fixture order (round,
        seed, key), whatever order they finished in; a ladder's, which has no fixture order,
        in the order they were stored (played).

        current: only the games of this season between the current versions of bots that
        are not retired, of the fixtures the league has now (games_per_pairing lowered
        leaves games of pairs beyond it out); keys: only these fixtures.
        """
        for game, _versions in self.seated(current, keys):
            yield game

    def seated(self, current: bool = False, keys: Collection[str] | None = None
               ) -> Iterator[SeatedGame]:
        """records(), each with the versions of its bots by seat."""
        rule = self.standings_rule() if current else None
        ladder = self._league.snapshot().get("schedule") == "ladder"
        with self._file.lock:
            rows = self._file.rows("SELECT id, fixture_key, fixture_index, record, seat0, seat1,"
                                   " v0, v1, season FROM games ORDER BY "
                                   + ("id" if ladder else "round, seed, fixture_key"))
            more = self._more_seats()
        for id_, stored, index, text, seat0, seat1, v0, v1, played_in in rows:
            key = fixture_key_of(stored)
            if keys is not None and key not in keys:
                continue
            seats = [(seat0, v0), (seat1, v1), *more.get(id_, ())]
            versions = tuple(v for _, v in seats)
            if rule is not None and not rule.counts(key, [bot for bot, _ in seats], versions, played_in):
                continue
            yield StoredGame(key, index, self._record(text, key, seats)), versions

    def standings_rule(self) -> StandingsRule:
        """Which games the standings count now: this season's, between the bots' current
        versions, none of them retired, and of a league's fixtures those it has now."""
        if self._file.readonly:
            # a reader kept open (arena serve's) reads a store a run writes: the current
            # versions are read again, not those of its first reading
            self._bots.read_current()
        snapshot = self._league.snapshot()
        # a ladder's pairs are not bounded: its pairings meet as often as it chooses; a
        # free-for-all's games are numbered, below its `games`
        pairs = (None if snapshot.get("schedule") == "ladder" else int(snapshot["games"]) if "games" in snapshot
                 else int(snapshot.get("games_per_pairing", 0)) // 2 or None)
        return StandingsRule(self._league.season, self._bots.in_play(), frozenset(self._bots.retired()), pairs)

    def rated(self, all_versions: bool = False) -> RatedGames:
        """The games a leaderboard rates, each with the versions of its bots by seat, and
        each rated name's (version, fingerprint): the current games under the bots' names,
        or every stored game with each bot as NAME@VERSION."""
        if not all_versions:
            games = list(self.seated(current=True))
            # each bot's version as the games were chosen by (a reader reads them again)
            names = list(self._bots.current())
            prints = self._bots.fingerprints()
            return games, {bot: (v, prints.get((bot, v)))
                           for bot, v in zip(names, self._bots.versions_of(names))}
        prints = self._bots.fingerprints()
        games, info = [], {}
        for game, versions in self.seated():
            bots = [dataclasses.replace(entry, name=f"{entry.name}@{v}")
                    for entry, v in zip(game.record.bots, versions)]
            for entry, v in zip(game.record.bots, versions):
                info[f"{entry.name}@{v}"] = (v, prints.get((entry.name, v)))
            games.append((game._replace(record=dataclasses.replace(game.record, bots=bots)), versions))
        return games, info


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
