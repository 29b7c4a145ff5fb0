"""The arena command. Thin: parses arguments, calls the library, and is the one
place where user errors become a one-line message and a non-zero exit."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence

from arena import __version__
from arena.games import GameError, default_registry, perft, random_game

EXIT_USAGE = 2


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena", description="Run bot competitions.")
    parser.add_argument("--version", action="version", version=f"bot-arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help="list the games and their rules")
    p.add_argument("-v", "--verbose", action="store_true", help="full rules and rule options")
    p.set_defaults(func=cmd_games)

    rule_help = "a rule option, KEY=VALUE (repeatable), e.g. tiebreak=boards"
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the arena command; returns the exit code."""
    parser = build_parser()
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
