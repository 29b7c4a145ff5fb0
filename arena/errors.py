"""The root of bot-arena's user-facing errors.

Every error that means "the user asked for something we cannot do" (a bad config, an
unknown game or bot, a store that cannot be used, a plugin that failed) derives from
ArenaError, so the CLI catches it once and prints one line. Anything else reaching
the top is a bug and keeps its traceback. Like python-chess's EngineError, the root
lets a program that embeds arena catch "arena said no" without naming every class.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class ArenaError(Exception):
    """A user-facing error: its message is one line that says what to change."""


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """' (did you mean 'x'?)' naming the known name closest to a mistyped one; '' if none is close."""
    close = difflib.get_close_matches(name, list(names), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
