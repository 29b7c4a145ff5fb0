"""Resource limits of one bot and the prlimit(1) arguments that set them."""

from __future__ import annotations

from dataclasses import dataclass, fields

from arena.bounds import BIG, bounded, problem

from .errors import SandboxError

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to every process of one bot."""

    memory_mb: int = bounded(1024, min=1, max=BIG)  # RLIMIT_DATA (not RLIMIT_AS: that breaks Node and Java)
    cpu_seconds: int = bounded(600, min=1, max=BIG)  # RLIMIT_CPU, per process, for the whole game
    file_size_mb: int = bounded(16, min=1, max=BIG)  # RLIMIT_FSIZE
    # RLIMIT_NOFILE: descriptors 0-2 are the bot's pipes, so fewer than 3 means nothing.
    # The sandbox's helpers (bwrap, unshare) start under it too and need about a dozen
    open_files: int = bounded(256, min=3, max=BIG)
    processes: int = bounded(64, min=1, max=BIG)  # RLIMIT_NPROC: processes *and threads* of the bot
    scratch_mb: int = bounded(64, min=1, max=BIG)  # size of the private tmpfs (bwrap mode only)

    def __post_init__(self) -> None:
        for field in fields(self):
            wrong = problem(getattr(self, field.name), int, field.metadata)
            if wrong is not None:
                raise SandboxError(f"Limits.{field.name} {wrong}; "
                                   f"hint: e.g. Limits({field.name}={field.default!r})")


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
