"""What every executor shares: the job workers play from, the pieces fixtures are cut
into, and the error that stops a run for a reason that is no bot's fault."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.referee import BotSpec, MatchSettings
from arena.sandbox import Limits, SandboxError

from ..schedule import Fixture
from ..store import StoreError


class RunError(RuntimeError):
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
    extra_games: tuple[type, ...] = ()


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
