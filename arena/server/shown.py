"""Text of the server's shown to a participant without the server's paths: a path into a
submission's directory (submissions/BOT/N/) is made relative to it, and one into arena's
package is written arena/...: a traceback still says which file and line failed, and no
longer where the server keeps its files or its code.

What is stored stays as it was written (the organiser reads it with the paths, the ladder's
store is arena run's, which knows nothing of a server): the paths go when the text is shown.
"""

from __future__ import annotations

import re
from pathlib import Path

import arena

#: the directory arena's package lies in (a checkout, or a site-packages)
_ARENA = Path(arena.__file__).parent


def without_server_paths(text: str, submissions: Path) -> str:
    """text with the paths into submissions/BOT/N/ relative to that directory (the directory
    itself "."), and those into arena's package as arena/..."""
    for root in _spellings(submissions):
        into = re.escape(root) + r"/[^/\s'\"]+/\d+"
        text = re.sub(into + "/", "", text)
        text = re.sub(into + r"(?![\w/])", ".", text)
    for home in _spellings(_ARENA.parent):
        text = text.replace(f"{home}/{_ARENA.name}/", f"{_ARENA.name}/")
    return text


def _spellings(path: Path) -> list[str]:
    """The ways a path may be written in a bot's output: absolute, and with links resolved."""
    return list(dict.fromkeys([str(path.absolute()), str(path.resolve())]))
