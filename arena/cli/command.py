"""A subcommand of `arena`, as a plugin registers it through arena_register_commands."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


def no_arguments(parser: argparse.ArgumentParser) -> None:
    """For a command that takes no arguments."""


@dataclass(frozen=True)
class Command:
    """`arena NAME`: its one-line help, the arguments it takes and what it does.

    add_arguments fills the command's own argparse parser (it is called only when the
    command runs or shows its help, so it may import what it needs); run gets the parsed
    arguments and returns the exit code. An arena.errors.ArenaError raised by run is
    printed as one line, `arena NAME: error: ...`, with exit code 2."""

    name: str
    help: str
    run: Callable[[argparse.Namespace], int]
    add_arguments: Callable[[argparse.ArgumentParser], None] = no_arguments
    description: str = ""     #: shown by `arena NAME --help` (default: help)
