"""Time control: what a bot is allowed per move, and what happens when it is late."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeControl:
    """Per-move limit, optional bank with increment, start-up limit, transport allowance (ms).

    A move may use move_ms plus whatever is in the bank; time over move_ms is
    taken from the bank, and increment_ms is added to the bank after every move.
    overhead_ms is slack for pipes and scheduling: the referee's deadline is the
    allowed time plus overhead_ms, and the overhead is never charged to the bot.
    Time the bot or the referee spent waiting for a CPU (run-queue delay, read from
    /proc/<pid>/schedstat) is host load, not the bot's: it moves the deadline back,
    by at most load_grace times the deadline, and is not charged to the bank.
    """

    move_ms: int = 1000
    startup_ms: int = 5000
    bank_ms: int = 0
    increment_ms: int = 0
    overhead_ms: int = 50
    load_grace: float = 10.0

    def __post_init__(self) -> None:
        for name in ("move_ms", "startup_ms"):
            if getattr(self, name) <= 0:
                raise ValueError(f"time control: {name} must be > 0, got {getattr(self, name)!r}")
        for name in ("bank_ms", "increment_ms", "overhead_ms", "load_grace"):
            if getattr(self, name) < 0:
                raise ValueError(f"time control: {name} must be >= 0, got {getattr(self, name)!r}")


@dataclass(frozen=True)
class TimeoutPolicy:
    """forfeit: a late move loses the game. strikes: up to `strikes` late moves are
    replaced by a random legal move (recorded as substituted); the next one loses."""

    mode: str = "forfeit"
    strikes: int = 3

    def __post_init__(self) -> None:
        if self.mode not in ("forfeit", "strikes"):
            raise ValueError(f"timeout policy: mode must be 'forfeit' or 'strikes', got {self.mode!r}")
        if self.strikes < 1:
            raise ValueError(f"timeout policy: strikes must be >= 1, got {self.strikes!r}")


class Clock:
    """One seat's time: the bank as it is drawn down and topped up."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank_ms = control.bank_ms

    def allowed_ms(self) -> int:
        """Time the bot may use for its next move."""
        return self.control.move_ms + self.bank_ms

    def charge(self, used_ms: float) -> bool:
        """Account for a move that took used_ms (overhead already deducted); False if too late."""
        over = used_ms - self.control.move_ms
        if over > self.bank_ms:
            self.bank_ms = 0
            return False
        if over > 0:
            self.bank_ms -= int(over + 0.999)
        self.bank_ms += self.control.increment_ms
        return True
