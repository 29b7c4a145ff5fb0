"""A wheel's bots: the bots its plugin declares for a game, found by a loader of ours run in
the bwrap sandbox (arena.server.wheel_loader), never by importing the plugin here."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.referee.botspec import ARENA_PACKAGE_DIR, sdk_argv
from arena.sandbox import Limits, Sandbox, SandboxError
from arena.sandbox.limits import MIB

from .process import STDERR_TAIL, SubmissionError, bwrap_sandbox, run_to_end

#: what a wheel's loader may use: it only imports a plugin and calls one hook
LOADER_LIMITS = Limits(cpu_seconds=20, memory_mb=1024, file_size_mb=1, processes=16)
LOADER_SECONDS = 30          #: wall time of the loader
LOADER_OUTPUT = 1 * MIB      #: bytes of declarations read from the loader at most


def wheel_bots(wheel_dir: Path, game: str, *, sandbox: Sandbox | None = None) -> list[dict[str, Any]]:
    """The bots for `game` that the plugin of the wheel unpacked in wheel_dir declares, as a
    league config's bot entries (name, command, dialect, dir: the wheel's directory). Its
    plugin is imported only by the loader in the sandbox. SubmissionError (one line) when
    the plugin cannot be loaded, fails, or declares no bot for the game."""
    wheel_dir = Path(wheel_dir).resolve()
    if not wheel_dir.is_dir():
        raise SubmissionError(f"wheel directory {str(wheel_dir)!r} does not exist")
    box = bwrap_sandbox(LOADER_LIMITS, sandbox, "a wheel's plugin")
    try:
        proc = box.start([sys.executable, "-m", "arena.server.wheel_loader", str(wheel_dir), game],
                         readable=[wheel_dir, ARENA_PACKAGE_DIR],
                         env={"PYTHONPATH": _python_path(wheel_dir)})
    except SandboxError as exc:
        raise SubmissionError(f"the wheel's plugin could not be loaded: {exc}") from None
    ended = run_to_end(proc, LOADER_SECONDS, LOADER_OUTPUT, STDERR_TAIL)
    said = _last_line(ended.err.text())
    if ended.timed_out:
        raise SubmissionError(f"the wheel's plugin took over {LOADER_SECONDS} s to load")
    lines = ended.out.text().strip().splitlines()
    try:
        found = json.loads(lines[-1]) if ended.returncode == 0 and lines and not ended.out.cut else None
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise SubmissionError(f"the wheel's plugin could not be loaded ({ended.description})"
                              + (f": {said}" if said else ""))
    try:   # what the loader printed came from a process the plugin ran in: read it warily
        if found.get("errors"):
            raise SubmissionError(f"the wheel's plugin failed: {str(found['errors'][0])[:500]}")
        entries = [_entry(decl, wheel_dir) for decl in found.get("bots", [])]
        others = ", ".join(f"{name} ({plays})" for name, plays in found.get("others", []))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise SubmissionError("the wheel's plugin could not be loaded: its loader printed "
                              "declarations of another shape") from None
    if not entries:
        raise SubmissionError(f"the wheel's plugin declares no bot for {game}"
                              + (f" (it declares {others})" if others else ""))
    return entries


def _python_path(wheel_dir: Path) -> str:
    """PYTHONPATH of the wheel's code: arena first (a wheel cannot stand in for it), then
    the wheel's directory, where its packages lie."""
    return os.pathsep.join((str(Path(ARENA_PACKAGE_DIR).parent), str(wheel_dir)))


def _entry(decl: Mapping[str, Any], wheel_dir: Path) -> dict[str, Any]:
    """A config bot entry for a declaration, run as an installed plugin's bot would be, with
    the wheel's directory on the import path: a target through the SDK, a command with its
    words; both with the declared options' defaults, as a registered bot's start passes them.
    This Python is named by its file name, which the sandbox's PATH finds first: a config
    resolves a path's symbolic links, and a venv's python resolved is not the venv's."""
    options = dict(decl.get("options") or {})
    if decl.get("target"):
        argv = sdk_argv(str(decl["target"]), options)
    else:
        argv = tuple(str(word) for word in decl["command"]) + tuple(
            f"{key}={value}" for key, value in sorted(options.items()))
    if argv and argv[0] == sys.executable:
        argv = (os.path.basename(sys.executable), *argv[1:])
    words = ("env", f"PYTHONPATH={_python_path(wheel_dir)}", *argv)
    return {"name": str(decl["name"]), "command": shlex.join(words),
            "dialect": str(decl.get("dialect") or "arena"), "dir": str(wheel_dir)}


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def wheel_entry(bots: list[dict[str, Any]], name: str, game: str) -> dict[str, Any]:
    """The roster entry of the wheel's bot for the game, under the submitted name: its only
    one, or, when it declares several, the one declared under that name; SubmissionError
    naming them when that leaves a choice (a submission is one bot)."""
    if len(bots) > 1:
        bots = [bot for bot in bots if bot.get("name") == name] or bots
    if len(bots) > 1:
        names = ", ".join(str(bot.get("name")) for bot in bots)
        raise SubmissionError(f"the wheel's plugin declares {len(bots)} bots for {game} ({names}): "
                              "submit it under the name of the one to play")
    return {**bots[0], "name": name}


__all__ = ["LOADER_LIMITS", "LOADER_OUTPUT", "LOADER_SECONDS", "wheel_bots", "wheel_entry"]
