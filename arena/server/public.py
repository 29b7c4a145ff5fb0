"""The league as everyone may see it: the store read read-only, turned into the published
site's data (arena.publish.data) and pages, with every bot's stderr taken out, and kept
until the store changes (so a page costs a lookup, not a rating of every game).

The reading (rating every game) runs in a process of its own, at a low priority, which
keeps its last reading to make the site's pages and replays when they are asked for: in
a thread of the web process it held the interpreter for seconds at a time, and every
request waited behind it. A request for the standings never waits for a reading: it gets
the last one. A reading is made again when the store changed, at most every
REBUILD_SECONDS, and never more often than it takes times BUSY_SHARE: reading the store
costs the ladder at most a tenth of a CPU.

Nothing written by a bot on stderr reaches a public page or JSON: the reading keeps each
bot's latest faults with their stderr apart (own_faults), for its owner's page only.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import multiprocessing
import os
import signal
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Any

from arena.league import Store, render
from arena.league.executors.local import die_with_parent
from arena.publish.data import (
    CHUNK_GAMES,
    LeagueData,
    Replayer,
    fault_pages,
    league_json,
    list_pages,
    load_league,
)
from arena.publish.pages import all_pages, bot_body, leaderboard_table
from arena.publish.site import data_script
from arena.publish.templates import render as render_template

#: the standings are read again at most this often, and never more often than it takes
#: (times BUSY_SHARE) to read them: on a busy server reading goes slower, not the ladder
REBUILD_SECONDS = 2.0
BUSY_SHARE = 10
READER_NICE = 10     #: the reader yields the CPU to the ladder's games and to the web process
RECENT_GAMES = 20
OWN_FAULTS = 30      #: a bot's latest faults kept with their stderr, for its owner


@dataclasses.dataclass(frozen=True)
class Reading:
    """One reading of the store, as the web process keeps it."""

    state: tuple[Any, ...]
    leaderboard: dict[str, Any]
    bots: dict[str, dict[str, Any]]            #: public, by name
    table: str                                 #: the standings table, the site's own partial
    bodies: dict[str, str]                     #: each bot's page body, the site's own partial
    games: int
    faults: dict[str, list[dict[str, Any]]]    #: private, by bot: with stderr


class PublicView:
    """The store's standings, bots and games as public pages and JSON, read again by the
    reader process once the store changed; requests get the last reading at once (none at
    first: an empty table)."""

    def __init__(self, store_path: Path, title: str) -> None:
        self.store_path = store_path
        self.title = title
        self._reading = Reading(state=(), leaderboard=_empty(title), bots={}, table="", bodies={}, games=0,
                                faults={})
        self._lock = threading.Lock()
        self._next = 0.0           # monotonic time of the next look at the store
        self._busy = False         # the reader is reading
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._stopped = False
        self.generation = 0        #: counts the readings: the live page asks whether it changed

    def close(self) -> None:
        """Stop the reader process."""
        with self._lock:
            self._stopped = True
            if self._pool is not None:
                # a reading may take seconds: the reader is ended, not waited for (the
                # interpreter's exit would join it)
                for process in list(getattr(self._pool, "_processes", {}).values()):
                    process.terminate()
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None

    def _reader(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            # spawned, not forked: the web process has threads
            self._pool = concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"), initializer=_reader_start,
                initargs=(os.getpid(),))
        return self._pool

    def start(self) -> None:
        """Read the store now and then in the background, so that a page opened after a
        quiet while shows the standings of now, not of the last visit."""
        def tick() -> None:
            while not self._stopped:
                self.current()
                time.sleep(REBUILD_SECONDS / 2)
        threading.Thread(target=tick, name="standings", daemon=True).start()

    def current(self) -> Reading:
        """The last reading of the store; the next one is started when it is due."""
        if self._busy or time.monotonic() < self._next:
            return self._reading
        with self._lock:
            if self._busy or time.monotonic() < self._next or self._stopped:
                return self._reading
            self._busy = True
            started = time.monotonic()
            future = self._reader().submit(read_store, str(self.store_path), self.title, self._reading.state)
        future.add_done_callback(lambda done: self._take(done, started))
        return self._reading

    def _take(self, done: concurrent.futures.Future[Reading | None], started: float) -> None:
        try:
            reading = done.result()
        except Exception:   # the store being made, a reader that died: read again next time
            reading = None
        if reading is not None:
            self._reading = reading
            self.generation += 1
        took = time.monotonic() - started
        self._next = time.monotonic() + max(REBUILD_SECONDS, BUSY_SHARE * took)
        self._busy = False

    # --- what the routes ask ---

    def leaderboard(self) -> dict[str, Any]:
        """The standings as `arena leaderboard --format json` gives them, and the games stored."""
        return {**self.current().leaderboard, "generation": self.generation}

    def bot(self, name: str) -> dict[str, Any] | None:
        """A bot's row, versions, rating history and latest games, or None if it has no row;
        found by name, or as the site's pages link it (SLUG.html)."""
        bots = self.current().bots
        if name in bots:
            return bots[name]
        slug = name.removesuffix(".html")
        return next((bot for bot in bots.values() if name.endswith(".html") and bot["slug"] == slug), None)

    def table(self) -> str:
        """The standings table as the published site renders it (templates/leaderboard_table.html)."""
        return self.current().table

    def bot_body(self, name: str) -> str:
        """A bot's page body as the published site renders it (templates/bot_body.html)."""
        return self.current().bodies.get(name, "")

    def own_faults(self, bots: list[str]) -> list[dict[str, Any]]:
        """The latest faults of these bots with their stderr: for their owner's eyes only."""
        faults = self.current().faults
        found = [fault for bot in bots for fault in faults.get(bot, [])]
        return sorted(found, key=lambda f: -f["no"])[:OWN_FAULTS]

    def game(self, no: int) -> dict[str, Any] | None:
        """Game no (1-based, as the site numbers them) for the replay viewer, without stderr."""
        if not 1 <= no <= self.current().games:
            return None
        chunk = self._chunk((no - 1) // CHUNK_GAMES)
        if chunk is None or not 0 <= no - chunk["first"] < len(chunk["games"]):
            return None
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
        if self._stopped or not self.current().games:
            return None
        try:
            return self._reader().submit(site_text, path).result(timeout=60)
        except (concurrent.futures.TimeoutError, concurrent.futures.process.BrokenProcessPool):
            return None

    def _chunk(self, index: int) -> dict[str, Any] | None:
        """The replays of one chunk of games, from the reader's last reading."""
        if self._stopped or index * CHUNK_GAMES >= self.current().games:
            return None
        try:
            return self._reader().submit(replay_chunk, index).result(timeout=60)
        except (concurrent.futures.TimeoutError, concurrent.futures.process.BrokenProcessPool):
            return None


def _empty(title: str) -> dict[str, Any]:
    return {"title": title, "rows": [], "crosstable": {}, "games": 0, "rating_columns": []}


# --- in the reader process ------------------------------------------------------------------------

@dataclasses.dataclass
class _Kept:
    """What the reader process keeps of its last reading: the data, and the replays made."""

    store: Store | None = None
    data: LeagueData | None = None
    chunks: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)
    site: dict[str, str] | None = None     #: the site's pages and data files, made when first asked for


_KEPT = _Kept()


def _reader_start(parent: int) -> None:
    """The reader process: it dies with the web process, yields the CPU, and leaves Ctrl-C
    (sent to the whole process group) to the server, which ends it."""
    die_with_parent(parent)
    os.nice(READER_NICE)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def read_store(store_path: str, title: str, known: tuple[Any, ...]) -> Reading | None:
    """Read the store if it changed since the reading known (None if it did not, or is not there yet)."""
    if _KEPT.store is None:
        if not Path(store_path).is_file():
            return None
        _KEPT.store = Store(store_path, readonly=True)
    store = _KEPT.store
    state = (store.games.count(), tuple(sorted(store.bots.current().items())), tuple(sorted(store.bots.retired())),
             tuple(sorted(store.bots.suspended())), store.league.meta().get("config", ""))
    if state == known:
        return None
    data = load_league(store, title=title)
    faults = _faults(data)
    # the public never sees a bot's stderr: the fault lists keep the fault, not its output
    data.faults = {bot: [dataclasses.replace(f, stderr="") for f in found] for bot, found in data.faults.items()}
    _KEPT.data, _KEPT.chunks, _KEPT.site = data, {}, None
    board = json.loads(render(data.board, "json"))
    board["games"] = len(data.games)
    board["rating_columns"] = [column.key for column in data.board.system.columns]
    rows = {row["bot"]: row for row in board["rows"]}
    bots = {bot.name: _bot(data, bot.name, bot.id, rows[bot.name]) for bot in data.bots}
    table = render_template("leaderboard_table.html", **leaderboard_table(data))
    bodies = {bot.name: render_template("bot_body.html", **bot_body(data, bot)) for bot in data.bots}
    return Reading(state=state, leaderboard=board, bots=bots, table=table, bodies=bodies,
                   games=len(data.games), faults=faults)


def site_text(path: str) -> tuple[str, str] | None:
    """(text, media type) of a page or data file of the last reading's site, or None; the
    pages are made when first asked for after a reading (most readings are never browsed)."""
    data = _KEPT.data
    if data is None:
        return None
    if path.startswith("data/moves/") and path.endswith(".js"):
        number = path.removeprefix("data/moves/").removesuffix(".js")
        chunk = replay_chunk(int(number)) if number.isdigit() and len(number) < 10 else None
        return None if chunk is None else (data_script(f"moves/{number}", chunk), "text/javascript")
    if _KEPT.site is None:
        site = dict(all_pages(data))
        for key, value in [("league", league_json(data)), *list_pages(data), *fault_pages(data)]:
            site[f"data/{key}.js"] = data_script(key, value)
        _KEPT.site = site
    text = _KEPT.site.get(path)
    if text is None:
        return None
    return text, "text/javascript" if path.endswith(".js") else "text/html"


def _bot(data: LeagueData, name: str, bot_id: int, row: dict[str, Any]) -> dict[str, Any]:
    """A bot's page's data: its row, versions, rating history and latest games."""
    mine = [(no, g) for no, g in enumerate(data.games, 1) if name in [b.name for b in g.record.bots]]
    recent = []
    for no, stored in reversed(mine[-RECENT_GAMES:]):
        record = stored.record
        seats = [b.name for b in record.bots]
        recent.append({"no": no, "bots": seats, "winner": record.winner, "termination": record.termination.value,
                       "reason": record.reason, "moves": len(record.moves), "started": record.started_at,
                       "seat": seats.index(name), "replay": f"/games/{no}"})
    versions = [{"version": v.version, "fingerprint": v.fingerprint, "first_seen": v.first_seen, "games": v.games,
                 "last_played": v.last_played, "current": v.current, "retired": v.retired}
                for v in data.versions.get(name, [])]
    history = [{"game": no, "rating": round(value, 3)} for no, value, _band in data.history.get(bot_id, [])]
    slug = next(bot.slug for bot in data.bots if bot.id == bot_id)
    return {"bot": name, "slug": slug, "row": row, "versions": versions, "history": history, "games": len(mine),
            "recent": recent, "faults": len(data.faults.get(bot_id, [])), "id": bot_id}


def _faults(data: LeagueData) -> dict[str, list[dict[str, Any]]]:
    """Each bot's latest faults with the stderr it wrote: for its owner."""
    names = {bot.id: bot.name for bot in data.bots}
    return {names[bot]: [{"no": f.no, "bot": names[bot], "opponent": names.get(f.opponent, "?"), "seat": f.seat,
                          "termination": f.termination, "reason": f.reason, "stderr": f.stderr,
                          "replay": f"/games/{f.no}"}
                         for f in reversed(found[-OWN_FAULTS:])]
            for bot, found in data.faults.items() if found}


def replay_chunk(index: int) -> dict[str, Any] | None:
    """The replays of chunk index of the last reading, without stderr (made once per reading)."""
    data = _KEPT.data
    if data is None or index * CHUNK_GAMES >= len(data.games):
        return None
    chunk = _KEPT.chunks.get(index)
    if chunk is None:
        ids = data.ids
        replayer = Replayer()
        first = index * CHUNK_GAMES
        games = []
        for i, stored in enumerate(data.games[first:first + CHUNK_GAMES]):
            replay = replayer.replay(first + i + 1, stored, ids)
            replay["stderr"] = ["" for _ in replay.get("stderr", [])]   # the owner's alone
            versions = data.played.get(stored.key)
            if versions is not None:
                replay["versions"] = list(versions)
            games.append(replay)
        chunk = _KEPT.chunks[index] = {"first": first + 1, "games": games}
    return chunk


__all__ = ["PublicView", "Reading", "read_store", "replay_chunk", "site_text"]
