"""arena train: the reference bots' TD learning, which has its own parser."""

from __future__ import annotations

import argparse

from .common import UserError


def cmd_train(args: argparse.Namespace) -> int:
    try:
        from bots.training import main as train_main
    except ImportError as exc:
        raise UserError(f"training needs the reference bots package: {exc}") from None
    return train_main(args.train_args)
