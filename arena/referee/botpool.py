"""Bot processes kept between games: a worker that plays many games keeps each bot's
process (its sandbox, its start-up, its warm caches) for the next game with that bot, within
caps of memory and count, and ends the ones it lets go while the next game starts."""

from __future__ import annotations

import time
from collections.abc import Mapping

from arena.protocol import Dialect
from arena.sandbox import SandboxedProcess

from .botspec import BotSpec, dialect_of
from .channel import BotChannel

#: a kept process's memory is read again after this many games (it may grow as it plays)
MEASURE_EVERY = 16


class BotPool:
    """Bot processes kept alive between games, so a league does not pay a process start
    per game. Only dialects that can say "new game" are kept; a bot that faulted is never
    kept. With max_idle, the processes idle longest are closed beyond that many; with
    max_idle_bytes, beyond that much resident memory of idle processes (each read when it
    is first given back, then every MEASURE_EVERY games). The pool also ends the bots no
    game will use again (retire): their exits are waited for while the next game's bots
    start, not between games. Close the pool when its games are done: a kept bot is told
    to quit and, unless quit_grace_s is given, killed at once (its games are over and
    recorded: nothing it does on the way out counts, and a league's last worker would
    wait for it). Its counters say what it saved: reused (a kept process played), missed
    (none was kept: the referee starts one), evicted (closed to keep within a cap)."""

    def __init__(self, quit_grace_s: float = 0.0, max_idle: int | None = None,
                 dialects: Mapping[str, Dialect] | None = None,
                 max_idle_bytes: int | None = None) -> None:
        self._idle: dict[tuple, BotChannel] = {}     # in the order they were given back
        self._bytes: dict[tuple, tuple[int, int]] = {}   # key -> (resident bytes, games since read)
        self._ending: list[tuple[SandboxedProcess, float]] = []   # retired: (process, when to kill it)
        self.quit_grace_s = quit_grace_s
        self.max_idle = max_idle
        self.max_idle_bytes = max_idle_bytes
        self.dialects = dialects     #: where close finds how to say quit (dialect_of)
        self.reused = 0
        self.missed = 0
        self.evicted = 0
        self.idle_bytes = 0          #: resident memory of the idle processes, as last read

    @staticmethod
    def key(spec: BotSpec) -> tuple:
        """Which kept process may play for spec: the same bot, command, dialect and version."""
        return (spec.name, tuple(spec.argv), spec.dialect, spec.fingerprint)

    def running(self) -> frozenset[str]:
        """The names of the bots with a process kept here (a source prefers their games)."""
        return frozenset(key[0] for key in self._idle)

    def take(self, spec: BotSpec) -> BotChannel | None:
        """A live process of this bot, if one is idle."""
        key = self.key(spec)
        channel = self._idle.pop(key, None)
        if channel is not None:
            self.idle_bytes -= self._bytes.get(key, (0, 0))[0]
            if not channel.healthy:
                self.retire(channel.proc)
                self._bytes.pop(key, None)
                channel = None
        if channel is None:
            self.missed += 1
        else:
            self.reused += 1
        return channel

    def give(self, spec: BotSpec, channel: BotChannel) -> None:
        """Keep a process for the bot's next game (another idle one is closed), closing
        the longest idle beyond the caps."""
        key = self.key(spec)
        if key in self._idle:
            self._drop(key)
        self._idle[key] = channel
        if self.max_idle_bytes is not None:
            size, games = self._bytes.get(key, (0, MEASURE_EVERY))
            if games >= MEASURE_EVERY:
                size, games = channel.proc.memory_bytes(), 0
            self._bytes[key] = (size, games + 1)
            self.idle_bytes += size
        while self._idle and self._over():
            self._drop(next(iter(self._idle)))      # the least recently used
            self.evicted += 1

    def _over(self) -> bool:
        return ((self.max_idle is not None and len(self._idle) > self.max_idle)
                or (self.max_idle_bytes is not None and self.idle_bytes > self.max_idle_bytes))

    def _drop(self, key: tuple) -> None:
        """Close the idle process of key."""
        self.retire(self._idle.pop(key).proc)
        self.idle_bytes -= self._bytes.pop(key, (0, 0))[0]

    def retire(self, proc: SandboxedProcess, kill_at: float = 0.0) -> None:
        """Take a bot no game will use again: killed at kill_at (monotonic time; at once
        by default) unless it has exited by then, and closed by a later end_retired."""
        if time.monotonic() >= kill_at:
            proc.kill_tree()
        self._ending.append((proc, kill_at))

    def end_retired(self, wait: bool = False) -> None:
        """Close the retired bots that have exited and kill those whose time is up, without
        waiting; with wait, wait for every one (until its kill time) and close them all."""
        if wait:
            for proc, kill_at in self._ending:
                proc.wait(max(0.0, kill_at - time.monotonic()))
        now = time.monotonic()
        still: list[tuple[SandboxedProcess, float]] = []
        for proc, kill_at in self._ending:
            if now >= kill_at:
                proc.kill_tree()    # idempotent: a killed tree is not signalled again
            if wait or proc.poll() is not None:
                proc.close()        # reaps it, removes its scratch dir, frees its uid
            else:
                still.append((proc, kill_at))
        self._ending = still

    def close(self) -> None:
        """Ask every kept bot to quit, give them quit_grace_s together, then kill what is
        left, every tree at once before waiting for any (the waits then overlap)."""
        kept = list(self._idle.items())
        self._idle.clear()
        self._bytes.clear()
        self.idle_bytes = 0
        for key, channel in kept:
            channel.request(dialect_of(key[2], self.dialects).quit_lines(), expects_reply=False)
        kill_at = time.monotonic() + self.quit_grace_s
        for _, channel in kept:
            self.retire(channel.proc, kill_at)
        self.end_retired(wait=True)


__all__ = ["MEASURE_EVERY", "BotPool"]
