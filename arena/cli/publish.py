"""arena publish: a league as a static web site."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .command import Command
from .common import add_rating_option, league_source, loaded, path_argument, rating_system_from

if TYPE_CHECKING:
    from arena.games import Game
    from arena.league.config import RatingConfig
    from arena.league.rating_systems import RatingSystem
    from arena.registry import Registry


def publish(store: str | os.PathLike[str], out: str | os.PathLike[str], rating: RatingConfig | None = None,
            title: str | None = None, system: RatingSystem | None = None, command: str = "publish",
            registry: Registry[type[Game]] | None = None) -> Path:
    """Write the site of a league store, rated by system (default: the league's), its games
    replayed by registry's rules (default: the loaded plugins'); the index page's path.
    Damage outside what the site reads is said on stderr."""
    from arena.league.storefile import damage_warning
    from arena.publish import publish_site

    def warn(path: Path, damage: str) -> None:
        print(f"arena {command}: warning: {damage_warning(path, damage)}", file=sys.stderr)
    return publish_site(store, out, rating=rating, title=title, system=system, warn=warn,
                        registry=registry)


def cmd_publish(args: argparse.Namespace) -> int:
    store_path, rating, _names, title = league_source(args.store)
    index = publish(store_path, args.out, rating=rating, title=args.title or title,
                    system=rating_system_from(args), registry=loaded().games)
    print(f"published: {index}")
    return 0


def _publish_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("store", metavar="STORE_OR_CONFIG", type=path_argument,
                   help="a league store (results/NAME.sqlite) or its config")
    p.add_argument("--out", required=True, type=path_argument, help="directory to write the site into")
    p.add_argument("--title", help="page title (default: the league name)")
    add_rating_option(p)


COMMANDS = (
    Command("publish", "write a league as a static web site", cmd_publish, _publish_arguments),
)
