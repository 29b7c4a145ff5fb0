"""What a pytest session makes once for all its xdist workers: in the session's temp
directory (the one each worker's own is in), each thing under its name, made by one process
at a time, so that a second maker waits for the first and then finds it made."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path


def session_dir(tmp_path_factory) -> Path:
    """The temp directory of the whole pytest session: with pytest-xdist, the one its workers'
    own temp directories are in."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(base: Path, name: str, make: Callable[[Path], object]) -> Path:
    """base/name, made by make(path) unless it is there already. A flock keeps a second
    process waiting for the first; what make() leaves is renamed into place only once it
    returned, so a maker that failed leaves nothing another would take for made."""
    path = base / name
    with open(base / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            partial = base / f".making-{name}"
            if partial.is_dir():
                shutil.rmtree(partial)
            partial.unlink(missing_ok=True)
            make(partial)
            partial.rename(path)
    return path
