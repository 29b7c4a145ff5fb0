"""The arena command. Thin: parses arguments, calls the library, and is the one
place where user errors become a one-line message and a non-zero exit."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from arena import __version__
from arena.games import GameError

from .common import EXIT_USAGE, RULE_HELP, UserError, add_referee_options
from .games import cmd_games, cmd_perft, cmd_random_game
from .league import cmd_forget, cmd_leaderboard, cmd_retire, cmd_run, cmd_versions
from .matches import cmd_match, cmd_openings
from .play import cmd_play, cmd_replay
from .plugins import cmd_bots, cmd_plugins
from .publish import cmd_publish
from .train import cmd_train


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena", description="Run bot competitions.")
    parser.add_argument("--version", action="version", version=f"bot-arena {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help="list the games and their rules")
    p.add_argument("-v", "--verbose", action="store_true", help="full rules and rule options")
    p.set_defaults(func=cmd_games)

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
    p.add_argument("--rule", action="append", default=[], help=RULE_HELP)
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("random-game", help="play and print a random game")
    p.add_argument("game")
    p.add_argument("--seed", type=int)
    p.add_argument("--quiet", action="store_true", help="print only the moves and the result")
    p.add_argument("--rule", action="append", default=[], help=RULE_HELP)
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
    add_referee_options(p)
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("play", help="play a game yourself against a bot, in the terminal")
    p.add_argument("game")
    p.add_argument("--against", required=True, help="a registered bot name or DIALECT:COMMAND")
    p.add_argument("--seat", type=int, choices=(0, 1), default=0, help="0: you move first (x)")
    p.add_argument("--seed", type=int)
    add_referee_options(p)
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
    p.add_argument("--rule", action="append", default=[], help=RULE_HELP)
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
