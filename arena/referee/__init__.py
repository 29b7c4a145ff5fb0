"""The referee: one game between two sandboxed bots, every fault recorded.

Each name below is imported from its module when first asked for (`from arena.referee import
play_game`), so that a module reading one light part (a league config reads TimeControl and
BotSpec) does not import the game's machinery and the sandbox with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .botpool import BotPool
    from .botspec import BotSpec, dialect_of
    from .channel import BotFault, OutputLimits
    from .referee import MatchSettings, bot_seed, play_game
    from .timecontrol import Clock, TimeControl, TimeoutPolicy

__all__ = ["BotFault", "BotPool", "BotSpec", "Clock", "MatchSettings", "OutputLimits", "TimeControl",
           "TimeoutPolicy", "bot_seed", "dialect_of", "play_game"]

#: the module each name is imported from
_MODULE = {"BotPool": "botpool", "BotSpec": "botspec", "dialect_of": "botspec", "BotFault": "channel",
           "OutputLimits": "channel", "MatchSettings": "referee", "bot_seed": "referee", "play_game": "referee",
           "Clock": "timecontrol", "TimeControl": "timecontrol", "TimeoutPolicy": "timecontrol"}


def __getattr__(name: str) -> Any:
    """A name of the package, imported from its module on first use (PEP 562) and kept in
    the package, so that later uses find it without asking here again."""
    if name not in _MODULE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_MODULE[name]}"), name)
    globals()[name] = value
    return value
