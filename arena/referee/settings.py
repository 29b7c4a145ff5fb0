"""How games are run, apart from the game and the bots: the time control, what a late move
costs, the caps on output, and the dialects the bots speak."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from arena.protocol import Dialect

from .channel import OutputLimits
from .timecontrol import TimeControl, TimeoutPolicy


@dataclass(frozen=True)
class MatchSettings:
    """Everything about how games are run that is not the game or the bots."""

    time: TimeControl = TimeControl()
    timeout_policy: TimeoutPolicy = TimeoutPolicy()
    output: OutputLimits = OutputLimits()
    #: the dialects bots speak, as the run's registry resolved them (a league's make_job),
    #: so a worker needs no registry of its own; a name not here: the loaded plugins'
    dialects: Mapping[str, Dialect] = field(default_factory=dict, compare=False)
