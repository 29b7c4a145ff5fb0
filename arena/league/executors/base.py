"""What every executor shares: the Executor protocol, the job workers play from, the
pieces fixtures are cut into, and the error that stops a run for a reason that is no
bot's fault."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from arena.errors import ArenaError
from arena.record import GameRecord
from arena.referee import BotSpec, MatchSettings
from arena.sandbox import Limits, SandboxError

from ..config import LeagueConfig
from ..schedule import Fixture
from ..store import StoreError


class RunError(ArenaError, RuntimeError):
    """A run that cannot go on for a reason that is no bot's fault (the host, the config,
    the store or the referee); str() is one line naming the cause."""


@dataclass(frozen=True)
class GameJob:
    """Everything a worker needs to play any fixture of a league (picklable)."""

    game: str
    rules: dict[str, Any]
    bots: dict[str, BotSpec]
    settings: MatchSettings
    sandbox_mode: str
    limits: Limits


class Executor(Protocol):
    """Where a league's games are played: registered by name (the config's `executor:`)
    with the arena_register_executors hook. Subclass it to inherit the defaults below;
    only name and play are required."""

    #: the name a league config gives as `executor:`
    name: ClassVar[str]
    #: workers beyond this many per CPU of this machine are not used (None: no cap)
    workers_per_cpu: ClassVar[int | None] = None

    def play(self, job: GameJob, fixtures: list[Fixture], workers: int,
             config: LeagueConfig | None = None) -> Iterator[tuple[Fixture, GameRecord]]:
        """Each fixture's record as its game ends, in any order, each once; `workers` games
        at a time. The caller stores a record before asking for the next, and closes the
        iterator to stop (stopping every game in flight). A problem that is no bot's fault
        raises RunError (or another ArenaError). config: the league's, when a league plays."""
        ...

    def check(self, config: LeagueConfig) -> None:
        """Before anything starts: raise an ArenaError if this executor cannot play config."""
        return None

    def plays_here(self, config: LeagueConfig) -> bool:
        """True when the bots run on this machine (the run then starts each once first)."""
        return True


def cause(exc: BaseException) -> str:
    """An error that is no bot's fault, in one line: its own message, and its type
    unless the message is one of ours."""
    text = " ".join(str(exc).split()) or "(no message)"
    if isinstance(exc, (SandboxError, StoreError, RunError)):
        return text
    return f"{type(exc).__name__}: {text}"


def chunks(fixtures: list[Fixture], workers: int, most_pairs: int | None = None) -> list[list[Fixture]]:
    """Fixtures cut into pieces a worker plays in a row, handed out interleaved.

    A piece holds games of one pairing, at most most_pairs seat-swapped pairs of them;
    without most_pairs a piece is a whole pairing (its two bots start once), and only
    when there are too few pairings to give every worker two pieces are pairings split,
    evenly. Pieces come round by round: every pairing's i-th piece before any pairing's
    (i+1)-th, so a run stopped early has played about as much of every pairing (with
    most_pairs=1, pair k of every pairing before pair k+1 of any).
    """
    by_pairing: dict[str, list[Fixture]] = {}
    for fixture in fixtures:
        by_pairing.setdefault(fixture.pairing, []).append(fixture)
    splits = 1 if workers <= 1 or not by_pairing else -(-2 * workers // len(by_pairing))
    out: list[tuple[int, list[Fixture]]] = []     # (piece number in its pairing, piece)
    for games in by_pairing.values():
        if most_pairs is not None:
            pairs: dict[int, list[Fixture]] = {}
            for fixture in games:
                pairs.setdefault(fixture.round // 2, []).append(fixture)
            blocks = list(pairs.values())
            grouped = [[f for pair in blocks[i:i + most_pairs] for f in pair]
                       for i in range(0, len(blocks), most_pairs)]
            # numbered by pair, not by position: in a resumed run, pairs already played
            # keep their turn rather than pushing the pairing's next pairs ahead
            out.extend((piece[0].round // 2 // most_pairs, piece) for piece in grouped)
            continue
        size = -(-len(games) // min(splits, len(games)))
        out.extend(enumerate(games[i:i + size] for i in range(0, len(games), size)))
    return [piece for _n, piece in sorted(out, key=lambda p: (p[0], p[1][0].index))]
