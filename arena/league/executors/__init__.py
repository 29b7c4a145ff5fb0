"""Executors: where a league's games are played, each behind the one Executor protocol.

base (the protocol, the job, the pieces, RunError) <- worker (what any worker does) <-
local (worker processes on this machine), ray (Ray tasks); plugin registers both.
The runner takes an executor from the loaded registry by the config's name.
"""

from .base import Executor, GameJob, Placement, RunError, cause, chunks

__all__ = ["Executor", "GameJob", "Placement", "RunError", "cause", "chunks"]
