"""The bots' files a Ray run ships to its nodes: one zip archive of every directory its bots
may read (Ray's `files: runtime_env`, or the object store for a bot that joined or changed
mid-run), what a node needs to find the coordinator's paths in its own file system, and
the error a Ray run raises. Imports nothing of Ray."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.referee.botspec import ARENA_PACKAGE_DIR

from .base import GameJob

#: the largest bundle of bot files `files: runtime_env` ships (Ray's limit is 512 MiB)
MAX_BUNDLE_BYTES = 500 * 1024 * 1024
#: the bundle's table of contents, at the top of the working directory on every node
MANIFEST = "arena-files.json"


class RayExecutorError(ArenaError, RuntimeError):
    """Ray missing or unreachable, bot files that cannot be shipped, or a game lost for good."""


@dataclass(frozen=True)
class Shipment:
    """What a node needs to find the coordinator's paths in its own file system (picklable)."""

    token: str                  #: names this run's set-up in a worker process
    python: str                 #: the coordinator's sys.executable
    arena_dir: str              #: the coordinator's arena package directory
    #: (directory on the coordinator, its copy relative to the bundle's root); empty: shared
    files: tuple[tuple[str, str], ...] = ()
    bundle: str = ""            #: the shipped bundle's id (a SHA-256 of its files)


@dataclass(frozen=True)
class Bundle:
    """The bots' files in one zip archive, for Ray's runtime environment (files: runtime_env)."""

    path: Path
    #: (directory on the coordinator, its copy relative to the archive's root)
    files: tuple[tuple[str, str], ...]
    id: str                     #: a SHA-256 of every name, mode and content: same files, same id



def build_bundle(job: GameJob, path: Path) -> Bundle:
    """Zip every directory the job's bots may read (arena itself aside) into one archive."""
    dirs = sorted({d for spec in job.bots.values() for d in spec.readable
                   if not lies_within(d, ARENA_PACKAGE_DIR)})
    files = tuple((d, f"arena-files-{i}/{Path(d).name or 'root'}") for i, d in enumerate(dirs))
    digest = hashlib.sha256()
    total = 0
    # written by hand rather than letting Ray pack directories: Ray would leave out what a
    # bot's .gitignore names (its weights, often) and .git, venv and __pycache__ folders
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for source, inside in files:
            for file, name in _walk(Path(source), inside):
                info = file.stat()
                total += info.st_size
                if total > MAX_BUNDLE_BYTES:
                    raise RayExecutorError(
                        f"the bots' files are over {MAX_BUNDLE_BYTES // 2**20} MiB (at "
                        f"{str(file)!r}), too much for ray.files: runtime_env; put them on a "
                        f"path every node shares and use ray.files: shared")
                data, mode = file.read_bytes(), stat.S_IMODE(info.st_mode)
                digest.update(f"{name}\0{mode:o}\0{len(data)}\0".encode() + data)
                archive.writestr(_entry(name, mode), data)
        manifest = {"id": digest.hexdigest(), "dirs": dict(files)}
        archive.writestr(_entry(MANIFEST, 0o644), json.dumps(manifest, indent=1, sort_keys=True))
    return Bundle(path=path, files=files, id=digest.hexdigest())


def _walk(root: Path, inside: str) -> Iterator[tuple[Path, str]]:
    """Files under root (symlinks followed, each real directory once), with archive names;
    root itself if it is a file (a bot may read a single file: a module, a weights file)."""
    if root.is_file():
        yield root, inside
        return
    seen: set[str] = set()
    for here, subdirs, names in os.walk(root, followlinks=True):
        real = os.path.realpath(here)
        if real in seen:
            subdirs[:] = []
            continue
        seen.add(real)
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
        for name in sorted(names):
            file = Path(here) / name
            if file.is_file():
                yield file, f"{inside}/{file.relative_to(root).as_posix()}"


def _entry(name: str, mode: int) -> zipfile.ZipInfo:
    """An archive entry with a fixed date, so the same files make the same archive."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def lies_within(path: str, directory: str) -> bool:
    """True if path is directory or lies below it."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


__all__ = ["MANIFEST", "MAX_BUNDLE_BYTES", "Bundle", "RayExecutorError", "Shipment", "build_bundle", "lies_within"]
