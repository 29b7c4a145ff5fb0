"""The referee: one game between two sandboxed bots, every fault recorded."""

from .botpool import BotPool
from .botspec import BotSpec, dialect_of
from .channel import BotFault, OutputLimits
from .referee import MatchSettings, bot_seed, play_game
from .timecontrol import Clock, TimeControl, TimeoutPolicy

__all__ = ["BotFault", "BotPool", "BotSpec", "Clock", "MatchSettings", "OutputLimits", "TimeControl",
           "TimeoutPolicy", "bot_seed", "dialect_of", "play_game"]
