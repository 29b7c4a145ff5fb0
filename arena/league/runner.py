"""Running a league: play the fixtures the store lacks, in parallel, storing each
game the moment it ends, so a stop (Ctrl-C, kill -9) loses at most the games in flight."""

from __future__ import annotations

import ctypes
import dataclasses
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from arena.errors import ArenaError
from arena.games import BUILTIN_GAMES, GameRegistry
from arena.openings import repeat_warning
from arena.plugins import Plugins, bot_spec, loaded_plugins
from arena.record import GameRecord, Termination
from arena.referee import (
    BotPool,
    BotSpec,
    MatchSettings,
    play_game,
)
from arena.referee.botspec import ARENA_PACKAGE_DIR, command_spec
from arena.sandbox import Limits, Sandbox, SandboxError

from .config import BotConfig, BotProblem, LeagueConfig, load_config
from .leaderboard import build_leaderboard, render_top
from .preflight import preflight
from .progress import Progress, standings_every
from .schedule import Fixture, league_openings, schedule
from .store import Store, StoreError, VersionNote
from .versions import RunCache, bot_manifest

#: local workers beyond this many per CPU are not used: they only slow every game down
WORKERS_PER_CPU = 4


class RunError(ArenaError, RuntimeError):
    """A run that cannot go on for a reason that is no bot's fault (the host, the config,
    the store or the referee); str() is one line naming the cause."""


@dataclass(frozen=True)
class GameJob:
    """Everything a worker needs to play any fixture of a league (picklable)."""

    game: str
    rules: dict[str, Any]
    bots: dict[str, BotSpec]
    settings: MatchSettings
    sandbox_mode: str
    limits: Limits
    extra_games: tuple[type, ...] = ()


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
            import difflib
            names = [b.name for b in plugins.bots.all()]
            close = difflib.get_close_matches(name, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return f"unknown bot {name!r}{hint}; `arena bots` lists them"
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
            if base_dir is not None and path is not None and not path.is_file():
                return BotProblem(f"no file {str(path)!r} (a path is taken from the config's "
                                  "directory; JSON text starting with '{' is also allowed)", option=key)
        return None
    return check


def load_league(path: str, plugins: Plugins | None = None) -> LeagueConfig:
    """A league config validated against the registered bots and games."""
    plugins = plugins or loaded_plugins()
    return load_config(path, known_bots_check(plugins, Path(path).resolve().parent),
                       games=plugins.games, dialects=plugins.dialects)


def make_job(config: LeagueConfig, plugins: Plugins) -> GameJob:
    """Turn a validated config into the picklable description workers play from."""
    specs = {bot.name: _spec(bot, plugins, config.base_dir) for bot in config.bots}
    settings = MatchSettings(time=config.time_control, timeout_policy=config.timeout_policy)
    extra = tuple(plugins.games.get(n) for n in plugins.games.names()
                  if plugins.games.get(n) not in BUILTIN_GAMES)
    return GameJob(game=config.game, rules=dict(config.rules), bots=specs, settings=settings,
                   sandbox_mode=config.sandbox_mode, limits=config.limits, extra_games=extra)


def _spec(bot: BotConfig, plugins: Plugins, base_dir) -> BotSpec:
    extra = tuple(str(path) for path in bot.readable)   # the bot's `readable` list
    if bot.bot is not None:
        decl = plugins.bots.require(bot.bot)
        spec = bot_spec(decl, dict(bot.options), name=bot.name, base_dir=base_dir)
        return dataclasses.replace(spec, spec=bot.spec, readable=tuple(dict.fromkeys(spec.readable + extra)))
    # the same reading of a command as `arena match`: files it names become absolute
    # and their directories readable, with the bot's own dir (never the config's)
    extra = tuple(str(d) for d in (bot.dir,) if d is not None) + (ARENA_PACKAGE_DIR,) + extra
    spec = command_spec(bot.name, bot.dialect, bot.command or "", cwd=str(base_dir), readable=extra)
    return dataclasses.replace(spec, spec=bot.spec)


# --- playing --------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _setup(job: GameJob) -> None:
    registry = GameRegistry()
    for cls in BUILTIN_GAMES + job.extra_games:
        registry.add(cls)
    _WORKER["job"] = job
    _WORKER["game"] = registry.create(job.game, **job.rules)
    _WORKER["sandbox"] = Sandbox(limits=job.limits, mode=job.sandbox_mode)


#: bot processes a local worker keeps idle between games at most: every bot of a league
#: this size stays started, as pairings come interleaved; larger leagues start bots more often
MAX_IDLE_BOTS = 24


def _play_chunk(chunk: list[Fixture], pool: BotPool) -> Iterator[tuple[Fixture, GameRecord]]:
    """Play fixtures in a row, reusing bots' processes from the pool between them;
    each game's record as soon as it ends."""
    job: GameJob = _WORKER["job"]
    for fixture in chunk:
        seats = (job.bots[fixture.seat0], job.bots[fixture.seat1])
        yield fixture, play_game(_WORKER["game"], seats, fixture.seed, _WORKER["sandbox"],
                                 job.settings, pool=pool, opening=fixture.opening)


def cause(exc: BaseException) -> str:
    """An error that is no bot's fault, in one line: its own message, and its type
    unless the message is one of ours."""
    text = " ".join(str(exc).split()) or "(no message)"
    if isinstance(exc, (SandboxError, StoreError, RunError)):
        return text
    return f"{type(exc).__name__}: {text}"


PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int, signum: int = signal.SIGTERM) -> None:
    """Have the kernel send signum to this process when `parent` dies (however it dies);
    exit at once if it is already gone."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
    if os.getppid() != parent:     # it died before the line above
        os._exit(1)


def _stop_on_sigterm(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)   # once: let the clean-up finish
    raise SystemExit(128 + signum)


def _worker_main(job: GameJob, tasks, results, parent: int) -> None:
    """A worker process: play the pieces it takes from `tasks`, send each game back at once
    (pickled here, in this thread: a queue's feeder thread would contend with the referee
    for the interpreter lock during the next game) and wait for the coordinator's word that
    it is stored before the next, so a killed run loses at most one game a worker, however
    loaded the machine. An error that is not a bot's fault is
    sent back as ("error", cause) and ends the worker. Its bots' processes outlive a piece:
    pieces come interleaved, and the next piece of a pairing usually comes soon."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    # SIGTERM, from the coordinator or from the kernel when the coordinator dies, closes
    # this worker's bots (and their scratch dirs) on the way out
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    die_with_parent(parent)
    pool = BotPool(max_idle=MAX_IDLE_BOTS)
    try:
        _setup(job)
        while True:
            chunk = tasks.get()
            if chunk is None:
                return
            for item in _play_chunk(chunk, pool):
                results.send_bytes(pickle.dumps(("game", item), pickle.HIGHEST_PROTOCOL))
                results.recv_bytes()    # the coordinator has stored it: play the next
    except (SystemExit, BrokenPipeError):
        return     # stopped, or the coordinator is gone: nobody to tell
    except BaseException as exc:  # noqa: BLE001 - any error here is reported, not a bot's
        results.send_bytes(pickle.dumps(("error", cause(exc)), pickle.HIGHEST_PROTOCOL))
    finally:
        pool.close()


def chunks(fixtures: list[Fixture], workers: int, most_pairs: int | None = None) -> list[list[Fixture]]:
    """Fixtures cut into pieces a worker plays in a row, handed out interleaved.

    A piece holds games of one pairing, at most most_pairs seat-swapped pairs of them;
    without most_pairs a piece is a whole pairing (its two bots start once), and only
    when there are too few pairings to give every worker two pieces are pairings split,
    evenly. Pieces come round by round: every pairing's i-th piece before any pairing's
    (i+1)-th, so a run stopped early has played about as much of every pairing (with
    most_pairs=1, pair k of every pairing before pair k+1 of any).
    """
    by_pairing: dict[str, list[Fixture]] = {}
    for fixture in fixtures:
        by_pairing.setdefault(fixture.pairing, []).append(fixture)
    splits = 1 if workers <= 1 or not by_pairing else -(-2 * workers // len(by_pairing))
    out: list[tuple[int, list[Fixture]]] = []     # (piece number in its pairing, piece)
    for games in by_pairing.values():
        if most_pairs is not None:
            pairs: dict[int, list[Fixture]] = {}
            for fixture in games:
                pairs.setdefault(fixture.round // 2, []).append(fixture)
            blocks = list(pairs.values())
            grouped = [[f for pair in blocks[i:i + most_pairs] for f in pair]
                       for i in range(0, len(blocks), most_pairs)]
            # numbered by pair, not by position: in a resumed run, pairs already played
            # keep their turn rather than pushing the pairing's next pairs ahead
            out.extend((piece[0].round // 2 // most_pairs, piece) for piece in grouped)
            continue
        size = -(-len(games) // min(splits, len(games)))
        out.extend(enumerate(games[i:i + size] for i in range(0, len(games), size)))
    return [piece for _n, piece in sorted(out, key=lambda p: (p[0], p[1][0].index))]


def play_fixtures(job: GameJob, fixtures: list[Fixture], workers: int) -> Iterator[tuple[Fixture, GameRecord]]:
    """Records of the fixtures as each game finishes: in this process for one worker,
    else in `workers` processes (multiprocess) that stream each record back at once.
    Pieces are single pairs, interleaved (chunks): each worker keeps its bots started.
    An error that is no bot's fault stops the play as a RunError."""
    if not fixtures:
        return
    work = chunks(fixtures, workers, most_pairs=1)
    if workers <= 1:
        pool = BotPool(max_idle=MAX_IDLE_BOTS)
        try:
            _setup(job)
            for chunk in work:
                yield from _play_chunk(chunk, pool)
        except Exception as exc:
            raise RunError(cause(exc)) from exc
        finally:
            pool.close()
        return
    yield from _play_in_processes(job, work, workers, len(fixtures))


#: seconds stopped workers get to close their bots before they are killed
STOP_GRACE_S = 1.5


def _play_in_processes(job: GameJob, work: list[list[Fixture]], workers: int,
                       total: int) -> Iterator[tuple[Fixture, GameRecord]]:
    import multiprocess
    from multiprocess.connection import wait
    tasks = multiprocess.Queue()
    # never wait at exit for the queue's feeder to push pieces nobody will take
    tasks.cancel_join_thread()
    for chunk in work:
        tasks.put(chunk)
    procs, readers = [], []
    try:
        for _ in range(min(workers, len(work))):
            reader, writer = multiprocess.Pipe()   # games one way, "stored" the other
            proc = multiprocess.Process(target=_worker_main, args=(job, tasks, writer, os.getpid()),
                                        daemon=True)
            tasks.put(None)
            proc.start()
            procs.append(proc)
            writer.close()   # the worker holds the only writer: its death reads as EOF here
            readers.append(reader)
        received = 0
        while received < total:
            if not readers:
                return  # every worker is gone; what they had not finished is played next run
            for reader in wait(readers, timeout=0.5):
                try:
                    kind, item = pickle.loads(reader.recv_bytes())
                except EOFError:      # that worker is gone (it finished, or it died)
                    readers.remove(reader)
                    continue
                if kind == "error":
                    raise RunError(item)
                received += 1
                yield item     # the caller stores it before asking for the next
                try:
                    reader.send_bytes(b"stored")
                except OSError:       # that worker is gone; its EOF comes next
                    pass
    except BaseException:
        _stop(procs, terminate=True)
        raise
    _stop(procs, terminate=False)


def _stop(procs: list, terminate: bool) -> None:
    """End the workers: SIGTERM (each closes its bots) unless they are ending by
    themselves, then SIGKILL for any still there after a grace."""
    for proc in procs:
        if terminate and proc.is_alive():
            proc.terminate()
    deadline = time.monotonic() + (STOP_GRACE_S if terminate else 30.0)
    for proc in procs:
        proc.join(timeout=max(0.0, deadline - time.monotonic()))
    for proc in procs:
        if proc.is_alive():
            proc.kill()
            proc.join()


def _executor(config: LeagueConfig):
    """The function that plays fixtures for `config.executor`: local processes or Ray tasks."""
    if config.executor == "ray":
        from .ray_executor import (  # only when asked: Ray is optional
            import_ray,
            play_fixtures_ray,
        )
        import_ray()   # a missing Ray is said before anything starts
        return lambda job, fixtures, workers: play_fixtures_ray(job, fixtures, config.ray, workers)
    return play_fixtures


class BuildError(RunError):
    """A bot's build command failed: the run stops with its output."""


def build_bots(config: LeagueConfig, out: TextIO | None = None) -> None:
    """Run each bot's `build:` command once, in its directory, outside the sandbox."""
    out = out or sys.stderr
    for bot in config.bots:
        if bot.build is None:
            continue
        where = bot.dir or config.base_dir
        print(f"building {bot.name}: {bot.build}  (in {where})", file=out, flush=True)
        try:
            done = subprocess.run(bot.build, shell=True, check=False, cwd=where,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace")
        except OSError as exc:
            raise BuildError(f"{bot.name}: build {bot.build!r} could not start: {exc}") from None
        if done.returncode != 0:
            tail = "\n".join(done.stdout.rstrip().splitlines()[-30:])
            raise BuildError(f"{bot.name}: build {bot.build!r} failed (exit {done.returncode}) in "
                             f"{where}; no game was played:\n{tail}")


def bot_versions(config: LeagueConfig, plugins: Plugins, store: Store) -> list[VersionNote]:
    """Fingerprint every bot of the league and record its version in the store: what changed."""
    stored = store.hash_cache()
    cache = RunCache(stored)
    manifests = {bot.name: bot_manifest(bot, config, plugins, cache) for bot in config.bots}
    if dict(cache) != stored:   # a warm run writes nothing
        store.save_hash_cache(cache)
    return store.sync_versions(manifests)


def run_league(config: LeagueConfig, plugins: Plugins | None = None, workers: int | None = None,
               progress: Progress | None = None, keep_going: bool = False,
               standings: int | None = None, new_season: bool = False,
               out: TextIO | None = None) -> RunSummary:
    """Play every fixture the store lacks for the bots' current versions; each game is
    committed as it finishes.

    Bots with a `build` are built first (BuildError if one fails). The store is claimed
    (a second run on it is refused), every bot fingerprinted (what changed is said on
    `out`, stderr), then every bot is started once (preflight): a bot that cannot start
    stops the run unless keep_going. Raises RunError (and StoreError on opening) for what
    is no bot's fault. standings: show the top of the table every that many stored games
    and at the end (0: never; None: whole rounds, about ten times a run)."""
    out = out or sys.stderr
    plugins = plugins or loaded_plugins()
    play = _executor(config)
    build_bots(config, out)
    started = time.monotonic()
    with Store(config.store) as store:
        store.claim()
        known = bool(store.current_versions())
        season = store.season
        store.bind(config, league_openings(config, plugins.games).identity(), new_season=new_season)
        if store.season != season:
            print(f"season {store.season} begins: the {store.count()} games of earlier seasons "
                  f"stay in {config.store} as history", file=out)
        for note in bot_versions(config, plugins, store):
            if known and note.why != ["new bot"]:
                print(f"{note}: its games are played again, the old ones stay as history"
                      if note.version > 1 else str(note), file=out)
        retired = store.retired() & set(config.bot_names)
        for name in sorted(retired):
            print(f"{name}: retired, plays no new games (arena retire --undo brings it back)", file=out)
        fixtures = [f for f in schedule(config, plugins.games)
                    if f.seat0 not in retired and f.seat1 not in retired]
        todo = store.missing(fixtures)
        progress = progress or Progress(len(fixtures), len(fixtures) - len(todo))
        progress.already = len(fixtures) - len(todo)
        if standings != 0:
            pairings = len({f.pairing for f in fixtures})
            progress.standings = lambda: live_standings(store, config)
            progress.standings_every = standings or standings_every(pairings, len(todo))
        workers = _bounded_workers(config, workers or config.workers, progress)
        job = make_job(config, plugins)
        played = 0
        interrupted = False
        try:
            # bots start where games are played: here, not on a Ray cluster's nodes
            if todo and (config.ray is None or config.ray.address is None):
                playing = tuple(bot for bot in config.bots if bot.name not in retired)
                _preflight(dataclasses.replace(config, bots=playing), job, plugins, keep_going,
                           progress)
            progress.start()
            games = play(job, todo, workers)
            try:
                for fixture, record in games:
                    if record.termination is Termination.ABORTED:
                        continue
                    store.add_game(fixture, record)
                    played += 1
                    progress.update(record)
            finally:
                games.close()   # stops the workers now, whatever ended the loop
        except KeyboardInterrupt:
            interrupted = True
        except StoreError as exc:   # disk full, read-only: what is stored stays stored
            raise RunError(str(exc)) from None
        summary = RunSummary(total=len(fixtures), already=len(fixtures) - len(todo), played=played,
                             interrupted=interrupted, seconds=time.monotonic() - started)
        stored = len(fixtures) - len(store.missing(fixtures))   # of this league's fixtures
        repeats = repeated_games(store, fixtures)
    verb = "stopped" if interrupted else "finished"
    warning = f". WARNING: {repeats}" if repeats else ""   # on the closing line, which stays last
    progress.finish(f"{verb}: {played} games played in {summary.seconds:.1f} s; "
                    f"{stored} of {len(fixtures)} stored in {config.store}{warning}")
    return summary


def live_standings(store: Store, config: LeagueConfig, rows: int = 10) -> list[str]:
    """The top of the league's table now, from the store, as the final leaderboard reads it."""
    retired = store.retired()
    board = build_leaderboard(store.records(current=True), config.rating,
                              [name for name in config.bot_names if name not in retired])
    return render_top(board, rows)


def repeated_games(store: Store, fixtures: list[Fixture]) -> str | None:
    """The warning of arena.openings when the league's stored games repeat one another."""
    keys = {f.key for f in fixtures}
    return repeat_warning([[m.move for m in g.record.moves]
                           for g in store.records(current=True, keys=keys)])


def _bounded_workers(config: LeagueConfig, workers: int, progress: Progress) -> int:
    """Local workers capped at WORKERS_PER_CPU per CPU, with a warning: more only add
    load, and load must never become a bot's fault."""
    limit = WORKERS_PER_CPU * (os.cpu_count() or 1)
    if config.executor != "local" or workers <= limit:
        return workers
    progress.warn(f"workers: {workers} is more than {WORKERS_PER_CPU} per CPU on this machine; "
                  f"playing with {limit}")
    return limit


def _preflight(config: LeagueConfig, job: GameJob, plugins: Plugins, keep_going: bool,
               progress: Progress) -> None:
    """Start every bot once before any game; RunError when the host cannot, or (unless
    keep_going) when a bot cannot."""
    try:
        sandbox = Sandbox(limits=job.limits, mode=job.sandbox_mode)
        game = plugins.games.create(job.game, **job.rules)
        problems = preflight(game, [job.bots[name] for name in config.bot_names], sandbox,
                             job.settings, config.seed)
    except Exception as exc:
        raise RunError(f"cannot start bots: {cause(exc)}") from exc
    if problems and not keep_going:
        others = [p.bot for p in problems[1:]]
        also = f" (also: {', '.join(others)})" if others else ""
        raise RunError(f"{problems[0]}{also}; nothing was played (--keep-going plays anyway, "
                       "the bot losing its games)")
    for problem in problems:
        progress.warn(f"{problem}; playing anyway (--keep-going)")


__all__ = ["BuildError", "GameJob", "RunError", "RunSummary", "bot_versions", "build_bots", "cause",
           "die_with_parent", "known_bots_check", "load_league", "make_job", "play_fixtures",
           "repeated_games", "run_league"]
