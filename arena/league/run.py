"""One run of games into a store, whatever chooses them: a league's schedule, a ladder's
matchmaker or `arena match`'s sequential test.

A Run owns what every run does: it claims the store (a second run on it is refused),
builds the bots that need it and binds the store to the league, fingerprints the bots
(their versions), makes the job workers play from, counts the workers, starts every bot
once (the preflight), stores each game as it ends (drive), shows the progress and the
live table, stops on Ctrl-C, SIGTERM, a CancelToken or a decision, and writes the
closing line. What differs is only what plays, a Games: a league's FixtureList
(runner.Schedule), a ladder's LadderSource (ladder.Ladder), a match's fixtures with its
SPRT stop (arena.match.MatchGames).
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TextIO, TypeVar

from arena.plugins import Plugins
from arena.record import GameRecord
from arena.referee import BotSpec, MatchSettings
from arena.referee.botspec import ARENA_PACKAGE_DIR, bot_spec, command_spec
from arena.sandbox import Sandbox

from .builds import build_bots, build_outputs
from .config import BotConfig, LeagueConfig
from .drive import CancelToken, Driven, OnRecord, drive
from .executors.base import Executor, GameJob, Placement, RunError, cause
from .preflight import start_all
from .progress import Progress
from .referees import fingerprinted, referee_builds, watch_referee
from .schedule import Fixture, league_openings
from .sources import FixtureSource
from .store import Store, StoreError, VersionNote, check_store_path
from .versions import Manifest, RunCache, fingerprint, manifest_of, store_files


@dataclass(frozen=True)
class RunOptions:
    """What a run is asked beyond its config: `arena run`'s flags and a caller's hooks."""

    #: games played at a time (None: the config's `workers`)
    workers: int | None = None
    #: the status line (None: one on stderr, made for the run)
    progress: Progress | None = None
    #: play even when a bot cannot start in the preflight (it loses its games)
    keep_going: bool = False
    #: the live table every that many stored games and at the end (0: never; None: about
    #: ten times a run)
    standings: int | None = None
    #: the league's settings changed: a new season begins, the old games stay as history
    new_season: bool = False
    #: where the run says what it did (None: stderr)
    out: TextIO | None = None
    #: stops the run from anywhere, as Ctrl-C does (drive)
    cancel: CancelToken | None = None


@dataclass
class RunSummary:
    """What a run did."""

    total: int
    already: int
    played: int
    interrupted: bool
    seconds: float


@dataclass(frozen=True)
class Ending:
    """How a league's or a ladder's run ended: what it did, its closing line and a warning
    said on a line of its own before it (the closing line stays last)."""

    summary: RunSummary
    line: str
    warning: str | None = None


Outcome = TypeVar("Outcome")


class Games(abc.ABC, Generic[Outcome]):
    """What a run plays: the one part in which a league, a ladder and a match differ. The
    Run asks it, in this order: source (once the store is the run's and the bots'
    versions and job are known), begin (once the workers are counted), then record for
    each game stored, and end."""

    @abc.abstractmethod
    def source(self, run: Run) -> FixtureSource:
        """The fixtures to play; what is said of them goes to run.out, and run.progress is
        set up (its total, the games already stored, the live table)."""

    def begin(self, run: Run) -> str | None:
        """Said just before the first game: the status line's first words (None: the games
        stored and to play)."""
        return None

    def bots(self, run: Run) -> tuple[BotConfig, ...]:
        """The bots the preflight starts once before the games (none: no preflight)."""
        return ()

    def record(self, run: Run, fixture: Fixture, record: GameRecord) -> bool | None:
        """A game was stored (not an aborted one): counted on run.progress; True stops the
        run (a decision)."""
        if run.progress is not None:
            run.progress.update(record)
        return None

    @abc.abstractmethod
    def end(self, run: Run, driven: Driven) -> Outcome:
        """What the run did, once its games are over (the store still open)."""


class Run:
    """One run of games into a store (see the module's docstring): made with the plugins
    it takes the executor (unless given one), games and bots from, the placement settings
    and the options. league(config, games) plays a league config through every step;
    `arena match` takes the steps it shares (claimed, play, finish).

    As it goes it holds: store (the claimed store, or None for a match without one), job,
    manifests (the bots' fingerprints, by name; None: their versions were recorded
    before), known (the store knew bots already: their changes are said), retired (the
    league's retired bots), workers, progress (None: a match that shows none), started."""

    #: what the workers play from: made by prepare (a league), or set by its caller (a match)
    job: GameJob

    def __init__(self, plugins: Plugins | None, placement: Placement | None = None,
                 options: RunOptions | None = None, executor: Executor | None = None) -> None:
        self._plugins, self.placement = plugins, placement or Placement()
        self.options = options or RunOptions()
        # PluginError here for an executor a plugin registered that is none (the registry refused it)
        self.executor = executor or self.plugins.executors.require(self.placement.executor)
        self.out = self.options.out or sys.stderr
        self.progress = self.options.progress
        self.config: LeagueConfig | None = None
        self.store: Store | None = None
        self.manifests: dict[str, Manifest] | None = None
        self.known = False
        self.retired: set[str] = set()
        self.workers = self.options.workers or 1
        self.started = time.monotonic()

    @property
    def plugins(self) -> Plugins:
        """The registry the run takes its executor, games, dialects and bots from (None
        only for a run given its executor and job, which asks it nothing)."""
        assert self._plugins is not None, "this run was made without plugins"
        return self._plugins

    # --- every step, for a league config (a round robin, a gauntlet, a free-for-all, a ladder)

    def league(self, config: LeagueConfig, games: Games[Ending]) -> RunSummary:
        """Play a league config: claim its store, build and fingerprint its bots, play what
        games hands out, and say how it ended. Raises RunError (and StoreError on opening)
        for what is no bot's fault, BuildError when a build fails."""
        with self.claimed(config.store):
            self.prepare(config)
            ending = self.play(games)
        if ending.warning:
            self._warn(ending.warning)   # on a line of its own, before the closing line
        self.finish(ending.line)
        return ending.summary

    @contextlib.contextmanager
    def claimed(self, path: Path | str | None) -> Iterator[Store | None]:
        """The store at path, claimed for this run (a second run on it is refused, and
        nothing is written), after the path and the executor were checked; closed at the
        end. None: a run without a store (a match without --store)."""
        if path is not None:
            check_store_path(path)   # before a build writes anything or a game is played
        self.executor.check(self.placement)
        if path is None:
            yield None
            return
        with Store(path, claim=True) as store:
            self.store = store
            try:
                yield store
            finally:
                self.store = None

    def prepare(self, config: LeagueConfig) -> None:
        """Take the claimed store for the league (its builds: _take_store; a referee
        process's fingerprint; its binding: _bind), then fingerprint the bots, say which are
        retired and make the job. The versions are recorded only once the bots have started
        (play), so a bot the preflight stops, which never played, is no version."""
        store = self.claimed_store
        self.workers = self.options.workers or config.workers
        cache = self._take_store(config)
        config = self.config = fingerprinted(config, self.plugins.games, config.base_dir, store.path,
                                             store.caches.builds(), cache)
        self._bind(config)
        self.started = time.monotonic()   # the games' time: the builds' is not counted
        self.manifests = bot_manifests(config, self.plugins, store, cache)
        store.bots.sync(self.manifests, record=False)
        self.retired = store.bots.retired() & set(config.bot_names)
        for name in sorted(self.retired):
            print(f"{name}: retired, plays no new games (arena retire --undo brings it back)",
                  file=self.out)
        self.job = make_job(config, self.plugins, self.manifests)

    @property
    def playing(self) -> tuple[BotConfig, ...]:
        """The league's bots that play (not retired)."""
        assert self.config is not None
        return tuple(bot for bot in self.config.bots if bot.name not in self.retired)

    def play(self, games: Games[Outcome]) -> Outcome:
        """Play what games hands out and store each game as it ends: the executor starts,
        the bots are started once (games.bots; none: no preflight), the versions are
        recorded and said on out, then drive reads every record. Ctrl-C is a stop
        (Driven.interrupted); a store that fails or went away is a RunError."""
        source = games.source(self)
        self.workers = self._bounded_workers(self.workers)
        start = games.begin(self)
        driven = self._drive(source, games, start)
        return games.end(self, driven)

    def finish(self, line: str) -> None:
        """The closing line, last of all (on the status line's stream)."""
        if self.progress is not None:
            self.progress.finish(line)
        else:
            print(line, file=self.out)

    @property
    def claimed_store(self) -> Store:
        """The store, for a step that needs one (a league's, a ladder's)."""
        assert self.store is not None, "the run's store is claimed first (claimed)"
        return self.store

    def elapsed(self) -> float:
        """Seconds since the games' time began (prepare: the builds' is not counted)."""
        return time.monotonic() - self.started

    # --- inside

    def _take_store(self, config: LeagueConfig) -> RunCache:
        """Build the bots (and a referee process) that need it: the run's file hashes. A
        store of another league is refused first, before a build runs or anything is
        written."""
        store, new_season = self.claimed_store, self.options.new_season
        openings = league_openings(config, self.plugins.games).identity()
        store.league.check_bind(config, openings, new_season=new_season, games=self.plugins.games)
        # built once the store is ours (it keeps what each build was made from and wrote),
        # before a new season begins: a failed build leaves the league as it was
        cache = RunCache(store.caches.hashes())
        store.caches.save_builds(build_bots(list(config.bots) + referee_builds(config, self.plugins.games),
                                            config.base_dir, store.caches.builds(), cache, self.out,
                                            store_files(store.path)))
        return cache

    def _bind(self, config: LeagueConfig) -> None:
        """Bind the claimed store to the league as built (a referee process's fingerprint
        is part of what it is: arena.league.referees), saying when a season begins; known:
        whether it knew bots already."""
        store, new_season = self.claimed_store, self.options.new_season
        openings = league_openings(config, self.plugins.games).identity()
        self.known = bool(store.bots.current())
        season = store.league.season
        store.league.bind(config, openings, new_season=new_season, games=self.plugins.games)
        if store.league.season != season:
            print(f"season {store.league.season} begins: the {store.games.count()} games of earlier seasons "
                  f"stay in {config.store} as history", file=self.out)

    def _drive(self, source: FixtureSource, games: Games[Any], start: str | None) -> Driven:
        driven = Driven()
        try:
            # the local executor's workers start playing now; the preflight overlaps their
            # first games, whose records are read (and stored) only once it has passed
            began = self.progress.clock() if self.progress is not None else time.monotonic()
            bots = games.bots(self)
            # a game played by a referee process: the run stops after its referee_faults void
            # games in a row (arena.league.referees)
            records = watch_referee(self.executor.play(self.job, source, self.workers, self.placement),
                                    getattr(self.job, "made", None))   # (a test's play may have no job)
            try:
                # bots start where games are played: here, not on a cluster's nodes
                if bots and self.executor.plays_here(self.placement):
                    self._preflight(bots)
                if self.manifests is not None:
                    self._say_versions(self.claimed_store.bots.sync(self.manifests))
                if self.progress is not None:
                    if self._plugins is not None:   # its summaries worded by the run's games
                        self.progress.games = self._plugins.games
                    self.progress.start(start, since=began)
            except BaseException:
                _close(records)     # stops the workers started above
                raise
            driven = drive(records, self.store, source, self._on_record(games), self.options.cancel)
        except KeyboardInterrupt:
            driven.interrupted = True
        except StoreError as exc:   # disk full, read-only: what is stored stays stored
            raise RunError(str(exc)) from None
        if self.store is not None:
            try:
                self.store.check_file()   # deleted or replaced since the last game: none is "stored"
            except StoreError as exc:
                raise RunError(str(exc)) from None
        return driven

    def _on_record(self, games: Games[Any]) -> OnRecord:
        def told(fixture: Fixture, record: GameRecord) -> bool | None:
            return games.record(self, fixture, record)
        return told

    def _preflight(self, bots: tuple[BotConfig, ...]) -> None:
        """Start every bot once before any game; RunError when the host cannot, or (unless
        keep_going) when a bot cannot."""
        job, config = self.job, self.config
        assert config is not None
        try:
            sandbox = Sandbox(limits=job.limits, mode=job.sandbox_mode)
            game = job.made if job.made is not None else self.plugins.games.create(job.game, **job.rules)
        except Exception as exc:
            raise RunError(f"cannot start bots: {cause(exc)}") from exc
        for problem in start_all(game, [job.bots[bot.name] for bot in bots], sandbox,
                                 job.settings, config.seed, self.options.keep_going):
            self._warn(f"{problem}; playing anyway (--keep-going)")

    def _say_versions(self, notes: list[VersionNote]) -> None:
        """Tell what changed in bots a store knew (a new league's bots are simply new)."""
        for note in notes:
            if self.known and note.why != ["new bot"]:
                print(f"{note}: its games are played again, the old ones stay as history"
                      if note.version > 1 else str(note), file=self.out)

    def _bounded_workers(self, workers: int) -> int:
        """Workers capped at the executor's workers_per_cpu (local: WORKERS_PER_CPU) per
        CPU, with a warning: more only add load, and load must never become a bot's fault."""
        per_cpu = self.executor.workers_per_cpu
        limit = (per_cpu or 0) * (os.cpu_count() or 1)
        if per_cpu is None or workers <= limit:
            return workers
        self._warn(f"workers: {workers} is more than {per_cpu} per CPU on this machine; "
                   f"playing with {limit}")
        return limit

    def _warn(self, message: str) -> None:
        if self.progress is not None:
            self.progress.warn(message)
        else:
            print(f"arena: WARNING: {message}", file=self.out)


def _close(records: Any) -> None:
    """Close an executor's records (a generator's close stops its workers)."""
    close = getattr(records, "close", None)
    if close is not None:
        close()


# --- the job and the bots' versions -----------------------------------------------------------

def make_job(config: LeagueConfig, plugins: Plugins,
             manifests: Mapping[str, Manifest] | None = None) -> GameJob:
    """Turn a validated config into the picklable description workers play from; with
    the bots' manifests, each spec carries its version's fingerprint."""
    specs = {bot.name: _spec(bot, plugins, config.base_dir) for bot in config.bots}
    if manifests is not None:
        specs = {name: dataclasses.replace(spec, fingerprint=fingerprint(manifests[name]))
                 for name, spec in specs.items()}
    # the registry resolved once, here: workers, referee and preflight take it from the job
    dialects = {name: plugins.dialects.require(name) for name in plugins.dialects.names()}
    settings = MatchSettings(time=config.time_control, timeout_policy=config.timeout_policy,
                             dialects=dialects)
    return GameJob(game=config.game, rules=dict(config.rules), bots=specs, settings=settings,
                   made=config.made_game(plugins.games),
                   sandbox_mode=config.sandbox_mode, limits=config.limits)


def _spec(bot: BotConfig, plugins: Plugins, base_dir: Path) -> BotSpec:
    extra = tuple(str(path) for path in bot.readable)   # the bot's `readable` list
    if bot.bot is not None:
        decl = plugins.bots.require(bot.bot)
        spec = bot_spec(decl, dict(bot.options), name=bot.name, base_dir=base_dir)
        return dataclasses.replace(spec, spec=bot.spec, readable=tuple(dict.fromkeys(spec.readable + extra)))
    # the same reading of a command as `arena match`: files it names become absolute
    # and their directories readable, with the bot's own dir (never the config's)
    extra = tuple(str(d) for d in (bot.dir,) if d is not None) + (ARENA_PACKAGE_DIR,) + extra
    spec = command_spec(bot.name, bot.dialect, bot.command or "", cwd=str(base_dir), readable=extra,
                        dialects=plugins.dialects.names())
    return dataclasses.replace(spec, spec=bot.spec)


def bot_manifests(config: LeagueConfig, plugins: Plugins, store: Store,
                  cache: RunCache | None = None) -> dict[str, Manifest]:
    """Fingerprint every bot of the league (by name), keeping the file hashes in the store;
    the files the bots' builds wrote are outputs, no part of a bot."""
    return fingerprint_bots(store, config.bots, plugins, config.base_dir,
                            build_outputs(list(config.bots), config.base_dir, store.caches.builds()),
                            cache)


def fingerprint_bots(store: Store, bots: Iterable[BotConfig], plugins: Plugins, base_dir: Path,
                     outputs: Iterable[Path] = (), cache: RunCache | None = None) -> dict[str, Manifest]:
    """Fingerprint bots (by name; file options read from base_dir), keeping the file hashes
    in the store, as a league and `arena match --store` both do. The store's files and the
    outputs (files the run writes) are never part of a bot. cache: this run's hash cache,
    when it has hashed files already (a build's inputs)."""
    stored = store.caches.hashes()
    cache = cache if cache is not None else RunCache(stored)
    skip = store_files(store.path) | {Path(path).resolve() for path in outputs}
    manifests = {bot.name: manifest_of(bot, plugins, cache, base_dir, skip) for bot in bots}
    if dict(cache) != stored:   # a warm run writes nothing
        store.caches.save_hashes(cache)
    return manifests


def bot_versions(config: LeagueConfig, plugins: Plugins, store: Store) -> list[VersionNote]:
    """Fingerprint every bot of the league and record its version in the store: what changed."""
    return store.bots.sync(bot_manifests(config, plugins, store))


__all__ = ["Ending", "Games", "Run", "RunOptions", "RunSummary", "bot_manifests", "bot_versions",
           "fingerprint_bots", "make_job"]
