"""arena run, leaderboard, versions, forget and retire: a league and its store."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, NoReturn

from .command import Command
from .common import (
    EXIT_FAILED,
    UserError,
    add_rating_option,
    is_store,
    league_source,
    loaded,
    path_argument,
    rating_system_from,
    warn_damage,
)
from .publish import publish

if TYPE_CHECKING:
    from arena.league import RatingConfig, Store


def cmd_run(args: argparse.Namespace) -> int:
    from arena.league import render
    from arena.league.runner import RunError, load_league, run_league
    plugins = loaded()
    # the site is written after the games: where it goes is checked with the config, before them
    config = load_league(args.config, plugins, publish_check=_site_problem)
    if args.workers is not None and args.workers < 1:
        raise UserError(f"--workers must be 1 or more, not {args.workers}")
    if args.standings is not None and args.standings < 0:
        raise UserError(f"--standings must be 0 (never) or more games, not {args.standings}")
    try:
        with _sigterm_as_interrupt():   # a league's schedule, or its ladder: one Run plays either
            summary = run_league(config, plugins, workers=args.workers, keep_going=args.keep_going,
                                 standings=args.standings, new_season=args.new_season)
    except RunError as exc:   # the run failed for no bot's fault: not a usage error
        print(f"arena run: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    from arena.league import Store
    from arena.league.boards import standings
    with Store(config.store, readonly=True) as store:
        warn_damage("run", store)
        # a ladder's bots may have joined or left while it ran: the store keeps its last config
        bots = store.league.snapshot().get("bots") if config.ladder is not None else None
        names = [bot["name"] for bot in bots] if isinstance(bots, list) else config.bot_names
        board = standings(store, config.rating, names, config.name,
                          all_versions=args.all_versions).board
    print(render(board, args.format))
    if config.publish is not None and not summary.interrupted:
        index = publish(config.store, config.publish, config.rating, config.name, command="run",
                        registry=plugins.games)
        print(f"published: {index}", file=sys.stderr)
    return 130 if summary.interrupted else 0


def _site_problem(out_dir: Path) -> str | None:
    """Why the league's site cannot be written at out_dir, or None (asked only of a league
    that publishes: the publishing modules are imported for it alone)."""
    from arena.publish.site import output_problem
    return output_problem(out_dir)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a run as Ctrl-C does: games stored, workers and bots closed."""
    def interrupt(signum: int, frame: FrameType | None) -> NoReturn:
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.league import Store, StoreError, render
    from arena.league.boards import standings
    from arena.registry import UnknownNameError
    path = args.source
    store_path, rating, names, title = league_source(path)
    try:
        with Store(store_path, readonly=True) as store:
            warn_damage("leaderboard", store)
            if rating is None:
                rating, names, title = _stored_settings(store.league.meta(), path)
            board = standings(store, rating, names, title or "", args.anchor,
                              rating_system_from(args), args.all_versions).board
    except StoreError:   # a store arena refuses: the line names it and what is wrong
        if is_store(store_path) or Path(f"{store_path}-wal").exists():
            raise
        raise UserError(f"{path} is not a league store or config") from None
    except sqlite3.Error as exc:   # a file that is not a usable league store
        raise UserError(f"{path} is not a league store or config: {exc}") from None
    except UnknownNameError:   # the store's rating system no plugin here has: said as it is
        raise
    except ValueError as exc:
        if args.anchor is None or "anchor" not in str(exc):
            raise UserError(f"{path} is not a league store or config: {exc}") from None
        raise UserError(f"--anchor: {exc}") from None
    print(render(board, args.format, wide=args.wide))
    return 0


def _stored_settings(meta: dict[str, str], path: str) -> tuple[RatingConfig, list[str] | None, str]:
    """(rating settings, bot names or None, title) from the config a store keeps of its league."""
    from arena.league import RatingConfig
    try:
        snapshot = json.loads(meta.get("config", "{}"))
        rating = RatingConfig(**snapshot.get("rating", {}))
        names = [b["name"] for b in snapshot.get("bots", [])] or None
    except (ValueError, TypeError, KeyError) as exc:   # written by another arena, or damaged
        raise UserError(f"{path} is not a league store or config: its stored config cannot be read "
                        f"({exc})") from None
    return rating, names, meta.get("name", str(path))


def _open_store(source: str, readonly: bool = False) -> Store:
    """The Store of a league store file or config, or a UserError."""
    from arena.league import Store
    store_path = league_source(source)[0]
    if not is_store(store_path):
        raise UserError(f"{source} is not a league store or config")
    return Store(store_path, readonly=readonly)


def _split_bot(text: str) -> tuple[str, int | None]:
    """BOT or BOT@VERSION."""
    name, at, version = text.rpartition("@")
    if not at:
        return text, None
    if not version.isdigit() or int(version) < 1:
        raise UserError(f"{text!r}: a version is BOT@N with N a number from 1 (`arena versions`)")
    return name, int(version)


def cmd_versions(args: argparse.Namespace) -> int:
    from arena.league.boards import version_marks
    names = league_source(args.store)[2]   # a config's bots, as the leaderboard reads them
    with _open_store(args.store, readonly=True) as store:
        warn_damage("versions", store)
        infos = store.bots.versions(args.bot)
        marks = version_marks(store, names)
    if args.bot is not None and not infos:
        raise UserError(f"{args.store} has no bot {args.bot!r}")
    if args.format == "json":
        print(json.dumps([{**info._asdict(), "marks": list(marks.get((info.bot, info.version), ()))}
                          for info in infos], indent=2))
        return 0
    print(f"{'bot':<20} {'version':>7} {'fingerprint':<16} {'games':>6}  {'first seen':<25} "
          f"{'last played':<25} state")
    for info in infos:
        # current, then why it plays no more in the leaderboard's words (--all-versions)
        state = ", ".join(["current"] * info.current + list(marks.get((info.bot, info.version), ())))
        print(f"{info.bot:<20} {'v' + str(info.version):>7} {info.fingerprint or '(not yet)':<16} "
              f"{info.games:>6}  {info.first_seen:<25} {info.last_played or '-':<25} {state}")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    bot, version = _split_bot(args.bot)
    with _open_store(args.store) as store:
        # the games a run is playing by would go under it: forget only a store no run holds
        store.claim("forget its bot's games once the run has finished")
        infos = [i for i in store.bots.versions(bot) if version is None or i.version == version]
        if not infos:
            raise UserError(f"{args.store} has no {args.bot!r} (`arena versions {args.store}` lists them)")
        games = sum(i.games for i in infos)   # a game between two of its versions counts twice
        what = f"{bot} v{version}" if version is not None else f"{bot} (every version)"
        if not args.yes:
            if not sys.stdin.isatty():
                raise UserError(f"forget {what}: would delete its games; add --yes to confirm")
            answer = input(f"forget {what} and its {games} games in {args.store}? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("nothing forgotten")
                return 1
        gone = store.bots.forget(bot, version)
    print(f"forgot {what}: {gone} games deleted")
    return 0


def cmd_retire(args: argparse.Namespace) -> int:
    with _open_store(args.store) as store:
        if not store.bots.versions(args.bot):
            raise UserError(f"{args.store} has no bot {args.bot!r} (`arena versions {args.store}` lists them)")
        store.bots.retire(args.bot, not args.undo)
    print(f"{args.bot}: back in the league; the next run plays its games" if args.undo else
          f"{args.bot}: retired; its games stay as history, it plays no new games and leaves "
          f"the leaderboard (--all-versions shows it)")
    return 0


def _run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", type=path_argument, help="league config, e.g. tournaments/quickstart.yaml")
    p.add_argument("--workers", type=int, help="parallel games (default: the config's workers)")
    p.add_argument("--keep-going", action="store_true",
                   help="play even if a bot fails to start in the preflight (it loses its games)")
    p.add_argument("--format", choices=loaded().output_formats.names(), default="table")
    p.add_argument("--standings", type=int, metavar="N",
                   help="show the top of the table (Elo +-95%%) every N games and at the end, "
                        "on stderr; 0: never (default: whole rounds, about 10 times a run)")
    p.add_argument("--new-season", action="store_true",
                   help="the league's settings changed: start a new season, old games stay as history")
    p.add_argument("--all-versions", action="store_true",
                   help="rate every version of every bot as its own row (NAME@VERSION)")


def _leaderboard_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="STORE_OR_CONFIG", type=path_argument, help="a league store file or its config")
    p.add_argument("--format", choices=loaded().output_formats.names(), default="table")
    p.add_argument("--anchor", metavar="BOT", help="the bot whose Elo is 0 (default: mean Elo 0)")
    p.add_argument("--all-versions", action="store_true",
                   help="rate every version of every bot as its own row (NAME@VERSION)")
    p.add_argument("--wide", action="store_true",
                   help="crosstable of win, draw, loss rates (default: a compact score table)")
    add_rating_option(p)


def _versions_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("store", metavar="STORE_OR_CONFIG", type=path_argument)
    p.add_argument("bot", nargs="?", help="only this bot")
    p.add_argument("--format", choices=("text", "json"), default="text")


def _forget_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("store", metavar="STORE_OR_CONFIG", type=path_argument)
    p.add_argument("bot", metavar="BOT[@VERSION]")
    p.add_argument("--yes", action="store_true", help="do not ask")


def _retire_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("store", metavar="STORE_OR_CONFIG", type=path_argument)
    p.add_argument("bot")
    p.add_argument("--undo", action="store_true", help="bring a retired bot back")


COMMANDS = (
    Command("run", "run a league from a YAML config, store it, print the leaderboard", cmd_run, _run_arguments),
    Command("leaderboard", "the leaderboard and crosstable of a league", cmd_leaderboard, _leaderboard_arguments),
    Command("versions", "the versions of a league's bots: games, when, fingerprint", cmd_versions, _versions_arguments),
    Command("forget", "delete a bot's games from a store (one version, or all)", cmd_forget, _forget_arguments),
    Command("retire", "retire a bot: its games stay as history, it plays no more", cmd_retire, _retire_arguments),
)
