"""Builds the launch argv of a bot for each isolation mode (no process is run here).

Every limit and privilege drop is an argv prefix (prlimit, setpriv, bwrap,
unshare) rather than a preexec_fn: preexec_fn forces fork() of the whole
referee, whose cost grows with the referee's memory.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import SandboxError

SYSTEM_TOPS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")

# The init of a bot's pid namespace (bwrap and unshare modes). The bot itself must
# not be pid 1: pid 1 ignores every signal it has no handler for, SIGXCPU and
# SIGXFSZ from the limits included. bwrap's own init is not used either: bwrap's
# monitor does not reap it, so the bot's CPU time would never reach the referee's
# wait4(). The shell runs the bot in the foreground from a subshell that execs it
# (no extra process; stdin and signal dispositions untouched), reaps it and any
# orphan adopted by pid 1, and exits with the bot's status (128+N for a death by
# signal N). Its own stderr goes to /dev/null so that its "Killed" or
# "Segmentation fault" notes do not land in the bot's stderr.
NAMESPACE_INIT = 'exec 3>&2 2>/dev/null; (exec "$@" 2>&3 3>&-); exit $?'



@dataclass(frozen=True)
class Tools:
    """Absolute paths of the helper programs a launch needs."""

    prlimit: str
    setpriv: str
    sh: str
    bwrap: str | None = None
    unshare: str | None = None


def inside(path: str, root: str) -> bool:
    """True if `path` is `root` or below it (both absolute and normalised)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


@functools.cache
def system_binds() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """bwrap arguments for the read-only system tree, and the roots they cover."""
    args = ["--ro-bind", "/usr", "/usr"]
    roots = ["/usr"]
    for top in SYSTEM_TOPS:
        if os.path.islink(top):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(top), top]
            roots.append(top)
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
            roots.append(top)
    # All of /etc, read-only: the dynamic loader, passwd/group, alternatives
    # (/usr/bin/java -> /etc/alternatives/...), locale and TLS config live there.
    args += ["--ro-bind", "/etc", "/etc"]
    roots.append("/etc")
    return tuple(args), tuple(roots)


#: packages a bot's arena SDK may import besides arena (pluggy: to load a plugin's game)
SDK_PACKAGES = ("pluggy",)


def _package_dir(name: str) -> str | None:
    """Where an importable package lives, found without importing it."""
    import importlib.util
    spec = importlib.util.find_spec(name)
    return next(iter(spec.submodule_search_locations or ()), None) if spec else None


@functools.cache
def python_dirs() -> tuple[str, ...]:
    """Directories a Python bot needs: this interpreter, the arena package and the packages
    its SDK imports (inside the interpreter's prefix already, unless installed elsewhere)."""
    arena_dir = str(Path(__file__).resolve().parent.parent)
    candidates = {
        *filter(None, map(_package_dir, SDK_PACKAGES)),
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        arena_dir,
    }
    return tuple(sorted(os.path.abspath(path) for path in candidates if path))


def minimal_paths(paths: Iterable[str], covered: Sequence[str]) -> list[str]:
    """Absolute, deduplicated paths, without those below `covered` or below each other."""
    kept: list[str] = []
    # Sorting puts every directory before the paths below it.
    for path in sorted({os.path.abspath(p) for p in paths}):
        real = os.path.realpath(path)
        if any(inside(path, root) or inside(real, root) for root in covered):
            continue
        if any(inside(path, done) for done in kept):
            continue
        kept.append(path)
        if real != path and not any(inside(real, done) for done in kept):
            kept.append(real)  # a symlinked dir: its target must exist inside too
    return kept


def search_path(python_visible: bool) -> str:
    """The default PATH of a bot: this Python's bin dir first, then the system's."""
    dirs = [os.path.dirname(sys.executable)] if python_visible else []
    dirs += SYSTEM_PATH
    return ":".join(dict.fromkeys(dirs))


def bot_env(scratch: str, path: str, extra: Mapping[str, str] | None) -> dict[str, str]:
    """The scrubbed environment of a bot, plus what the caller passes explicitly."""
    env = {
        "PATH": path,
        "HOME": scratch,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }
    for key, value in (extra or {}).items():
        if not isinstance(key, str) or not isinstance(value, str) or not key or "=" in key:
            raise SandboxError(
                f"env entries must be str -> str with a name without '=', got {key!r}: {value!r}; "
                "hint: convert values with str()"
            )
        env[key] = value
    return env


def resolve_executable(argv0: str, path: str, cwd: str, args: Sequence[str] = ()) -> str:
    """The absolute path of the bot's program, as the referee sees it (args: the rest of
    the command, for a hint naming it whole)."""
    if not isinstance(argv0, str) or not argv0:
        raise SandboxError(f"argv[0] must be a non-empty str, got {argv0!r}")
    if "/" in argv0:
        full = os.path.normpath(os.path.join(cwd, argv0))
        if not os.path.lexists(full):
            raise SandboxError(
                f"bot program {argv0!r} does not exist (looked at {full!r}); "
                "hint: relative paths are taken from the referee's working directory"
            )
    else:
        found = shutil.which(argv0, path=path)
        if found is None:
            raise SandboxError(
                f"bot command {argv0!r} is not on the sandbox PATH {path!r}; "
                "hint: give a path (./bot, /usr/bin/node) or pass env={'PATH': ...}"
            )
        full = os.path.abspath(found)
    if os.path.isdir(full):
        raise SandboxError(f"bot program {full!r} is a directory; hint: give the program in it")
    if not os.access(full, os.X_OK):
        interpreter = script_interpreter(full)
        through = (f', or start it through its interpreter: command: "{interpreter} '
                   f'{shlex.join([full, *args])}"' if interpreter else "")
        raise SandboxError(f"bot program {full!r} is not an executable file; hint: chmod +x {full!r}{through}")
    return full


#: the interpreter of a script without a #! line, by its file name's extension
INTERPRETERS = {".py": "python3", ".sh": "sh"}


def script_interpreter(path: str) -> str | None:
    """The program that runs the script at path: its #! line's ("#!/usr/bin/env node": node,
    "#!/bin/bash": /bin/bash), else by its extension (INTERPRETERS); None if neither says."""
    try:
        with open(path, "rb") as file:
            first = file.readline(256)
    except OSError:
        first = b""
    if first.startswith(b"#!"):
        words = first[2:].decode("utf-8", "replace").split()
        if words and os.path.basename(words[0]) == "env":
            words = words[1:]
            while words and words[0].startswith("-"):   # env's options (-S and the like)
                words = words[1:]
        if words:
            return " ".join(words)
    return INTERPRETERS.get(os.path.splitext(path)[1].lower())


def blocked_by(path: str, bits: int, check_parents: bool) -> str | None:
    """The first of `path` and its parents that a uid owning nothing cannot use, or None.

    `path` needs `bits` (r=4, x=1) for others; each parent, if checked, needs o+x.
    """
    try:
        if check_parents:
            parents = []
            parent = os.path.dirname(os.path.abspath(path))
            while parent != "/":
                parents.append(parent)
                parent = os.path.dirname(parent)
            for parent in reversed(parents):
                if not os.stat(parent).st_mode & 0o001:
                    return parent
        return None if os.stat(path).st_mode & bits == bits else path
    except OSError:
        return path


def drop_privileges(tools: Tools, uid: int) -> list[str]:
    """setpriv arguments that turn root into the unprivileged bot uid for good."""
    return [
        tools.setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--no-new-privs",  # setuid binaries (su, mount) stay powerless
        "--inh-caps=-all",
        "--bounding-set=-all",
    ]


@dataclass(frozen=True)
class Mounts:
    """What a bwrap sandbox shows its bot: its scratch dir (its working directory, on a tmpfs
    of scratch_bytes), the paths bound read-only and read-write, and files copied into the
    scratch dir from open descriptors, as (fd, name relative to it) pairs."""

    scratch: str
    scratch_bytes: int
    ro_paths: Sequence[str] = ()
    rw_paths: Sequence[str] = ()
    files: Sequence[tuple[int, str]] = ()


def bwrap_argv(tools: Tools, mounts: Mounts, *, uid: int | None, info_fd: int | None,
               command: Sequence[str]) -> list[str]:
    """bwrap argv: new namespaces, a read-only system, a tmpfs scratch dir as cwd.

    `uid` is the bot uid when the referee is root (bwrap then runs privileged and
    setpriv drops to `uid` inside), None for a normal user (bwrap makes a user
    namespace). Binds go parents first, so one inside another wins.
    """
    assert tools.bwrap is not None
    system, covered = system_binds()
    # bwrap stays outside as the monitor; the init shell is pid 1 of the new pid
    # namespace: killing it kills every process of the bot, setsid or not.
    args = [tools.bwrap, *_bwrap_namespaces(uid), "--die-with-parent", "--new-session", "--as-pid-1", *system]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(mounts.scratch_bytes), "--tmpfs", "/tmp"]
    tree = _Tree({"/", "/proc", "/dev", "/tmp", *covered})
    args += _scratch_args(mounts, tree, privileged=uid is not None)
    binds = sorted([(path, "--ro-bind") for path in mounts.ro_paths] + [(path, "--bind") for path in mounts.rw_paths])
    for path, how in binds:
        # parents made by bwrap on its own tmpfs root; 0755 so that a non-root bot uid can
        # walk to its binds (e.g. /root is 0700 on the host)
        args += tree.parents(path, "0755")
        args += [how, path, path]
        tree.made.add(path)
    args += ["--chdir", mounts.scratch]
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    args.append("--")
    args += _init_and_drop(tools, uid, nnp=False)  # bwrap sets no_new_privs itself
    return args + list(command)


def _bwrap_namespaces(uid: int | None) -> list[str]:
    """bwrap's namespace and capability arguments, for a privileged bwrap (uid: the bot's)
    or a user's."""
    if uid is not None:
        # Privileged bwrap keeps every capability unless told otherwise; keep only
        # what setpriv needs to become `uid` (it then drops those too). No user
        # namespace: one would map the bot to root, which RLIMIT_NPROC ignores.
        return ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--cap-drop", "ALL",
                "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    return ["--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net",
            "--unshare-uts", "--unshare-cgroup-try", "--disable-userns"]


class _Tree:
    """The directories a bwrap argv has made so far."""

    def __init__(self, made: Iterable[str]) -> None:
        self.made = set(made)

    def parents(self, path: str, mode: str) -> list[str]:
        """Arguments that make the parents of `path` not made yet (with `mode`), top down."""
        missing = []
        parent = os.path.dirname(path)
        while parent not in self.made:
            missing.append(parent)
            parent = os.path.dirname(parent)
        args: list[str] = []
        for directory in reversed(missing):
            args += ["--perms", mode, "--dir", directory]
            self.made.add(directory)
        return args


def _scratch_args(mounts: Mounts, tree: _Tree, privileged: bool) -> list[str]:
    """The scratch dir and the files copied into it. Owned by root when bwrap runs
    privileged, hence 0777 (only this bot's uid exists in the sandbox); the user's own
    otherwise."""
    scratch = mounts.scratch
    dir_mode = "0777" if privileged else "0700"
    file_mode = "0666" if privileged else "0644"
    args = tree.parents(scratch, "0755")
    if inside(scratch, "/tmp"):
        args += ["--perms", dir_mode, "--dir", scratch]  # shares /tmp's size limit
    else:
        args += ["--perms", dir_mode, "--size", str(mounts.scratch_bytes), "--tmpfs", scratch]
    tree.made.add(scratch)
    for fd, name in mounts.files:
        dest = os.path.join(scratch, name)
        args += tree.parents(dest, dir_mode)
        args += ["--perms", file_mode, "--file", str(fd), dest]
    return args


def _init_and_drop(tools: Tools, uid: int | None, nnp: bool) -> list[str]:
    """The namespace init shell, then the privilege drop, before the bot command."""
    args = [tools.sh, "-c", NAMESPACE_INIT, "sh"]
    if uid is not None:
        args += drop_privileges(tools, uid) + ["--"]
    elif nnp:
        args += [tools.setpriv, "--no-new-privs", "--"]
    return args


def unshare_argv(tools: Tools, *, uid: int | None, command: Sequence[str]) -> list[str]:
    """unshare argv: new network, pid, ipc, uts and mount namespaces; files visible."""
    assert tools.unshare is not None
    # unshare has no parent-death option: setpriv gives it one, and --kill-child
    # passes the kill on to the namespace's init, whose death ends the namespace.
    args = [tools.setpriv, "--pdeathsig=KILL", "--", tools.unshare]
    if uid is None:
        args += ["--user", "--map-current-user"]
    args += ["--net", "--pid", "--ipc", "--uts", "--fork", "--mount-proc", "--kill-child"]
    args.append("--")
    args += _init_and_drop(tools, uid, nnp=True)
    return args + list(command)


def plain_argv(tools: Tools, *, uid: int | None, command: Sequence[str]) -> list[str]:
    """argv of mode 'none': limits and privilege drop only, no namespaces."""
    if uid is not None:
        args = drop_privileges(tools, uid)
    else:
        args = [tools.setpriv, "--no-new-privs"]
    # The bot dies with the referee (only the uid change would clear this; setpriv
    # sets it after changing uid).
    return args + ["--pdeathsig=KILL", "--"] + list(command)
