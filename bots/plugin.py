"""The reference agents and `arena train`, declared as an arena plugin exactly like a
third-party one.

This module only declares: the bots of bots.catalog, and the train command. Agent code
is imported only inside the bot's sandboxed process (arena.sdk), training code only
when `arena train` runs.
"""

import argparse

from arena.cli import Command
from arena.hooks import hookimpl
from arena.registry import Registry

from .catalog import BOTS


@hookimpl
def arena_register_bots(registry):
    """Declare the reference agents of the seeds, plus MCTS and random."""
    for declaration in BOTS:
        registry.add(declaration)


def _train_arguments(parser: argparse.ArgumentParser) -> None:
    from bots.training import add_arguments  # only when `arena train` runs: it builds tables
    add_arguments(parser)


def _train(args: argparse.Namespace) -> int:
    from bots.training import run
    return run(args)


TRAIN = Command(
    name="train", help="learn evaluation weights by TD learning, as the papers did",
    description=("Learn evaluation weights by TD learning, as the papers did (in-process, never a "
                 "rated game). Same arguments, same output file."),
    run=_train, add_arguments=_train_arguments)


@hookimpl
def arena_register_commands(registry: Registry) -> None:
    """`arena train`: the seeds' TD learning of the reference agents' weights."""
    registry.add(TRAIN.name, TRAIN)
