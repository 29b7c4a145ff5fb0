"""The arena command. Thin: parses arguments, calls the library, and is the one
place where user errors become a one-line message and a non-zero exit."""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import signal
import sys
from collections.abc import Callable, Iterator, Sequence

from arena import __version__
from arena.games import GameError, default_registry, perft, random_game

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
    return default_registry().create(name, **options)


def cmd_games(args: argparse.Namespace) -> int:
    registry = default_registry()
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


_PLUGINS = None


def _plugins():
    """Plugins, loaded once per command; load failures are reported, not fatal."""
    global _PLUGINS
    if _PLUGINS is None:
        from arena.plugins import load_plugins
        _PLUGINS = load_plugins()
        for error in _PLUGINS.errors:
            print(f"arena: WARNING: {error}", file=sys.stderr)
    return _PLUGINS


def _registered_bot(name: str):
    """BotSpec for a bot a plugin registered, or None."""
    from arena.plugins import registered_bot_spec
    return registered_bot_spec(name, _plugins())


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
    for name, version in sorted(plugins.versions.items()):
        print(f"{name}  {version}  ({counts.get(name, 0)} bots)")
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


def cmd_match(args: argparse.Namespace) -> int:
    from arena.match import play_match, tally
    from arena.referee.botspec import BotSpecError, resolve_bot
    game = _game(args.game, args.rule)
    try:
        a = resolve_bot(args.a, _registered_bot)
        b = resolve_bot(args.b, _registered_bot)
    except BotSpecError as exc:
        raise UserError(str(exc)) from None
    if args.games < 1:
        raise UserError(f"--games must be 1 or more, not {args.games}")
    settings = _settings(args)
    sandbox = _sandbox(args)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    records = []
    out_file = open(args.save, "w") if args.save else None
    try:
        for i, record in enumerate(play_match(game, a, b, args.games, seed, sandbox, settings), 1):
            records.append(record)
            if out_file:
                out_file.write(record.to_json() + "\n")
                out_file.flush()
            if args.json:
                print(json.dumps(record.to_dict()), flush=True)
            else:
                print(f"game {i}: {_describe(record)}", flush=True)
    finally:
        if out_file:
            out_file.close()
    if not args.json:
        names = (records[0].bots[0].name, records[0].bots[1].name)
        for name, (w, d, l) in tally(records, names).items():
            print(f"{name}: {w} wins, {d} draws, {l} losses")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from arena.record import GameRecord
    try:
        with open(args.file) as fh:
            lines = [line for line in fh if line.strip()]
    except OSError as exc:
        raise UserError(f"cannot read {args.file}: {exc.strerror}") from None
    if not lines:
        raise UserError(f"{args.file} holds no game record")
    if len(lines) == 1 or lines[0].lstrip().startswith("{") and not lines[0].rstrip().endswith("}"):
        texts = ["".join(lines)]
    else:
        texts = lines
    if not 1 <= args.game <= len(texts):
        raise UserError(f"--game must be 1..{len(texts)} for {args.file}")
    try:
        record = GameRecord.from_json(texts[args.game - 1])
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{args.file}: not a game record ({exc})") from None
    game = default_registry().create(record.game, **record.rule_options)
    state = game.initial_state()
    names = [b.name for b in record.bots]
    print(f"{game.name}: {names[0]} (x) vs {names[1]} (o), seed {record.seed}")
    print(state.render())
    for ply, move in enumerate(record.moves, 1):
        note = f", substituted: {move.substituted}" if move.substituted else ""
        cpu = f", cpu {move.cpu_ms:.1f} ms" if move.cpu_ms is not None else ""
        print(f"\nply {ply}: {names[move.seat]} ({'xo'[move.seat]}) plays {move.move}"
              f" ({move.wall_ms:.1f} ms{cpu}{note})")
        try:
            state = state.play(game.parse_move(move.move))
        except GameError as exc:
            print(f"  (not played: {exc})")
            break
        print(state.render())
    print(f"\nresult: {_describe(record)}")
    if record.faulted is not None:
        tail = record.stderr_tails[record.faulted].strip()
        if tail:
            print(f"stderr of {names[record.faulted]} (last lines):")
            print("\n".join("  " + line for line in tail.splitlines()[-10:]))
    return 0


class _Resigned(Exception):
    """The person at the terminal left the game."""


def _human_player(game):
    """A LocalPlayer that asks the person at the terminal, re-asking until the move is legal."""
    def ask(state, last_move):
        if last_move is not None:
            print(f"\nopponent played {game.move_text(last_move)}")
        print(state.render())
        legal = state.legal_moves()
        hint = "a cell number" if game.info.move_count == 9 else "a cell number, or BOARD SQUARE"
        while True:
            try:
                text = input(f"your move ({hint}; legal: {' '.join(map(game.move_text, legal))}): ")
            except EOFError:
                raise _Resigned() from None
            words = text.split()
            if words in (["q"], ["quit"], ["resign"]):
                raise _Resigned()
            try:
                if len(words) == 2 and game.info.move_count == 81:
                    board, square = (int(w) for w in words)
                    if not (0 <= board < 9 and 0 <= square < 9):
                        raise ValueError
                    move = 9 * board + square
                else:
                    move = game.parse_move(text)
            except (GameError, ValueError):
                print(f"  {text.strip()!r} is not a move: type {hint}")
                continue
            if move not in legal:
                try:
                    state.play(move)
                except GameError as exc:
                    print(f"  {exc}")
                continue
            return move
    return ask


def cmd_play(args: argparse.Namespace) -> int:
    from arena.referee import play_game
    from arena.referee.botspec import BotSpecError, resolve_bot
    game = _game(args.game, args.rule)
    try:
        bot = resolve_bot(args.against, _registered_bot)
    except BotSpecError as exc:
        raise UserError(str(exc)) from None
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
    final = game.replay([game.parse_move(m.move) for m in record.moves if m.move.isdigit()])
    print()
    print(final.render())
    print(f"result: {_describe(record)}")
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
    from arena.league.ray_executor import RayExecutorError
    from arena.league.runner import RunError
    try:
        with _sigterm_as_interrupt():
            summary = run_league(config, plugins, workers=args.workers, keep_going=args.keep_going)
    except (StoreError, RayExecutorError) as exc:
        raise UserError(str(exc)) from None
    except RunError as exc:
        print(f"arena run: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    from arena.league import Store
    with Store(config.store, readonly=True) as store:
        board = build_leaderboard(store.records(), config.rating, config.bot_names, config.name)
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
    index = _publish(args.store, args.out, title=args.title)
    print(f"published: {index}")
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.league import ConfigError, RatingConfig, Store, build_leaderboard, render
    from pathlib import Path
    path = Path(args.source)
    if not path.exists():
        raise UserError(f"{path} does not exist")
    if path.suffix in (".yaml", ".yml"):
        from arena.league.runner import load_league
        try:
            config = load_league(str(path), _plugins())
        except ConfigError as exc:
            raise UserError(str(exc)) from None
        store_path, rating, names, title = config.store, config.rating, config.bot_names, config.name
        if not store_path.exists():
            raise UserError(f"{store_path} does not exist yet: run `arena run {path}` first")
    else:
        store_path, rating, names, title = path, None, None, None
    try:
        with Store(store_path, readonly=True) as store:
            meta = store.meta()
            if rating is None:
                snapshot = json.loads(meta.get("config", "{}"))
                rating = RatingConfig(**snapshot.get("rating", {}))
                names = [b["name"] for b in snapshot.get("bots", [])] or None
                title = meta.get("name", str(path))
            board = build_leaderboard(store.records(), rating, names, title)
    except Exception as exc:  # a file that is not a league store
        if isinstance(exc, (UserError, KeyboardInterrupt)):
            raise
        raise UserError(f"{path} is not a league store or config: {exc}") from None
    print(render(board, args.format))
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
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("leaderboard", help="the leaderboard and crosstable of a league")
    p.add_argument("source", metavar="STORE_OR_CONFIG", help="a league store file or its config")
    p.add_argument("--format", choices=("table", "md", "csv", "json"), default="table")
    p.set_defaults(func=cmd_leaderboard)

    p = sub.add_parser("train", help="learn evaluation weights by TD learning, as the papers did",
                       add_help=False)
    p.add_argument("train_args", nargs=argparse.REMAINDER, help="see `arena train --help`")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("publish", help="write a league as a static web site")
    p.add_argument("store", help="a league store file (results/NAME.sqlite)")
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
    p.add_argument("a", help="bot A: a registered name or DIALECT:COMMAND, e.g. 'arena:./mybot'")
    p.add_argument("b", help="bot B, as A")
    p.add_argument("--game", required=True)
    p.add_argument("--games", type=int, default=1, help="number of games; seats alternate")
    p.add_argument("--seed", type=int, help="seed of the first game pair (default: random)")
    p.add_argument("--json", action="store_true", help="one JSON game record per line")
    p.add_argument("--save", metavar="FILE", help="also write the records (JSON lines) to FILE")
    _add_referee_options(p, rule_help)
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("play", help="play a game yourself against a bot, in the terminal")
    p.add_argument("game")
    p.add_argument("--against", required=True, help="a registered bot name or DIALECT:COMMAND")
    p.add_argument("--seat", type=int, choices=(0, 1), default=0, help="0: you move first (x)")
    p.add_argument("--seed", type=int)
    _add_referee_options(p, rule_help)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("replay", help="show a recorded game move by move")
    p.add_argument("file", help="a JSON game record, or JSON lines of records (from --save)")
    p.add_argument("--game", type=int, default=1, help="which record in a JSON-lines file")
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
        return handler(args)
    except (UserError, GameError) as exc:
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"arena {args.command}: interrupted", file=sys.stderr)
        return 130
