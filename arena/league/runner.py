"""Running a league: play the fixtures the store lacks, in parallel, storing each
game the moment it ends, so a stop (Ctrl-C, kill -9) loses at most the games in flight."""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from arena.errors import did_you_mean
from arena.games import Game
from arena.openings import repeat_warning
from arena.plugins import Plugins, plugins_or_loaded
from arena.record import Termination
from arena.referee import (
    BotSpec,
    MatchSettings,
)
from arena.referee.botspec import ARENA_PACKAGE_DIR, bot_spec, command_spec
from arena.registry import Registry
from arena.sandbox import Sandbox
from arena.userfiles import not_regular

from . import boards
from .builds import BuildError, build_bots, build_outputs
from .config import BotConfig, BotProblem, LeagueConfig, PathCheck, load_config
from .drive import CancelToken, Driven, OnRecord, drive
from .executors.base import Executor, GameJob, RunError, cause
from .executors.local import WORKERS_PER_CPU
from .leaderboard import render_top
from .preflight import start_all
from .progress import Progress, standings_every
from .rating_systems import RatingSystem, rating_system
from .schedule import Fixture, ffa_balance, league_openings, schedule
from .sources import FixtureList, FixtureSource
from .store import Store, StoreError, VersionNote, check_store_path
from .versions import Manifest, RunCache, fingerprint, manifest_of, store_files


@dataclass
class RunSummary:
    """What a run did."""

    total: int
    already: int
    played: int
    interrupted: bool
    seconds: float


def known_bots_check(plugins: Plugins, base_dir: str | Path | None = None):
    """The config validator's bot check, answered from the loaded plugins; with base_dir
    (the config's directory) files named by file options must exist."""
    def check(name: str, game: str, options: dict[str, Any]) -> str | BotProblem | None:
        decl = plugins.bots.get(name)
        if decl is None:
            names = [b.name for b in plugins.bots.all()]
            return f"unknown bot {name!r}{did_you_mean(name, names)}; `arena bots` lists them"
        if not decl.plays(game):
            return f"bot {name!r} plays {decl.game}, not {game}"
        for key in options:
            if key not in decl.options:
                allowed = ", ".join(decl.options) or "none"
                return BotProblem(f"bot {name!r} has no option {key!r} (options: {allowed})", option=key)
            wrong = decl.options[key].problem(options[key])
            if wrong is not None:
                return BotProblem(wrong, option=key)
            path = decl.options[key].file_path(options[key], base_dir)
            if base_dir is not None and path is not None and not path.exists():
                return BotProblem(f"no file {str(path)!r} (a path is taken from the config's "
                                  "directory; JSON text starting with '{' is also allowed)", option=key)
            kind = None if path is None or base_dir is None else not_regular(path)
            if kind is not None:
                return BotProblem(f"{str(path)!r} is {kind}, not a regular file", option=key)
        return None
    return check


def option_files(plugins: Plugins, base_dir: str | Path):
    """The files a registered bot's options name, by option (absolute, from base_dir), as
    the sandbox will show them to it."""
    def files(name: str, options: Mapping[str, Any]) -> dict[str, Path]:
        decl = plugins.bots.get(name)
        if decl is None:
            return {}
        found = {key: decl.options[key].file_path(value, base_dir)
                 for key, value in options.items() if key in decl.options}
        return {key: path.resolve() for key, path in found.items() if path is not None}
    return files


def load_league(path: str, plugins: Plugins | None = None,
                publish_check: PathCheck | None = None) -> LeagueConfig:
    """A league config validated against the plugins' bots, games, dialects and the rest
    (by default the loaded plugins'; and with publish_check, its `publish` path: a run's)."""
    plugins = plugins_or_loaded(plugins)
    base = Path(path).resolve().parent
    return load_config(path, known_bots_check(plugins, base), plugins=plugins,
                       publish_check=publish_check, option_files=option_files(plugins, base))


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
                   made=plugins.games.create(config.game, **config.rules),
                   sandbox_mode=config.sandbox_mode, limits=config.limits)


def _spec(bot: BotConfig, plugins: Plugins, base_dir) -> BotSpec:
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


def run_league(config: LeagueConfig, plugins: Plugins | None = None, workers: int | None = None,
               progress: Progress | None = None, keep_going: bool = False,
               standings: int | None = None, new_season: bool = False,
               out: TextIO | None = None, cancel: CancelToken | None = None) -> RunSummary:
    """Play every fixture the store lacks for the bots' current versions; each game is
    committed as it finishes.

    The store is claimed (a second run on it is refused), bots with a `build` are built
    when what they are made from changed (BuildError if one fails), every bot is
    fingerprinted, then every bot is started once (preflight): a bot that cannot start
    stops the run unless keep_going. Only then
    are the bots' versions recorded (what changed is said on `out`, stderr), so a run
    the preflight stopped leaves no version that never played. Raises RunError (and
    StoreError on opening) for what is no bot's fault. standings: show the top of the table every that many stored games
    and at the end (0: never; None: whole rounds, about ten times a run). cancel: a token
    that stops the run as Ctrl-C does (drive)."""
    out = out or sys.stderr
    plugins = plugins_or_loaded(plugins)
    # PluginError here for an executor a plugin registered that is none (the registry refused it)
    executor = plugins.executors.require(config.executor)
    check_store_path(config.store)   # before a build writes anything or a game is played
    executor.check(config)
    with Store(config.store, claim=True) as store:   # a second run is refused: nothing written
        known, cache = _take_store(store, config, plugins, new_season, out)
        started = time.monotonic()   # the games' time: the builds' is not counted
        # the versions games are looked up and stored for; recorded once the bots have
        # started, so that a bot stopped by the preflight (never played) is no version
        manifests = bot_manifests(config, plugins, store, cache)
        store.bots.sync(manifests, record=False)
        retired = store.bots.retired() & set(config.bot_names)
        for name in sorted(retired):
            print(f"{name}: retired, plays no new games (arena retire --undo brings it back)", file=out)
        fixtures = [f for f in _drawn_schedule(store, config, plugins.games, out)
                    if not retired.intersection(f.seats)]
        todo = store.games.missing(fixtures)
        progress = _watch(progress, store, config, fixtures, len(todo), standings,
                          rating_system(config.rating, plugins))
        workers = _bounded_workers(executor, workers or config.workers, progress)
        job = make_job(config, plugins, manifests)
        # each fixture carries its bots and their versions, as a fixture minted later would
        todo = [fixture.carrying(job.bots, store.bots.versions_of(fixture.seats)) for fixture in todo]
        source = FixtureList(todo)
        playing = tuple(bot for bot in config.bots if bot.name not in retired) if todo else ()
        driven = play_source(Playing(executor, job, source, workers, config, plugins),
                             store, manifests, known, playing, keep_going, progress, out,
                             lambda _fixture, record: progress.update(record), cancel)
        interrupted = driven.interrupted or driven.cancelled
        played = driven.played
        summary = RunSummary(total=len(fixtures), already=len(fixtures) - len(todo), played=played,
                             interrupted=interrupted, seconds=time.monotonic() - started)
        stored = len(fixtures) - len(store.games.missing(fixtures))   # of this league's fixtures
        repeats = repeated_games(store, fixtures)
    verb = "stopped" if interrupted else "finished"
    if repeats:
        progress.warn(repeats)   # on a line of its own, before the closing line, which stays last
    progress.finish(f"{verb}: {played} game{'s' * (played != 1)} played in {summary.seconds:.1f} s; "
                    f"{stored} of {len(fixtures)} stored in {config.store}")
    return summary


@dataclass(frozen=True)
class Playing:
    """What plays a run's games: the executor, the job, the source, the workers."""

    executor: Executor
    job: GameJob
    source: FixtureSource
    workers: int
    config: LeagueConfig
    plugins: Plugins


def play_source(playing: Playing, store: Store, manifests: Mapping[str, Manifest], known: bool,
                bots: tuple[BotConfig, ...], keep_going: bool, progress: Progress, out: TextIO,
                on_record: OnRecord, cancel: CancelToken | None = None,
                start: str | None = None) -> Driven:
    """Play a source's games (a league's, a ladder's) and store each as it ends: the
    executor starts, the bots (those of `bots`; none: no preflight) are started once, the
    versions are recorded and said on out, then drive reads every record (on_record is
    told of each); progress.start(start) opens the status line. Ctrl-C is a stop
    (Driven.interrupted); a store that fails or went away is a RunError."""
    executor, config = playing.executor, playing.config
    driven = Driven()
    try:
        # the local executor's workers start playing now; the preflight overlaps their
        # first games, whose records are read (and stored) only once it has passed
        began = progress.clock()
        games = executor.play(playing.job, playing.source, playing.workers, config)
        try:
            # bots start where games are played: here, not on a cluster's nodes
            if bots and executor.plays_here(config):
                _preflight(dataclasses.replace(config, bots=bots), playing.job, playing.plugins,
                           keep_going, progress)
            _say_versions(store.bots.sync(manifests), known, out)
            progress.start(start, since=began)
        except BaseException:
            _close(games)     # stops the workers started above
            raise
        driven = drive(games, store, playing.source, on_record, cancel)
    except KeyboardInterrupt:
        driven.interrupted = True
    except StoreError as exc:   # disk full, read-only: what is stored stays stored
        raise RunError(str(exc)) from None
    try:
        store.check_file()   # deleted or replaced since the last game: none is "stored"
    except StoreError as exc:
        raise RunError(str(exc)) from None
    return driven


def _take_store(store: Store, config: LeagueConfig, plugins: Plugins, new_season: bool,
                out: TextIO) -> tuple[bool, RunCache]:
    """Build the bots that need it and bind the claimed store to the league (saying when a
    season begins): whether it knew bots already, and the run's file hashes. A store of
    another league is refused first, before a build runs or anything is written."""
    openings = league_openings(config, plugins.games).identity()
    store.league.check_bind(config, openings, new_season=new_season)
    # built once the store is ours (it keeps what each build was made from and wrote),
    # before a new season begins: a failed build leaves the league as it was
    cache = RunCache(store.caches.hashes())
    store.caches.save_builds(build_bots(list(config.bots), config.base_dir, store.caches.builds(),
                                        cache, out, store_files(store.path)))
    known = bool(store.bots.current())
    season = store.league.season
    store.league.bind(config, openings, new_season=new_season)
    if store.league.season != season:
        print(f"season {store.league.season} begins: the {store.games.count()} games of earlier seasons "
              f"stay in {config.store} as history", file=out)
    return known, cache


def _drawn_schedule(store: Store, config: LeagueConfig, games: Registry[type[Game]],
                    out: TextIO) -> list[Fixture]:
    """The league's schedule. A free-for-all league's is the one its stored games follow:
    a store whose games an earlier arena scheduled (FFA_METHODS' "greedy") keeps that
    schedule, said in one line, so they stay the league's games and it resumes where it
    stopped; and a schedule that is not balanced is said so in one line (ffa_balance)."""
    fixtures = schedule(config, games)
    if config.games is None:
        return fixtures
    stored = store.games.done_keys()
    if stored - {f.key for f in fixtures}:     # games of keys this schedule has not
        earlier = schedule(config, games, ffa_method="greedy")
        if len(stored & {f.key for f in earlier}) > len(stored & {f.key for f in fixtures}):
            kept = len(stored & {f.key for f in earlier})
            print(f"{config.name}: its {kept} stored free-for-all games follow the schedule an earlier "
                  "arena drew (each block's group the best one alone, which can leave two bots unmet); "
                  "it is kept, so they stay the league's; a new store or --new-season draws balanced "
                  "rounds", file=out)
            fixtures = earlier
    note = ffa_balance(fixtures, config.bot_names)
    if note:
        print(f"{config.name}: {note}", file=out)
    return fixtures


def _watch(progress: Progress | None, store: Store, config: LeagueConfig, fixtures: list[Fixture],
           todo: int, standings: int | None, system: RatingSystem) -> Progress:
    """The run's progress over the league's fixtures, todo of them left, with its standings
    (rated by system) every that many games (0: never; None: whole rounds)."""
    progress = progress or Progress(len(fixtures), len(fixtures) - todo)
    progress.already = len(fixtures) - todo
    if standings != 0:
        pairings = len({f.pairing for f in fixtures})
        progress.standings = lambda: live_standings(store, config, system=system)
        progress.standings_every = standings or standings_every(pairings, todo)
    return progress


def _close(games: Any) -> None:
    """Close an executor's records (a generator's close stops its workers)."""
    close = getattr(games, "close", None)
    if close is not None:
        close()


def _say_versions(notes: list[VersionNote], known: bool, out: TextIO) -> None:
    """Tell what changed in bots a store knew (a new league's bots are simply new)."""
    for note in notes:
        if known and note.why != ["new bot"]:
            print(f"{note}: its games are played again, the old ones stay as history"
                  if note.version > 1 else str(note), file=out)


def live_standings(store: Store, config: LeagueConfig, rows: int = 10,
                   system: RatingSystem | None = None) -> list[str]:
    """The top of the league's table now, from the store, as the final leaderboard reads it
    (rated by system; by default the one the config's rating settings name)."""
    return render_top(boards.standings(store, config.rating, config.bot_names, system=system).board, rows)


def repeated_games(store: Store, fixtures: list[Fixture]) -> str | None:
    """The warning of arena.openings when the league's stored games that ended normally
    repeat one another (a fault's games repeat for the bot's reason, not the start)."""
    keys = {f.key for f in fixtures}
    records = [g.record for g in store.games.records(current=True, keys=keys)
               if g.record.termination is Termination.NORMAL]
    return repeat_warning([[m.move for m in r.moves] for r in records],
                          at_once=any(r.moves_at_once for r in records))


def _bounded_workers(executor: Executor, workers: int, progress: Progress) -> int:
    """Workers capped at the executor's workers_per_cpu (local: WORKERS_PER_CPU) per CPU,
    with a warning: more only add load, and load must never become a bot's fault."""
    per_cpu = executor.workers_per_cpu
    limit = (per_cpu or 0) * (os.cpu_count() or 1)
    if per_cpu is None or workers <= limit:
        return workers
    progress.warn(f"workers: {workers} is more than {per_cpu} per CPU on this machine; "
                  f"playing with {limit}")
    return limit


def _preflight(config: LeagueConfig, job: GameJob, plugins: Plugins, keep_going: bool,
               progress: Progress) -> None:
    """Start every bot once before any game; RunError when the host cannot, or (unless
    keep_going) when a bot cannot."""
    try:
        sandbox = Sandbox(limits=job.limits, mode=job.sandbox_mode)
        game = job.made if job.made is not None else plugins.games.create(job.game, **job.rules)
    except Exception as exc:
        raise RunError(f"cannot start bots: {cause(exc)}") from exc
    for problem in start_all(game, [job.bots[name] for name in config.bot_names], sandbox,
                             job.settings, config.seed, keep_going):
        progress.warn(f"{problem}; playing anyway (--keep-going)")


__all__ = ["WORKERS_PER_CPU", "BuildError", "GameJob", "Playing", "RunError", "RunSummary",
           "bot_manifests",
           "bot_versions", "build_bots", "cause", "fingerprint_bots", "known_bots_check",
           "load_league", "make_job", "play_source",
           "repeated_games", "run_league"]
