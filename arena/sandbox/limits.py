"""Resource limits of one bot and the prlimit(1) arguments that set them."""

from __future__ import annotations

from dataclasses import dataclass, fields

from .errors import SandboxError

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to every process of one bot."""

    memory_mb: int = 1024  # RLIMIT_DATA (not RLIMIT_AS: that breaks Node and Java)
    cpu_seconds: int = 600  # RLIMIT_CPU, per process, for the whole game
    file_size_mb: int = 16  # RLIMIT_FSIZE
    open_files: int = 256  # RLIMIT_NOFILE
    processes: int = 64  # RLIMIT_NPROC: processes *and threads* of the bot
    scratch_mb: int = 64  # size of the private tmpfs (bwrap mode only)

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SandboxError(
                    f"Limits.{field.name} must be a positive int, got {value!r}; "
                    f"hint: e.g. Limits({field.name}={field.default!r})"
                )


def prlimit_argv(prlimit: str, limits: Limits, nproc: int) -> list[str]:
    """The prlimit(1) prefix that sets `limits` on the command that follows it."""
    # The hard CPU limit is one second above the soft one: SIGXCPU first (a clean
    # death by default), SIGKILL a second later for bots that catch or ignore it.
    return [
        prlimit,
        f"--data={limits.memory_mb * MIB}",
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
        f"--fsize={limits.file_size_mb * MIB}",
        f"--nofile={limits.open_files}",
        f"--nproc={nproc}",
        # No core dumps: SIGXCPU's default action dumps core, and a core of a
        # 1 GiB bot written to the scratch dir (or a coredump helper) is slow.
        "--core=0",
        "--",
    ]
