"""Finds, once per process, which isolation mode really works on this machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from . import command, slots
from .command import Tools
from .errors import SandboxError
from .limits import Limits, prlimit_argv
from .procfs import count_user_tasks

#: isolation modes, strongest first after "auto" (the strongest this host offers)
MODES = ("auto", "bwrap", "unshare", "none")
_ORDER = {
    "auto": ("bwrap", "unshare", "none"),
    "bwrap": ("bwrap",),
    "unshare": ("unshare",),
    "none": ("none",),
}
_PROBE_TIMEOUT = 20.0

_cache: dict[tuple[object, ...], Detection] = {}


@dataclass(frozen=True)
class Detection:
    """The mode that works, the helper programs, and why better modes did not."""

    mode: str
    tools: Tools
    notes: tuple[str, ...]
    user_tasks: int  # processes+threads of this (non-root) uid when detected


# Helpers that run inside the sandbox must come from the read-only system tree.
_INSIDE_PATH = ":".join((*command.SYSTEM_PATH, "/usr/sbin", "/sbin"))


def _find(name: str, given: str | None = None, inside: bool = False) -> str | None:
    if given is not None:
        return given if os.path.isfile(given) and os.access(given, os.X_OK) else None
    found = shutil.which(name, path=_INSIDE_PATH if inside else None)
    return os.path.abspath(found) if found else None


def _probe(mode: str, tools: Tools) -> str | None:
    """Launch /bin/true the way `mode` would launch a bot; None if it worked, else why not."""
    if mode == "bwrap" and tools.bwrap is None:
        return "bwrap was not found"
    if mode == "unshare" and tools.unshare is None:
        return "unshare was not found"
    root = os.geteuid() == 0
    slot = slots.acquire(slots.lock_dir()) if root else None
    uid = slot.uid if slot else None
    true = shutil.which("true", path=":".join(command.SYSTEM_PATH)) or "/bin/true"
    try:
        with tempfile.TemporaryDirectory(prefix="arena-probe-") as scratch:
            if mode == "bwrap":
                argv = command.bwrap_argv(tools, command.Mounts(scratch, scratch_bytes=1 << 20),
                                          uid=uid, info_fd=None, command=[true])
            elif mode == "unshare":
                argv = command.unshare_argv(tools, uid=uid, command=[true])
            else:
                argv = command.plain_argv(tools, uid=uid, command=[true])
            argv = prlimit_argv(tools.prlimit, Limits(), 4096) + argv
            try:
                done = subprocess.run(
                    argv, check=False, stdin=subprocess.DEVNULL, capture_output=True, cwd=scratch,
                    timeout=_PROBE_TIMEOUT, env={"PATH": ":".join(command.SYSTEM_PATH)},
                )
            except (OSError, subprocess.SubprocessError) as exc:
                return f"{argv[0]!r} could not run: {exc}"
    finally:
        if slot:
            slot.release()
    if done.returncode == 0:
        return None
    said = done.stderr.decode(errors="replace").strip().splitlines()
    return f"a test launch failed with exit code {done.returncode}" + (f": {said[-1]}" if said else "")


def detect(requested: str, bwrap_path: str | None = None, unshare_path: str | None = None) -> Detection:
    """The best working mode allowed by `requested` (cached per process)."""
    if requested not in MODES:
        raise SandboxError(f"unknown sandbox mode {requested!r}; hint: use one of {MODES!r}")
    key = (requested, bwrap_path, unshare_path, os.geteuid())
    if key in _cache:
        return _cache[key]
    if not sys.platform.startswith("linux"):
        raise SandboxError(
            f"the sandbox needs Linux, this is {sys.platform!r}; hint: run the referee on Linux"
        )
    prlimit, setpriv, sh = _find("prlimit"), _find("setpriv", inside=True), _find("sh", inside=True)
    if prlimit is None or setpriv is None or sh is None:
        found = (("prlimit", prlimit), ("setpriv", setpriv), ("/bin/sh", sh))
        missing = [name for name, path in found if path is None]
        raise SandboxError(f"required programs {missing!r} not found; hint: apt-get install -y util-linux")
    bwrap = _find("bwrap", bwrap_path)
    unshare = _find("unshare", unshare_path)
    tools = Tools(prlimit=prlimit, setpriv=setpriv, sh=sh, bwrap=bwrap, unshare=unshare)
    notes: list[str] = []
    for mode in _ORDER[requested]:
        problem = _probe(mode, tools)
        if problem is None:
            break
        if mode == "bwrap" and bwrap is None and bwrap_path is not None:
            problem = f"bwrap was not found at {bwrap_path!r}"
        if mode == "unshare" and unshare is None and unshare_path is not None:
            problem = f"unshare was not found at {unshare_path!r}"
        notes.append(f"mode {mode!r} is not usable: {problem}")
        if requested != "auto":
            hint = {
                "bwrap": "install bubblewrap (apt-get install -y bubblewrap) and allow user "
                "namespaces, or use mode='auto'",
                "unshare": "allow user namespaces (sysctl user.max_user_namespaces) or run as "
                "root, or use mode='auto'",
                "none": "check that prlimit and setpriv run",
            }[mode]
            raise SandboxError(f"sandbox mode {requested!r} is not usable here: {problem}; hint: {hint}")
    else:  # pragma: no cover - 'none' only fails on a broken util-linux
        raise SandboxError(
            f"no sandbox mode works here: {'; '.join(notes)}; "
            "hint: apt-get install -y util-linux bubblewrap"
        )
    root = os.geteuid() == 0
    result = Detection(mode=mode, tools=tools, notes=tuple(notes),
                       user_tasks=0 if root else count_user_tasks(os.getuid()))
    _cache[key] = result
    return result
