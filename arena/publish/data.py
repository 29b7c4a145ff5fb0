"""A league store turned into plain, JSON-able data for the site.

Games are numbered 1..N in the order ratings read them (a league's fixture order, a
ladder's play order: the store's games.records), so a game's number, its list page and
its moves file follow from its position alone.
Every game is replayed through its rules here, so the browser only draws: it never
needs to know a game's rules; a published site checks every game against them first
(check_rules), so a record that lies is refused rather than shown.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import combinations
from typing import Any

from arena import transcript
from arena.games import Game, GameError, Grid, State
from arena.league import Leaderboard, RatingConfig, Row, Store, StoredGame
from arena.league.boards import ladder_marks
from arena.league.leaderboard import LiveBoard, with_versions
from arena.league.pairs import between
from arena.league.rating_systems import RatingSystem
from arena.league.schedule import parse_fixture_key
from arena.league.store import StandingsRule, StoreDamagedError, VersionInfo
from arena.plugins import games_or_loaded
from arena.record import GameRecord, Termination, play_turn
from arena.recordcheck import rules_problem
from arena.registry import Registry

CHUNK_GAMES = 100   #: games per moves file (data/moves/NNNN.js), loaded by the replay page
PAGE_GAMES = 100    #: games per page of the games list (data/games/...)
PAGE_FAULTS = 50    #: faults per page of a bot's fault list (data/faults/...)
#: a game played by a referee process: steps (answers) per page of its transcript
#: (data/transcripts/GAME/N.js, loaded by the replay page as it steps), and what the site
#: keeps of a game's transcript: its lines given, up to this many characters in all (past
#: it, steps keep their answers only, cut short), each line up to LINE_CHARS, each answer up
#: to ANSWER_CHARS; `arena replay` prints the record whole
PAGE_STEPS = 100
SITE_TRANSCRIPT_CHARS = 1 << 18
LINE_CHARS = 2000
ANSWER_CHARS = 2000
ANSWER_CUT = 200     #: of an answer past SITE_TRANSCRIPT_CHARS

#: how people read a termination (a referee process's fault only in a site that has one:
#: the site of every other league stays as it was)
TERMINATION_LABELS = {t.value: t.label for t in Termination if t is not Termination.REFEREE_FAULT}
#: what a bot did, for the sentence that ends a fault replay: "mine crashed, so random wins."
FAULT_VERBS = {
    "timeout": "ran out of time", "crash": "crashed", "illegal_move": "played an illegal move",
    "malformed": "answered with something that is not a move",
    "output_cap": "wrote more output than allowed", "startup_failure": "failed to start",
    "resource_limit": "went over a resource limit",
}


@dataclass(frozen=True)
class BotInfo:
    """A bot as the site shows it: id (its rank position, 0-based), file-safe slug, table row."""

    id: int
    name: str
    slug: str
    row: Row


@dataclass
class Versus:
    """One bot's games against one opponent, from the bot's side."""

    as_x: int = 0
    as_o: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    unrated: int = 0      #: games left out of the standings (e.g. faults not counted)
    faults: int = 0       #: games this bot ended by a fault

    @property
    def rated(self) -> int:
        """Games that count in the standings."""
        return self.wins + self.draws + self.losses

    def __add__(self, other: Versus) -> Versus:
        """Both counts together (a bot's totals are the sum over its opponents)."""
        return Versus(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


@dataclass(frozen=True)
class Fault:
    """A game one bot ended by misbehaving."""

    no: int
    opponent: int          #: bot id
    seat: int
    termination: str
    reason: str
    stderr: str
    moves: int

    def to_json(self) -> list[Any]:
        """The compact form data files carry."""
        return [self.no, self.opponent, self.seat, self.termination, self.reason, self.stderr,
                self.moves]


@dataclass
class LeagueData:
    """Everything the site shows, derived from one store."""

    title: str
    name: str
    game: str
    rules: dict[str, Any]
    created: str
    updated: str          #: when the store last changed, its games included (Store.last_change)
    settings: RatingConfig
    board: Leaderboard
    bots: list[BotInfo]                    #: rank order; a bot's id is its index here
    games: list[StoredGame]                #: as ratings read them; game number = index + 1
    versus: dict[int, dict[int, Versus]] = field(default_factory=dict)
    faults: dict[int, list[Fault]] = field(default_factory=dict)
    #: bot id -> (game number, the rating's value, the top of its band) after each rated game
    history: dict[int, list[tuple[int, float, float]]] = field(default_factory=dict)
    #: bot name -> its versions in the store, oldest first
    versions: dict[str, list[VersionInfo]] = field(default_factory=dict)
    #: (bot name, version) -> why it was suspended (a ladder's), its fault causes
    suspended: dict[tuple[str, int], str] = field(default_factory=dict)
    #: fixture key -> the versions of its bots that played it, by seat
    played: dict[str, tuple[int, ...]] = field(default_factory=dict)
    #: the game's moves go by turns (tron: seats moving at once, or in rounds): replays step
    #: through turns (assets/turns.js)
    simultaneous: bool = False
    #: what the game calls its seats, seat 0 first (tron's A, B, ...; x and o by default)
    seat_names: tuple[str, ...] = ("x", "o")
    #: the most seats a game has (2 without games): of more, the site lists every seat of a
    #: game (assets/seats.js)
    seats: int = 2
    #: bot name -> the numbers of the games it sat in (every game of the list, tallied or not)
    of_bot: dict[str, list[int]] = field(default_factory=dict)
    #: the games were played by a referee process: a replay is the game's transcript
    #: (assets/transcript.js), there being no board to draw
    refereed: bool = False

    @property
    def ids(self) -> dict[str, int]:
        """Bot name -> id."""
        return {bot.name: bot.id for bot in self.bots}

    def pages(self, count: int, size: int) -> int:
        """How many pages of size items hold count items (at least 1)."""
        return max(1, -(-count // size))


def slugify(names: Sequence[str]) -> list[str]:
    """File- and URL-safe names, unique, in the order given."""
    slugs: list[str] = []
    taken: set[str] = set()
    for name in names:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._-")[:40] or "bot"
        slug, n = base, 2
        while slug.lower() in taken:
            slug, n = f"{base}-{n}", n + 1
        taken.add(slug.lower())
        slugs.append(slug)
    return slugs


def rating_from_meta(meta: Mapping[str, str]) -> RatingConfig:
    """The rating settings in the store's config snapshot, else the defaults."""
    try:
        section = json.loads(meta["config"]).get("rating") or {}
        return RatingConfig(**section)
    except (KeyError, TypeError, ValueError):
        return RatingConfig()


def bots_from_meta(meta: Mapping[str, str]) -> list[str] | None:
    """The league's bot names in the store's config snapshot, or None without one."""
    try:
        names = [bot["name"] for bot in json.loads(meta["config"])["bots"]]
    except (KeyError, TypeError, ValueError):
        return None
    return [n for n in names if isinstance(n, str)] or None


def load_league(store: Store, rating: RatingConfig | None = None,
                title: str | None = None, system: RatingSystem | None = None,
                registry: Registry[type[Game]] | None = None) -> LeagueData:
    """Read every game of a store and derive the standings, per-bot tallies and faults.

    Rating settings and the bot list come from the store's config snapshot unless
    rating is given; the title defaults to the league's name; system rates the bots
    (by default the one the rating settings name); registry: the games the league's
    game is looked up in (by default the loaded plugins').
    """
    return LeagueReader(store, rating, title, system, registry).read()


#: what a LeagueReader reading a ladder on asks the store again at most this often: each
#: version's first and last game (Store.versions) and when the store last changed, which
#: scan every game; each version's count of games is kept up to date meanwhile
SLOW_FACTS_SECONDS = 15.0


class LeagueReader:
    """A store's LeagueData, read again as the store grows. A ladder's games are read in the
    order they were stored: a later read() reads only the games stored since the last
    (store.games.since) and counts them into what it keeps (the standings: LiveBoard; the
    tallies: Tallies), so that it costs what the new games and the bots cost. Which games
    the standings count, and which bots they rate, is the store's one rule
    (store.games.standings_rule(), which store.games.seated(current=True) and so
    boards.standings read by too). When that rule changes (a bot's new version, a bot
    retired or back, a new season) or the league's bots or rating settings do, it counts
    again every game it has read, each parsed once. A league's games (fixture order) are
    read whole each time. load_league is one read(); `arena serve` keeps one reading its
    ladder's store."""

    def __init__(self, store: Store, rating: RatingConfig | None = None, title: str | None = None,
                 system: RatingSystem | None = None, registry: Registry[type[Game]] | None = None) -> None:
        self.store, self.rating, self.title, self.system = store, rating, title, system
        self.registry = games_or_loaded(registry)   #: the games the league's game is looked up in
        self._basis: tuple[Any, ...] | None = None   # what the counts below were made for
        self._current: Mapping[str, int] = {}  # the bots' versions they were made for
        self._wanted: list[str] | None = None  # the bots the standings rate (None: every one met)
        self._last_id = 0
        #: every game read, parsed once, with its bots' versions and the season it was read in
        self._season: list[tuple[StoredGame, tuple[int, ...], int]] = []
        self._rows: list[tuple[StoredGame, tuple[int, ...]]] = []     # those the standings read
        self._games: list[StoredGame] = []                 # their games, and each one's versions
        self._played: dict[str, tuple[int, ...]] = {}
        self._seated: set[str] = set()         # every bot of a game read
        self._live: LiveBoard | None = None
        self._tallies = Tallies()
        self._infos: list[VersionInfo] = []
        self._updated = ""
        self._slow_at = float("-inf")
        self._simultaneous: dict[str, bool] = {}    # by game and rules
        self._seat_names: dict[str, tuple[str, ...]] = {}

    def read(self) -> LeagueData:
        """The LeagueData of the store as it is now (an error leaves nothing counted: the next
        read() reads every game again)."""
        try:
            return self._read()
        except BaseException:
            self._basis, self._last_id, self._season, self._slow_at = None, 0, [], float("-inf")
            raise

    def _read(self) -> LeagueData:
        store = self.store
        meta = store.league.meta()
        settings = self.rating if self.rating is not None else rating_from_meta(meta)
        rule = store.games.standings_rule()
        wanted = rule.rated(bots_from_meta(meta))
        if _ladder(meta):
            new = store.games.since(self._last_id)   # this season's, in the order stored (played)
            if new:
                self._last_id = new[-1][0]
            fresh = [(game, versions, rule.season) for _id, game, versions in new]
            self._season.extend(fresh)
            basis = (settings, rule.retired, rule.season)
            again = basis != self._basis or self._changed(rule.versions, wanted)
            if again:
                self._count(_counted(rule, self._season), settings, wanted)
            else:
                self._add_bots(wanted)
                self._add(_counted(rule, fresh))
                self._played_more(fresh)
            self._basis, self._current = basis, rule.versions
            known = {(info.bot, info.version) for info in self._infos}
            slow = (again or time.monotonic() - self._slow_at > SLOW_FACTS_SECONDS
                    or any(seat not in known for seat in rule.versions.items()))
        else:
            self._basis = None
            self._count(list(store.games.seated(current=True)), settings, wanted)
            slow = True
        if slow:
            self._infos, self._updated = store.bots.versions(), store.league.last_change()
            self._slow_at = time.monotonic()
        return self._data(meta, settings, rule)

    def _changed(self, current: Mapping[str, int], wanted: list[str] | None) -> bool:
        """Whether the standings must count every game again: a bot's version changed, or
        the bots they rate did, but for newcomers that have played no game read yet."""
        if any(current.get(bot) != version for bot, version in self._current.items()):
            return True
        if (wanted is None) != (self._wanted is None):
            return True
        if wanted is None or self._wanted is None:
            return False
        return not set(self._wanted) <= set(wanted) or bool((set(wanted) - set(self._wanted)) & self._seated)

    def _count(self, rows: list[tuple[StoredGame, tuple[int, ...]]], settings: RatingConfig,
               wanted: list[str] | None) -> None:
        """Count these games (the standings' games, in their order) from nothing."""
        self._wanted = wanted
        self._rows, self._games, self._played = [], [], {}
        self._seated = set()
        self._live = LiveBoard(settings, wanted, self.title or "", system=self.system)
        self._tallies = Tallies()
        self._add(rows)

    def _add_bots(self, wanted: list[str] | None) -> None:
        """Newcomers to the standings, before their first game."""
        if wanted is not None and self._wanted is not None and self._live is not None:
            self._live.add_bots(name for name in wanted if name not in self._wanted)
            self._wanted = wanted

    def _add(self, rows: list[tuple[StoredGame, tuple[int, ...]]]) -> None:
        """Count more of the standings' games, in their order."""
        assert self._live is not None
        for stored, versions in rows:
            self._rows.append((stored, versions))
            self._games.append(stored)
            self._played[stored.key] = versions
            self._seated.update(bot.name for bot in stored.record.bots)
            counted = self._live.add(stored.key, stored.record)
            self._tallies.add(len(self._rows), stored, counted)

    def _played_more(self, rows: list[tuple[StoredGame, tuple[int, ...], int]]) -> None:
        """Each version's count of games, with games stored since the store was last asked."""
        more: dict[tuple[str, int], int] = {}
        for stored, versions, _season in rows:
            for seat in set(zip((bot.name for bot in stored.record.bots), versions)):
                more[seat] = more.get(seat, 0) + 1
        if more:
            self._infos = [info._replace(games=info.games + more.get((info.bot, info.version), 0))
                           for info in self._infos]

    def _data(self, meta: Mapping[str, str], settings: RatingConfig, rule: StandingsRule) -> LeagueData:
        """The LeagueData of what is counted."""
        assert self._live is not None
        store = self.store
        name = meta.get("name", "")
        title = self.title or name or "League"
        board = replace(self._live.board(), title=title)
        # each row's version is the one whose games it rates, as `arena leaderboard` gives it
        prints = {(info.bot, info.version): info.fingerprint for info in self._infos}
        rated = {row.bot: rule.versions.get(row.bot, 1) for row in board.rows}
        board = ladder_marks(with_versions(board, {bot: (v, prints[bot, v]) for bot, v in rated.items()
                                                   if (bot, v) in prints}), store)
        slugs = slugify([row.bot for row in board.rows])
        bots = [BotInfo(i, row.bot, slug, row) for i, (row, slug) in enumerate(zip(board.rows, slugs))]
        games = list(self._games)
        try:
            rules = json.loads(meta.get("rules", "{}"))
        except ValueError:
            rules = {}
        game = meta.get("game") or (games[0].record.game if games else "")
        if not meta.get("rules") and games:
            rules = dict(games[0].record.rule_options)
        ruled = game + json.dumps(rules, sort_keys=True)
        if ruled not in self._simultaneous:
            self._simultaneous[ruled] = _simultaneous(game, rules, self.registry)
            self._seat_names[ruled] = _seat_names(game, rules, self.registry)
        data = LeagueData(title=title, name=name, game=game, rules=rules,
                          created=meta.get("created", ""), updated=self._updated,
                          settings=settings, board=board, bots=bots, games=games,
                          played=dict(self._played),
                          simultaneous=self._simultaneous[ruled], seat_names=self._seat_names[ruled],
                          seats=self._tallies.seats)
        for info in self._infos:
            data.versions.setdefault(info.bot, []).append(info)
        data.suspended = store.bots.suspended()
        self._tallies.fill(data)
        if data.refereed:    # no x and o, whatever the game's name: its seats by number
            data.seat_names = tuple(f"seat {seat}" for seat in range(data.seats))
        return data


def _ladder(meta: Mapping[str, str]) -> bool:
    """Whether the store holds a ladder (its games in the order they were played)."""
    try:
        snapshot = json.loads(meta.get("config", "{}"))
    except ValueError:
        return False
    return isinstance(snapshot, dict) and snapshot.get("schedule") == "ladder"


def _counted(rule: StandingsRule, read: list[tuple[StoredGame, tuple[int, ...], int]]
             ) -> list[tuple[StoredGame, tuple[int, ...]]]:
    """The games read (each with its bots' versions and its season) that the standings
    count, by the rule store.games.seated(current=True) reads a store by."""
    return [(stored, versions) for stored, versions, season in read
            if rule.counts(stored.key, [bot.name for bot in stored.record.bots], versions, season)]


def check_rules(store: Store, games: Sequence[StoredGame],
                registry: Registry[type[Game]] | None = None) -> None:
    """StoreDamagedError naming the first game whose record its game's rules contradict
    (arena.recordcheck): a site never shows a game that was not played. A game this arena
    does not know (in registry, by default the loaded plugins' games) is taken as it is."""
    replayer = Replayer(registry)
    for stored in games:
        game = replayer.game(stored.record)
        problem = None if game is None else rules_problem(stored.record, game)
        if problem is not None:
            raise StoreDamagedError(
                f"{store.path}: the store is damaged (game {stored.key!r}: its record does not "
                f"follow the rules of {stored.record.game}: {problem}): restore it from a "
                "backup or use another file")


def _simultaneous(game: str, rules: Mapping[str, Any], registry: Registry[type[Game]]) -> bool:
    """Whether the league's game is one whose moves go by turns (seats moving at once, or in
    rounds), replayed turn by turn (False for a game this arena does not know, whose
    replays show no board either way)."""
    try:
        return registry.create(game, **rules).info.by_turn
    except (GameError, TypeError):
        return False


def _seat_names(game: str, rules: Mapping[str, Any], registry: Registry[type[Game]]) -> tuple[str, ...]:
    """What the league's game calls its seats (GameInfo.seat_names); x and o for a game this
    arena does not know."""
    try:
        return registry.create(game, **rules).info.seat_names
    except (GameError, TypeError):
        return ("x", "o")


class Tallies:
    """Each bot's games by opponent (as_x, as_o, faults), its faults and the number of every
    game, counted as games come, by the bots' names: a bot's id is its place in the
    standings, which a game may change. fill() puts them, by id, in a LeagueData whose board
    counted the same games."""

    def __init__(self) -> None:
        self.versus: dict[str, dict[str, Versus]] = {}
        self.faults: dict[str, list[tuple[Fault, str]]] = {}   # with the opponent's name
        self.number: dict[str, int] = {}     # fixture key -> game number
        self.of_bot: dict[str, list[int]] = {}   # bot -> the numbers of the games it sat in
        self.seats = 2                       # the most seats a game has
        self.refereed = False                # a game played by a referee process was added
        #: bot -> its rating path as the board last gave it, and as the site reads it
        self._paths: dict[str, tuple[tuple[tuple[str, Any], ...], list[tuple[int, float, float]]]] = {}

    def add(self, no: int, stored: StoredGame, counted: bool) -> None:
        """Game number no; counted: the board counts it (every seat one of its bots)."""
        record = stored.record
        self.number[stored.key] = no
        seats = [b.name for b in record.bots]
        self.seats = max(self.seats, len(seats))
        self.refereed = self.refereed or record.referee is not None
        for name in dict.fromkeys(seats):
            self.of_bot.setdefault(name, []).append(no)
        if not counted:
            return              # a bot no longer in the league: listed, not tallied
        # every two seats of the game (of two seats, the one pair): as_x counts the games
        # a bot sat before the other, as_o after it
        for first, second in combinations(range(len(seats)), 2):
            x, o = seats[first], seats[second]
            self.versus.setdefault(x, {}).setdefault(o, Versus()).as_x += 1
            self.versus.setdefault(o, {}).setdefault(x, Versus()).as_o += 1
        for fault in record.faults():
            seat = fault.seat
            me = seats[seat]
            them = seats[1 - seat] if len(seats) == 2 else seats[0 if seat else 1]
            self.versus[me][them].faults += 1
            tails = record.stderr_tails
            self.faults.setdefault(me, []).append((Fault(
                no=no, opponent=-1, seat=seat, termination=fault.termination.value,
                reason=fault.reason, stderr=tails[seat] if seat < len(tails) else "",
                moves=len(record.moves)), them))

    def _path(self, name: str, path: tuple[tuple[str, Any], ...]) -> list[tuple[int, float, float]]:
        """A bot's rating path as the site reads it: (game number, value, band top) after
        each game; what the board gave before and gives again (a path that carries on game
        by game) is not converted again."""
        number = self.number
        last, shown = self._paths.get(name, ((), []))
        if not (len(last) <= len(path) and (not last or path[len(last) - 1] is last[-1])):
            shown = []    # another path (a system that rates every game again): all of it
            last = ()
        shown = shown + [(number[key], r.value, r.value if r.band is None else r.band)
                         for key, r in path[len(last):] if key in number]
        self._paths[name] = (path, shown)
        return list(shown)

    def fill(self, data: LeagueData) -> None:
        """Fill versus (results as the board counted them), faults and history (as game
        numbers) of data, by its bots' ids."""
        ids = data.ids
        names = {bot.id: bot.name for bot in data.bots}
        data.versus = {bot.id: {ids[them]: replace(vs) for them, vs in self.versus.get(bot.name, {}).items()}
                       for bot in data.bots}
        data.faults = {bot.id: [replace(fault, opponent=ids[them]) for fault, them in self.faults.get(bot.name, [])]
                       for bot in data.bots}
        for me, opponents in data.versus.items():
            for them, vs in opponents.items():
                games = between(data.board.matches, names[me], names[them]).games
                vs.wins, vs.draws, vs.losses = games.wins, games.draws, games.losses
                vs.unrated = vs.as_x + vs.as_o - games.games
        data.history = {bot.id: self._path(bot.name, data.board.history.get(bot.name, ())) for bot in data.bots}
        data.of_bot = {bot: list(numbers) for bot, numbers in self.of_bot.items()}
        data.refereed = self.refereed


# --- data files -----------------------------------------------------------------------------

def league_json(data: LeagueData) -> dict[str, Any]:
    """data/league.js: what the games list and the replay viewer need to start."""
    return {
        "title": data.title, "name": data.name, "game": data.game, "rules": data.rules,
        "games": len(data.games), "chunkGames": CHUNK_GAMES, "pageGames": PAGE_GAMES,
        "pages": data.pages(len(data.games), PAGE_GAMES),
        "terminations": TERMINATION_LABELS | ({} if not any(
            g.record.termination is Termination.REFEREE_FAULT for g in data.games) else {
            Termination.REFEREE_FAULT.value: Termination.REFEREE_FAULT.label}), "faultVerbs": FAULT_VERBS,
        "bots": [{"id": b.id, "name": b.name, "slug": b.slug, "rank": b.row.rank,
                  "games": games_of(data, b.id), "pages": data.pages(games_of(data, b.id), PAGE_GAMES)}
                 for b in data.bots],
    } | ({} if data.seat_names == ("x", "o") else {"seatNames": list(data.seat_names)})


def games_of(data: LeagueData, bot: int) -> int:
    """How many of the league's games a bot played (tallied: every seat a league bot)."""
    if data.seats == 2:   # one opponent a game
        return sum(v.as_x + v.as_o for v in data.versus[bot].values())
    ids = data.ids
    return sum(1 for g in data.games if bot in [ids.get(b.name) for b in g.record.bots]
               and None not in [ids.get(b.name) for b in g.record.bots])


def _bot_ids(record: GameRecord, ids: Mapping[str, int]) -> list[int | str]:
    """Bot ids of a record's seats; a bot outside the league is given by its name."""
    return [ids.get(b.name, b.name) for b in record.bots]


def game_row(no: int, stored: StoredGame, ids: Mapping[str, int],
             versions: Sequence[int] | None = None) -> list[Any]:
    """A game's line in the games list: [no, x, o, winner, termination, faulted, moves, round],
    and of more than two seats [..., the bots of seats 2.., the ranking, each seat's version
    (None if unknown), the seats put out for a fault as [seat, termination]] after it."""
    record = stored.record
    x, o, *more = _bot_ids(record, ids)
    row = [no, x, o, record.winner, record.termination.value, record.faulted, len(record.moves),
           _round_of(stored.key)]
    if not more:
        return row
    out = [[gone.seat, gone.termination.value] for gone in record.out]
    return row + [more, record.rank_of(), None if versions is None else list(versions), out]


def _pair_and_swap(key: str) -> tuple[int, int] | None:
    """k and swap of a fixture key, None for a key of another shape."""
    parts = parse_fixture_key(key)
    return None if parts is None else (parts.pair, parts.swap)


def fixture_text(key: str, seats: Sequence[str], places: tuple[str, str] = ("plays x", "plays o")) -> str:
    """A fixture key "a|b|k|swap" as people read it: "pair 1, game 2: b plays x, a plays o"
    (places: how the two seats are said); of more than two seats "game 8: a, b, c, d by seat"."""
    parts = parse_fixture_key(key)
    if parts is not None and parts.more:
        return f"game {parts.pair + 1}: {', '.join(seats)} by seat"
    found = _pair_and_swap(key)
    if found is None:
        return f"fixture {key}"
    return f"pair {found[0] + 1}, game {found[1] + 1}: {seats[0]} {places[0]}, {seats[1]} {places[1]}"


def _round_of(key: str) -> int | None:
    """The round of a fixture key "a|b|k|swap[|OPENING]" (2k + swap), None for another shape."""
    found = _pair_and_swap(key)
    return None if found is None else 2 * found[0] + found[1]


def list_pages(data: LeagueData) -> Iterator[tuple[str, dict[str, Any]]]:
    """Pages of the games list, all games ("games/all/N") and each bot's ("games/ID/N")."""
    ids = data.ids
    rows = [game_row(no, stored, ids, data.played.get(stored.key))
            for no, stored in enumerate(data.games, 1)]
    yield from _paged("games/all", rows, PAGE_GAMES)
    for bot in data.bots:
        mine = [row for row in rows
                if row[1] == bot.id or row[2] == bot.id or (len(row) > 8 and bot.id in row[8])]
        yield from _paged(f"games/{bot.id}", mine, PAGE_GAMES)


def fault_pages(data: LeagueData) -> Iterator[tuple[str, dict[str, Any]]]:
    """Pages of each bot's faults ("faults/ID/N"), newest game first."""
    for bot in data.bots:
        faults = data.faults[bot.id]
        if faults:
            yield from _paged(f"faults/{bot.id}", [f.to_json() for f in reversed(faults)],
                              PAGE_FAULTS)


def _paged(prefix: str, items: list[Any], size: int) -> Iterator[tuple[str, dict[str, Any]]]:
    pages = max(1, -(-len(items) // size))
    for page in range(1, pages + 1):
        yield f"{prefix}/{page}", {"page": page, "pages": pages, "total": len(items),
                                   "rows": items[(page - 1) * size:page * size]}


class Replayer:
    """Replays records through their game's rules, caching one Game per rule set."""

    def __init__(self, games: Registry[type[Game]] | None = None) -> None:
        self._registry = games_or_loaded(games)
        self._games: dict[str, Game | None] = {}

    def game(self, record: GameRecord) -> Game | None:
        """The rules a record was played by, or None if this arena does not know them."""
        key = record.game + json.dumps(record.rule_options, sort_keys=True)
        if key not in self._games:
            try:
                self._games[key] = self._registry.create(record.game, **record.rule_options)
            except GameError:
                self._games[key] = None
        return self._games[key]

    def replay(self, no: int, stored: StoredGame, ids: Mapping[str, int]) -> dict[str, Any]:
        """One game for the replay viewer: moves with seat, times, and the board after each.

        moves: [cell, seat, wall ms, cpu ms or null, board to play next (-1 any)], the
        first `opening` of them the opening the referee played;
        status: after move i (1-based), when it changed, one letter per small board:
        '.' open, 'x' / 'o' won, '-' full. status["0"] is the start.
        grid: [rows, columns] when the game's states offer State.grid() (else the viewer
        shows the move list only); marks: the board's marks after each ply (marks[0] the
        start), sent only when the moves do not name the squares they mark; texts: each
        move as the game writes it, sent only when that is not its number.
        """
        record = stored.record
        if record.referee is not None:    # no rules here, whatever its name: its transcript
            return transcript_replay(no, stored, ids)
        game = self.game(record)
        if game is not None and game.info.by_turn:
            return self.replay_turns(no, stored, ids, game)
        out: dict[str, Any] = {
            "no": no, "key": stored.key, "bots": _bot_ids(record, ids), "game": record.game,
            "fixture": fixture_text(stored.key, [b.name for b in record.bots]),
            # a string: seeds are 63-bit and JavaScript numbers keep only 53 bits
            "rules": record.rule_options, "seed": str(record.seed), "winner": record.winner,
            "termination": record.termination.value, "faulted": record.faulted,
            "reason": record.reason, "scores": list(record.scores),
            "stderr": list(record.stderr_tails), "started": record.started_at,
            "durationMs": round(record.duration_ms, 1),
            "cells": game.info.move_count if game is not None else 0,
            "opening": record.opening,   # the first moves, played by the referee
        }
        moves: list[list[Any]] = []
        subs: dict[str, str] = {}
        status: dict[str, str] = {}
        error = None if game is not None else f"unknown game {record.game!r}: moves not drawn"
        state = game.start(record.seed) if game is not None else None
        grid = state.grid() if state is not None else None
        big = grid is not None and bool(grid.regions)    # a board of sub-boards: their status
        if grid is not None:
            out["grid"] = [grid.rows, grid.columns]
        if grid is not None and big:
            status["0"] = grid.regions
        out["start"] = grid.target if grid is not None else -1
        boards = [grid.marks] if grid is not None else []   # marks after each ply
        placed = True      # so far, every move marked the square it names: moves draw the board
        for ply, move in enumerate(record.moves, 1):
            cell, target = -1, -1
            if state is not None and error is None:
                try:
                    cell = game.parse_move(move.move)  # type: ignore[union-attr]
                    state = state.play(cell)
                except GameError as exc:
                    error = f"move {ply} ({move.move[:20]!r}) cannot be replayed: {exc}"
                    cell = -1
                else:
                    after = state.grid() if grid is not None else None
                    if grid is not None and after is not None:
                        target = after.target if big else -1
                        if big and after.regions != grid.regions:
                            status[str(ply)] = after.regions
                        boards.append(after.marks)
                        placed = placed and _places(grid.marks, after, cell, move.seat)
                        grid = after
            moves.append([cell, move.seat, round(move.wall_ms, 1),
                          None if move.cpu_ms is None else round(move.cpu_ms, 1), target])
            if move.substituted:
                subs[str(ply)] = move.substituted
            if error is not None:
                break
        if grid is not None and not placed:
            out["marks"] = boards   # moves do not name squares (a drop, a capture): send the boards
        if any(m[0] >= 0 and move.move != str(m[0]) for m, move in zip(moves, record.moves)):
            out["texts"] = [move.move for move in record.moves[:len(moves)]]   # the game's own move text
        out.update(moves=moves, subs=subs, status=status, error=error,
                   over=bool(state is not None and error is None and state.is_terminal()))
        return out


    def replay_turns(self, no: int, stored: StoredGame, ids: Mapping[str, int],
                     game: Game) -> dict[str, Any]:
        """One game whose seats move at once, for the turn viewer (assets/turns.js).

        turns: per turn [moves, changes]: moves [seat, text, wall ms, cpu ms or null,
        substituted or null] in the order the record keeps them, changes [square, letter]
        of the board (State.grid()'s marks) after the turn; board: the marks at the start.
        ranking: rank per seat (0 first), null for an aborted game; out: [seat, turn,
        termination, reason] of each seat put out for a fault while the others played on.
        """
        record = stored.record
        state: State = game.start(record.seed)
        grid = state.grid()
        out: dict[str, Any] = {
            "no": no, "key": stored.key, "bots": _bot_ids(record, ids), "game": record.game,
            "fixture": fixture_text(stored.key, [b.name for b in record.bots]),
            "rules": record.rule_options, "seed": str(record.seed), "winner": record.winner,
            "termination": record.termination.value, "faulted": record.faulted,
            "reason": record.reason, "ranking": record.rank_of(),
            "out": [[o.seat, o.turn, o.termination.value, o.reason] for o in record.out],
            "stderr": list(record.stderr_tails), "started": record.started_at,
            "durationMs": round(record.duration_ms, 1),
            "grid": None if grid is None else [grid.rows, grid.columns],
            "board": None if grid is None else grid.marks,
        }
        gone_on: dict[int, list[int]] = {}
        for seat_out in record.out:
            gone_on.setdefault(seat_out.turn, []).append(seat_out.seat)
        turns: list[list[Any]] = []
        error = None
        for number, moves in enumerate(record.turns()):
            changes: list[list[Any]] = []
            if error is None and state.movers():
                try:
                    # None: a turn the rules cannot play (a fault that ended the game): no change
                    after = play_turn(game, state, moves, gone_on.get(number, []))
                    if after is not None:
                        new = after.grid()
                        if grid is not None and new is not None:
                            changes = [[square, mark] for square, (was, mark)
                                       in enumerate(zip(grid.marks, new.marks)) if was != mark]
                        state, grid = after, new
                except GameError as exc:
                    error = f"turn {number + 1} cannot be replayed: {exc}"
            turns.append([[[m.seat, m.move, round(m.wall_ms, 1),
                            None if m.cpu_ms is None else round(m.cpu_ms, 1), m.substituted]
                           for m in moves], changes])
        out.update(turns=turns, error=error, over=error is None and state.is_terminal())
        return out


def transcript_replay(no: int, stored: StoredGame, ids: Mapping[str, int]) -> dict[str, Any]:
    """A game played by a referee process, for the transcript viewer (assets/transcript.js):
    its facts and its referee's (the seed it was told, its ###Error lines before any answer,
    its stderr tail, the step its record's transcript was cut at), and how many steps (one
    seat's answer each) its pages (transcript_pages) hold."""
    record = stored.record
    entry = record.referee or {}
    seed = entry.get("seed")
    return {
        "no": no, "key": stored.key, "bots": _bot_ids(record, ids), "game": record.game,
        "fixture": fixture_text(stored.key, [b.name for b in record.bots], ("in seat 0", "in seat 1")),
        "rules": record.rule_options, "seed": str(record.seed), "winner": record.winner,
        "termination": record.termination.value, "faulted": record.faulted,
        "reason": record.reason, "ranking": record.rank_of(),
        "stderr": list(record.stderr_tails), "started": record.started_at,
        "durationMs": round(record.duration_ms, 1),
        "referee": {"name": entry.get("name", record.game), "fingerprint": entry.get("fingerprint", ""),
                    "seed": None if seed is None else str(seed), "stderr": entry.get("stderr", ""),
                    "cut": entry.get("cut"),
                    "errors": [[e["seat"], e["message"]] for e in transcript.errors_before(record)]},
        "steps": len(record.moves), "pageSteps": PAGE_STEPS,
    }


def transcript_pages(data: LeagueData) -> Iterator[tuple[str, dict[str, Any]]]:
    """The transcript of each game played by a referee process, PAGE_STEPS steps a file
    ("transcripts/GAME/N", N from 1; transcript_page)."""
    for no, stored in enumerate(data.games, 1):
        if stored.record.referee is None:
            continue
        rows, kept = _site_steps(stored.record)
        for page in range(1, max(1, -(-len(rows) // PAGE_STEPS)) + 1):
            yield f"transcripts/{no}/{page}", _transcript_page(rows, kept, page)


def transcript_page(stored: StoredGame, page: int) -> dict[str, Any] | None:
    """Page `page` (from 1) of the transcript of a game played by a referee process: "steps",
    each [seat, the seat's own turn, the lines given (None: not kept), the lines answered,
    wall ms, cpu ms or None, the referee's ###Error lines after it as [seat, message]];
    "first", the number of its first step; "kept", the first step whose lines given the
    site did not keep (SITE_TRANSCRIPT_CHARS), None if it kept them all. None for a game of
    rules in arena, or a page past its last."""
    if stored.record.referee is None:
        return None
    rows, kept = _site_steps(stored.record)
    if not 1 <= page <= max(1, -(-len(rows) // PAGE_STEPS)):
        return None
    return _transcript_page(rows, kept, page)


def _transcript_page(rows: list[list[Any]], kept: int | None, page: int) -> dict[str, Any]:
    first = (page - 1) * PAGE_STEPS
    return {"first": first + 1, "kept": kept, "steps": rows[first:first + PAGE_STEPS]}


def _site_steps(record: GameRecord) -> tuple[list[list[Any]], int | None]:
    """A record's steps as the site keeps them (transcript_pages), and the first step whose
    lines given it did not keep for SITE_TRANSCRIPT_CHARS (None: it kept every one)."""
    rows: list[list[Any]] = []
    room, cut = SITE_TRANSCRIPT_CHARS, None
    for step in transcript.steps(record):
        given = None if step.given is None else [_cut(line, LINE_CHARS) for line in step.given]
        if given is not None:
            size = sum(len(line) + 1 for line in given)
            if cut is None and size <= room:
                room -= size
            else:
                cut = step.number if cut is None else cut
                given = None
        answered = [_cut(line, ANSWER_CHARS if cut is None else ANSWER_CUT) for line in step.answered]
        rows.append([step.seat, step.turn, given, answered, round(step.wall_ms, 1),
                     None if step.cpu_ms is None else round(step.cpu_ms, 1),
                     [[e["seat"], e["message"]] for e in step.errors]])
    return rows, cut


def _cut(line: str, most: int) -> str:
    """A line of at most `most` characters, and how many more it had."""
    return line if len(line) <= most else f"{line[:most]}… ({len(line) - most:,} more characters)"


def _square(grid: Grid, cell: int) -> int:
    """The row-major square a move numbered cell marks on a board that moves name squares of:
    board*9 + square on a board of 3x3 sub-boards, else the square itself."""
    if grid.regions:
        board, square = divmod(cell, 9)
        return 9 * (3 * (board // 3) + square // 3) + 3 * (board % 3) + square % 3
    return cell


def _places(before: str, after: Grid, cell: int, seat: int) -> bool:
    """Whether the board after a move is the board before with the move's square marked
    by the mover, so that the viewer can draw it from the moves alone."""
    square = _square(after, cell)
    return (0 <= square < len(before) and before[square] == "."
            and after.marks == before[:square] + "xo"[seat] + before[square + 1:])


def move_chunks(data: LeagueData, registry: Registry[type[Game]] | None = None
                ) -> Iterator[tuple[str, dict[str, Any]]]:
    """The replay data of every game, CHUNK_GAMES to a file ("moves/N", N from 0), replayed
    by the rules of registry's games (by default the loaded plugins')."""
    ids = data.ids
    replayer = Replayer(registry)
    for start in range(0, len(data.games), CHUNK_GAMES):
        chunk = data.games[start:start + CHUNK_GAMES]
        yield f"moves/{start // CHUNK_GAMES}", {
            "first": start + 1,
            "games": [_with_versions(replayer.replay(start + i + 1, stored, ids), stored, data)
                      for i, stored in enumerate(chunk)]}


def _with_versions(replay: dict[str, Any], stored: StoredGame, data: LeagueData) -> dict[str, Any]:
    """A replay that says which version of each bot played (in its fixture line too)."""
    versions = data.played.get(stored.key)
    if versions is not None:
        replay["versions"] = list(versions)
        names = [b.name for b in stored.record.bots]
        replay["fixture"] += " · " + ", ".join(f"{name} v{v}" for name, v in zip(names, versions))
    return replay
