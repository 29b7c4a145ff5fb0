"""The league table and crosstable, built from stored records.

Results are counted once (pairs.Tally, from each record's Outcome); ratings come from a
rating system (rating_systems). What the board looks like as text is formats.py's.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from arena.record import GameRecord, Termination
from arena.stats import EloFit, MatchResults, Trinomial, fit_elo

from ..config import RatingConfig
from ..pairs import Pairing, Tally, between
from ..rating_systems import Rating, RatingSystem, TrueSkill, los_between, path_rater, rated_game, rating_system
from ..ratings import GameRow

#: every kind of fault, in the order columns show them
FAULT_KINDS = tuple(t.value for t in Termination if t.is_fault)
#: below this likelihood of superiority, two neighbours' order is not significant
SIGNIFICANT_LOS = 0.95


@dataclass(frozen=True)
class Row:
    """One bot's line in the league table."""

    rank: int
    bot: str
    score: float            #: points: win 1, draw 0.5
    rating: Rating          #: as the board's rating system gives it; rows are sorted by its value
    games: int
    wins: int
    draws: int
    losses: int
    faults: Mapping[str, int]     #: termination value -> games this bot ended by that fault
    mean_move_ms: float | None    #: mean wall time of its moves; None without moves
    elo: float | None = None          #: Bradley-Terry Elo over all games; None if not rated
    elo_error: float | None = None    #: half-width of its 95% interval
    #: P(stronger than the next row's bot), from the rating system that orders the rows (one
    #: model per table: the fit's Elo may order two bots otherwise); None: last row, or a
    #: system that gives no LOS
    los_next: float | None = None
    version: int | None = None        #: the bot's version in the store (arena versions)
    fingerprint: str | None = None    #: that version's fingerprint
    #: a ladder's marks, of MARKS: "new" (fewer games than its min_games), "suspended"
    #: (faulted too often: plays no more until a new version); and as --all-versions shows
    #: history, "retired" (arena retire), "removed" (no longer in the config), "old" (a
    #: version replaced by a newer one)
    marks: tuple[str, ...] = ()
    suspended: str | None = None      #: why it was suspended (its fault causes)
    #: games of more than two seats: the bot's mean place (1 first) over its rated games
    mean_rank: float | None = None
    firsts: int | None = None         #: and how many of them it finished first (ties too)

    @property
    def significant(self) -> bool | None:
        """Whether this bot is significantly stronger than the next one (None: no next)."""
        return None if self.los_next is None else self.los_next >= SIGNIFICANT_LOS

    @property
    def fault_count(self) -> int:
        """Games this bot ended by a fault of any kind."""
        return sum(self.faults.values())


@dataclass(frozen=True)
class Cell(Trinomial):
    """Results of a row bot against a column bot, from the row bot's side (games: those that
    count in the standings)."""

    @property
    def rates(self) -> tuple[float, float, float]:
        """Win, draw and loss rates of the row bot (zeros without games)."""
        n = self.games or 1
        return (self.wins / n, self.draws / n, self.losses / n)


@dataclass(frozen=True)
class Leaderboard:
    """Standings (rank order), crosstable (row bot -> column bot -> Cell) and rating history."""

    rows: tuple[Row, ...]
    crosstable: Mapping[str, Mapping[str, Cell]]
    #: each bot's rating after each of its rated games: (fixture key, rating)
    history: Mapping[str, tuple[tuple[str, Rating], ...]] = field(default_factory=dict)
    title: str = ""
    elo_anchor: str | None = None     #: the bot rated Elo 0, or None: the mean is 0
    #: every pairing's results (names sorted), pairs and all, as the Elo fit read them
    matches: Mapping[Pairing, MatchResults] = field(default_factory=dict)
    elo_fit: EloFit | None = None     #: the fit behind the Elo columns (LOS of any two bots)
    system: RatingSystem = field(default_factory=TrueSkill)   #: what rated the bots
    prior: Rating | None = None       #: the rating of a bot without games
    #: a ladder's board: rows carry marks, a bot with fewer games than this is new
    min_games: int | None = None
    #: games played by a referee process: its name, whether it was told seeds, and how many
    #: of its games were void (formats.referee_note); None for a game of rules in arena
    referee: tuple[str, bool, int] | None = None

    @property
    def ffa(self) -> bool:
        """A board of games of more than two seats: rows have a mean rank and first places,
        and W, D, L and the crosstable count each game as its pairwise results."""
        return any(row.firsts is not None for row in self.rows)

    def cell(self, bot: str, opponent: str) -> Cell:
        """Results of bot against opponent (an empty Cell if they never met)."""
        return self.crosstable.get(bot, {}).get(opponent, Cell())


def build_leaderboard(games: Iterable[GameRow], settings: RatingConfig,
                      bots: Sequence[str] | None = None, title: str = "",
                      elo_anchor: str | None = None,
                      system: RatingSystem | None = None) -> Leaderboard:
    """The leaderboard of the games given in fixture order, rated by system (by default the
    registered one settings.system names). With bots, only games between two of them count,
    and each of them has a row even without games; without, every bot met in the records has one.

    elo_anchor names the bot whose Elo is 0 (ValueError if it has no rating); by default
    the mean Elo is 0.
    """
    live = LiveBoard(settings, bots, title, elo_anchor, system)
    for key, _index, record in games:
        live.add(key, record)
    return live.board()


class LiveBoard:
    """A leaderboard kept up to date as games come: add() each game in the order ratings
    read them, board() the leaderboard of the games so far. A game is counted once, when it
    is added, so a board costs what the bots and the new games cost, not every game again
    (TrueSkill's ratings carry on game by game; a system without an update of its own rates
    every game again: rating_systems.path_rater). build_leaderboard is add() of every game,
    then board(); `arena serve`'s standings add each game as it is stored."""

    def __init__(self, settings: RatingConfig, bots: Sequence[str] | None = None, title: str = "",
                 elo_anchor: str | None = None, system: RatingSystem | None = None) -> None:
        self.settings, self.title, self.elo_anchor = settings, title, elo_anchor
        self.system = system if system is not None else rating_system(settings)
        self.wanted = set(bots) if bots is not None else None
        self._names: dict[str, None] = dict.fromkeys(bots or ())    # every row's bot, in order met
        self._tally = Tally(settings.faults_count_as_losses)
        self._faults: dict[str, dict[str, int]] = {}
        self._move_ms: dict[str, list[float]] = {}
        self._places: dict[str, list[int]] = {}
        self._ffa = False           # a game of more than two seats was added: rows have places
        self._paths = path_rater(self.system, settings)
        self._keys: dict[str, list[str]] = {}   # each bot's rated games' keys, as its path rates them
        self._paired: dict[str, list[tuple[str, Rating]]] = {}   # each bot's history as last given
        # games played by a referee process: its name, whether every one was told a seed, and
        # how many were void (Leaderboard.referee); None while none was added
        self._referee: tuple[str, bool, int] | None = None

    def add(self, key: str, record: GameRecord) -> bool:
        """Count one more game; False when it is none of the board's (a bot outside bots)."""
        seats = tuple(bot.name for bot in record.bots)
        if self.wanted is not None and not self.wanted.issuperset(seats):
            return False
        for name in seats:
            if name not in self._names:
                self._names[name] = None
        self._ffa = self._ffa or len(seats) > 2
        for move in record.moves[record.opening:]:   # the opening's moves took no time
            self._move_ms.setdefault(seats[move.seat], []).append(move.wall_ms)
        self._tally.add(record)
        if record.referee is not None:
            seeded = record.referee.get("seed") is not None and (self._referee is None or self._referee[1])
            void = (self._referee[2] if self._referee is not None else 0) + (
                record.termination is Termination.REFEREE_FAULT)
            self._referee = (record.referee["name"], seeded, void)
        for fault in record.faults():
            kinds = self._faults.setdefault(seats[fault.seat], {})
            kinds[fault.termination.value] = kinds.get(fault.termination.value, 0) + 1
        game = rated_game(key, record, self.settings.faults_count_as_losses)
        if game is not None:
            self._paths.add(game)
            for name in game.bots:
                self._keys.setdefault(name, []).append(game.key)
            for name, points in zip(game.bots, game.points):
                self._places.setdefault(name, []).append(1 + sum(other > points for other in game.points))
        return True

    def add_bots(self, names: Iterable[str]) -> None:
        """Give bots a row before their first game (a ladder's newcomers)."""
        for name in names:
            if self.wanted is not None:
                self.wanted.add(name)
            if name not in self._names:
                self._names[name] = None

    def board(self) -> Leaderboard:
        """The leaderboard of the games added so far."""
        rater = self.system
        names = list(self._names)
        history = self._history()
        prior = rater.prior(self.settings)
        final = {name: history[name][-1][1] if history.get(name) else prior for name in names}
        order = sorted(names, key=lambda name: (-final[name].value, name))
        table = self._tally.results()
        crosstable = {name: {other: Cell(*_counts(between(table, name, other).games)) for other in order
                             if (min(name, other), max(name, other)) in table and other != name}
                      for name in order}
        places = self._places if self._ffa else None
        rows: list[Row] = []
        for position, (name, below) in enumerate(zip(order, [*order[1:], None]), 1):
            rank = rows[-1].rank if rows and rows[-1].rating.value == final[name].value else position
            total = sum(crosstable[name].values(), Trinomial())
            times = self._move_ms.get(name, [])
            mine = places.get(name, []) if places is not None else []
            faults = self._faults.get(name, {})
            rows.append(Row(
                rank=rank, bot=name, score=total.points, rating=final[name],
                games=total.games if places is None else len(mine),
                wins=total.wins, draws=total.draws, losses=total.losses,
                faults={kind: faults[kind] for kind in FAULT_KINDS if kind in faults},
                mean_move_ms=sum(times) / len(times) if times else None,
                los_next=None if below is None else los_between(rater, final[name], final[below]),
                mean_rank=(sum(mine) / len(mine) if places is not None and mine else None),
                firsts=None if places is None else mine.count(1)))
        fit = fit_elo(table.values(), [row.bot for row in rows], self.elo_anchor)
        return Leaderboard(rows=_with_elo(rows, fit), crosstable=crosstable, history=history,
                           title=self.title, elo_anchor=self.elo_anchor, matches=table, elo_fit=fit,
                           system=rater, prior=prior, referee=self._referee)

    def _history(self) -> dict[str, tuple[tuple[str, Rating], ...]]:
        """Each bot's (fixture key, rating) after each of its games, as the system rates them;
        of a path that carries on game by game (the same ratings as the last board's, and
        more), only the new games are paired again."""
        history = {}
        for name, path in self._paths.paths().items():
            keys = self._keys.get(name, ())
            if len(path) != len(keys):
                raise ValueError(f"the rating system gave {name!r} {len(path)} ratings for "
                                 f"{len(keys)} games")
            kept = self._paired.get(name, [])
            if len(kept) > len(path) or (kept and kept[-1][1] is not path[len(kept) - 1]):
                kept = []    # rated again from the first game: paired again
            kept.extend(zip(keys[len(kept):], path[len(kept):]))
            self._paired[name] = kept
            history[name] = tuple(kept)
        return history


def _counts(games: Trinomial) -> tuple[int, int, int]:
    return games.wins, games.draws, games.losses


def with_versions(board: Leaderboard, versions: Mapping[str, tuple[int, str | None]]) -> Leaderboard:
    """The board with each row's version and fingerprint (by row name)."""
    rows = tuple(replace(row, version=versions[row.bot][0], fingerprint=versions[row.bot][1])
                 if row.bot in versions else row for row in board.rows)
    return replace(board, rows=rows)


#: the marks a ladder's rows may carry, in the order they are shown, and what each says
MARKS = {"new": "fewer than {min_games} games (rated on few games)",
         "suspended": "faulted too often, plays no more until a new version",
         "retired": "retired with arena retire (history)",
         "removed": "no longer in the config (history)",
         "old": "replaced by a newer version (history)"}


def with_marks(board: Leaderboard, min_games: int, suspended: Mapping[str, str],
               old: Collection[str] = (), retired: Collection[str] = (),
               removed: Collection[str] = ()) -> Leaderboard:
    """A ladder's board: each row marked new (fewer than min_games games), suspended
    (suspended: row name -> why), and by the row names in old (a version no longer
    current), retired (arena retire) and removed (no longer in the config)."""
    def marked(row: Row) -> Row:
        on = {"new": row.games < min_games, "suspended": row.bot in suspended,
              "retired": row.bot in retired, "removed": row.bot in removed, "old": row.bot in old}
        return replace(row, marks=tuple(mark for mark in MARKS if on[mark]),
                       suspended=suspended.get(row.bot))
    return replace(board, rows=tuple(marked(row) for row in board.rows), min_games=min_games)


def _with_elo(rows: Sequence[Row], fit: EloFit) -> tuple[Row, ...]:
    """The rows with their Elo and its interval (Bradley-Terry fit of all games): a model of
    its own beside the one that orders the rows, so it gives no LOS > next here."""
    rated = fit.ratings
    return tuple(replace(row, elo=rated[row.bot], elo_error=fit.error(row.bot))
                 if row.bot in rated else row for row in rows)
