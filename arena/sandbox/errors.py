"""Errors and warnings raised by the sandbox."""

from __future__ import annotations

from arena.errors import ArenaError


class SandboxError(ArenaError, RuntimeError):
    """A bot could not be sandboxed or started as asked."""


class HostError(SandboxError):
    """The machine, not the bot, could not start a bot: no free bot uid, no process to
    launch it with. No game may be charged for it: the run stops, and plays it later."""


class SandboxWarning(UserWarning):
    """A protection the caller may expect is not enforced on this machine."""
