"""The transcript of a game played by a referee process (docs/referees.md), from its record:
each step, the lines a seat was given and the lines it answered, with its times, and the
referee's ###Error lines where they came; what `arena replay` prints, as data a page can show
too. Pure: a record in, steps and lines out."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from arena.errorline import error_line
from arena.record import GameRecord

#: lines of one step's input shown; the rest are counted
SHOWN_LINES = 24


@dataclass(frozen=True)
class Step:
    """One answer of one seat: what it was given (None: past the record's cap) and answered."""

    number: int                     #: 1 first, over the whole game
    seat: int
    bot: str
    turn: int                       #: the seat's own answers so far, this one included
    given: list[str] | None
    answered: list[str]
    wall_ms: float
    cpu_ms: float | None
    #: the referee's ###Error lines written after this answer, before the next
    errors: list[dict[str, Any]] = field(default_factory=list)


def steps(record: GameRecord) -> list[Step]:
    """The record's steps, in order."""
    entry = record.referee or {}
    after: dict[int, list[dict[str, Any]]] = {}
    for error in entry.get("errors", []):
        after.setdefault(error["move"], []).append(error)
    turns = [0] * len(record.bots)
    found = []
    for number, move in enumerate(record.moves, 1):
        turns[move.seat] += 1
        found.append(Step(number, move.seat, record.bots[move.seat].name, turns[move.seat], move.input,
                          move.move.split("\n"), move.wall_ms, move.cpu_ms, after.get(number, [])))
    return found


def errors_before(record: GameRecord) -> list[dict[str, Any]]:
    """The ###Error lines the referee wrote before any answer."""
    return [error for error in (record.referee or {}).get("errors", []) if error["move"] == 0]


def header(record: GameRecord, which: str = "") -> str:
    """Who played, and the referee: 'tictactoe-ref: a (seat 0), b (seat 1); referee
    fingerprint 1a2b3c4d5e6f7a8b, seed 12 (game 3 of 8)'."""
    entry = record.referee or {}
    seats = ", ".join(f"{bot.name} (seat {seat})" for seat, bot in enumerate(record.bots))
    seed = (f"told seed {entry['seed']}" if entry.get("seed") is not None else "no seed told")
    print_ = entry.get("fingerprint") or "?"
    return f"{record.game}: {seats}; played by its referee process (fingerprint {print_}), {seed}" + (
        f" ({which})" if which else "")


def step_lines(step: Step, shown: int = SHOWN_LINES) -> Iterator[str]:
    """A step for people: who answered what to which lines, in how long."""
    cpu = f", cpu {step.cpu_ms:.1f} ms" if step.cpu_ms is not None else ""
    yield f"step {step.number}: {step.bot} (seat {step.seat}), turn {step.turn}"
    if step.given is None:
        yield "  given: (not kept: the record's transcript is capped)"
    else:
        yield f"  given {len(step.given)} line{'s' * (len(step.given) != 1)}"
        yield from (f"    < {line}" for line in step.given[:shown])
        if len(step.given) > shown:
            yield f"    ... {len(step.given) - shown} more"
    yield f"  answered ({step.wall_ms:.1f} ms{cpu})"
    yield from (f"    > {line}" for line in step.answered)
    yield from error_lines(step.errors)


def error_lines(errors: list[dict[str, Any]]) -> Iterator[str]:
    """The referee's ###Error lines, as the record keeps them."""
    for error in errors:
        about = f" about seat {error['seat']}" if error["seat"] is not None else ""
        yield f"  referee's ###Error{about}: {error['message']}"


def ending_lines(record: GameRecord, stderr_lines: int = 10) -> Iterator[str]:
    """The referee's stderr tail (its last lines, the one that says why first when they do
    not hold it) and where the transcript was cut."""
    entry = record.referee or {}
    if entry.get("cut") is not None:
        yield (f"(the transcript was capped: from step {entry['cut'] + 1} on, the input given is not "
               "kept and answers are cut short)")
    tail = entry.get("stderr", "").strip()
    if tail:
        last = tail.splitlines()[-stderr_lines:]
        said = error_line(tail)
        yield "the referee's stderr (last lines):"
        if said and not any(said in line for line in last):
            yield from ("  " + said, "  ...")
        yield from ("  " + line for line in last)


__all__ = ["SHOWN_LINES", "Step", "ending_lines", "error_lines", "errors_before", "header", "step_lines", "steps"]
