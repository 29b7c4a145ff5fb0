"""The league as everyone may see it: the store read read-only, turned into the published
site's data (arena.publish.data) and pages, with every bot's stderr taken out, and kept
until the store changes (so a page costs a lookup, not a rating of every game).

Nothing written by a bot on stderr reaches a public page or JSON: a bot's own stderr is
shown to its owner only (arena.server.app's /me).
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Any

from arena.league import Store, StoreError, render
from arena.publish.data import (
    CHUNK_GAMES,
    LeagueData,
    Replayer,
    fault_pages,
    league_json,
    list_pages,
    load_league,
)
from arena.publish.pages import all_pages
from arena.publish.site import data_script

#: the standings are read again at most this often, and never more often than it takes
#: (times BUSY_SHARE) to read them: on a busy server reading goes slower, not the ladder
REBUILD_SECONDS = 1.0
BUSY_SHARE = 4
RECENT_GAMES = 20


@dataclasses.dataclass
class _Built:
    """One reading of the store, and what was made from it."""

    state: tuple[Any, ...]
    data: LeagueData | None
    leaderboard: dict[str, Any]


@dataclasses.dataclass
class _Site:
    """The published site's pages and data files as text, of one reading of the store."""

    data: LeagueData
    files: dict[str, str]
    chunks: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)


class PublicView:
    """The store's standings, bots and games as public pages and JSON. A request never
    waits for the store to be read: it gets the last reading (none at first: an empty
    table) while a thread makes the next one (once the store changed), the site's pages
    after the standings."""

    def __init__(self, store_path: Path, title: str) -> None:
        self.store_path = store_path
        self.title = title
        self._store: Store | None = None
        self._lock = threading.Lock()
        self._built = _Built(state=(), data=None, leaderboard=_empty(title))
        self._site: _Site | None = None
        self._next = 0.0           # monotonic time of the next look at the store
        self._busy = False         # a thread is reading the store
        self.generation = 0        #: counts the readings: the live page asks whether it changed

    def close(self) -> None:
        """Close the store."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def _open(self) -> Store | None:
        if self._store is None and self.store_path.is_file():
            try:
                self._store = Store(self.store_path, readonly=True)
            except StoreError:
                return None   # being made by the ladder's first start: read it next time
        return self._store

    def current(self) -> _Built:
        """The last reading of the store; a new one is started when it is due."""
        if self._busy or time.monotonic() < self._next:
            return self._built
        with self._lock:
            if self._busy or time.monotonic() < self._next:
                return self._built
            self._busy = True
        threading.Thread(target=self._read, name="standings", daemon=True).start()
        return self._built

    def _read(self) -> None:
        started = time.monotonic()
        try:
            store = self._open()
            if store is not None:
                state = _state(store)
                if state != self._built.state:
                    built = _build(store, state, self.title)
                    self._built = built
                    self.generation += 1
                    self._site = _site(built)
        except StoreError:
            pass   # keep what was shown; the next look reads again
        finally:
            took = time.monotonic() - started
            self._next = time.monotonic() + max(REBUILD_SECONDS, BUSY_SHARE * took)
            self._busy = False

    # --- what the routes ask ---

    def leaderboard(self) -> dict[str, Any]:
        """The standings as `arena leaderboard --format json` gives them, and the games stored."""
        built = self.current()
        return {**built.leaderboard, "generation": self.generation}

    def bot(self, name: str) -> dict[str, Any] | None:
        """A bot's row, versions, rating history and latest games, or None if it has no row."""
        built = self.current()
        data = built.data
        if data is None:
            return None
        bot = next((b for b in data.bots if b.name == name), None)
        if bot is None:
            return None
        row = next(r for r in built.leaderboard["rows"] if r["bot"] == name)
        ids = data.ids
        mine = [(no, g) for no, g in enumerate(data.games, 1) if name in [b.name for b in g.record.bots]]
        recent = []
        for no, stored in reversed(mine[-RECENT_GAMES:]):
            record = stored.record
            recent.append({
                "no": no, "bots": [b.name for b in record.bots], "winner": record.winner,
                "termination": record.termination.value, "reason": record.reason,
                "moves": len(record.moves), "started": record.started_at,
                "seat": [b.name for b in record.bots].index(name),
                "replay": f"/games/{no}"})
        versions = [{"version": v.version, "fingerprint": v.fingerprint, "first_seen": v.first_seen,
                     "games": v.games, "last_played": v.last_played, "current": v.current,
                     "retired": v.retired} for v in data.versions.get(name, [])]
        history = [{"game": no, "rating": round(value, 3)} for no, value, _band in data.history.get(bot.id, [])]
        return {"bot": name, "row": row, "versions": versions, "history": history,
                "games": len(mine), "recent": recent, "faults": len(data.faults.get(bot.id, [])),
                "id": ids[name]}

    def game(self, no: int) -> dict[str, Any] | None:
        """Game no (1-based, as the site numbers them) for the replay viewer, without stderr."""
        self.current()
        site = self._site
        if site is None or not 1 <= no <= len(site.data.games):
            return None
        chunk = _chunk(site, (no - 1) // CHUNK_GAMES)
        return chunk["games"][no - chunk["first"]]

    def site_file(self, path: str) -> tuple[str, str] | None:
        """(text, media type) of a page, asset or data file of the live site, or None."""
        if path.startswith("assets/"):
            name = path.removeprefix("assets/")
            if "/" in name or name.startswith("."):
                return None
            asset = resources.files("arena.publish").joinpath("assets").joinpath(name)
            if not asset.is_file() or name == "page.html":
                return None
            kind = {"js": "text/javascript", "css": "text/css"}.get(name.rpartition(".")[2])
            return (asset.read_text("utf-8"), kind) if kind else None
        self.current()
        site = self._site
        if site is None:
            return None
        if path.startswith("data/moves/") and path.endswith(".js"):
            number = path.removeprefix("data/moves/").removesuffix(".js")
            if not number.isdigit() or int(number) * CHUNK_GAMES >= max(1, len(site.data.games)):
                return None
            return data_script(f"moves/{number}", _chunk(site, int(number))), "text/javascript"
        text = site.files.get(path)
        if text is None:
            return None
        return text, "text/javascript" if path.endswith(".js") else "text/html"


def _chunk(site: _Site, index: int) -> dict[str, Any]:
    """The replays of one chunk of games, made when first asked for."""
    chunk = site.chunks.get(index)
    if chunk is None:
        ids = site.data.ids
        replayer = Replayer()
        first = index * CHUNK_GAMES
        games = []
        for i, stored in enumerate(site.data.games[first:first + CHUNK_GAMES]):
            replay = replayer.replay(first + i + 1, stored, ids)
            replay["stderr"] = ["" for _ in replay.get("stderr", [])]   # the owner's alone
            versions = site.data.played.get(stored.key)
            if versions is not None:
                replay["versions"] = list(versions)
            games.append(replay)
        chunk = site.chunks[index] = {"first": first + 1, "games": games}
    return chunk


def _state(store: Store) -> tuple[Any, ...]:
    """What a change of the standings shows in: games, versions, retired and suspended bots,
    the bots of the config in force."""
    return (store.count(), tuple(sorted(store.current_versions().items())), tuple(sorted(store.retired())),
            tuple(sorted(store.suspended())), store.meta().get("config", ""))


def _build(store: Store, state: tuple[Any, ...], title: str) -> _Built:
    data = load_league(store, title=title)
    # the public never sees a bot's stderr: the fault lists keep the fault, not its output
    data.faults = {bot: [dataclasses.replace(f, stderr="") for f in faults] for bot, faults in data.faults.items()}
    board = json.loads(render(data.board, "json"))
    board["games"] = len(data.games)
    board["rating_columns"] = [column.key for column in data.board.system.columns]
    return _Built(state=state, data=data, leaderboard=board)


def _site(built: _Built) -> _Site:
    """The published site's pages and data files of a reading (the replays: when asked for)."""
    data = built.data
    assert data is not None
    files: dict[str, str] = dict(all_pages(data))
    for key, value in [("league", league_json(data)), *list_pages(data), *fault_pages(data)]:
        files[f"data/{key}.js"] = data_script(key, value)
    return _Site(data=data, files=files)


def _empty(title: str) -> dict[str, Any]:
    return {"title": title, "rows": [], "crosstable": {}, "games": 0, "rating_columns": []}

