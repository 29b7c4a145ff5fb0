"""Run untrusted bot commands in a sandbox and stop them with everything they spawned.

    sandbox = Sandbox(Limits(cpu_seconds=60), mode="auto")
    proc = sandbox.start(["./mybot"], readable=[bot_dir])
    try:
        ...  # os.write(proc.stdin_fd, ...), os.read(proc.stdout_fd, ...) with selectors
    finally:
        proc.close()

The module knows nothing of games or protocols: it hands out raw pipes.
See docs/sandbox.md for what each mode enforces.

Each name below is imported from its module when first asked for (`from arena.sandbox import
Sandbox`), so that a module reading one light part (a league config reads Limits) does not
import the process machinery with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .detect import MODES
    from .errors import HostError, SandboxError, SandboxWarning
    from .limits import Limits
    from .process import SandboxedProcess
    from .sandbox import Sandbox

__all__ = ["MODES", "HostError", "Limits", "Sandbox", "SandboxError", "SandboxWarning", "SandboxedProcess"]

#: the module each name is imported from
_MODULE = {"MODES": "detect", "HostError": "errors", "SandboxError": "errors", "SandboxWarning": "errors",
           "Limits": "limits", "SandboxedProcess": "process", "Sandbox": "sandbox"}


def __getattr__(name: str) -> Any:
    """A name of the package, imported from its module on first use (PEP 562) and kept in
    the package, so that later uses find it without asking here again."""
    if name not in _MODULE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_MODULE[name]}"), name)
    globals()[name] = value
    return value
