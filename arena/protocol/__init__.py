"""The wire formats between referee and bots. Knows nothing of processes."""

from .dialects import BUILTIN_DIALECTS, Dialect, ProtocolError, TurnInfo
from .framing import LineBuffer, LineTooLongError

__all__ = ["BUILTIN_DIALECTS", "Dialect", "LineBuffer", "LineTooLongError", "ProtocolError", "TurnInfo"]
