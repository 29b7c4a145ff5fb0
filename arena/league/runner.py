"""Running a league: play the fixtures the store lacks, in parallel, storing each
game the moment it ends, so a stop (Ctrl-C, kill -9) loses at most the games in flight.

A league's games are its schedule (Schedule): a round robin, a gauntlet or a free-for-all,
the fixtures its store lacks as a FixtureList; a ladder's are chosen as it goes
(arena.league.ladder). Either way every step but the fixtures is the one Run's
(arena.league.run); run_league plays a config, whichever it is.
"""

from __future__ import annotations

from typing import Any, TextIO

from arena.games import Game
from arena.openings import repeat_warning
from arena.plugins import Plugins, plugins_or_loaded
from arena.record import Termination
from arena.registry import Registry

from . import boards
from .builds import BuildError, build_bots
from .config import BotConfig, LeagueConfig
from .drive import Driven
from .executors.base import GameJob, Placement, RunError, cause
from .executors.local import WORKERS_PER_CPU
from .leaderboard import render_top
from .loading import known_bots_check, load_league, option_files
from .progress import Progress, standings_every
from .rating_systems import RatingSystem, rating_system
from .run import (
    Ending,
    Games,
    Run,
    RunOptions,
    RunSummary,
    bot_manifests,
    bot_versions,
    fingerprint_bots,
    make_job,
)
from .schedule import Fixture, ffa_balance, schedule
from .sources import FixtureList
from .store import Store


class Schedule(Games[Ending]):
    """A league's games (a round robin, a gauntlet or a free-for-all): the fixtures of its
    schedule its store lacks for the bots' current versions, retired bots' left out."""

    def __init__(self, config: LeagueConfig) -> None:
        self.config = config
        self.fixtures: list[Fixture] = []
        self.todo = 0

    def source(self, run: Run) -> FixtureList:
        store, config = run.claimed_store, self.config
        self.fixtures = [f for f in _drawn_schedule(store, config, run.plugins.games, run.out)
                         if not run.retired.intersection(f.seats)]
        todo = store.games.missing(self.fixtures)
        self.todo = len(todo)
        run.progress = self._watch(run)
        # each fixture carries its bots and their versions, as a fixture minted later would
        return FixtureList([fixture.carrying(run.job.bots, store.bots.versions_of(fixture.seats))
                            for fixture in todo])

    def bots(self, run: Run) -> tuple[BotConfig, ...]:
        return run.playing if self.todo else ()

    def end(self, run: Run, driven: Driven) -> Ending:
        store, fixtures = run.claimed_store, self.fixtures
        interrupted = driven.interrupted or driven.cancelled
        played = driven.played
        summary = RunSummary(total=len(fixtures), already=len(fixtures) - self.todo, played=played,
                             interrupted=interrupted, seconds=run.elapsed())
        stored = len(fixtures) - len(store.games.missing(fixtures))   # of this league's fixtures
        verb = "stopped" if interrupted else "finished"
        return Ending(summary, f"{verb}: {played} game{'s' * (played != 1)} played in "
                               f"{summary.seconds:.1f} s; {stored} of {len(fixtures)} stored in "
                               f"{self.config.store}", repeated_games(store, fixtures))

    def _watch(self, run: Run) -> Progress:
        """The run's progress over the league's fixtures, with its standings every that
        many games (0: never; None: whole rounds)."""
        store, config, fixtures, standings = run.claimed_store, self.config, self.fixtures, run.options.standings
        already = len(fixtures) - self.todo
        progress = run.progress or Progress(len(fixtures), already)
        progress.already = already
        if standings != 0:
            pairings = len({f.pairing for f in fixtures})
            system = rating_system(config.rating, run.plugins)
            progress.standings = lambda: live_standings(store, config, system=system)
            progress.standings_every = standings or standings_every(pairings, self.todo)
        return progress


def run_league(config: LeagueConfig, plugins: Plugins | None = None, **options: Any) -> RunSummary:
    """Play a league config through the one Run (options: RunOptions' fields, by name): a
    ladder's games (schedule: ladder), else every fixture of its schedule the store lacks
    for the bots' current versions; each game is committed as it finishes.

    The store is claimed (a second run on it is refused), bots with a `build` are built
    when what they are made from changed (BuildError if one fails), every bot is
    fingerprinted, then every bot is started once (preflight): a bot that cannot start
    stops the run unless keep_going. Only then are the bots' versions recorded (what
    changed is said on `out`, stderr), so a run the preflight stopped leaves no version
    that never played. Raises RunError (and StoreError on opening) for what is no bot's
    fault. standings: show the top of the table every that many stored games and at the
    end (0: never; None: whole rounds, about ten times a run). cancel: a token that stops
    the run as Ctrl-C does (drive)."""
    if config.ladder is not None:
        from .ladder import Ladder  # its matchmaking and membership: imported for a ladder alone
        games: Games[Ending] = Ladder(config)
    else:
        games = Schedule(config)
    return Run(plugins_or_loaded(plugins), Placement.of(config), RunOptions(**options)).league(config, games)


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
                          at_once=any(r.moves_at_once for r in records),
                          referee=any(r.referee is not None for r in records))


__all__ = ["WORKERS_PER_CPU", "BuildError", "GameJob", "RunError", "RunOptions", "RunSummary",
           "Schedule", "bot_manifests", "bot_versions", "build_bots", "cause", "fingerprint_bots",
           "known_bots_check", "load_league", "make_job", "option_files",
           "repeated_games", "run_league"]
