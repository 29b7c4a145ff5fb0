"""The record of one played game: what the referee produces and the store keeps.

Why a game ended (Termination) is kept apart from who won (winner), and a fault
names the seat that caused it, so a bot's misbehaviour is data, not an exception.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any

#: 2 added `opening`; a version 1 record reads as a game without one
RECORD_VERSION = 2


class Termination(str, enum.Enum):
    """Why a game ended."""

    NORMAL = "normal"                  #: the rules ended it (line, full board, ...)
    TIMEOUT = "timeout"                #: a bot did not answer within its time
    CRASH = "crash"                    #: a bot's process exited or died by a signal
    ILLEGAL_MOVE = "illegal_move"      #: a well-formed move that is not legal here
    MALFORMED = "malformed"            #: output that is not a move at all
    OUTPUT_CAP = "output_cap"          #: a line or the total output over its cap
    STARTUP_FAILURE = "startup_failure"  #: the bot did not start or finish its handshake
    RESOURCE_LIMIT = "resource_limit"  #: killed for memory, CPU seconds, processes or files
    ABORTED = "aborted"                #: the referee itself stopped the game (e.g. Ctrl-C)

    @property
    def is_fault(self) -> bool:
        """True when a bot, not the rules, ended the game."""
        return self not in (Termination.NORMAL, Termination.ABORTED)


@dataclass
class MoveRecord:
    """One move as played: who, what, and how long it took."""

    seat: int
    move: str
    wall_ms: float
    cpu_ms: float | None = None
    #: why the referee played this move for the bot (e.g. a timeout strike), else None
    substituted: str | None = None
    #: time the bot or referee waited for a CPU during the move: host load, not charged
    wait_ms: float | None = None


@dataclass
class BotEntry:
    """A bot as it sat at the table."""

    name: str
    spec: str = ""        #: how it was started: registered name or DIALECT:COMMAND
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class GameRecord:
    """Everything needed to replay and judge one game."""

    game: str
    rule_options: dict[str, Any]
    seed: int
    bots: list[BotEntry]
    moves: list[MoveRecord] = field(default_factory=list)
    winner: int | None = None
    termination: Termination = Termination.NORMAL
    faulted: int | None = None
    reason: str = ""
    scores: tuple[float, float] = (0.5, 0.5)
    stderr_tails: list[str] = field(default_factory=lambda: ["", ""])
    started_at: str = ""        #: ISO 8601 UTC
    duration_ms: float = 0.0    #: start of the first process to the last one's end
    startup_ms: float = 0.0     #: starting both bots and their handshakes
    play_ms: float = 0.0        #: the moves, after start-up, before shutdown
    #: how many of the first moves are the opening the referee played, not the bots
    opening: int = 0
    version: int = RECORD_VERSION

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (built by hand: dataclasses.asdict deep-copies and is slow)."""
        return {
            "game": self.game, "rule_options": dict(self.rule_options), "seed": self.seed,
            "bots": [{"name": b.name, "spec": b.spec, "options": dict(b.options)} for b in self.bots],
            "moves": [{"seat": m.seat, "move": m.move, "wall_ms": m.wall_ms, "cpu_ms": m.cpu_ms,
                       "substituted": m.substituted, "wait_ms": m.wait_ms} for m in self.moves],
            "winner": self.winner, "termination": self.termination.value, "faulted": self.faulted,
            "reason": self.reason, "scores": list(self.scores), "stderr_tails": list(self.stderr_tails),
            "started_at": self.started_at, "duration_ms": self.duration_ms,
            "startup_ms": self.startup_ms, "play_ms": self.play_ms, "opening": self.opening,
            "version": self.version,
        }

    def opening_moves(self) -> list[str]:
        """The moves of the opening (played by the referee before the bots took over)."""
        return [m.move for m in self.moves[:self.opening]]

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        data = dict(data)
        data["bots"] = [BotEntry(**b) for b in data["bots"]]
        data["moves"] = [MoveRecord(**m) for m in data.get("moves", [])]
        data["termination"] = Termination(data["termination"])
        data["scores"] = tuple(data["scores"])
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        return cls.from_dict(json.loads(text))
