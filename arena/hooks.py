"""The markers of arena's pluggy hooks: one leaf module, so that arena.plugins, which
declares the hooks, and every plugin module, built-in or third-party, share one marker
without importing anything else of arena."""

from __future__ import annotations

import pluggy

#: the pluggy project name: hook implementations are marked for it
PROJECT = "arena"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)
