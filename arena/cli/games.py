"""arena games, perft and random-game: the rules engines, without bots."""

from __future__ import annotations

import argparse
import random

from arena.games import perft, random_game

from .command import Command
from .common import RULE_HELP, UserError, loaded, make_game, parse_moves


def cmd_games(args: argparse.Namespace) -> int:
    registry = loaded().games
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
    game = make_game(args.game, args.rule)
    if args.depth < 0:
        raise UserError(f"depth must be 0 or more, not {args.depth}")
    state = game.replay(parse_moves(game, args.moves))
    if args.divide and args.depth >= 1:
        for move in state.legal_moves():
            print(f"{game.move_text(move)}: {perft(state.play(move), args.depth - 1)}")
    print(perft(state, args.depth))
    return 0


def cmd_random_game(args: argparse.Namespace) -> int:
    game = make_game(args.game, args.rule)
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


def _games_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-v", "--verbose", action="store_true", help="full rules and rule options")


def _perft_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game")
    p.add_argument("depth", type=int)
    p.add_argument("--moves", help="comma-separated moves to play first, e.g. 40,36")
    p.add_argument("--divide", action="store_true", help="also print the count below each move")
    p.add_argument("--rule", action="append", default=[], help=RULE_HELP)


def _random_game_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game")
    p.add_argument("--seed", type=int)
    p.add_argument("--quiet", action="store_true", help="print only the moves and the result")
    p.add_argument("--rule", action="append", default=[], help=RULE_HELP)


COMMANDS = (
    Command("games", "list the games and their rules", cmd_games, _games_arguments),
    Command("perft", "count move sequences of a given length (engine check)", cmd_perft, _perft_arguments),
    Command("random-game", "play and print a random game", cmd_random_game, _random_game_arguments),
)
