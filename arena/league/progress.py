"""Progress of a league run: one redrawn line on a terminal, a line now and then otherwise.

On a terminal the line shows games done, rate, ETA and faults, and is redrawn in place;
into a pipe or file a line with the same numbers is written every tenth of the games or
every PIPE_EVERY_S seconds, whichever comes first (or, given `every`, every that many
games: what `arena match --status-every` asks for). A fault is always written on a line of
its own with the reason and the line of the bot's stderr that says why (the error line of
a runtime's trace, else its last line), the
first of each kind for each bot only, so a broken bot cannot flood the output either.

With standings, every `standings_every` stored games (and after the last game) the top of
the league table is shown: on a terminal redrawn in place above the progress line, into
a pipe written as a block headed by the game count.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from arena.errorline import error_line
from arena.record import GameRecord, Termination

if TYPE_CHECKING:
    from arena.games import Game
    from arena.registry import Registry

PIPE_EVERY_S = 30.0      #: at least one line this often when not on a terminal
PIPE_LINES = 10          #: about this many count lines for a whole run when not on a terminal
REDRAW_S = 0.1           #: the terminal line is redrawn at most this often
MAX_FAULT_LINES = 20     #: at most this many fault lines in a run; the rest are counted
STANDINGS_BLOCKS = 10    #: about this many standings blocks in a run, by default
#: the rate and ETA are shown once play has gone on this long (or every game is done): games
#: end in bursts, one a worker, so two games a few ms after the start made "2420.1 games/s"
RATE_AFTER_S = 1.0


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def stderr_cause(record: GameRecord, seat: int | None = None) -> str:
    """The line of a seat's bot's stderr (by default the faulted one's) that says why
    (arena.errorline), or ''."""
    seat = record.faulted if seat is None else seat
    if seat is None or seat >= len(record.stderr_tails):
        return ""
    return error_line(record.stderr_tails[seat])


def summary_of(record: GameRecord, games: Registry[type[Game]] | None = None) -> str:
    """record.summary() as its game's rules in games (by default the loaded plugins') word
    it: turns where its moves go by turns, its seats by their names (tron's A and B, not x
    and o); as a game of turns with x and o where games does not know the game."""
    import json

    from arena.games import GameError
    from arena.plugins import games_or_loaded
    if record.referee is not None:   # played by a referee process: its seats are numbers
        return record.summary(False, tuple(f"seat {seat}" for seat in range(len(record.bots))))
    games = games_or_loaded(games)
    infos = _INFOS.setdefault(games, {})
    key = (record.game, json.dumps(record.rule_options, sort_keys=True))
    if key not in infos:
        try:
            info = games.create(record.game, **record.rule_options).info
            infos[key] = (info.by_turn, info.seat_names)
        except (GameError, TypeError):
            infos[key] = (None, ("x", "o"))
    at_once, names = infos[key]
    return record.summary(at_once, names)


#: by registry, then by game and rules: whether its moves go at once, and its seats' names
_INFOS: weakref.WeakKeyDictionary[Registry[type[Game]], dict[tuple[str, str], tuple[bool | None, tuple[str, ...]]]] = (
    weakref.WeakKeyDictionary())


def standings_every(pairings: int, todo: int, blocks: int = STANDINGS_BLOCKS) -> int:
    """Games between two standings blocks: whole rounds (a game of every pairing), enough of
    them that a run shows about `blocks` blocks."""
    pairings = max(1, pairings)
    return pairings * max(1, -(-todo // (blocks * pairings)))


class Progress:
    """Counts finished games and shows done/total, rate, ETA and faults."""

    def __init__(self, total: int, already: int = 0, stream: TextIO | None = None,
                 tty: bool | None = None, clock: Callable[[], float] = time.monotonic,
                 every: int | None = None, detail: Callable[[], str] | None = None,
                 games: Registry[type[Game]] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.every = every          # into a pipe: a line every this many games (None: a tenth)
        self.detail = detail        # more of the status line, after the counts
        #: the games whose rules word a game's summary (a run sets its own; None: the loaded plugins')
        self.games = games
        self.tty = self.stream.isatty() if tty is None else tty
        self.total = total
        self.done = 0
        self.faults = 0
        self.void = 0               # games void by their referee process's fault
        self.already = already
        self.clock = clock
        self.started = clock()
        self._width = 0            # length of the line now drawn on the terminal
        self._drawn_at = -1e9
        self._written_at = self.started
        self._written_done = 0
        self._shown: set[tuple[str, str]] = set()   # (bot, termination) already given a line
        #: the top of the table as lines, and every how many stored games to show it (0: never)
        self.standings: Callable[[], list[str]] | None = None
        self.standings_every = 0
        self._block = 0            # lines of the standings block drawn above the progress line

    @property
    def todo(self) -> int:
        """Games this run set out to play."""
        return self.total - self.already

    def start(self, message: str | None = None, since: float | None = None) -> None:
        """Open the status line (message, or the games stored and to play). since: when the
        games began (a reading of the clock), if before now: a league's workers play while its
        bots are started once, and the games they finish meanwhile took that time too."""
        self._written_at = self.clock()
        self.started = self._written_at if since is None else min(since, self._written_at)
        self._line(message if message is not None else
                   f"{self.already} of {self.total} games already stored; playing {self.todo}")

    def status(self) -> str:
        """'[120/1000] 12%, 3.4 games/s, ETA 0:04:18, 2 faults'; '[2/1000] 0%, 2 faults' in
        the first RATE_AFTER_S seconds."""
        elapsed = self.clock() - self.started
        left = self.todo - self.done
        over = bool(self.total) and left <= 0
        rate = self.done / elapsed if elapsed > 0 and (elapsed >= RATE_AFTER_S or over) else None
        stored = self.already + self.done
        share = 100 * stored // self.total if self.total else 100
        faults = f"{self.faults} fault{'s' * (self.faults != 1)}" + (f", {self.void} void" if self.void else "")
        count = f"{stored}/{self.total}" if self.total else f"{stored}"   # 0: no end (a ladder)
        speed = f"{rate:.1f} games/s, " if rate is not None else ""
        if self.detail is not None:   # a match: its numbers matter more than the ETA to its cap
            return f"[{count}] {speed}{faults} | {self.detail()}"
        if rate is None:
            return f"[{stored}/{self.total}] {share}%, {faults}"
        eta = _clock(left / rate) if rate > 0 else "?"
        return f"[{stored}/{self.total}] {share}%, {speed}ETA {eta}, {faults}"

    def update(self, record: GameRecord) -> None:
        self.done += 1
        if record.termination is Termination.REFEREE_FAULT:
            self._void(record)
        for fault in record.faults():   # a seat put out in a free-for-all is a fault too
            self.faults += 1
            name = record.bots[fault.seat].name
            kind = (name, fault.termination.value)
            if kind not in self._shown and len(self._shown) < MAX_FAULT_LINES:
                self._shown.add(kind)
                # the game's summary says why a fault that ended it happened; an out seat's why
                why = "" if fault.seat == record.faulted else f"; {fault.reason}"
                cause = stderr_cause(record, fault.seat)
                self._line(f"fault: {summary_of(record, self.games)}{why}"
                           + (f"; {name}'s stderr: {cause}" if cause else "")
                           + f" (further {fault.termination.label} faults of {name} are only counted)")
        now = self.clock()
        last = self.done == self.todo
        stored = self.already + self.done
        if self.standings is not None and self.standings_every > 0 and (
                last or stored % self.standings_every == 0):
            self._show_standings(self.standings())
        if self.tty:
            if last or now - self._drawn_at >= REDRAW_S:
                self._redraw(f"{self.status()} | {summary_of(record, self.games)}")
                self._drawn_at = now
        elif self.every is not None:
            if last or self.done - self._written_done >= self.every:
                self._line(self.status())
                self._written_at, self._written_done = now, self.done
        elif (last or (self.total and self.done - self._written_done >= max(1, -(-self.todo // PIPE_LINES)))
              or now - self._written_at >= PIPE_EVERY_S):   # no total (a ladder): by time only
            self._line(self.status())
            self._written_at, self._written_done = now, self.done

    def _void(self, record: GameRecord) -> None:
        """A game its referee process failed: said with the line of the referee's stderr
        that says why (the first MAX_FAULT_LINES of them)."""
        self.void += 1
        if self.void <= MAX_FAULT_LINES:
            cause = error_line((record.referee or {}).get("stderr", ""))
            self._line(f"referee fault: {summary_of(record, self.games)}"
                       + (f"; the referee's stderr: {cause}" if cause else "")
                       + ("" if self.void < MAX_FAULT_LINES else " (further ones are only counted)"))

    def _show_standings(self, table: list[str]) -> None:
        """The standings: redrawn in place on a terminal, a block of lines into a pipe."""
        head = (f"standings after {self.already + self.done} of {self.total} games:" if self.total
                else f"standings after {self.already + self.done} games:")
        if not self.tty:
            self.stream.write("\n".join([head, *table]) + "\n")
            self.stream.flush()
            return
        columns = self._columns()
        rows = shutil.get_terminal_size((columns, 24)).lines
        lines = [line[:max(columns - 1, 20)] for line in [head, *table]][:max(rows - 2, 3)]
        out = "\r\x1b[K"                       # off the progress line ...
        if self._block:
            out += f"\x1b[{self._block}A\x1b[J"  # ... up to the last block, cleared below
        self.stream.write(out + "".join(line + "\n" for line in lines))
        self._block, self._width = len(lines), 0
        self._drawn_at = -1e9      # the progress line goes back under it at once
        self.stream.flush()

    def warn(self, message: str) -> None:
        """A warning line, kept apart from the updating line."""
        self._line(f"arena: WARNING: {message}")

    def print_above(self, text: str, stream: TextIO) -> None:
        """Write a line to stream (e.g. stdout) above the status line, which is drawn again
        below it, so the two never share a terminal line."""
        drawn = self.tty and self._width > 0
        if drawn:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
        stream.write(text + "\n")
        stream.flush()
        if drawn:
            self._redraw(self.status())

    def finish(self, message: str) -> None:
        if self.tty and self._width:
            self.stream.write("\n")    # the last progress line stays on screen
            self._width = 0
        self._line(message)

    def _columns(self) -> int:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = shutil.get_terminal_size((120, 24)).columns
        return columns if columns > 0 else 120   # a pseudo-terminal may report no size

    def _redraw(self, text: str) -> None:
        """Draw text over the terminal's current line."""
        text = text[:max(self._columns() - 1, 20)]
        self.stream.write("\r" + text + " " * max(0, self._width - len(text)))
        self._width = len(text)
        self.stream.flush()

    def _line(self, text: str) -> None:
        """Write text as a line of its own; on a terminal, the progress line is drawn again below."""
        if self.tty and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
        self.stream.write(text + "\n")
        self._block = 0     # a line under the standings: the next block is drawn below it
        if self.tty and self._width and self.done < self.todo:
            self.stream.write(self.status())
            self._width = len(self.status())
        else:
            self._width = 0
        self.stream.flush()
