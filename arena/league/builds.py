"""Bot builds: a bot's `build:` command runs before a league only when what the bot is made
from changed or a file the build wrote is gone or altered; the files a build writes are its
outputs, no part of the bot's version (a jar's timestamps make no new version).

What a build is made from (its inputs): its command, the directory it runs in and the bot's
files (its directory and `readable` paths, as the fingerprint reads them) other than its
outputs. Its outputs: the files the build created or changed, found by comparing the bot's
files before and after it runs, kept (with how the build left them) from one run of the build
to the next. A build is its directory and command: changing either makes another build.
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
#: a build: the directory it runs in and its command; two bots with the same build share it
BuildKey = tuple[str, str]
#: what the store keeps of a build's last run: {"inputs": digest, "outputs": {path: [size, mtime_ns]}}
BuildRecord = dict[str, Any]


class BuildError(RunError):
    """A bot's build command failed: the run stops with its output. summary is the first
    line without what it means for the run; output the end of what the build printed."""

    def __init__(self, message: str, summary: str | None = None, output: str = "") -> None:
        super().__init__(message)
        self.summary = summary if summary is not None else message
        self.output = output


def build_key(bot: BotConfig, base_dir: Path) -> BuildKey | None:
    """Which build a bot has: where it runs and its command; None without a build."""
    return None if bot.build is None else (str(bot.dir or base_dir), bot.build)


def build_bots(bots: list[BotConfig], base_dir: Path, records: Mapping[BuildKey, BuildRecord],
               cache: HashCache, out: TextIO, skip: frozenset[Path] = frozenset()
               ) -> dict[BuildKey, BuildRecord]:
    """Run each bot's build in its directory, outside the sandbox, unless its inputs are as
    at its last run and its outputs as that run left them (one line says it is skipped);
    the records of the league's builds, to keep. skip: files never a bot's (the store's)."""
    done: dict[BuildKey, BuildRecord] = {}
    for bot in bots:
        key = build_key(bot, base_dir)
        if key is None or key in done:   # two entries of one program build it once
            continue
        where, command = Path(key[0]), key[1]
        roots = bot_roots(bot)
        last = records.get(key)
        outputs = dict(last["outputs"]) if last is not None else {}
        inputs = _inputs(command, where, roots, cache, skip | _paths(outputs))
        if last is not None and last["inputs"] == inputs and outputs and all(
                _as_left(path, left) for path, left in outputs.items()):
            shown = ", ".join(sorted(_shown(path, where) for path in outputs)[:3])
            more = f" and {len(outputs) - 3} more" if len(outputs) > 3 else ""
            print(f"{bot.name}: build skipped: its inputs are unchanged and its outputs "
                  f"({shown}{more}) are as it left them", file=out, flush=True)
            done[key] = last
            continue
        before = _stats(roots, skip)
        _run(bot.name, command, where, out)
        after = _stats(roots, skip)
        # what the build created or changed, and what its earlier runs wrote that is still there
        written = {path for path, stat in after.items() if before.get(path) != stat}
        kept = {path: [after[path][0], after[path][1]] for path in sorted(written | set(outputs))
                if path in after}
        if kept and set(after) <= set(kept):   # nothing left to say what the bot is made from
            raise BuildError(f"{bot.name}: every file in {where} is one its build {command!r} "
                             f"wrote, so its version would not see its sources; give 'dir' "
                             f"(or 'readable') the directory of the bot's sources")
        done[key] = {"outputs": kept, "inputs": _inputs(command, where, roots, cache, skip | _paths(kept))}
    return done


def build_outputs(bots: list[BotConfig], base_dir: Path,
                  records: Mapping[BuildKey, BuildRecord]) -> frozenset[Path]:
    """The files the bots' builds wrote, as recorded."""
    keys = {key for key in (build_key(bot, base_dir) for bot in bots) if key is not None}
    return frozenset(path for key in keys for path in _paths(records.get(key, {}).get("outputs", {})))


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
        summary = f"{name}: build {build!r} failed (exit {done.returncode}) in {where}"
        raise BuildError(f"{summary}; no game was played:\n{tail}", summary, tail)


def _inputs(command: str, where: Path, roots: list[Path], cache: HashCache,
            skip: frozenset[Path]) -> str:
    """A digest of what a build is made from: its command, its directory, the bot's files
    other than the outputs (skipped)."""
    return digest({"build": command, "dir": str(where), "files": tree_hashes(roots, cache, skip)})


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


__all__ = ["BuildError", "BuildKey", "BuildRecord", "build_bots", "build_key", "build_outputs"]
