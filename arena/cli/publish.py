"""arena publish: a league as a static web site."""

from __future__ import annotations

import argparse

from .common import UserError, league_source


def publish(store, out, rating=None, title=None):
    from arena.publish import PublishError, publish_site
    try:
        return publish_site(store, out, rating=rating, title=title)
    except PublishError as exc:
        raise UserError(str(exc)) from None


def cmd_publish(args: argparse.Namespace) -> int:
    store_path, rating, _names, title = league_source(args.store)
    index = publish(store_path, args.out, rating=rating, title=args.title or title)
    print(f"published: {index}")
    return 0
