"""The referee: one game between two sandboxed bots, every fault recorded."""

from .channel import BotFault, OutputLimits
from .referee import BotPool, BotSpec, MatchSettings, bot_seed, dialect_of, play_game
from .timecontrol import Clock, TimeControl, TimeoutPolicy

__all__ = ["BotFault", "BotPool", "BotSpec", "Clock", "MatchSettings", "OutputLimits", "TimeControl",
           "TimeoutPolicy", "bot_seed", "dialect_of", "play_game"]
