"""Bytes to lines, with a cap so a bot's output never grows the referee's memory."""

from __future__ import annotations


class LineTooLongError(ValueError):
    """A line longer than the cap, or still growing past it without a newline."""


class LineBuffer:
    """Splits a byte stream into lines ('\\n' ends a line, a trailing '\\r' is dropped)."""

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line
        self._partial = bytearray()

    @property
    def pending(self) -> int:
        """Bytes received since the last complete line."""
        return len(self._partial)

    def feed(self, data: bytes) -> list[bytes]:
        """Complete lines in data (and before it); raises LineTooLongError past the cap."""
        if not self._partial and data.endswith(b"\n") and data.count(b"\n") == 1:
            # the common case: one whole line, read at once
            if len(data) - 1 > self.max_line:
                raise LineTooLongError(f"a line longer than {self.max_line} bytes")
            return [data[:-2] if data.endswith(b"\r\n") else data[:-1]]
        if b"\n" not in data:
            if len(self._partial) + len(data) > self.max_line:
                raise LineTooLongError(f"a line longer than {self.max_line} bytes")
            self._partial += data
            return []
        pieces = data.split(b"\n")
        pieces[0] = bytes(self._partial) + pieces[0]
        rest = pieces.pop()
        if len(rest) > self.max_line or any(len(p) > self.max_line for p in pieces):
            raise LineTooLongError(f"a line longer than {self.max_line} bytes")
        self._partial = bytearray(rest)
        return [p[:-1] if p.endswith(b"\r") else p for p in pieces]
