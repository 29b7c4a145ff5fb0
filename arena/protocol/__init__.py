"""The wire formats between referee and bots. Knows nothing of processes."""

from .dialects import DIALECTS, Dialect, ProtocolError, TurnInfo, get_dialect
from .framing import LineBuffer, LineTooLongError

__all__ = ["DIALECTS", "Dialect", "LineBuffer", "LineTooLongError", "ProtocolError", "TurnInfo",
           "get_dialect"]
