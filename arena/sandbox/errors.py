"""Errors and warnings raised by the sandbox."""

from __future__ import annotations

from arena.errors import ArenaError


class SandboxError(ArenaError, RuntimeError):
    """A bot could not be sandboxed or started as asked."""


class SandboxWarning(UserWarning):
    """A protection the caller may expect is not enforced on this machine."""
