"""The arena command. Thin: parses arguments, calls the library, and is the one
place where user errors become a one-line message and a non-zero exit."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from arena import __version__
from arena.games import GameError, perft, random_game

if TYPE_CHECKING:
    from arena.referee import BotSpec

EXIT_FAILED = 1   #: a run that failed for a reason that is no bot's fault
EXIT_USAGE = 2    #: a mistake in what was asked: a bad argument, config or store


class UserError(Exception):
    """A mistake in what the user asked for: reported in one line, no traceback."""


def _parse_moves(game, text: str | None) -> list[int]:
    if not text:
        return []
    return [game.parse_move(item) for item in text.replace(" ", "").split(",") if item]


def _game(name: str, rule_options: Sequence[str] = ()):
    options = {}
    for item in rule_options:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"--rule {item!r}: expected KEY=VALUE")
        options[key] = value
    return _plugins().games.create(name, **options)


def cmd_games(args: argparse.Namespace) -> int:
    registry = _plugins().games
    width = max(len(n) for n in registry.names())
    for name in registry.names():
        info = registry.get(name).info
        print(f"{name:<{width}}  {info.summary}")
        if args.verbose:
            print(f"{'':<{width}}  {info.rules}")
            for opt in info.options:
                print(f"{'':<{width}}  option {opt.name}: {' | '.join(map(str, opt.choices))} "
                      f"(default {opt.default}) - {opt.help}")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    game = _game(args.game, args.rule)
    if args.depth < 0:
        raise UserError(f"depth must be 0 or more, not {args.depth}")
    state = game.replay(_parse_moves(game, args.moves))
    if args.divide and args.depth >= 1:
        for move in state.legal_moves():
            print(f"{game.move_text(move)}: {perft(state.play(move), args.depth - 1)}")
    print(perft(state, args.depth))
    return 0


def cmd_random_game(args: argparse.Namespace) -> int:
    game = _game(args.game, args.rule)
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    state = game.initial_state()
    moves = random_game(game, random.Random(seed))
    print(f"{game.name}, seed {seed}")
    for ply, move in enumerate(moves, 1):
        seat = state.to_move
        state = state.play(move)
        if not args.quiet:
            print(f"\nply {ply}: {'xo'[seat]} plays {game.move_text(move)}")
            print(state.render())
    result = "draw" if state.winner is None else f"{'xo'[state.winner]} (seat {state.winner}) wins"
    print(f"\nmoves: {','.join(game.move_text(m) for m in moves)}")
    print(f"result: {result} after {len(moves)} moves")
    return 0


_WARNED = False


def _plugins():
    """The plugins every part of arena shares, loaded once; load failures are reported
    (once), not fatal."""
    global _WARNED
    from arena.plugins import loaded_plugins
    plugins = loaded_plugins()
    if not _WARNED:
        _WARNED = True
        for error in plugins.errors:
            print(f"arena: WARNING: {error}", file=sys.stderr)
    return plugins


def _registered_bot(name: str):
    """BotSpec for a bot a plugin registered, or None."""
    from arena.plugins import registered_bot_spec
    return registered_bot_spec(name, _plugins())


def _bot_for(text: str, game) -> BotSpec:
    """The BotSpec a user named for a game: a registered bot that plays it (with a guess for
    a mistyped name), or DIALECT:COMMAND. Refused up front, as a league config is."""
    from arena.referee.botspec import BotSpecError, resolve_bot
    name, sep, option_text = text.partition(":")
    if sep and _plugins().bots.get(name) is not None:
        spec = _bot_with_options(name, option_text)
        text = name
    else:
        spec = None
    try:
        spec = spec or resolve_bot(text, _registered_bot)
    except BotSpecError as exc:
        import difflib
        names = [b.name for b in _plugins().bots.all()]
        close = difflib.get_close_matches(text, names, n=1)
        if close and ":" not in text:
            raise UserError(f"unknown bot {text!r} (did you mean {close[0]!r}?); `arena bots` "
                            "lists the bots, or give DIALECT:COMMAND") from None
        raise UserError(str(exc)) from None
    decl = _plugins().bots.get(text)
    if decl is not None and not decl.plays(game.name):
        others = [b.name for b in _plugins().bots.all() if b.plays(game.name)]
        raise UserError(f"bot {text!r} plays {decl.game}, not {game.name}; bots for {game.name}: "
                        f"{', '.join(others) or 'none'} (`arena bots --game {game.name}`)")
    return spec


def _bot_with_options(name: str, text: str) -> BotSpec:
    """BotSpec of a registered bot with options written NAME:KEY=VALUE[,KEY=VALUE...];
    values are read as YAML scalars (3, true, a path), file options from the current directory."""
    import yaml

    from arena.plugins import PluginError, bot_spec
    options: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UserError(f"{name}:{text}: expected {name}:KEY=VALUE[,KEY=VALUE...]")
        try:
            options[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError:
            options[key.strip()] = value
    decl = _plugins().bots.get(name)
    for key, given in options.items():
        if key not in decl.options:
            raise UserError(f"bot {name!r} has no option {key!r} "
                            f"(options: {', '.join(decl.options) or 'none'})")
        path = decl.options[key].file_path(given, ".")
        if path is not None and not path.is_file():
            raise UserError(f"{name}:{key}: no file {str(path)!r}")
    try:
        return bot_spec(decl, options, name=f"{name}:{text}", base_dir=".")
    except PluginError as exc:
        raise UserError(str(exc)) from None


def cmd_bots(args: argparse.Namespace) -> int:
    plugins = _plugins()
    if args.game:
        plugins.games.get(args.game)
    bots = [b for b in plugins.bots.all() if not args.game or b.plays(args.game)]
    if args.format == "json":
        print(json.dumps([{"name": b.name, "game": b.game, "plugin": b.plugin,
                           "description": b.description,
                           "options": {k: {"default": o.default, "help": o.help}
                                       for k, o in b.options.items()}} for b in bots], indent=2))
        return 0
    width = max((len(b.name) for b in bots), default=4)
    gwidth = max((len(b.game) for b in bots), default=4)
    for b in bots:
        print(f"{b.name:<{width}}  {b.game:<{gwidth}}  [{b.plugin}]  {b.description}")
        for key, opt in b.options.items():
            print(f"{'':<{width}}    {key}={opt.default!r}  {opt.help}")
    if not bots:
        print("no bots" + (f" play {args.game}" if args.game else " are registered"))
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    plugins = _plugins()
    counts: dict[str, int] = {}
    for b in plugins.bots.all():
        counts[b.plugin] = counts.get(b.plugin, 0) + 1
    games: dict[str, int] = {}
    for game in plugins.games.names():
        games[plugins.games.plugin(game)] = games.get(plugins.games.plugin(game), 0) + 1
    for name, version in sorted(plugins.versions.items()):
        declared = f"{games[name]} games, " if games.get(name) else ""
        print(f"{name}  {version}  ({declared}{counts.get(name, 0)} bots)")
    for error in plugins.errors:
        print(f"FAILED  {error}")
    return 1 if plugins.errors else 0


def _sandbox(args: argparse.Namespace):
    from arena.sandbox import Limits, Sandbox, SandboxError
    try:
        sandbox = Sandbox(limits=Limits(memory_mb=args.memory_mb), mode=args.sandbox)
    except SandboxError as exc:
        raise UserError(str(exc)) from None
    for warning in sandbox.warnings:
        print(f"arena: WARNING: {warning}", file=sys.stderr)
    return sandbox


def _settings(args: argparse.Namespace):
    from arena.referee import MatchSettings, TimeControl, TimeoutPolicy
    try:
        time_control = TimeControl(move_ms=args.move_ms, startup_ms=args.startup_ms,
                                   bank_ms=args.bank_ms, increment_ms=args.increment_ms,
                                   overhead_ms=args.overhead_ms)
        mode, _, count = args.timeouts.partition(":")
        policy = TimeoutPolicy(mode=mode, strikes=int(count) if count else 3)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return MatchSettings(time=time_control, timeout_policy=policy)


def _describe(record) -> str:
    names = [b.name for b in record.bots]
    if record.winner is None:
        outcome = "draw"
    else:
        outcome = f"{names[record.winner]} wins"
    how = record.reason if record.faulted is not None else record.termination.value
    return (f"{names[0]} (x) vs {names[1]} (o): {outcome}, {how}, {len(record.moves)} moves, "
            f"seed {record.seed}")


def _reading(spec, args: argparse.Namespace):
    """The bot spec with the --read paths added to what it may read."""
    import dataclasses
    import os
    paths = []
    for path in args.read:
        full = os.path.abspath(os.path.expanduser(path))
        if not os.path.exists(full):
            raise UserError(f"--read {path}: no such file or directory")
        paths.append(full)
    return dataclasses.replace(spec, readable=tuple(dict.fromkeys((*spec.readable, *paths))))


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
    from arena.league import StoreError
    from arena.league.runner import GameJob, RunError
    from arena.match import DEFAULT_SPRT_CAP, MatchTally, match_fixtures, match_identity
    from arena.sandbox import Limits
    from arena.stats import SprtSpec
    game = _game(args.game, args.rule)
    a, b = _reading(_bot_for(args.a, game), args), _reading(_bot_for(args.b, game), args)
    a, b = _named(a, b, args.name)
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
    settings = _settings(args)
    store = _match_store(args.store) if args.store else None
    try:
        seed = args.seed
        if seed is None and store is not None and "seed" in store.meta():
            seed = int(store.meta()["seed"])    # resuming: the stored match's seed
        if seed is None:
            seed = random.randrange(2**31)
        openings = _openings(args, game, (a, b), seed)
        sandbox = _sandbox(args)
        if store is not None:
            identity = match_identity(game.name, _rule_options(args.rule), seed,
                                      openings.identity(), (a, b), settings, args.memory_mb, sprt)
            try:
                store.claim()
                store.bind_match(identity, f"{a.name} vs {b.name}")
            except StoreError as exc:
                raise UserError(str(exc)) from None
        fixtures = match_fixtures(a.name, b.name, cap, seed,
                                  None if openings.is_none else
                                  lambda k, pair_seed: openings.opening(game, k, pair_seed))
        job = GameJob(game=game.name, rules=_rule_options(args.rule), bots={a.name: a, b.name: b},
                      settings=settings, sandbox_mode=sandbox.mode,
                      limits=Limits(memory_mb=args.memory_mb))
        try:
            return _run_match(args, job, fixtures, MatchTally(a.name, b.name), sprt, store, seed)
        except (RunError, StoreError) as exc:   # no bot's fault: the host, the disk
            raise UserError(str(exc)) from None
    finally:
        if store is not None:
            store.close()


def _rule_options(items: Sequence[str]) -> dict[str, str]:
    return dict(item.partition("=")[::2] for item in items)


def _match_store(path: str):
    from arena.league import Store, StoreError
    try:
        return Store(path)
    except StoreError as exc:
        raise UserError(str(exc)) from None


def _run_match(args: argparse.Namespace, job, fixtures, tally, sprt, store, seed: int) -> int:
    """Play a match as cmd_match set it up: game lines on stdout, the status line on stderr."""
    from arena.league.progress import Progress
    from arena.match import run_match, status_text, summary_lines, summary_record
    from arena.stats import check
    out_file = open(args.save, "a" if store is not None else "w") if args.save else None
    moves: list[list[str]] = []

    def on_game(fixture, record) -> None:
        moves.append([m.move for m in record.moves])
        if out_file:
            out_file.write(record.to_json() + "\n")
            out_file.flush()
        if args.json:
            text = json.dumps(record.to_dict())
        else:
            text = "\n".join([f"game {fixture.index + 1}: {_describe(record)}",
                              *_stderr_tail(record, lines=5)])
        if progress is not None and sys.stdout.isatty():
            progress.print_above(text, sys.stdout)   # the status line stays the last line
        else:
            print(text, flush=True)

    def detail() -> str:
        state = check(sprt, tally.pentanomial) if sprt is not None else None
        return status_text(tally.results(), state)

    every = args.status_every if args.status_every is not None else 10
    progress: Progress | None = None
    if sprt is not None or args.concurrency > 1 or store is not None or args.status_every:
        progress = Progress(len(fixtures), stream=sys.stderr, every=every, detail=detail)
    try:
        if progress is not None:
            stored = store.count() if store is not None else 0
            progress.already = min(stored, len(fixtures))
            where = f" stored in {store.path}" if store is not None else ""
            test = f", SPRT {args.sprt}" if sprt is not None else ""
            progress.start(f"{' vs '.join(job.bots)}: up to {len(fixtures)} games, "
                           f"{args.concurrency} at a time, seed {seed}{test}"
                           + (f"; resuming with {stored} games{where}" if stored else ""))
        outcome = run_match(job, fixtures, args.concurrency, tally, sprt, store, on_game, progress)
    finally:
        if out_file:
            out_file.close()
    lines = summary_lines(outcome, sprt, len(fixtures))
    if progress is not None:
        progress.finish(f"{'stopped' if outcome.interrupted else 'finished'}: {outcome.played} "
                        f"games played; {lines[-3]}")
    if args.json:
        print(json.dumps(summary_record(outcome, sprt, len(fixtures))))
    else:
        print("\n".join(lines))
    from arena.openings import repeat_warning
    warning = repeat_warning(moves)
    if warning:
        print(f"arena match: WARNING: {warning}", file=sys.stderr)
    return 130 if outcome.interrupted else 0


def _openings(args: argparse.Namespace, game, bots, seed: int):
    """The match's openings (--openings, --openings-order); refused up front for a dialect
    whose bots cannot start from one."""
    from arena.openings import OpeningError, parse_spec
    from arena.protocol import get_dialect
    try:
        openings = parse_spec(args.openings, game, args.openings_order, seed)
    except OpeningError as exc:
        raise UserError(f"--openings: {exc}") from None
    for bot in bots:
        if not openings.is_none and not get_dialect(bot.dialect).plays_openings:
            raise UserError(f"--openings {args.openings}: {bot.name} speaks the {bot.dialect} "
                            "dialect, which cannot start from an opening (docs/protocol.md); "
                            "use --openings none")
    return openings


SQLITE_MAGIC = b"SQLite format 3\x00"


def _is_store(path) -> bool:
    """True for an SQLite file (a league store), judged by its first bytes."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _league_source(source: str):
    """(store path, rating settings or None, bot names or None, title or None) of a league
    store or its YAML config, as every command that reads a league takes either."""
    from pathlib import Path
    path = Path(source)
    if not path.exists():
        raise UserError(f"{path}: no such store or league config")
    if path.suffix not in (".yaml", ".yml"):
        return path, None, None, None
    from arena.league import ConfigError
    from arena.league.runner import load_league
    try:
        config = load_league(str(path), _plugins())
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    if not config.store.exists():
        raise UserError(f"{config.store} does not exist yet: run `arena run {path}` first")
    return config.store, config.rating, config.bot_names, config.name


def _records_from_store(path, args: argparse.Namespace):
    """The record a replay asks for (--game N in league order, or --fixture KEY) from a store,
    which game it is, and which versions of the bots played it."""
    from arena.league import Store, StoreError
    try:
        with Store(path, readonly=True) as store:   # the bots' current versions, as the site
            rows = list(store.versioned_records(current=True))
    except StoreError as exc:
        raise UserError(str(exc)) from None
    games = [game for game, _v0, _v1 in rows]
    if not games:
        raise UserError(f"{path} holds no games yet")

    def found(i: int, which: str):
        stored, v0, v1 = rows[i]
        a, b = (bot.name for bot in stored.record.bots)
        return stored.record, which, f", played by {a} v{v0} and {b} v{v1}"
    if args.fixture is not None:
        for i, stored in enumerate(games):
            if stored.key == args.fixture:
                return found(i, f"fixture {stored.key}")
        sample = ", ".join(g.key for g in games[:3])
        raise UserError(f"--fixture {args.fixture!r} is not in {path} (keys look like {sample})")
    if not 1 <= args.game <= len(games):
        raise UserError(f"--game must be 1..{len(games)} for {path} (games in league order)")
    return found(args.game - 1, f"game {args.game} of {len(games)}, fixture {games[args.game - 1].key}")


def _record_from_lines(path, args: argparse.Namespace):
    """The record a replay asks for from a JSON record or JSON lines (arena match --save)."""
    from arena.record import GameRecord
    if args.fixture is not None:
        raise UserError("--fixture needs a league store or config; a saved match has --game N")
    try:
        with open(path, encoding="utf-8") as fh:
            lines = [line for line in fh if line.strip()]
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"{path} is neither a league store nor JSON game records") from None
    if not lines:
        raise UserError(f"{path} holds no game record")
    if len(lines) == 1 or lines[0].lstrip().startswith("{") and not lines[0].rstrip().endswith("}"):
        texts = ["".join(lines)]
    else:
        texts = lines
    if not 1 <= args.game <= len(texts):
        raise UserError(f"--game must be 1..{len(texts)} for {path}")
    try:
        return GameRecord.from_json(texts[args.game - 1]), f"game {args.game} of {len(texts)}"
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{path}: not a game record ({exc})") from None


def _pause(step: bool) -> bool:
    """With --step, wait for Enter; False when the person typed q or closed the input."""
    if not step:
        return True
    try:
        return input("[Enter: next move, q: quit] ").strip().lower() not in ("q", "quit")
    except EOFError:
        return False


def cmd_replay(args: argparse.Namespace) -> int:
    store_path = _league_source(args.file)[0]
    if _is_store(store_path):
        record, which, played = _records_from_store(store_path, args)
    else:
        (record, which), played = _record_from_lines(store_path, args), ""
    game = _plugins().games.create(record.game, **record.rule_options)
    state = game.initial_state()
    names = [b.name for b in record.bots]
    print(f"{game.name}: {names[0]} (x) vs {names[1]} (o), seed {record.seed} ({which}){played}")
    if record.opening:
        print(f"opening: {','.join(record.opening_moves())} ({record.opening} plies played "
              "by the referee)")
    print(state.render())
    for ply, move in enumerate(record.moves, 1):
        if not _pause(args.step):
            return 0
        note = f", substituted: {move.substituted}" if move.substituted else ""
        cpu = f", cpu {move.cpu_ms:.1f} ms" if move.cpu_ms is not None else ""
        how = "opening" if ply <= record.opening else f"{move.wall_ms:.1f} ms{cpu}{note}"
        print(f"\nply {ply}: {names[move.seat]} ({'xo'[move.seat]}) plays {move.move} ({how})")
        try:
            state = state.play(game.parse_move(move.move))
        except GameError as exc:
            print(f"  (not played: {exc})")
            break
        print(state.render())
    print(f"\nresult: {_describe(record)}")
    _print_stderr_tail(record)
    return 0


def cmd_openings(args: argparse.Namespace) -> int:
    from arena.openings import OpeningError, format_opening, generate_book, mcts_evaluator, shipped_books
    if args.list:
        for name in shipped_books():
            print(f"book:{name}")
        return 0
    if not args.game or args.plies is None or args.count is None or not args.out:
        raise UserError("give GAME, --plies, --count and --out (or --list for the shipped books)")
    game = _game(args.game, args.rule)
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
    except OpeningError as exc:
        raise UserError(str(exc)) from None
    finally:
        if not args.quiet and sys.stderr.isatty():
            print(file=sys.stderr)
    rules = "".join(f" --rule {k}={v}" for k, v in sorted(args_rules(args).items()))
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


def args_rules(args: argparse.Namespace) -> dict[str, str]:
    """The --rule KEY=VALUE options as given."""
    return dict(item.partition("=")[::2] for item in args.rule)


def _print_stderr_tail(record, lines: int = 10) -> None:
    """The last lines a faulted bot wrote to stderr: usually why it failed."""
    for line in _stderr_tail(record, lines):
        print(line)


def _stderr_tail(record, lines: int = 10) -> list[str]:
    """The lines _print_stderr_tail prints."""
    if record.faulted is None:
        return []
    tail = record.stderr_tails[record.faulted].strip()
    if not tail:
        return []
    return [f"stderr of {record.bots[record.faulted].name} (last lines):",
            *("  " + line for line in tail.splitlines()[-lines:])]


class _Resigned(Exception):
    """The person at the terminal left the game."""


def _move_hint(game, state) -> str:
    """What the prompt asks for: the form of a move and, when few, the legal ones."""
    legal = state.legal_moves()
    grid = state.grid()
    if game.info.move_count == 81 and grid is not None and grid.regions:
        target = grid.target
        if target >= 0:
            return (f"board {target}: type '{target} SQUARE', free squares "
                    f"{' '.join(str(m % 9) for m in legal)}")
        return "any open board: BOARD SQUARE, each 0-8, or a cell 0-80"
    # a cell when moves name the board's squares (tic-tac-toe), else a move (a column, ...)
    what = "a free cell" if grid is not None and len(grid.marks) == game.info.move_count else "a move"
    return f"{what}: {' '.join(map(game.move_text, legal))}"


def _parse_human_move(game, text: str) -> int:
    """A move typed by a person: a cell number, or BOARD SQUARE for a 9x9 game.
    ValueError says what is allowed."""
    words = text.split()
    cells = game.info.move_count
    try:
        numbers = [int(w) for w in words]
    except ValueError:
        numbers = []
    if cells == 81 and len(numbers) == 2:
        board, square = numbers
        if not (0 <= board < 9 and 0 <= square < 9):
            raise ValueError(f"{board} {square} is out of range: board and square are each 0-8")
        return 9 * board + square
    if len(numbers) == 1:
        if not 0 <= numbers[0] < cells:
            more = ", or BOARD SQUARE with each 0-8" if cells == 81 else ""
            raise ValueError(f"{numbers[0]} is out of range: a cell is 0-{cells - 1}{more}")
        return numbers[0]
    try:
        return game.parse_move(text.strip())
    except GameError:
        form = "a cell 0-80, or BOARD SQUARE with each 0-8" if cells == 81 else f"a cell 0-{cells - 1}"
        raise ValueError(f"{text.strip()!r} is not a move: type {form} (q to leave)") from None


def _human_player(game):
    """A LocalPlayer that asks the person at the terminal, re-asking until the move is legal."""
    from arena.games.drawing import draw

    def ask(state, last_move):
        if last_move is not None:
            print(f"\nopponent played {_move_words(game, last_move)}")
        print(draw(state, last_move))
        legal = state.legal_moves()
        while True:
            try:
                text = input(f"your move ({_move_hint(game, state)}): ")
            except EOFError:
                raise _Resigned() from None
            if text.split() in (["q"], ["quit"], ["resign"]):
                raise _Resigned()
            try:
                move = _parse_human_move(game, text)
            except ValueError as exc:
                print(f"  {exc}")
                continue
            if move not in legal:
                try:
                    state.play(move)
                except GameError as exc:
                    print(f"  {exc}")
                continue
            return move
    return ask


def _move_words(game, move: int) -> str:
    """A move as a person reads it: '43 (board 4, square 7)' for a 9x9 game."""
    if game.info.move_count == 81:
        return f"{move} (board {move // 9}, square {move % 9})"
    return game.move_text(move)


def cmd_play(args: argparse.Namespace) -> int:
    from arena.referee import play_game
    game = _game(args.game, args.rule)
    bot = _reading(_bot_for(args.against, game), args)
    from arena.referee import BotSpec
    you = BotSpec(name="you", argv=())
    seats = (you, bot) if args.seat == 0 else (bot, you)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    print(f"{game.info.rules}\nYou are {'xo'[args.seat]} (seat {args.seat}); "
          f"{bot.name} has {args.move_ms} ms a move.")
    try:
        record = play_game(game, seats, seed, _sandbox(args), _settings(args),
                           local={args.seat: _human_player(game)})
    except _Resigned:
        print("\nyou left the game")
        return 0
    from arena.games.drawing import draw
    played = [game.parse_move(m.move) for m in record.moves if m.move.isdigit()]
    final = game.replay(played)
    if record.moves and record.moves[-1].seat != args.seat and played:
        print(f"\nopponent played {_move_words(game, played[-1])}")
    print()
    print(draw(final, played[-1] if played else None))
    print(f"result: {_describe(record)}")
    _print_stderr_tail(record, lines=5)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from arena.league import ConfigError, StoreError, build_leaderboard, render
    from arena.league.runner import load_league, run_league
    plugins = _plugins()
    try:
        config = load_league(args.config, plugins)
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    if args.workers is not None and args.workers < 1:
        raise UserError(f"--workers must be 1 or more, not {args.workers}")
    if args.standings is not None and args.standings < 0:
        raise UserError(f"--standings must be 0 (never) or more games, not {args.standings}")
    from arena.errors import ArenaError
    from arena.league.runner import RunError
    try:
        with _sigterm_as_interrupt():
            summary = run_league(config, plugins, workers=args.workers, keep_going=args.keep_going,
                                 standings=args.standings, new_season=args.new_season)
    except (StoreError, ArenaError) as exc:   # an executor's too (Ray missing or unreachable)
        raise UserError(str(exc)) from None
    except RunError as exc:
        print(f"arena run: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    from arena.league import Store
    from arena.league.leaderboard import with_versions
    with Store(config.store, readonly=True) as store:
        games, versions = store.rated_games(args.all_versions)
        names = None if args.all_versions else [n for n in config.bot_names if n not in store.retired()]
        board = with_versions(build_leaderboard(games, config.rating, names, config.name), versions)
    print(render(board, args.format))
    if config.publish is not None and not summary.interrupted:
        index = _publish(config.store, config.publish, config.rating, config.name)
        print(f"published: {index}", file=sys.stderr)
    return 130 if summary.interrupted else 0


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a run as Ctrl-C does: games stored, workers and bots closed."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _publish(store, out, rating=None, title=None):
    from arena.publish import PublishError, publish_site
    try:
        return publish_site(store, out, rating=rating, title=title)
    except PublishError as exc:
        raise UserError(str(exc)) from None


def cmd_publish(args: argparse.Namespace) -> int:
    store_path, rating, _names, title = _league_source(args.store)
    index = _publish(store_path, args.out, rating=rating, title=args.title or title)
    print(f"published: {index}")
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.league import RatingConfig, Store, build_leaderboard, render
    from arena.league.leaderboard import with_versions
    path = args.source
    store_path, rating, names, title = _league_source(path)
    try:
        with Store(store_path, readonly=True) as store:
            meta = store.meta()
            if rating is None:
                snapshot = json.loads(meta.get("config", "{}"))
                rating = RatingConfig(**snapshot.get("rating", {}))
                names = [b["name"] for b in snapshot.get("bots", [])] or None
                title = meta.get("name", str(path))
            games, versions = store.rated_games(args.all_versions)
            retired = store.retired()
            names = None if args.all_versions or names is None else [n for n in names if n not in retired]
            board = with_versions(build_leaderboard(games, rating, names, title or "", args.anchor),
                                  versions)
    except ValueError as exc:
        if args.anchor is None or "anchor" not in str(exc):
            raise UserError(f"{path} is not a league store or config: {exc}") from None
        raise UserError(f"--anchor: {exc}") from None
    except Exception as exc:  # a file that is not a league store
        if isinstance(exc, (UserError, KeyboardInterrupt)):
            raise
        raise UserError(f"{path} is not a league store or config: {exc}") from None
    print(render(board, args.format, wide=args.wide))
    return 0


def _open_store(source: str, readonly: bool = False):
    """The Store of a league store file or config, or a UserError."""
    from arena.league import Store, StoreError
    store_path = _league_source(source)[0]
    if not _is_store(store_path):
        raise UserError(f"{source} is not a league store or config")
    try:
        return Store(store_path, readonly=readonly)
    except StoreError as exc:
        raise UserError(str(exc)) from None


def _split_bot(text: str) -> tuple[str, int | None]:
    """BOT or BOT@VERSION."""
    name, at, version = text.rpartition("@")
    if not at:
        return text, None
    if not version.isdigit() or int(version) < 1:
        raise UserError(f"{text!r}: a version is BOT@N with N a number from 1 (`arena versions`)")
    return name, int(version)


def cmd_versions(args: argparse.Namespace) -> int:
    with _open_store(args.store, readonly=True) as store:
        infos = store.versions(args.bot)
    if args.bot is not None and not infos:
        raise UserError(f"{args.store} has no bot {args.bot!r}")
    if args.format == "json":
        print(json.dumps([info._asdict() for info in infos], indent=2))
        return 0
    print(f"{'bot':<20} {'version':>7} {'fingerprint':<16} {'games':>6}  {'first seen':<25} "
          f"{'last played':<25} state")
    for info in infos:
        state = ", ".join(w for w, on in (("current", info.current), ("retired", info.retired)) if on)
        print(f"{info.bot:<20} {'v' + str(info.version):>7} {info.fingerprint or '(not yet)':<16} "
              f"{info.games:>6}  {info.first_seen:<25} {info.last_played or '-':<25} {state}")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    bot, version = _split_bot(args.bot)
    with _open_store(args.store) as store:
        infos = [i for i in store.versions(bot) if version is None or i.version == version]
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
        gone = store.forget(bot, version)
    print(f"forgot {what}: {gone} games deleted")
    return 0


def cmd_retire(args: argparse.Namespace) -> int:
    with _open_store(args.store) as store:
        if not store.versions(args.bot):
            raise UserError(f"{args.store} has no bot {args.bot!r} (`arena versions {args.store}` lists them)")
        store.retire(args.bot, not args.undo)
    print(f"{args.bot}: back in the league; the next run plays its games" if args.undo else
          f"{args.bot}: retired; its games stay as history, it plays no new games and leaves "
          f"the leaderboard (--all-versions shows it)")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    try:
        from bots.training import main as train_main
    except ImportError as exc:
        raise UserError(f"training needs the reference bots package: {exc}") from None
    return train_main(args.train_args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena", description="Run bot competitions.")
    parser.add_argument("--version", action="version", version=f"bot-arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help="list the games and their rules")
    p.add_argument("-v", "--verbose", action="store_true", help="full rules and rule options")
    p.set_defaults(func=cmd_games)

    rule_help = "a rule option, KEY=VALUE (repeatable), e.g. tiebreak=boards"
    p = sub.add_parser("run", help="run a league from a YAML config, store it, print the leaderboard")
    p.add_argument("config", help="league config, e.g. tournaments/quickstart.yaml")
    p.add_argument("--workers", type=int, help="parallel games (default: the config's workers)")
    p.add_argument("--keep-going", action="store_true",
                   help="play even if a bot fails to start in the preflight (it loses its games)")
    p.add_argument("--format", choices=("table", "md", "csv", "json"), default="table")
    p.add_argument("--standings", type=int, metavar="N",
                   help="show the top of the table (Elo +-95%%) every N games and at the end, "
                        "on stderr; 0: never (default: whole rounds, about 10 times a run)")
    p.add_argument("--new-season", action="store_true",
                   help="the league's settings changed: start a new season, old games stay as history")
    p.add_argument("--all-versions", action="store_true",
                   help="rate every version of every bot as its own row (NAME@VERSION)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("leaderboard", help="the leaderboard and crosstable of a league")
    p.add_argument("source", metavar="STORE_OR_CONFIG", help="a league store file or its config")
    p.add_argument("--format", choices=("table", "md", "csv", "json"), default="table")
    p.add_argument("--anchor", metavar="BOT", help="the bot whose Elo is 0 (default: mean Elo 0)")
    p.add_argument("--all-versions", action="store_true",
                   help="rate every version of every bot as its own row (NAME@VERSION)")
    p.add_argument("--wide", action="store_true",
                   help="crosstable of win, draw, loss rates (default: a compact score table)")
    p.set_defaults(func=cmd_leaderboard)

    p = sub.add_parser("versions", help="the versions of a league's bots: games, when, fingerprint")
    p.add_argument("store", metavar="STORE_OR_CONFIG")
    p.add_argument("bot", nargs="?", help="only this bot")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_versions)

    p = sub.add_parser("forget", help="delete a bot's games from a store (one version, or all)")
    p.add_argument("store", metavar="STORE_OR_CONFIG")
    p.add_argument("bot", metavar="BOT[@VERSION]")
    p.add_argument("--yes", action="store_true", help="do not ask")
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("retire", help="retire a bot: its games stay as history, it plays no more")
    p.add_argument("store", metavar="STORE_OR_CONFIG")
    p.add_argument("bot")
    p.add_argument("--undo", action="store_true", help="bring a retired bot back")
    p.set_defaults(func=cmd_retire)

    p = sub.add_parser("train", help="learn evaluation weights by TD learning, as the papers did",
                       add_help=False)
    p.add_argument("train_args", nargs=argparse.REMAINDER, help="see `arena train --help`")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("publish", help="write a league as a static web site")
    p.add_argument("store", metavar="STORE_OR_CONFIG",
                   help="a league store (results/NAME.sqlite) or its config")
    p.add_argument("--out", required=True, help="directory to write the site into")
    p.add_argument("--title", help="page title (default: the league name)")
    p.set_defaults(func=cmd_publish)

    p = sub.add_parser("bots", help="list the registered bots, their games and options")
    p.add_argument("--game", help="only bots that play this game")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_bots)

    p = sub.add_parser("plugins", help="list the loaded plugins and their versions")
    p.set_defaults(func=cmd_plugins)

    p = sub.add_parser("perft", help="count move sequences of a given length (engine check)")
    p.add_argument("game")
    p.add_argument("depth", type=int)
    p.add_argument("--moves", help="comma-separated moves to play first, e.g. 40,36")
    p.add_argument("--divide", action="store_true", help="also print the count below each move")
    p.add_argument("--rule", action="append", default=[], help=rule_help)
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("random-game", help="play and print a random game")
    p.add_argument("game")
    p.add_argument("--seed", type=int)
    p.add_argument("--quiet", action="store_true", help="print only the moves and the result")
    p.add_argument("--rule", action="append", default=[], help=rule_help)
    p.set_defaults(func=cmd_random_game)

    p = sub.add_parser("match", help="play games between two bots in the sandboxed referee")
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
    p.add_argument("--store", metavar="FILE",
                   help="store every game in this SQLite file; the same command again resumes")
    p.add_argument("--status-every", type=int, metavar="N",
                   help="into a pipe, the status line every N games (default 10); shown with "
                        "--sprt, --store or --concurrency, or when given")
    p.add_argument("--json", action="store_true",
                   help="one JSON game record per line, then a {\"summary\": ...} record")
    p.add_argument("--save", metavar="FILE", help="also write the records (JSON lines) to FILE")
    p.add_argument("--openings", default="none", metavar="SPEC",
                   help="where each pair of games starts: none (the empty board), random:N "
                        "(N random plies from the pair's seed), book:NAME (shipped) or a book "
                        "FILE; docs/openings.md")
    p.add_argument("--openings-order", choices=("sequential", "random"), default="sequential",
                   help="a book's order: as written, or shuffled by --seed")
    _add_referee_options(p, rule_help)
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("play", help="play a game yourself against a bot, in the terminal")
    p.add_argument("game")
    p.add_argument("--against", required=True, help="a registered bot name or DIALECT:COMMAND")
    p.add_argument("--seat", type=int, choices=(0, 1), default=0, help="0: you move first (x)")
    p.add_argument("--seed", type=int)
    _add_referee_options(p, rule_help)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("openings", help="make a book of balanced openings (or list the shipped ones)")
    p.add_argument("game", nargs="?")
    p.add_argument("--plies", type=int, help="moves in each opening")
    p.add_argument("--count", type=int, help="openings to keep")
    p.add_argument("--out", metavar="FILE", help="the book file to write")
    p.add_argument("--seed", type=int, default=0, help="fixes the book (default 0)")
    p.add_argument("--simulations", type=int, default=2000,
                   help="MCTS simulations that judge each opening (default 2000)")
    p.add_argument("--band", type=float, default=0.1,
                   help="keep openings whose x score is within BAND of 0.5 (default 0.1; 0.5 keeps all)")
    p.add_argument("--rule", action="append", default=[], help=rule_help)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--list", action="store_true", help="list the books shipped with arena")
    p.set_defaults(func=cmd_openings)

    p = sub.add_parser("replay", help="show a recorded game move by move")
    p.add_argument("file", metavar="SOURCE",
                   help="a league store or its config, or JSON game records (arena match --save)")
    p.add_argument("--game", type=int, default=1,
                   help="which game: its number in league order, or in a JSON-lines file")
    p.add_argument("--fixture", metavar="KEY", help="a league's game by fixture key, e.g. 'a|b|0|1'")
    p.add_argument("--step", action="store_true", help="wait for Enter before each move")
    p.set_defaults(func=cmd_replay)
    return parser


def _add_referee_options(p: argparse.ArgumentParser, rule_help: str) -> None:
    p.add_argument("--rule", action="append", default=[], help=rule_help)
    p.add_argument("--move-ms", type=int, default=1000, help="time per move (ms)")
    p.add_argument("--startup-ms", type=int, default=5000, help="time to start and handshake (ms)")
    p.add_argument("--bank-ms", type=int, default=0, help="time bank usable on any move (ms)")
    p.add_argument("--increment-ms", type=int, default=0, help="added to the bank after each move")
    p.add_argument("--overhead-ms", type=int, default=50, help="transport allowance per move (ms)")
    p.add_argument("--timeouts", default="forfeit",
                   help="'forfeit' (a late move loses) or 'strikes:N' (N late moves are replaced "
                        "by a random legal move)")
    p.add_argument("--sandbox", default="auto", choices=("auto", "bwrap", "unshare", "none"))
    p.add_argument("--memory-mb", type=int, default=1024, help="memory limit per bot (MiB)")
    p.add_argument("--read", action="append", default=[], metavar="PATH",
                   help="a file or directory the bots may read, read-only (repeatable); a bot "
                        "reads its program's directory and the files its command names anyway")


def _closed_pipe() -> int:
    """The reader of stdout went away (`arena ... | head`): stop quietly, as other tools do."""
    # point stdout at /dev/null so the interpreter's final flush does not fail again
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141  # what a shell reports for a process killed by SIGPIPE (128 + 13)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the arena command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv[:1] == ["train"]:
        # training has its own parser: hand it everything, --help and other flags included
        # (argparse's REMAINDER does not take arguments that start with '-')
        args = argparse.Namespace(command="train", func=cmd_train, train_args=argv[1:])
    else:
        args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.func
    try:
        code = handler(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _closed_pipe()
    except (UserError, GameError) as exc:
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"arena {args.command}: interrupted", file=sys.stderr)
        return 130
