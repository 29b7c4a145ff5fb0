"""Progress of a league run: one updating line on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from arena.record import GameRecord


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def describe(record: GameRecord) -> str:
    """One line for a finished game: who beat whom and how."""
    a, b = (bot.name for bot in record.bots)
    if record.winner is None:
        result = f"{a} drew with {b}"
    else:
        winner, loser = (a, b) if record.winner == 0 else (b, a)
        result = f"{winner} beat {loser}"
    if record.faulted is not None:
        return f"{result} ({record.termination.value}: {record.reason})"
    return f"{result} ({len(record.moves)} moves)"


class Progress:
    """Counts finished games and shows done/total, rate, ETA and the latest result."""

    def __init__(self, total: int, already: int = 0, stream: TextIO | None = None,
                 tty: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.total = total
        self.done = 0
        self.already = already
        self.started = time.monotonic()
        self._width = 0

    def start(self) -> None:
        todo = self.total - self.already
        self._emit(f"{self.already} of {self.total} games already stored; playing {todo}", final=True)

    def update(self, record: GameRecord) -> None:
        self.done += 1
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        left = self.total - self.already - self.done
        eta = _clock(left / rate) if rate > 0 else "?"
        count = f"[{self.already + self.done}/{self.total}]"
        if self.tty:
            self._emit(f"{count} {rate:.1f} games/s, ETA {eta} | {describe(record)}")
        else:
            self._emit(f"{count} {describe(record)}", final=True)

    def warn(self, message: str) -> None:
        """A warning line, kept apart from the updating line."""
        self._emit(f"arena: WARNING: {message}", final=True)

    def finish(self, message: str) -> None:
        if self.tty and self._width:
            self.stream.write("\n")
        self._emit(message, final=True)

    def _emit(self, text: str, final: bool = False) -> None:
        if self.tty and not final:
            columns = 120
            text = text[:columns - 1]
            self.stream.write("\r" + text + " " * max(0, self._width - len(text)))
            self._width = len(text)
        else:
            if self.tty and self._width:
                self.stream.write("\n")
                self._width = 0
            self.stream.write(text + "\n")
        self.stream.flush()
