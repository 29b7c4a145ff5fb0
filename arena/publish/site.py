"""Writes the static site: pages, assets and data files, swapped into place at the end.

The site is built in a fresh directory beside the output and renamed into place,
so a web server serving the output never shows half a site, and a failed publish
leaves the previous site as it was. A directory that arena did not write is never
replaced: the marker file says which are ours.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterable
from importlib import resources
from itertools import chain
from pathlib import Path

from arena.errors import ArenaError
from arena.games import Game
from arena.league import RatingConfig, RatingSystem, Store, StoreError
from arena.league.sight import inside
from arena.registry import Registry

from .data import (
    LeagueData,
    check_rules,
    fault_pages,
    league_json,
    list_pages,
    load_league,
    move_chunks,
    transcript_pages,
)
from .pages import all_pages

#: the static files copied from arena/publish/assets into the site's assets/: the games list
#: (gamelist.js, its rows games.js) and the replay viewer (viewer.js, by move replay.js)
ASSETS = ("style.css", "arena.js", "gamelist.js", "games.js", "viewer.js", "replay.js", "bot.js")
#: the replay viewer of a game whose seats move at once, copied only into such a league's site
TURN_ASSETS = ("turns.js",)
#: the games list of games of more than two seats, copied only into such a league's site
SEAT_ASSETS = ("seats.js",)
#: the replay viewer of a game played by a referee process (its transcript), copied only into
#: such a league's site
TRANSCRIPT_ASSETS = ("transcript.js",)
MARKER = ".arena-site"


class PublishError(ArenaError, RuntimeError):
    """A site that cannot be published: a missing or unusable store, or an output in the way."""


def publish_site(store_path: str | os.PathLike[str], out_dir: str | os.PathLike[str], *,
                 rating: RatingConfig | None = None, title: str | None = None,
                 system: RatingSystem | None = None,
                 warn: Callable[[Path, str], None] | None = None,
                 registry: Registry[type[Game]] | None = None) -> Path:
    """Write the static site of a league store into out_dir, rated by system (by default the
    one the rating settings name); returns the path of its index.html. A store damaged in
    what the site shows is refused; damage elsewhere (the runs' own tables) is told to
    warn (the store's path, what is damaged). registry: the games its records are
    replayed and checked by (by default the loaded plugins')."""
    store_file = Path(store_path)
    if not store_file.is_file():
        raise PublishError(f"{store_file}: no such store file (run the league first)")
    out = Path(out_dir).absolute()
    check_output(out, [store_file])
    try:
        with Store(store_file, readonly=True) as store:
            if store.damage is not None and warn is not None:
                warn(store.path, store.damage)
            data = load_league(store, rating, title, system, registry)
            check_rules(store, data.games, registry)   # the site shows no game its rules contradict
    except StoreError as exc:
        raise PublishError(str(exc)) from None
    staging = out.parent / f".{out.name}.new-{secrets.token_hex(4)}"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging.mkdir()                 # mode 0o777 & ~umask, like any directory the user makes
    except OSError as exc:
        raise _unwritable(out, exc) from None
    try:
        write_site(data, staging, registry)
        check_output(out, [store_file])   # again: the old site is about to be replaced
        _swap(staging, out)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise _unwritable(out, exc) from None
        raise
    return out / "index.html"


def _unwritable(out: Path, exc: OSError) -> PublishError:
    """The one-line error for an output the site cannot be written to, saying why."""
    for above in out.parents:           # FILE/sub: the file in the way, not "File exists"
        if above.exists():
            if not above.is_dir():
                return PublishError(f"{out}: cannot write the site there: {above} is a file, "
                                    "not a directory")
            break
    return PublishError(f"{out}: cannot write the site there: {exc.strerror or exc}")


def check_output(out_dir: str | os.PathLike[str], keep: Iterable[Path] = ()) -> None:
    """PublishError (output_problem) unless a site can be written at out_dir, which must not
    hold a file of keep (the store read: a publish replaces the whole directory)."""
    out = Path(out_dir).absolute()
    for path in keep:
        if inside(path.resolve(), out.resolve()):
            raise PublishError(f"{out}: holds {path}, which a publish would delete with the "
                               "old site; give the site a directory of its own")
    problem = output_problem(out)
    if problem is not None:
        raise PublishError(problem)


def output_problem(out_dir: str | os.PathLike[str]) -> str | None:
    """Why a site cannot be written at out_dir, or None: nothing there, an empty directory
    or a site arena published and nothing else (what it holds is what the last publish
    wrote, by its marker), in a directory that can be written (the site is made beside it
    and renamed into place). Writes nothing: `arena run` asks before the first game."""
    out = Path(out_dir).absolute()
    if out.exists() and not out.is_dir():
        return f"{out}: exists and is not a directory; choose another output"
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        return (f"{out}: not empty and not a site arena published; refusing to replace it "
                "(choose another output or empty it)")
    others = foreign_files(out) if out.is_dir() else []
    if others:
        more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
        return (f"{out}: holds {out / others[0]}{more}, which no publish wrote; a publish "
                "replaces the whole site: move it out first")
    above = next((p for p in out.parents if p.exists()), out)   # where the staging goes
    if not above.is_dir():
        return f"{out}: cannot write the site there: {above} is a file, not a directory"
    if not os.access(above, os.W_OK | os.X_OK):
        return f"{out}: cannot write the site there: {above} is not writable"
    return None


#: what a site from before its marker listed its files holds (any other file is not ours)
_SITE_SUFFIXES = (".html", ".js", ".css")


def foreign_files(out: Path) -> list[str]:
    """The files (and links) under a published site that its last publish did not write,
    relative to it, sorted: its marker lists what it wrote (a marker from before the list:
    pages, scripts and stylesheets)."""
    try:
        lines = (out / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    listed = set(lines[1:]) | {MARKER} if len(lines) > 1 else None
    found = []
    for folder, dirs, files in os.walk(out):
        here = Path(folder)
        links = [d for d in dirs if (here / d).is_symlink()]   # a link is a file here
        for name in [*files, *links]:
            relative = (here / name).relative_to(out).as_posix()
            ours = (relative in listed if listed is not None
                    else name == MARKER or name.endswith(_SITE_SUFFIXES))
            if not ours:
                found.append(relative)
    return sorted(found)


def _swap(staging: Path, out: Path) -> None:
    """Put staging where out is; the old site, if any, is removed afterwards."""
    if not out.exists():
        os.replace(staging, out)
        return
    old = out.parent / f".{out.name}.old-{secrets.token_hex(4)}"
    os.replace(out, old)
    os.replace(staging, out)
    shutil.rmtree(old, ignore_errors=True)


def data_script(key: str, value: object) -> str:
    """A data file: a script handing value to the page (works from file:// and from a host).

    '<' and '>' (only ever inside JSON strings) are written as \\u escapes, so no data
    file holds markup even as text, whatever a bot wrote.
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e")
    return f"arenaData({json.dumps(key)},{text});\n"


def write_site(data: LeagueData, root: Path, registry: Registry[type[Game]] | None = None) -> None:
    """Write every page, asset and data file of a league under root (an existing directory);
    its games are replayed by the rules of registry's games (by default the loaded plugins')."""
    made: set[Path] = set()
    written: list[str] = []

    def write(relative: str, text: str) -> None:
        path = root / relative
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_text(text, encoding="utf-8")
        written.append(relative)

    for relative, text in all_pages(data):
        write(relative, text)
    assets = resources.files("arena.publish").joinpath("assets")
    for name in ASSETS + (TURN_ASSETS if data.simultaneous else ()) + (SEAT_ASSETS if data.seats > 2 else ()) \
            + (TRANSCRIPT_ASSETS if data.refereed else ()):
        write(f"assets/{name}", assets.joinpath(name).read_text("utf-8"))
    files: Iterable[tuple[str, object]] = chain(
        [("league", league_json(data))], list_pages(data), fault_pages(data), move_chunks(data, registry),
        transcript_pages(data))
    for key, value in files:
        write(f"data/{key}.js", data_script(key, value))
    # what this publish wrote, so that the next one replaces nothing else (foreign_files)
    write(MARKER, "A static site written by bot-arena's publish; safe to delete and re-publish. "
                  "It wrote these files:\n" + "".join(f"{name}\n" for name in sorted(written)))
