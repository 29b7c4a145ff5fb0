"""Run untrusted bot commands in a sandbox and stop them with everything they spawned.

    sandbox = Sandbox(Limits(cpu_seconds=60), mode="auto")
    proc = sandbox.start(["./mybot"], readable=[bot_dir])
    try:
        ...  # os.write(proc.stdin_fd, ...), os.read(proc.stdout_fd, ...) with selectors
    finally:
        proc.close()

The module knows nothing of games or protocols: it hands out raw pipes.
See docs/sandbox.md for what each mode enforces.
"""

from .detect import MODES
from .errors import HostError, SandboxError, SandboxWarning
from .limits import Limits
from .process import SandboxedProcess
from .sandbox import Sandbox

__all__ = ["MODES", "HostError", "Limits", "Sandbox", "SandboxError", "SandboxWarning", "SandboxedProcess"]
