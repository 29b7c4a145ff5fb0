"""A store's standings, built once for the commands (arena leaderboard, arena run's final
table), the site and a run's live table: its games in the store's order (a league's fixture
order, a ladder's play order), each row's version, and a ladder's marks (new, suspended with
its causes; with every version, those retired, removed from the config or replaced by a
newer one, as history)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .config import LadderConfig, RatingConfig
from .leaderboard.board import MARKS, Leaderboard, build_leaderboard, with_marks, with_versions
from .rating_systems import RatingSystem
from .store import Store, StoredGame


class StoreBoard(NamedTuple):
    """A store's leaderboard and the games it rates."""

    board: Leaderboard
    #: the games rated, in the order rated, each with the versions of its bots by seat
    seated: list[tuple[StoredGame, tuple[int, ...]]]

    @property
    def games(self) -> list[StoredGame]:
        """The games rated, in the order rated."""
        return [game for game, _versions in self.seated]


def standings(store: Store, rating: RatingConfig, names: Sequence[str] | None, title: str = "",
              anchor: str | None = None, system: RatingSystem | None = None,
              all_versions: bool = False) -> StoreBoard:
    """The standings of a store: the current versions of names (retired bots left out;
    None: every bot met in the games), or with all_versions every version as NAME@VERSION,
    rated by system (by default the one rating names), elo_anchor's Elo 0 (None: the mean)."""
    seated, versions = store.games.rated(all_versions)
    wanted = None if all_versions else store.games.standings_rule().rated(names)
    board = build_leaderboard([game for game, _versions in seated], rating, wanted, title, anchor, system)
    return StoreBoard(ladder_marks(with_versions(board, versions), store, all_versions, names), seated)


def store_board(store: Store, rating: RatingConfig, names: Sequence[str] | None, title: str = "",
                anchor: str | None = None, system: RatingSystem | None = None,
                all_versions: bool = False) -> Leaderboard:
    """standings()' board alone (the name it had before standings gave its games too)."""
    return standings(store, rating, names, title, anchor, system, all_versions).board


def ladder_marks(board: Leaderboard, store: Store, all_versions: bool = False,
                 names: Sequence[str] | None = None) -> Leaderboard:
    """A ladder's board with its rows marked (a league's unchanged): new below the ladder's
    min_games, suspended as the store says, and with all_versions every version that plays
    no more as history: retired (arena retire), removed (not among names, the config's
    bots; None: those of the config the store is bound to) or old (replaced by a newer
    version)."""
    snapshot = store.league.snapshot()
    if snapshot.get("schedule") != "ladder":
        return board
    section = snapshot.get("ladder")
    min_games = section.get("min_games") if isinstance(section, dict) else None
    if not isinstance(min_games, int):
        min_games = LadderConfig.min_games
    current = store.bots.current()
    suspended = store.bots.suspended()
    if not all_versions:
        now = {bot: why for (bot, version), why in suspended.items() if current.get(bot) == version}
        return with_marks(board, min_games, now)
    # every version as history: say why each no longer plays (replaced, retired, removed)
    states = version_marks(store, names)
    marked = {row.bot: states.get((row.bot.rpartition("@")[0], row.version), ()) for row in board.rows
              if row.version is not None}

    def rows(mark: str) -> set[str]:
        return {row for row, marks in marked.items() if mark in marks}
    return with_marks(board, min_games,
                      {f"{bot}@{version}": why for (bot, version), why in suspended.items()},
                      old=rows("old"), retired=rows("retired"), removed=rows("removed"))


def version_marks(store: Store, names: Sequence[str] | None = None) -> dict[tuple[str, int], tuple[str, ...]]:
    """Why each stored version (bot, version) plays no more, as marks in the order of MARKS:
    suspended (a ladder's, faulted too often), retired (arena retire), removed (not among
    names, the config's bots; None: those of the config the store is bound to) and old
    (replaced by a newer version); () for a version in play. `arena versions` and the
    leaderboard's --all-versions both say it so."""
    bots = store.league.snapshot().get("bots")
    in_config = (set(names) if names is not None else
                 {bot.get("name") for bot in bots if isinstance(bot, dict)} if isinstance(bots, list)
                 else None)
    retired = store.bots.retired()
    suspended = store.bots.suspended()
    found = {}
    for info in store.bots.versions():
        on = {"suspended": (info.bot, info.version) in suspended, "retired": info.bot in retired,
              "removed": in_config is not None and info.bot not in in_config, "old": not info.current}
        found[(info.bot, info.version)] = tuple(mark for mark in MARKS if on.get(mark))
    return found
