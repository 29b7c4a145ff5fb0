"""arena match and arena openings: games between two bots, and the books they start from."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence

from .command import Command
from .common import (
    EXIT_FAILED,
    RULE_HELP,
    UserError,
    add_referee_options,
    bot_for,
    loaded,
    make_game,
    path_argument,
    rule_options,
    sandbox_from,
    settings_from,
    stderr_tail,
    two_seat_game,
    with_reads,
)


def _named(a, b, names: Sequence[str]):
    """The two bots with the display names --name gave (A=NAME, B=NAME); the same bot
    twice without names is told apart by ' (2)'."""
    import dataclasses
    given: dict[str, str] = {}
    for item in names:
        side, eq, name = item.partition("=")
        side, name = side.strip().upper(), name.strip()
        if not eq or side not in ("A", "B") or not name:
            raise UserError(f"--name {item!r}: expected A=NAME or B=NAME")
        if "|" in name or not name.isprintable():
            raise UserError(f"--name {item!r}: a name is printable text without '|'")
        given[side] = name
    a = dataclasses.replace(a, name=given.get("A", a.name))
    b = dataclasses.replace(b, name=given.get("B", b.name))
    if a.name == b.name:
        if "A" in given or "B" in given:
            raise UserError(f"--name: both bots are called {a.name!r}; give them different names")
        b = dataclasses.replace(b, name=b.name + " (2)")
    return a, b


def cmd_match(args: argparse.Namespace) -> int:
    from arena.games.external import ExternalGame
    spec = _referee_file(args)
    game = two_seat_game(args.game, args.rule) if spec is None else None
    if isinstance(game, ExternalGame):    # a plugin's game played by a referee process
        spec, game = game.spec, None
    a, b = (with_reads(bot_for(args.a, game, spec), args), with_reads(bot_for(args.b, game, spec), args))
    a, b = _named(a, b, args.name)
    # the game and the bots are known: what plays the match is imported now
    from arena.league.identity import match_identity
    from arena.league.run import Run, RunOptions
    from arena.league.runner import GameJob
    from arena.match import DEFAULT_SPRT_CAP, MatchTally, match_fixtures
    from arena.sandbox import Limits
    from arena.stats import SprtSpec
    sprt = None
    if args.sprt is not None:
        try:
            sprt = SprtSpec.parse(args.sprt)
        except ValueError as exc:
            raise UserError(f"--sprt {args.sprt}: {exc}") from None
    cap = args.games if args.games is not None else DEFAULT_SPRT_CAP if sprt else 1
    if cap < 1:
        raise UserError(f"--games must be 1 or more, not {cap}")
    if args.concurrency < 1:
        raise UserError(f"--concurrency must be 1 or more, not {args.concurrency}")
    from arena.league.runner import WORKERS_PER_CPU
    limit = WORKERS_PER_CPU * (os.cpu_count() or 1)
    if args.concurrency > limit:   # as arena run: more only add load, and load is no bot's fault
        print(f"arena match: WARNING: --concurrency {args.concurrency} is more than "
              f"{WORKERS_PER_CPU} per CPU on this machine; playing with {limit}", file=sys.stderr)
        args.concurrency = limit
    if args.status_every is not None and args.status_every < 1:
        raise UserError(f"--status-every must be 1 or more, not {args.status_every}")
    settings = settings_from(args)
    # the games are played as a league's: by the registered `local` executor, through the Run
    run = Run(loaded(), options=RunOptions(workers=args.concurrency, out=sys.stderr))
    with run.claimed(args.store) as store:   # claimed before any write
        if spec is not None:   # a game played by a referee process, built (docs/referees.md)
            from arena.league.referees import match_referee
            game = ExternalGame(match_referee(spec, store, sys.stderr))
        assert game is not None
        seed = args.seed
        if seed is None and store is not None and "seed" in store.league.meta():
            seed = int(store.league.meta()["seed"])    # resuming: the stored match's seed
        if seed is None:
            seed = random.randrange(2**31)
        openings = _openings(args, game, (a, b), seed)
        sandbox = sandbox_from(args)
        run.job = GameJob(game=game.name, rules=given_rules(game, args.rule), bots={a.name: a, b.name: b},
                          settings=settings, made=game, sandbox_mode=sandbox.mode,
                          limits=Limits(memory_mb=args.memory_mb))
        identity = match_identity(run.job, seed, openings.identity(), sprt)
        if store is not None:
            store.league.check_match(identity)   # another match's store: refused before a bot starts
        if not _bots_start(args, game, (a, b), sandbox, settings, seed):
            return EXIT_FAILED           # nothing played, nothing stored
        if store is not None:
            _bind(args, store, identity, (a, b))
        fixtures = match_fixtures(a.name, b.name, cap, seed,
                                  None if openings.is_none else
                                  lambda k, pair_seed: openings.opening(game, k, pair_seed))
        # a RunError or StoreError (the host, the disk: no bot's fault) is a usage error here,
        # as it always was for a match; `arena run` reports a failed run with EXIT_FAILED
        return _run_match(args, run, fixtures, MatchTally(a.name, b.name), sprt, seed)


def _referee_file(args: argparse.Namespace):
    """The game a --game FILE declares (a game played by a referee process, docs/referees.md),
    or None for a registered game's name; a game of more than two seats is refused."""
    from pathlib import Path
    if args.game in loaded().games.names() or not Path(args.game).is_file():
        return None
    from arena.league.refereegame import game_file
    if args.rule:
        raise UserError(f"--rule: {args.game} is a game played by a referee process, whose rules are its own")
    spec = game_file(Path(args.game))
    if spec.players != 2:
        raise UserError(f"game {spec.name!r} ({args.game}) has {spec.players} players: arena match plays "
                        "two bots (play more in a league)")
    if not args.openings == "none":
        raise UserError(f"--openings: {spec.name} starts where its referee starts it (use none)")
    return spec


def _bots_start(args: argparse.Namespace, game, bots, sandbox, settings, seed: int) -> bool:
    """Start each bot once before any game, as `arena run` does: False (said on stderr) when
    one cannot start, unless --keep-going, or when the host cannot start bots."""
    from arena.league.executors.base import RunError
    from arena.league.preflight import start_all
    try:
        problems = start_all(game, list(bots), sandbox, settings, seed, args.keep_going)
    except RunError as exc:
        print(f"arena match: error: {exc}", file=sys.stderr)
        return False
    for problem in problems:
        print(f"arena match: WARNING: {problem}; playing anyway (--keep-going)", file=sys.stderr)
    return True


def _bind(args: argparse.Namespace, store, identity: dict[str, str], bots) -> None:
    """Tie the store to this match and record each bot's version (its fingerprint, as a
    league's): a bot that changed says so, and only its current version's games count."""
    from pathlib import Path

    from arena.league.run import fingerprint_bots
    from arena.match import match_bot_config

    from .matchtext import version_lines
    a, b = bots
    store.league.bind_match(identity, f"{a.name} vs {b.name}")
    plugins = loaded()
    reads = [os.path.abspath(os.path.expanduser(path)) for path in args.read]
    configs = [match_bot_config(bot, reads, plugins) for bot in bots]
    saved = [Path(args.save)] if args.save else []   # beside a bot, it is still not the bot
    notes = store.bots.sync(fingerprint_bots(store, configs, plugins, Path.cwd(), saved))
    for line in version_lines(notes, store):
        print(line, file=sys.stderr)


def given_rules(game, items) -> dict:
    """The --rule options given, as the game read them (a map named by its file: the map)."""
    return {key: game.options.get(key, value) for key, value in rule_options(items).items()}


def _run_match(args: argparse.Namespace, run, fixtures, tally, sprt, seed: int) -> int:
    """Play a match as cmd_match set it up: game lines on stdout, the status line on stderr."""
    from arena.league.progress import Progress
    from arena.match import MatchGames
    from arena.record import Termination
    from arena.stats import check

    from .matchtext import closing_line, status_text, summary_lines, summary_record
    store, job = run.store, run.job
    out_file = open(args.save, "a" if store is not None else "w") if args.save else None
    moves: list[list[str]] = []   # of the games that ended normally, for repeat_warning
    # the rules': its moves by turns, its seats' names
    info = (job.made or loaded().games.create(job.game, **job.rules)).info

    def on_game(fixture, record) -> None:
        if record.termination is Termination.NORMAL:
            moves.append([m.move for m in record.moves])
        if out_file:
            out_file.write(record.to_json() + "\n")
            out_file.flush()
        if args.json:
            text = json.dumps(record.to_dict())
        else:
            text = "\n".join([f"game {fixture.index + 1}: {record.summary(info.by_turn, info.seat_names)}",
                              *stderr_tail(record, lines=5)])
        if run.progress is not None and sys.stdout.isatty():
            run.progress.print_above(text, sys.stdout)   # the status line stays the last line
        else:
            print(text, flush=True)

    def detail() -> str:
        state = check(sprt, tally.pentanomial) if sprt is not None else None
        return status_text(tally.results(), state)

    every = args.status_every if args.status_every is not None else 10
    start = None
    if sprt is not None or args.concurrency > 1 or store is not None or args.status_every:
        run.progress = Progress(len(fixtures), stream=sys.stderr, every=every, detail=detail)
        stored = len(store.games.done_keys()) if store is not None else 0   # of these versions
        run.progress.already = min(stored, len(fixtures))
        where = f" stored in {store.path}" if store is not None else ""
        test = f", SPRT {args.sprt}" if sprt is not None else ""
        start = (f"{' vs '.join(job.bots)}: up to {len(fixtures)} game{'s' * (len(fixtures) != 1)}, "
                 f"{args.concurrency} at a time, seed {seed}{test}"
                 + (f"; resuming with {stored} games{where}" if stored else ""))
    try:
        outcome = run.play(MatchGames(fixtures, tally, sprt, on_game, start))
    finally:
        if out_file:
            out_file.close()
    if run.progress is not None:
        run.finish(closing_line(outcome, sprt, len(fixtures)))
    if args.json:
        print(json.dumps(summary_record(outcome, sprt, len(fixtures))))
    else:
        print("\n".join(summary_lines(outcome, sprt, len(fixtures))))
    from arena.games.external import ExternalGame
    from arena.openings import repeat_warning
    warning = repeat_warning(moves, info.by_turn, referee=isinstance(job.made, ExternalGame))
    if warning:
        print(f"arena match: WARNING: {warning}", file=sys.stderr)
    return 130 if outcome.interrupted else 0


def _openings(args: argparse.Namespace, game, bots, seed: int):
    """The match's openings (--openings, --openings-order); refused up front for a dialect
    whose bots cannot start from one."""
    from arena.openings import OpeningError, parse_spec
    try:
        openings = parse_spec(args.openings, game, args.openings_order, seed)
    except OpeningError as exc:
        raise UserError(f"--openings: {exc}") from None
    for bot in bots:
        if not openings.is_none and not loaded().dialects.require(bot.dialect).plays_openings:
            raise UserError(f"--openings {args.openings}: {bot.name} speaks the {bot.dialect} "
                            "dialect, which cannot start from an opening (docs/protocol.md); "
                            "use --openings none")
    return openings


def cmd_openings(args: argparse.Namespace) -> int:
    from arena.openings import format_opening, generate_book, mcts_evaluator, refuse_moving_at_once, shipped_books
    if args.list:
        for name in shipped_books():
            print(f"book:{name}")
        return 0
    if not args.game or args.plies is None or args.count is None or not args.out:
        raise UserError("give GAME, --plies, --count and --out (or --list for the shipped books)")
    game = make_game(args.game, args.rule)
    refuse_moving_at_once(game)   # before the arguments: no value of them would do
    if args.plies < 1 or args.count < 1 or args.simulations < 1 or not 0 <= args.band <= 0.5:
        raise UserError("--plies, --count and --simulations must be 1 or more, --band 0..0.5")

    def progress(found: int, tried: int) -> None:
        if not args.quiet and sys.stderr.isatty():
            print(f"\r{found}/{args.count} openings kept of {tried} positions judged",
                  end="", file=sys.stderr, flush=True)
    try:
        entries = generate_book(game, args.plies, args.count, args.seed,
                                mcts_evaluator(game, args.simulations, args.seed), args.band,
                                progress=progress)
    finally:
        if not args.quiet and sys.stderr.isatty():
            print(file=sys.stderr)
    rules = "".join(f" --rule {k}={v}" for k, v in sorted(rule_options(args.rule).items()))
    lines = [f"# {len(entries)} {args.plies}-ply {game.name} openings, each judged by MCTS with "
             f"{args.simulations} simulations to be within {args.band} of an even game",
             f"# made by: arena openings {game.name} --plies {args.plies} --count {args.count} "
             f"--seed {args.seed} --simulations {args.simulations} --band {args.band}{rules} "
             f"--out FILE",
             "# one opening a line: moves from the start; after '#': x's expected score"]
    lines += [f"{format_opening(game, e.moves)}  # {e.value:.3f}" for e in entries]
    try:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")
    except OSError as exc:
        raise UserError(f"cannot write {args.out}: {exc.strerror}") from None
    values = [e.value for e in entries]
    print(f"wrote {len(entries)} openings to {args.out} (x's expected score "
          f"{min(values):.3f}..{max(values):.3f}, mean {sum(values) / len(values):.3f})")
    return 0


def _match_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", help="bot A: a registered name (NAME:KEY=VALUE,... sets options) or "
                             "DIALECT:COMMAND, e.g. 'arena:./mybot'")
    p.add_argument("b", help="bot B, as A")
    p.add_argument("--game", required=True)
    p.add_argument("--games", type=int, help="number of games, seats alternating (default 1); "
                   "with --sprt the cap (default 2000)")
    p.add_argument("--seed", type=int, help="seed of the first game pair (default: random; "
                   "with --store, the stored match's)")
    p.add_argument("--concurrency", type=int, default=1, metavar="N",
                   help="games played at once, in N worker processes as `arena run` plays a league "
                        "(default 1)")
    p.add_argument("--name", action="append", default=[], metavar="A=NAME",
                   help="display name of bot A or B (repeatable), e.g. --name A=new --name B=old")
    p.add_argument("--sprt", metavar="SPEC",
                   help="stop when a sequential test decides: elo0=0,elo1=10[,alpha=0.05,"
                        "beta=0.05,model=logistic|normalized]; checked after every seat-swapped "
                        "pair (docs/statistics.md)")
    p.add_argument("--store", metavar="FILE", type=path_argument,
                   help="store every game in this SQLite file; the same command again resumes, "
                        "counting only the games of the bots' current versions")
    p.add_argument("--keep-going", action="store_true",
                   help="play even if a bot fails to start before the first game (it loses its "
                        "games)")
    p.add_argument("--status-every", type=int, metavar="N",
                   help="into a pipe, the status line every N games (default 10); shown with "
                        "--sprt, --store or --concurrency, or when given")
    p.add_argument("--json", action="store_true",
                   help="one JSON game record per line, then a {\"summary\": ...} record")
    p.add_argument("--save", metavar="FILE", type=path_argument, help="also write the records (JSON lines) to FILE")
    p.add_argument("--openings", default="none", metavar="SPEC",
                   help="where each pair of games starts: none (the empty board), random:N "
                        "(N random plies from the pair's seed), book:NAME (shipped) or a book "
                        "FILE; docs/openings.md")
    p.add_argument("--openings-order", choices=("sequential", "random"), default="sequential",
                   help="a book's order: as written, or shuffled by --seed")
    add_referee_options(p)


def _openings_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?")
    p.add_argument("--plies", type=int, help="moves in each opening")
    p.add_argument("--count", type=int, help="openings to keep")
    p.add_argument("--out", metavar="FILE", type=path_argument, help="the book file to write")
    p.add_argument("--seed", type=int, default=0, help="fixes the book (default 0)")
    p.add_argument("--simulations", type=int, default=2000,
                   help="MCTS simulations that judge each opening (default 2000)")
    p.add_argument("--band", type=float, default=0.1,
                   help="keep openings whose x score is within BAND of 0.5 (default 0.1; 0.5 keeps all)")
    p.add_argument("--rule", action="append", default=[], help=RULE_HELP)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--list", action="store_true", help="list the books shipped with arena")


COMMANDS = (
    Command("match", "play games between two bots in the sandboxed referee", cmd_match, _match_arguments),
    Command("openings", "make a book of balanced openings (or list the shipped ones)", cmd_openings,
            _openings_arguments),
)
