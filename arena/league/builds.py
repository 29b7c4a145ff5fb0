"""Bot builds: a bot's `build:` command runs before a league only when what the bot is made
from changed or a file the build wrote is gone or altered; the files a build writes are its
outputs, no part of the bot's version (a jar's timestamps make no new version).

What a build is made from (its inputs): its command, the directory it runs in and the bot's
files (its directory and `readable` paths, as the fingerprint reads them) other than its
outputs. Its outputs: the files the build created or changed, found by comparing the bot's
files before and after it runs, kept (with how the build left them) from one build to the
next for as long as the build command stays the same.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from .config import BotConfig
from .executors.base import RunError
from .versions import HashCache, bot_roots, digest, tree_files, tree_hashes

#: resolved path -> (size, mtime_ns, inode): enough to tell a file a build wrote
Stats = dict[str, tuple[int, int, int]]
#: what the store keeps of a bot's last build: {"build", "inputs", "outputs": {path: [size, mtime_ns]}}
BuildRecord = dict[str, Any]


class BuildError(RunError):
    """A bot's build command failed: the run stops with its output."""


def build_bots(bots: list[BotConfig], base_dir: Path, records: Mapping[str, BuildRecord],
               cache: HashCache, out: TextIO, skip: frozenset[Path] = frozenset()
               ) -> dict[str, BuildRecord]:
    """Run each bot's build in its directory, outside the sandbox, unless its inputs are as
    at its last build and its outputs as that build left them (one line says it is skipped);
    the new records of the builds run, by bot name. skip: files never a bot's (the store's)."""
    done: dict[str, BuildRecord] = {}
    for bot in bots:
        if bot.build is None:
            continue
        where = bot.dir or base_dir
        roots = bot_roots(bot)
        last = records.get(bot.name)
        outputs = dict(_outputs_of(bot, records))
        inputs = _inputs(bot, where, roots, cache, skip | _paths(outputs))
        if last is not None and last["inputs"] == inputs and outputs and all(
                _as_left(path, left) for path, left in outputs.items()):
            shown = ", ".join(sorted(_shown(path, where) for path in outputs)[:3])
            more = f" and {len(outputs) - 3} more" if len(outputs) > 3 else ""
            print(f"{bot.name}: build skipped: its inputs are unchanged and its outputs "
                  f"({shown}{more}) are as it left them", file=out, flush=True)
            continue
        before = _stats(roots, skip)
        _run(bot.name, bot.build, where, out)
        after = _stats(roots, skip)
        # what the build created or changed, and what earlier builds wrote that is still there
        written = {path for path, stat in after.items() if before.get(path) != stat}
        kept = {path: [after[path][0], after[path][1]] for path in sorted(written | set(outputs))
                if path in after}
        if kept and set(after) <= set(kept):   # nothing left to say what the bot is made from
            raise BuildError(f"{bot.name}: every file in {where} is one its build {bot.build!r} "
                             f"wrote, so its version would not see its sources; give 'dir' "
                             f"(or 'readable') the directory of the bot's sources")
        done[bot.name] = {"build": bot.build, "outputs": kept,
                          "inputs": _inputs(bot, where, roots, cache, skip | _paths(kept))}
    return done


def build_outputs(bots: list[BotConfig], records: Mapping[str, BuildRecord]) -> frozenset[Path]:
    """The files the bots' builds wrote (as recorded for their current build commands)."""
    return frozenset(path for bot in bots if bot.build is not None
                     for path in _paths(_outputs_of(bot, records)))


def _outputs_of(bot: BotConfig, records: Mapping[str, BuildRecord]) -> Mapping[str, Any]:
    last = records.get(bot.name)
    return last["outputs"] if last is not None and last["build"] == bot.build else {}


def _run(name: str, build: str, where: Path, out: TextIO) -> None:
    """Run a bot's build command; BuildError with its last 30 lines if it fails."""
    print(f"building {name}: {build}  (in {where})", file=out, flush=True)
    try:
        done = subprocess.run(build, shell=True, check=False, cwd=where,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace")
    except OSError as exc:
        raise BuildError(f"{name}: build {build!r} could not start: {exc}") from None
    if done.returncode != 0:
        tail = "\n".join(done.stdout.rstrip().splitlines()[-30:])
        raise BuildError(f"{name}: build {build!r} failed (exit {done.returncode}) in "
                         f"{where}; no game was played:\n{tail}")


def _inputs(bot: BotConfig, where: Path, roots: list[Path], cache: HashCache,
            skip: frozenset[Path]) -> str:
    """A digest of what a build is made from: its command, its directory, the bot's files
    other than the outputs (skipped)."""
    return digest({"build": bot.build, "dir": str(where), "files": tree_hashes(roots, cache, skip)})


def _stats(roots: list[Path], skip: frozenset[Path]) -> Stats:
    """The bot's files now (excluded names such as __pycache__ left out, as in a fingerprint)."""
    stats: Stats = {}
    for root in dict.fromkeys(roots):
        for path in tree_files(root, skip):
            try:
                st = path.stat()
            except OSError:   # gone since it was listed
                continue
            stats[str(path.resolve())] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return stats


def _as_left(path: str, left: list[int]) -> bool:
    """True when an output is still as its build left it (same size and mtime)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return [st.st_size, st.st_mtime_ns] == list(left)


def _paths(outputs: Mapping[str, Any]) -> frozenset[Path]:
    return frozenset(Path(path) for path in outputs)


def _shown(path: str, where: Path) -> str:
    """An output's path as the user knows it: from the build's directory when below it."""
    try:
        return str(Path(path).relative_to(where.resolve()))
    except ValueError:
        return path


__all__ = ["BuildError", "BuildRecord", "build_bots", "build_outputs"]
