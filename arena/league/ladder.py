"""Running a ladder: games chosen as it goes by a matchmaker, from the standings of the
moment, until a stop condition holds (or Ctrl-C); running it again resumes.

The ladder is a fixture source (LadderSource): asked for a piece, it builds the standings
from its rating system's ratings (TrueSkill, or TrueSkill fitted to all games:
trueskill-ep) kept up to date game by game in the order games were stored, asks
the matchmaker for pairings for the free slots, and mints each pairing's next
seat-swapped pair. Its games (Ladder) run through the one Run a league runs through
(arena.league.run: the store, builds, versions, preflight, drive, the closing line), so a
ladder stores, resumes and stops as a league does.
"""

from __future__ import annotations

import random
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

from arena.games import Game
from arena.openings import Openings
from arena.plugins import Plugins, plugins_or_loaded
from arena.record import GameRecord, Termination
from arena.referee import BotSpec
from arena.sandbox import Sandbox

from .config import BotConfig, LadderConfig, LeagueConfig
from .drive import Driven
from .executors.base import Placement, RunError, cause
from .matchmakers import BotStanding, Matchmaker, Pairing, Standings, pair_key
from .membership import Membership
from .preflight import start_all
from .progress import Progress
from .rating_systems import Rater, RatingSystem, TrueSkill, rater, rating_system, skill_los
from .run import Ending, Games, Run, RunOptions, RunSummary, make_job
from .schedule import Fixture, game_seed, league_openings, pairing_of, parse_fixture_key
from .sources import fixtures_of
from .store import Store

__all__ = ["LadderOptions", "LadderSource", "run_ladder", "separated"]

#: rows of the live standings
STANDINGS_ROWS = 10
#: seconds between two looks at the config and the bots' files (membership)
WATCH_EVERY_S = 2.0


def separated(bots: list[BotStanding], top: int | None, level: float) -> bool:
    """True when every two neighbours among the top `top` bots (all when None), ranked
    by mu - 3 sigma, are apart at a likelihood of superiority of `level`."""
    ranked = sorted(bots, key=lambda b: -b.exposed)[:top]
    if len(ranked) < 2:
        return False
    return all(skill_los(a.mu, a.sigma, b.mu, b.sigma) >= level for a, b in zip(ranked, ranked[1:]))


@dataclass
class _Version:
    """What the ladder knows of one bot version: games, faults and their kinds."""

    games: int = 0
    faults: int = 0
    kinds: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class LadderOptions:
    """How a LadderSource tells, times and rates: where its news goes (a suspension, the
    stop), the clock its `hours` are measured by, and the rating system its standings read
    (None: the config's rating system, of the built-ins)."""

    say: Callable[[str], None] = print
    clock: Callable[[], float] = time.monotonic
    system: RatingSystem | None = None


class LadderSource:
    """A FixtureSource that never runs out until a stop condition holds: each piece is one
    seat-swapped pair, of a pairing the matchmaker chose from the standings of the moment.

    versions: the playing bots' current versions (name -> version); specs: how to start
    each (name -> BotSpec); options: where the ladder's news goes (a suspension, the stop),
    its clock and its rating system (LadderOptions)."""

    def __init__(self, config: LeagueConfig, store: Store, matchmaker: Matchmaker,
                 versions: Mapping[str, int], specs: Mapping[str, BotSpec], game: Game,
                 openings: Openings, options: LadderOptions = LadderOptions()) -> None:
        assert config.ladder is not None
        self.config, self.ladder, self.store = config, config.ladder, store
        self.matchmaker, self.game, self.openings, self.say = matchmaker, game, openings, options.say
        self.versions, self.specs = dict(versions), dict(specs)
        self.clock, self.started = options.clock, options.clock()
        # the standings, the live table and `until` read the model the leaderboard is ranked
        # by (TrueSkill, or TrueSkill fitted to all games: trueskill-ep); a plugin's system
        # gives no mu and sigma to match by, and TrueSkill stands in for it
        system = options.system if options.system is not None else rating_system(config.rating)
        self.rater: Rater = rater(system if isinstance(system, TrueSkill) else TrueSkill(), config.rating)
        self.known: dict[tuple[str, int], _Version] = {}
        self.next_pair: Counter[tuple[str, str]] = Counter()   # (first, second) sorted -> k
        #: a game of more seats: the bots of a block, sorted -> the number of its next block
        self.next_block: Counter[tuple[str, ...]] = Counter()
        self.seats = game.seats
        self.met: Counter[tuple[str, str]] = Counter()         # pair_key of NAME@V -> pairs
        self.suspended = store.bots.suspended()
        self.stored = 0          # the ladder's games stored, all runs (this season)
        self.in_flight = 0       # fixtures handed out whose record has not come back
        #: games in play by bot version: counted as games, so a bot whose game is slow is
        #: not seated again and again meanwhile as the newcomer with fewest games
        self.busy: Counter[tuple[str, int]] = Counter()
        self.played = 0          # games stored by this run
        self.stop: str | None = None   # why the ladder stopped, once it has
        self.queue: deque[Pairing] = deque()
        #: called every WATCH_EVERY_S at most, from take and done (the run's own thread):
        #: the ladder's membership, which calls join, change, leave and retune
        self.watch: Callable[[], None] | None = None
        self._watched = self.clock()
        self.rng = random.Random(f"{config.seed}|{store.games.count()}")
        pairs: set[tuple[str, str, int]] = set()   # pairs earlier runs started, by version
        #: (first, second, k) -> swap -> (opening, versions by name) of the stored games
        halves: dict[tuple[str, str, int], dict[int, tuple[tuple[int, ...], dict[str, int]]]] = {}
        for _id, stored, played in store.games.since(0):
            seats = self._learn(stored.key, stored.record, played)
            parts = parse_fixture_key(stored.key)
            if parts is not None and parts.more:    # a block of a game of more seats
                group = tuple(sorted((parts.first, parts.second, *parts.more)))
                self.next_block[group] = max(self.next_block[group], parts.pair // len(group) + 1)
                for a, b in combinations(sorted(f"{name}@{version}" for name, version in seats), 2):
                    pairs.add((a, b, -1 - parts.pair // len(group)))
            elif parts is not None:
                at = (parts.first, parts.second)
                self.next_pair[at] = max(self.next_pair[at], parts.pair + 1)
                a, b = pair_key(*(f"{name}@{version}" for name, version in seats))
                pairs.add((a, b, parts.pair))
                halves.setdefault((parts.first, parts.second, parts.pair), {})[parts.swap] = (
                    parts.opening, dict(seats))
        self.met.update((a, b) for a, b, _k in pairs)
        #: pairs an earlier run left with one game (the other was in play at its stop, or
        #: cut by the `games` limit): their other game is played first, of the same versions
        self.unfinished: deque[tuple[str, str, int, int, tuple[int, ...], dict[str, int]]] = deque(
            (first, second, k, 1 - swap, opening, versions)
            for (first, second, k), stored_swaps in halves.items() if len(stored_swaps) == 1
            for swap, (opening, versions) in stored_swaps.items())
        self.met_now = self._met_of_current()   # self.met's pairs of current versions, by name
        for name, version in self.versions.items():   # settings may have changed since
            self._suspend_if_faulty((name, version))
        self._check_stops()

    # --- the FixtureSource ---

    def take(self, slots: int, most_pairs: int | None = None,
             running: frozenset[str] = frozenset()) -> list[Fixture] | None:
        """One pair of the next pairing; [] while games in flight may change what comes
        next (the `games` limit is reached unless one is aborted); None once stopped.
        running: the bots the asking worker keeps started (the matchmaker's
        BotStanding.running), whose pairings are preferred among the matchmaker's last
        answer."""
        self._look()
        self._check_stops()
        if self.stop is not None:
            return None
        limit = self.ladder.games
        left = None if limit is None else limit - self.stored - self.in_flight
        if left is not None and left <= 0:
            return []    # the games in flight make the count, unless one is aborted
        unfinished = self._unfinished()
        if unfinished is not None:
            self.in_flight += 1
            self.busy.update(zip(unfinished.seats, unfinished.versions or (0, 0)))
            return [unfinished]
        pairing = self._next_pairing(slots, running)
        if pairing is None:
            if self.in_flight:
                return []
            playable = len(self.standings().playable())
            self._halt(f"fewer than {self.seats} bots can play" if playable < self.seats else
                       f"matchmaker {self.ladder.matchmaker!r} chose no pairing of two bots "
                       f"that can play, among {playable}")
            return None
        piece = (self._mint(pairing) if self.seats == 2 else self._mint_block(pairing))[:left]
        self.in_flight += len(piece)
        for fixture in piece:
            self.busy.update(zip(fixture.seats, fixture.versions or (0,) * len(fixture.seats)))
        return piece

    def done(self, fixture: Fixture, record: GameRecord) -> None:
        """A game came back: rate it, count it, suspend a version faulting too often."""
        versions = fixture.versions or self.store.bots.versions_of(fixture.seats)
        self.in_flight -= 1
        self.busy.subtract(zip(fixture.seats, versions))
        if record.termination is Termination.ABORTED:
            return
        self.played += 1
        for seat in self._learn(fixture.key, record, versions):
            self._suspend_if_faulty(seat)
        self._look()
        self._check_stops()

    def __iter__(self) -> Iterator[Fixture]:
        return fixtures_of(self)

    # --- bots that join, change and leave ---

    def join(self, name: str, version: int, spec: BotSpec) -> None:
        """A bot plays from its next pairing on (a new one, or a new version of one:
        the old version plays no more)."""
        self.versions[name], self.specs[name] = version, spec
        self.met_now = self._met_of_current()
        self.queue.clear()    # chosen without it

    def leave(self, name: str) -> None:
        """A bot plays no more (its games in play are still stored)."""
        self.versions.pop(name, None)
        self.met_now = self._met_of_current()
        self.queue = deque(p for p in self.queue if name not in p)

    def retune(self, config: LeagueConfig) -> None:
        """The ladder section as the config now says (stop conditions, newcomers,
        suspension); its matchmaker stays the one it started with."""
        assert config.ladder is not None
        self.config, self.ladder = config, config.ladder
        for name, version in list(self.versions.items()):   # `suspend` may be stricter now
            self._suspend_if_faulty((name, version))

    def _look(self) -> None:
        if self.watch is not None and self.clock() - self._watched >= WATCH_EVERY_S:
            self._watched = self.clock()
            self.watch()

    # --- standings ---

    def standings(self, running: frozenset[str] = frozenset(), settled: bool = False) -> Standings:
        """The playing bots as the matchmaker sees them: current versions, not retired; their
        games are those stored and those in play; running: the bots a worker keeps started;
        settled: rated as the leaderboard rates every game so far (else the rater may answer
        from a fit a few games behind)."""
        ratings = self.rater.settled() if settled else self.rater.current()
        prior = (self.config.rating.mu, self.config.rating.sigma)
        bots = []
        for name, version in self.versions.items():
            rating = ratings.get(f"{name}@{version}")
            mu, sigma = (rating.figures[0], rating.figures[1]) if rating is not None else prior
            games = self._version(name, version).games + self.busy[(name, version)]
            bots.append(BotStanding(name, mu, sigma, games,
                                    suspended=(name, version) in self.suspended,
                                    running=name in running))
        return Standings(bots, dict(self.met_now), self.ladder.min_games, self.config.rating.beta)

    def _met_of_current(self) -> Counter[tuple[str, str]]:
        """The pairs each two current versions have started, by name: made again only when
        a version comes or goes, and counted up as pairs are minted (made at every call of
        the matchmaker, it took 3.6 ms a call on average over a 100-bot ladder's first
        6,000 games, growing with the pairs: more than the coordinator's every other cost
        of a game)."""
        return Counter({pair_key(a.split("@")[0], b.split("@")[0]): n
                        for (a, b), n in self.met.items() if self._current(a) and self._current(b)})

    def table(self, rows: int = STANDINGS_ROWS) -> list[str]:
        """The top of the live standings: rank, mu - 3 sigma, mu +- sigma, games, marks."""
        bots = sorted(self.standings().bots, key=lambda b: -b.exposed)
        width = max([len(b.name) for b in bots[:rows]] + [3])
        lines = [f"{'#':>3}  {'bot':<{width}}  {'mu-3s':>6}  {'mu':>6} {'+-s':>5}  games"]
        for rank, bot in enumerate(bots[:rows], 1):
            marks = ("  suspended" if bot.suspended else
                     "  new" if bot.games < self.ladder.min_games else "")
            lines.append(f"{rank:>3}  {bot.name:<{width}}  {bot.exposed:6.1f}  {bot.mu:6.1f} "
                         f"{bot.sigma:5.1f}  {bot.games:5d}{marks}")
        if len(bots) > rows:
            lines.append(f"     ... {len(bots) - rows} more")
        return lines

    # --- inside ---

    def _current(self, versioned: str) -> bool:
        name, _, version = versioned.rpartition("@")
        return self.versions.get(name) == int(version)

    def _version(self, name: str, version: int) -> _Version:
        return self.known.setdefault((name, version), _Version())

    def _learn(self, key: str, record: GameRecord, versions: tuple[int, ...]) -> list[tuple[str, int]]:
        """Count and rate one stored game (as NAME@VERSION: a new version starts afresh)."""
        self.stored += 1
        seats = [(entry.name, version) for entry, version in zip(record.bots, versions)]
        for seat in seats:
            self._version(*seat).games += 1
        for fault in record.faults():
            faulty = self._version(*seats[fault.seat])
            faulty.faults += 1
            faulty.kinds[fault.termination.label] += 1
        renamed = replace(record, bots=[replace(entry, name=f"{name}@{version}")
                                        for entry, (name, version) in zip(record.bots, seats)])
        self.rater.update(key, renamed)
        return seats

    def _suspend_if_faulty(self, seat: tuple[str, int]) -> None:
        counts = self.known.get(seat)
        if counts is None or seat in self.suspended or seat[0] not in self.versions:
            return
        share, after = self.ladder.suspend_share, self.ladder.suspend_after
        if counts.games < after or counts.faults <= share * counts.games:
            return
        kinds = ", ".join(f"{n} {kind}" for kind, n in counts.kinds.most_common())
        reason = f"faulted in {counts.faults} of {counts.games} games ({kinds})"
        self.store.bots.suspend(seat[0], seat[1], reason)
        self.suspended[seat] = reason
        self.say(f"{seat[0]} v{seat[1]}: suspended, {reason}; it plays no more until a new "
                 "version")

    def _next_pairing(self, slots: int, running: frozenset[str] = frozenset()) -> Pairing | None:
        """The next pairing of two playing bots: from the queue of the matchmaker's last
        answer (the first with the most bots in running), else asked again for the free
        slots (a pairing naming a bot that cannot play is passed over)."""
        for ask in (False, True):
            if ask:
                standings = self.standings(running)
                if len(standings.playable()) < 2:
                    return None
                free = max(1, slots - self.in_flight // 2)
                try:
                    chosen = list(self.matchmaker.pairings(standings, free, self.rng))
                except Exception as exc:   # a plugin's bug: no bot's fault, and no traceback
                    raise RunError(f"matchmaker {self.ladder.matchmaker!r} failed: "
                                   f"{cause(exc)}") from exc
                self.queue.extend(chosen)
            playable = [pairing for pairing in self.queue if self._playable(pairing)]
            self.queue.clear()
            if playable:
                pick = max(playable, key=lambda p: (p[0] in running) + (p[1] in running))
                playable.remove(pick)
                self.queue.extend(playable)
                return pick
        return None

    def _playable(self, pairing: Pairing) -> bool:
        if not isinstance(pairing, tuple):    # a plugin's answer is not trusted
            return False
        names = tuple(pairing)
        return (len(names) == 2 and all(isinstance(name, str) for name in names)
                and names[0] != names[1]
                and all(name in self.versions and (name, self.versions[name]) not in self.suspended
                        for name in names))

    def _mint(self, pairing: Pairing) -> list[Fixture]:
        """The pairing's next seat-swapped pair (k: pairs of these two names so far, every
        version and run), pairing.first in the first game's first seat."""
        first, second = sorted(pairing)
        k = self.next_pair[(first, second)]
        self.next_pair[(first, second)] += 1
        seed = game_seed(self.config.seed, first, second, k)
        opening = tuple(self.openings.opening(self.game, k, seed)) if not self.openings.is_none else ()
        pair = []
        for swap in (0, 1):
            fixture = Fixture.of_pair(first, second, k, swap, seed, opening,
                                      index=self.stored + self.in_flight + swap)
            pair.append(fixture.carrying(self.specs, self._versions_of(fixture)))
        if pair[0].seat0 != pairing.first:
            pair.reverse()
        a, b = (f"{name}@{self.versions[name]}" for name in (first, second))
        self.met[pair_key(a, b)] += 1
        self.met_now[(first, second)] += 1
        return pair

    def _versions_of(self, fixture: Fixture) -> tuple[int, ...]:
        """The current versions of a fixture's bots, by seat."""
        return tuple(self.versions[name] for name in fixture.seats)

    def _unfinished(self) -> Fixture | None:
        """The missing game of a pair an earlier run left with one, if its two bots still
        play at the versions it was started with (else it is let go: a new version plays
        new pairs)."""
        while self.unfinished:
            first, second, k, swap, opening, versions = self.unfinished.popleft()
            if any(self.versions.get(name) != versions.get(name)
                   or (name, self.versions[name]) in self.suspended for name in (first, second)):
                continue
            fixture = Fixture.of_pair(first, second, k, swap,
                                      game_seed(self.config.seed, first, second, k), opening,
                                      index=self.stored + self.in_flight)
            return fixture.carrying(self.specs, self._versions_of(fixture))
        return None

    def _mint_block(self, pairing: Pairing) -> list[Fixture]:
        """A game of more seats: the pairing and the playing bots nearest the pair in mu (the
        least busy first, then a draw) fill a block of games, the group seated at every seat
        in turn under one seed (as a free-for-all league's block; key "a|b|c||N")."""
        standings = {bot.name: bot for bot in self.standings().playable()}
        pair = list(pairing)
        mean = sum(standings[name].mu for name in pair if name in standings) / 2
        others = sorted((name for name in standings if name not in pair),
                        key=lambda name: (self.busy[(name, self.versions[name])],
                                          abs(standings[name].mu - mean), self.rng.random()))
        group = pair + others[:self.seats - 2]
        if len(group) < self.seats:
            return []
        key_group = tuple(sorted(group))
        block = self.next_block[key_group]
        self.next_block[key_group] += 1
        seed = game_seed(self.config.seed, "ffa", pairing_of(group), block)
        fixtures = []
        for turn in range(self.seats):
            seated = [group[(s + turn) % self.seats] for s in range(self.seats)]
            fixture = Fixture.of_block(seated, block * self.seats + turn, seed,
                                       index=self.stored + self.in_flight + turn)
            fixtures.append(fixture.carrying(self.specs, self._versions_of(fixture)))
        for a, b in combinations(sorted(f"{name}@{self.versions[name]}" for name in group), 2):
            self.met[(a, b)] += 1
        return fixtures

    def _check_stops(self) -> None:
        if self.stop is not None:
            return
        ladder: LadderConfig = self.ladder
        if ladder.games is not None and self.stored >= ladder.games:
            self._halt(f"games: {ladder.games} stored")
        elif ladder.hours is not None and self.clock() - self.started >= ladder.hours * 3600:
            self._halt(f"hours: {ladder.hours:g} reached")
        elif ladder.until_separated is not None and all(
                separated(self.standings(settled=settled).playable(), ladder.until_top,
                          ladder.until_separated) for settled in (False, True)):   # confirmed on the full fit
            top = "every bot" if ladder.until_top is None else f"the top {ladder.until_top}"
            self._halt(f"until: {top} separated at {ladder.until_separated:g}")

    def _halt(self, why: str) -> None:
        self.stop = why


class Ladder(Games[Ending]):
    """A ladder's games (schedule: ladder): a LadderSource over the playing bots' current
    versions, played until a stop condition holds (its games, hours or until), Ctrl-C or
    the cancel token; a run resumes where the last one stopped. Its live table is the
    source's standings: every `standings` games (0: never; None: about ten times a run,
    or every 2 games a bot without a `games` limit)."""

    def __init__(self, config: LeagueConfig) -> None:
        assert config.ladder is not None, "a Ladder needs a config with schedule: ladder"
        self.config, self.ladder = config, config.ladder
        self.versions: dict[str, int] = {}
        self.earlier: dict[tuple[str, int], str] = {}   # versions suspended before this run
        self.already = 0

    def source(self, run: Run) -> LadderSource:
        store, config, plugins, job = run.claimed_store, self.config, run.plugins, run.job
        self.versions = {bot.name: store.bots.versions_of((bot.name, bot.name))[0] for bot in run.playing}
        matchmaker = plugins.matchmakers.require(self.ladder.matchmaker)()
        game = job.made if job.made is not None else plugins.games.create(config.game, **config.rules)
        limit = self.ladder.games
        progress = run.progress = run.progress or Progress(limit or 0)
        self.earlier = store.bots.suspended()
        self.ladder_source = source = LadderSource(
            config, store, matchmaker, self.versions, job.bots, game,
            league_openings(config, plugins.games),
            LadderOptions(say=lambda line: progress.print_above(line, run.out),
                          system=rating_system(config.rating, plugins)))
        self.already = source.stored
        progress.total, progress.already = limit or 0, self.already
        if limit is None:   # no end to count down to: the status line tells the standings' top
            progress.detail = lambda: _leaders(source)
        standings = run.options.standings
        if standings != 0:
            progress.standings = source.table
            progress.standings_every = standings or (
                max(2, (limit - self.already) // 10) if limit is not None and limit > self.already
                else max(20, 2 * len(run.playing)))
        return source

    def begin(self, run: Run) -> str:
        """The versions suspended before are said, the membership watched; the opening line."""
        for (name, version), reason in sorted(self.earlier.items()):
            if self.versions.get(name) == version:
                print(f"{name} v{version}: suspended, {reason}; a new version plays again",
                      file=run.out)
        if self.config.source is not None:
            members = _Members(Membership(self.config.source, self.config, run.plugins,
                                          run.claimed_store), self.ladder_source, run)
            self.ladder_source.watch = members.look
        return (f"ladder {self.config.name}: {len(run.playing)} bots, matchmaker "
                f"{self.ladder.matchmaker}, {self.already} games stored; {_stops(self.ladder)}")

    def bots(self, run: Run) -> tuple[BotConfig, ...]:
        return run.playing if self.ladder_source.stop is None else ()

    def end(self, run: Run, driven: Driven) -> Ending:
        source = self.ladder_source
        interrupted = (driven.interrupted or driven.cancelled) and source.stop is None
        summary = RunSummary(total=source.stored, already=self.already, played=source.played,
                             interrupted=interrupted, seconds=run.elapsed())
        if interrupted:
            verb = "stopped"
        else:
            verb = f"finished ({source.stop})" if source.stop else "finished"
        return Ending(summary, f"{verb}: {summary.played} game{'s' * (summary.played != 1)} played "
                               f"in {summary.seconds:.1f} s; {source.stored} stored in {self.config.store}")


def run_ladder(config: LeagueConfig, plugins: Plugins | None = None, **options: Any) -> RunSummary:
    """Play a ladder until a stop condition holds (its games, hours or until), Ctrl-C or
    the cancel token (options: RunOptions' fields, by name); each game is committed as it
    finishes and a run resumes where the last one stopped. The store, builds, versions
    and preflight are a league's (the one Run). RunSummary.interrupted: stopped by Ctrl-C
    or the token rather than a stop condition."""
    assert config.ladder is not None, "run_ladder needs a config with schedule: ladder"
    return Run(plugins_or_loaded(plugins), Placement.of(config), RunOptions(**options)).league(
        config, Ladder(config))


class _Members:
    """Takes what the ladder's Membership sees into the running ladder: an added or
    changed bot is started once (one that cannot start is said and plays no more), then
    joins or plays its new version instead of the old; a removed or retired bot stops.
    Each change is said."""

    def __init__(self, membership: Membership, source: LadderSource, run: Run) -> None:
        assert run.progress is not None
        self.membership, self.source, self.plugins, self.store = (membership, source, run.plugins,
                                                                  run.claimed_store)
        self.start_here = run.executor.plays_here(run.placement)
        self.progress, self.out = run.progress, run.out

    def say(self, line: str) -> None:
        self.progress.print_above(line, self.out)

    def look(self) -> None:
        """Poll the membership and take what changed."""
        update = self.membership.poll()
        if update is None:
            return
        config = update.config
        # the store keeps the config as it now is (its bots): the tables and the site read it
        self.store.league.bind(config, league_openings(config, self.plugins.games).identity(),
                               games=self.plugins.games)
        self.source.retune(config)
        if config.ladder is not None and config.ladder.games != self.progress.total:
            self.progress.total = config.ladder.games or 0
        new = [note.bot for note in update.changed] + list(update.added)
        specs = self._specs(config, new) if new else {}
        current = self.store.bots.current()
        for line in replace(update, added=[]).lines():   # a bot joins once it has started
            self.say(line)
        versions = {**current, **{note.bot: note.version for note in update.changed}}
        for name in new:
            problem = self._cannot_start(config, specs[name])
            if problem is not None:   # its files are what fails: no version of it can play
                self.say(f"{problem}; {name} "
                         f"{'does not join' if name in update.added else 'plays no more'} "
                         "until its files change")
                self.source.leave(name)
                continue
            self.source.join(name, versions[name], specs[name])
            if name in update.added:
                self.say(f"{name}: joins the ladder")
        for name in update.removed:
            self.source.leave(name)

    def _specs(self, config: LeagueConfig, names: list[str]) -> dict[str, BotSpec]:
        """How to start these bots, each with its current version's fingerprint (a worker
        starts a changed bot afresh rather than reuse its old process)."""
        job = make_job(config, self.plugins)
        prints = {v.bot: v.fingerprint for v in self.store.bots.versions() if v.current}
        return {name: replace(job.bots[name], fingerprint=prints.get(name) or job.bots[name].fingerprint)
                for name in names}

    def _cannot_start(self, config: LeagueConfig, spec: BotSpec) -> str | None:
        """Why a joining bot cannot start (the preflight, on this machine), or None."""
        if not self.start_here:
            return None
        job = make_job(config, self.plugins)
        sandbox = Sandbox(limits=job.limits, mode=job.sandbox_mode)
        problems = start_all(self.source.game, [spec], sandbox, job.settings, config.seed,
                             keep_going=True)
        return str(problems[0]) if problems else None


def _stops(ladder: LadderConfig) -> str:
    """The ladder's stop conditions, in words."""
    stops = []
    if ladder.games is not None:
        stops.append(f"stops at {ladder.games} games")
    if ladder.hours is not None:
        stops.append(f"after {ladder.hours:g} hours")
    if ladder.until_separated is not None:
        top = "every bot" if ladder.until_top is None else f"the top {ladder.until_top}"
        stops.append(f"when {top} are separated at {ladder.until_separated:g}")
    return ", or ".join(stops) if stops else "plays until stopped (Ctrl-C)"


def _leaders(source: LadderSource, count: int = 3) -> str:
    bots = sorted(source.standings().playable(), key=lambda b: -b.exposed)[:count]
    return "top: " + ", ".join(f"{b.name} {b.exposed:.1f}" for b in bots)
