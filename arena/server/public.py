"""The league as everyone may see it: the store read read-only, turned into the published
site's data (arena.publish.data) and pages, with every bot's stderr taken out.

The reading runs in a process of its own, at the ladder's priority, below the web
process's (in a thread of the web process it held the interpreter, and every request
waited behind it). It keeps a LeagueReader, which reads only the games stored since its
last reading and counts them into the standings it keeps: a reading costs what the new
games cost, not every game again, so the store is read again as soon as it changed (at
least MIN_GAP_SECONDS apart, and BUSY_SHARE times as long as the last reading took, but
at most MAX_GAP_SECONDS). A request for the standings never waits for a reading: it gets
the last one; before the first, the count of the stored games and that the standings are
being read. A bot's page and its JSON are made by the reader when asked for, from its
last reading, and kept for that reading (most readings are never browsed); a request
after a newer reading waits for the newer page up to VIEW_WAIT_SECONDS (the reader busy
with a long reading), else gets the one kept.

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

from arena.league import Store, StoreError, render
from arena.league.executors.local import die_with_parent
from arena.publish.data import (
    CHUNK_GAMES,
    Fault,
    LeagueData,
    LeagueReader,
    Replayer,
    fault_pages,
    league_json,
    list_pages,
    transcript_page,
)
from arena.publish.pages import all_pages, bot_body, leaderboard_table
from arena.publish.site import data_script
from arena.publish.templates import render as render_template

#: the store is looked at this often for new games (a look that finds none costs a few
#: queries); a reading starts at least MIN_GAP_SECONDS after the last, and BUSY_SHARE times
#: as long after it as it took (on a busy machine reading goes slower, not the ladder), but
#: at most MAX_GAP_SECONDS: a long reading (the first, or all the games again after a new
#: version) is followed by short ones, of the games stored meanwhile
LOOK_SECONDS = 0.25
MIN_GAP_SECONDS, MAX_GAP_SECONDS = 1.0, 3.0
BUSY_SHARE = 4
#: how long a request for a bot's page waits for it to be made from the last reading,
#: before it is given the one made from an earlier reading
VIEW_WAIT_SECONDS = 1.0
#: the reader yields the CPU to the web process, as the ladder does: its readings cost what
#: the new games cost, little next to the games; below the ladder (10) it was starved of the
#: CPU on a busy machine, and the standings lagged by minutes
READER_NICE = 5
RECENT_GAMES = 20
OWN_FAULTS = 30      #: a bot's latest faults kept with their stderr, for its owner


@dataclasses.dataclass(frozen=True)
class Reading:
    """One reading of the store, as the web process keeps it."""

    state: tuple[Any, ...]
    leaderboard: dict[str, Any]
    bots: dict[str, str]                       #: each bot's slug (its page SLUG.html), by name
    table: str                                 #: the standings table, the site's own partial
    games: int
    faults: dict[str, list[dict[str, Any]]]    #: private, by bot: with stderr


@dataclasses.dataclass(frozen=True)
class BotView:
    """A bot's page as the reader made it: its JSON, and its body (the site's own partial)."""

    data: dict[str, Any]
    body: str


class PublicView:
    """The store's standings, bots and games as public pages and JSON, read again by the
    reader process once the store changed; requests get the last reading at once (before
    the first, an empty table that says the store's games are being read)."""

    def __init__(self, store_path: Path, title: str) -> None:
        self.store_path = store_path
        self.title = title
        self._reading = Reading(state=(), leaderboard=_empty(title), bots={}, table="", games=0, faults={})
        self._lock = threading.Lock()
        self._next = 0.0           # monotonic time of the next look at the store
        self._busy = False         # the reader is reading
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._stopped = False
        self._views: dict[str, tuple[int, BotView]] = {}   # bot -> (the reading it was made of, view)
        self._making: dict[str, concurrent.futures.Future[BotView | None]] = {}   # views being made
        self.generation = 0        #: counts the readings: the live page asks whether it changed

    def close(self) -> None:
        """Stop the reader process."""
        with self._lock:
            self._stopped = True
            if self._pool is not None:
                # a reading may take seconds: the reader is ended, not waited for; the pool's
                # manager thread, which then finds it dead, is: left to end on its own, it
                # raced the interpreter's exit (which wakes it through a pipe the thread
                # closes as it ends: "OSError: Bad file descriptor" on a Ctrl-C)
                for process in list(getattr(self._pool, "_processes", {}).values()):
                    process.terminate()
                self._pool.shutdown(wait=True, cancel_futures=True)
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
        quiet while shows the standings of now, not of the last visit. Until the first
        reading, the pages give the count of the games stored and say they are being read."""
        stored = _stored_games(self.store_path)
        if stored:
            self._reading = dataclasses.replace(
                self._reading, games=stored, leaderboard={**_empty(self.title), "games": stored, "reading": True})

        def tick() -> None:
            while not self._stopped:
                for name in self.current().bots:   # a bot's first page made before it is asked for
                    if name not in self._views:
                        self._make_view(name)
                time.sleep(LOOK_SECONDS)
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
        took = time.monotonic() - started
        if reading is not None:
            self._reading = reading
            self.generation += 1
            self._next = time.monotonic() + min(MAX_GAP_SECONDS, max(MIN_GAP_SECONDS, BUSY_SHARE * took))
        else:   # nothing new: look again soon
            self._next = time.monotonic() + LOOK_SECONDS
        self._busy = False

    # --- what the routes ask ---

    def leaderboard(self) -> dict[str, Any]:
        """The standings as `arena leaderboard --format json` gives them, and the games stored."""
        return {**self.current().leaderboard, "generation": self.generation}

    def bot(self, name: str) -> BotView | None:
        """A bot's row, versions, rating history, latest games and page body, or None if it
        has no row; found by name, or as the site's pages link it (SLUG.html). Made of the
        last reading, waited for up to VIEW_WAIT_SECONDS; else (the reader busy) the one
        made of an earlier reading."""
        bots = self.current().bots
        if name not in bots:
            slug = name.removesuffix(".html")
            name = next((bot for bot, its in bots.items() if name.endswith(".html") and its == slug), "")
            if not name:
                return None
        kept = self._views.get(name)
        if kept is not None and kept[0] == self.generation:
            return kept[1]
        future = self._make_view(name)
        try:
            return future.result(timeout=VIEW_WAIT_SECONDS if kept is not None else 60)
        except (concurrent.futures.TimeoutError, concurrent.futures.process.BrokenProcessPool):
            return kept[1] if kept is not None else None

    def _make_view(self, name: str) -> concurrent.futures.Future[BotView | None]:
        """The reader making a bot's view of its last reading (kept once made); one at a time."""
        with self._lock:
            making = self._making.get(name)
            if making is not None:
                return making
            generation = self.generation
            future: concurrent.futures.Future[BotView | None]
            if self._stopped:
                future = concurrent.futures.Future()
                future.set_result(None)
                return future
            future = self._reader().submit(bot_view, name)
            self._making[name] = future

        def keep(done: concurrent.futures.Future[BotView | None]) -> None:
            self._making.pop(name, None)
            try:
                view = done.result()
            except Exception:   # a reader that died: made again next time
                return
            if view is not None:
                self._views[name] = (generation, view)
        future.add_done_callback(keep)
        return future

    def table(self) -> str:
        """The standings table as the published site renders it (templates/leaderboard_table.html)."""
        return self.current().table

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
        if self._stopped or not self.current().bots:
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


def _stored_games(store_path: Path) -> int:
    """How many games the store holds (0 if it is not there yet, or cannot be read now)."""
    if not store_path.is_file():
        return 0
    try:
        with Store(store_path, readonly=True) as store:
            return store.games.count()
    except StoreError:
        return 0


def _empty(title: str) -> dict[str, Any]:
    return {"title": title, "rows": [], "crosstable": {}, "games": 0, "rating_columns": []}


# --- in the reader process ------------------------------------------------------------------------

@dataclasses.dataclass
class _Kept:
    """What the reader process keeps: its reader of the store, the data of its last reading,
    and the replays and site pages made from it."""

    reader: LeagueReader | None = None
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
    """Read the store if it changed since the reading known (None if it did not, or is not
    there yet): the games stored since the last reading, counted into the standings kept."""
    if _KEPT.reader is None:
        if not Path(store_path).is_file():
            return None
        _KEPT.reader = LeagueReader(Store(store_path, readonly=True), title=title)
    store = _KEPT.reader.store
    state = (store.games.count(), tuple(sorted(store.bots.current().items())), tuple(sorted(store.bots.retired())),
             tuple(sorted(store.bots.suspended())), store.league.meta().get("config", ""))
    if state == known:
        return None
    data = _KEPT.reader.read()
    faults = _faults(data)
    # the public never sees a bot's stderr: the fault lists keep the fault, not its output
    data.faults = {bot: [dataclasses.replace(f, stderr="") for f in found] for bot, found in data.faults.items()}
    _KEPT.data, _KEPT.chunks, _KEPT.site = data, {}, None
    board = json.loads(render(data.board, "json"))
    board["games"] = len(data.games)
    board["rating_columns"] = [column.key for column in data.board.system.columns]
    table = render_template("leaderboard_table.html", **leaderboard_table(data))
    return Reading(state=state, leaderboard=board, bots={bot.name: bot.slug for bot in data.bots}, table=table,
                   games=len(data.games), faults=faults)


def bot_view(name: str) -> BotView | None:
    """A bot's page of the last reading: its JSON and its body; None if it has no row."""
    data = _KEPT.data
    bot = next((b for b in data.bots if b.name == name), None) if data is not None else None
    if data is None or bot is None:
        return None
    board = json.loads(render(data.board, "json"))
    row = next(row for row in board["rows"] if row["bot"] == name)
    return BotView(_bot(data, bot.name, bot.id, row), render_template("bot_body.html", **bot_body(data, bot)))


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
    if path.startswith("data/transcripts/") and path.endswith(".js"):   # a referee game's transcript
        no, _, page = path.removeprefix("data/transcripts/").removesuffix(".js").partition("/")
        if not (no.isdigit() and page.isdigit() and len(no) < 10 and len(page) < 10
                and 1 <= int(no) <= len(data.games)):
            return None
        found = transcript_page(data.games[int(no) - 1], int(page))
        return None if found is None else (data_script(f"transcripts/{no}/{page}", found), "text/javascript")
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
    mine = data.of_bot.get(name, [])
    recent = []
    for no in reversed(mine[-RECENT_GAMES:]):
        record = data.games[no - 1].record
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

    def version(fault: Fault) -> int:   # the faulting bot's version in that game
        versions = data.played.get(data.games[fault.no - 1].key, ())
        return versions[fault.seat] if fault.seat < len(versions) else 1
    return {names[bot]: [{"no": f.no, "bot": names[bot], "opponent": names.get(f.opponent, "?"), "seat": f.seat,
                          "version": version(f),
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


__all__ = ["BotView", "PublicView", "Reading", "bot_view", "read_store", "replay_chunk", "site_text"]
