"""arena games, perft and random-game: the rules engines, without bots."""

from __future__ import annotations

import argparse
import random
import sqlite3
from collections.abc import Iterable

from arena.games import SIMULTANEOUS, Game, GameInfo, joint_moves, perft, random_game, random_turns

from .command import Command
from .common import RULE_HELP, UserError, league_source, loaded, make_game, parse_moves


def cmd_games(args: argparse.Namespace) -> int:
    if args.league is not None:
        return _league_game(args)
    registry = loaded().games
    width = max(len(n) for n in registry.names())
    for name in registry.names():
        info = registry.require(name).info
        print(f"{name:<{width}}  {info.summary}")
        if args.verbose:
            _print_rules(info, width)
    return 0


def _print_rules(info: GameInfo, width: int) -> None:
    """The rules in words (each rule set's, where the game has several) and the options."""
    pad = f"{'':<{width}}  "
    if info.rulesets:
        for ruleset, text in info.rulesets:
            print(f"{pad}rule set {ruleset}: {text}")
    else:
        print(f"{pad}{info.rules}")
    if info.simultaneous:
        by = f" (rule set {info.rulesets[0][0]})" if info.rulesets else ""
        print(f"{pad}seats move at once{by}: a turn is one move from each seat still in")
    for opt in info.options:
        choices = opt.allowed() if isinstance(opt.choices, range) else " | ".join(map(str, opt.choices))
        print(f"{pad}option {opt.name}: {choices} (default {opt.default}) - {opt.help}")


def _league_game(args: argparse.Namespace) -> int:
    """arena games LEAGUE: the league's game, the rule options it plays by (its rule set
    named, where the game has several) and, with -v, those rules in words."""
    import json
    from pathlib import Path

    path = Path(args.league)
    referee = None
    if path.suffix in (".yaml", ".yml"):
        from arena.league.runner import load_league
        config = load_league(str(path), loaded())
        name, rules = config.game, dict(config.rules)
        referee = config.referee.identity() if config.referee is not None else None
    else:
        store_path = league_source(args.league)[0]
        from arena.league import Store, StoreError
        try:
            with Store(store_path, readonly=True) as store:
                meta = store.league.meta()
            name, rules = meta["game"], json.loads(meta.get("rules") or "{}")
            referee = json.loads(meta["referee"]) if "referee" in meta else None
        except (StoreError, KeyError, ValueError, sqlite3.Error) as exc:
            raise UserError(f"{path} is not a league store or config: {exc}") from None
    if referee is not None:    # played by a referee process: its rules are its own (docs/referees.md)
        seeded = "takes a seed" if referee["seed"] else "takes no seed"
        print(f"{path}: {name} (played by its referee process `{referee['command']}`, {referee['players']} "
              f"players, the {referee['protocol']} protocol; it {seeded}"
              + (f"; fingerprint {referee['fingerprint']}" if referee.get("fingerprint") else "") + ")")
        return 0
    game = loaded().games.create(name, **rules)
    info = game.info
    chosen = {opt.name: game.options.get(opt.name, opt.default) for opt in info.options}
    said = ", ".join(f"{key}={value}" for key, value in chosen.items())
    print(f"{path}: {name} ({said})")
    ruleset = dict(info.rulesets).get(str(chosen.get("ruleset")))
    if info.rulesets and ruleset is not None:
        print(f"rule set {chosen['ruleset']}" + (f": {ruleset}" if args.verbose else ""))
    elif args.verbose:
        print(info.rules)
    return 0


def joint_text(game: Game, moves: Iterable[int]) -> str:
    """A turn's joint move as text: the movers' moves joined by '+', as u+l."""
    return "+".join(game.move_text(m) for m in moves)


def parse_turns(game: Game, text: str | None) -> list[list[int]]:
    """Turns written "u+l,d+r" (--moves of a simultaneous game): each the movers' moves."""
    return [[game.parse_move(move) for move in turn.split("+")]
            for turn in (text or "").replace(" ", "").split(",") if turn]


def cmd_perft(args: argparse.Namespace) -> int:
    game = make_game(args.game, args.rule)
    if args.depth < 0:
        raise UserError(f"depth must be 0 or more, not {args.depth}")
    if game.info.by_turn:
        state = game.replay_joint(parse_turns(game, args.moves))
        if args.divide and args.depth >= 1 and state.to_move == SIMULTANEOUS:
            for moves in joint_moves(state):
                print(f"{joint_text(game, moves)}: {perft(state.play_joint(moves), args.depth - 1)}")
        print(perft(state, args.depth))
        return 0
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
    if game.info.by_turn:
        return _random_turns(game, seed, args.quiet)
    moves = random_game(game, random.Random(seed))
    print(f"{game.name}, seed {seed}")
    for ply, move in enumerate(moves, 1):
        seat = state.to_move
        state = state.play(move)
        if not args.quiet:
            print(f"\nply {ply}: {game.info.seat_names[seat]} plays {game.move_text(move)}")
            print(state.render())
    result = "draw" if state.winner is None else f"{game.info.seat_names[state.winner]} (seat {state.winner}) wins"
    print(f"\nmoves: {','.join(game.move_text(m) for m in moves)}")
    print(f"result: {result} after {len(moves)} move{'s' * (len(moves) != 1)}")
    return 0


def _random_turns(game: Game, seed: int, quiet: bool) -> int:
    """random-game for a game whose moves go by turns: each turn's joint move (in rounds, each
    move a turn of its own), the ranking; the start is the seed's (Game.start)."""
    state = game.start(seed)
    turns = random_turns(game, random.Random(seed), state)
    print(f"{game.name}, seed {seed}")
    for number, moves in enumerate(turns, 1):
        movers = state.movers()
        state = state.play_joint(moves)
        if not quiet:
            print(f"\nturn {number}: " + ", ".join(f"seat {seat} plays {game.move_text(move)}"
                                                   for seat, move in zip(movers, moves)))
            print(state.render())
    print(f"\nmoves: {','.join(joint_text(game, moves) for moves in turns)}")
    print(f"result: ranks {' '.join(str(r + 1) for r in state.ranking())} (seat 0 first) "
          f"after {len(turns)} turn{'s' * (len(turns) != 1)}")
    return 0


def _games_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-v", "--verbose", action="store_true", help="full rules and rule options")
    p.add_argument("league", nargs="?", help="a league's config or store: its game, the rule options (and "
                   "rule set) it plays by")


def _perft_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game")
    p.add_argument("depth", type=int)
    p.add_argument("--moves", help="comma-separated moves to play first, e.g. 40,36; where seats "
                   "move at once, turns of the movers' moves joined by '+', e.g. u+d,l+r")
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
