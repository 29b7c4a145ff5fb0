"""The arena command. Thin: parses arguments, calls the library, and is the one
place where user errors become a one-line message and a non-zero exit.

Every subcommand is a Command that a plugin registers (arena's own through the
default plugin arena.cli.builtin); main() builds the parser from the loaded registry.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import signal
import sys
from collections.abc import Sequence

from arena import __version__
from arena.errors import ArenaError

from .command import Command
from .common import EXIT_USAGE, UserError, loaded

EXIT_INTERRUPTED = 130   #: stopped by Ctrl-C or SIGTERM (128 + SIGINT), as shells report it
EXIT_CLOSED_PIPE = 141   #: the reader of stdout went away (128 + SIGPIPE)


def commands() -> dict[str, Command]:
    """The subcommands the loaded plugins registered, by name, in registration order (the
    registry refuses, and the loading reports, an entry that is not a Command)."""
    return dict(loaded().commands.items())


class _CommandParser(argparse.ArgumentParser):
    """A command's parser that takes its options among its positionals in any order:
    `arena submit URL --token T --name BOT PATH --command CMD` (plain argparse takes an
    optional positional with the one before it, URL, and calls PATH unrecognized)."""

    _parsing = False

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        if self._parsing or any(action.nargs in (argparse.REMAINDER, argparse.PARSER)
                                for action in self._actions):
            # parse_known_intermixed_args calls back here, twice; and it cannot take a
            # command's remainder (arena train passes its own on)
            return super().parse_known_args(args, namespace)
        self._parsing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._parsing = False


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The arena parser with every registered command; with only, the arguments of that
    command alone are added (the others are listed by name and help)."""
    parser = argparse.ArgumentParser(prog="arena", description="Run bot competitions.")
    parser.add_argument("--version", action="version", version=f"bot-arena {__version__}")
    sub = parser.add_subparsers(dest="arena_command", required=True, metavar="COMMAND",
                                parser_class=_CommandParser)
    for name, command in commands().items():
        p = sub.add_parser(name, help=command.help, description=command.description or None)
        if only is None or only == name:
            command.add_arguments(p)
        p.set_defaults(arena_run=command.run)
    return parser


def _closed_pipe() -> int:
    """The reader of stdout went away (`arena ... | head`): stop quietly, as other tools do."""
    # point stdout at /dev/null so the interpreter's final flush does not fail again
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_PIPE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the arena command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    _stacks_on_sigusr1()
    # only the command that runs adds its arguments: a plugin's may import what it needs
    # (none when no command is named: `arena --version` and `arena --help` import no command's code)
    parser = build_parser(only=next((a for a in argv if not a.startswith("-")), ""))
    args = parser.parse_args(argv)
    try:
        code = args.arena_run(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _closed_pipe()
    except ArenaError as exc:   # "arena said no": one line; anything else is a bug, with its traceback
        print(f"arena {args.arena_command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"arena {args.arena_command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _stacks_on_sigusr1() -> None:
    """kill -USR1 PID: every thread's stack on stderr, and the command goes on. Not where
    stderr is no file (arena called from Python with stderr captured)."""
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (AttributeError, ValueError, OSError):   # no SIGUSR1, or stderr has no fd
        pass


__all__ = ["Command", "UserError", "build_parser", "commands", "main"]
