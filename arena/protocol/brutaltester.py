"""cg-brutaltester's referee protocol (its old mode, `-o`), as the arena speaks it to a referee
process (docs/referees.md): the lines the arena writes first, and what each line the referee
writes means. Pure: lines in, commands out; arena.referee.relay runs the processes.

The arena writes `###Seed S` (only to a referee that takes seeds: many read one line and take
a `###Seed` for a bot's answer) and `###Start N`. The referee then writes `###Input K` and the
lines for seat K up to its next `###` line, `###Output K M` (seat K owes M lines, written back
to the referee), and at last `###End` with one field per place, first place first, each field
the digits of the seats sharing it (`###End 1 0`: seat 1 won; `###End 01`: a tie). Its
`###Error K MESSAGE` lines, a complaint about seat K, come on stdout or (in real referees, for
cg-brutaltester hangs on one on stdout) on stderr."""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.errors import ArenaError

NAME = "brutaltester"
#: seeds a referee is given: cg-brutaltester draws them in [0, 2**31 - 1), Java's int range
SEED_RANGE = 2**31 - 1
#: lines one `###Output` may ask for (a game of drones asks 11; a reply is read whole)
MAX_REPLY_LINES = 1000

_INPUT = re.compile(r"###Input (\d+)")
_OUTPUT = re.compile(r"###Output (\d+) (\d+)")
_ERROR = re.compile(r"###Error(?: (\d+))?(?: (.*))?")
_END = re.compile(r"###End((?: \d+)*)")


class RefereeProtocolError(ArenaError, ValueError):
    """A line no referee of this protocol writes, or one that breaks it (a seat that does not
    exist, an `###End` that does not place every seat once): the referee's fault."""


@dataclass(frozen=True)
class Input:
    """`###Input K`: the lines up to the next `###` line are seat K's."""

    seat: int


@dataclass(frozen=True)
class Output:
    """`###Output K M`: seat K owes M lines, which go back to the referee."""

    seat: int
    lines: int


@dataclass(frozen=True)
class End:
    """`###End`: the places, first place first, each the seats sharing it."""

    places: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Error:
    """`###Error K MESSAGE`: the referee's complaint about seat K (None: no seat named)."""

    seat: int | None
    message: str


Command = Input | Output | End | Error


def referee_seed(seed: int) -> int:
    """The seed a referee is told for a game's seed: within a Java int, as cg-brutaltester's."""
    return seed % SEED_RANGE


def start_lines(players: int, seed: int | None) -> list[str]:
    """What the arena writes to a referee first: `###Seed S` for a referee that takes a seed
    (seed given), then `###Start N`."""
    return ([f"###Seed {referee_seed(seed)}"] if seed is not None else []) + [f"###Start {players}"]


def is_command(line: str) -> bool:
    """True for a line that is a command (ends an `###Input` block)."""
    return line.startswith("###")


def command(line: str, players: int) -> Command:
    """The command a line of the referee's stdout is (trailing spaces and a '\\r' ignored);
    RefereeProtocolError for any other line, or a seat that is none of the game's players."""
    text = line.rstrip()
    for pattern, make in ((_INPUT, lambda m: Input(int(m[1]))),
                          (_OUTPUT, lambda m: Output(int(m[1]), int(m[2]))),
                          (_END, lambda m: End(tuple(tuple(int(d) for d in field)
                                                     for field in m[1].split())))):
        match = pattern.fullmatch(text)
        if match is not None:
            found = make(match)
            _check(found, text, players)
            return found
    error = error_of(text, players)
    if error is not None:
        return error
    if is_command(text):
        raise RefereeProtocolError(f"wrote {_shown(text)}, which is no command of the {NAME} protocol "
                                   "(###Input K, ###Output K M, ###End, ###Error K)")
    raise RefereeProtocolError(f"wrote {_shown(text)} where a command (###Input, ###Output, ###End) "
                               "was due")


def _check(found: Command, text: str, players: int) -> None:
    seat = getattr(found, "seat", None)
    if seat is not None and not 0 <= seat < players:
        raise RefereeProtocolError(f"wrote {_shown(text)}: seat {seat} is none of the game's "
                                   f"{players} seats (0 to {players - 1})")
    if isinstance(found, Output) and not 1 <= found.lines <= MAX_REPLY_LINES:
        raise RefereeProtocolError(f"wrote {_shown(text)}: a reply is 1 to {MAX_REPLY_LINES} lines")


def error_of(line: str, players: int) -> Error | None:
    """The `###Error` a line is, or None (on stderr, any other line is the referee's log); an
    error naming no seat of the game keeps that number in its message."""
    match = _ERROR.fullmatch(line.rstrip())
    if match is None:
        return None
    seat = None if match[1] is None else int(match[1])
    if seat is not None and not 0 <= seat < players:
        return Error(None, f"{match[1]} {match[2] or ''}".rstrip())
    return Error(seat, match[2] or "")


def ranking(end: End, players: int) -> list[int]:
    """Each seat's rank (0 first, seats sharing a place share a rank: 0, 1, 1, 3) from an
    `###End`; RefereeProtocolError unless it places every seat exactly once."""
    said = "###End" + "".join(" " + "".join(map(str, place)) for place in end.places)
    seats = [seat for place in end.places for seat in place]
    if sorted(seats) != list(range(players)):
        missing = sorted(set(range(players)) - set(seats))
        twice = sorted({seat for seat in seats if seats.count(seat) > 1})
        strange = sorted(set(seats) - set(range(players)))
        what = (f"seat {strange[0]} is none of the game's {players}" if strange
                else f"it places seat {twice[0]} twice" if twice
                else f"it does not place seat {missing[0]}")
        raise RefereeProtocolError(f"wrote {_shown(said)}: {what} (every seat once, first place first)")
    ranks = [0] * players
    before = 0
    for place in end.places:
        for seat in place:
            ranks[seat] = before
        before += len(place)
    return ranks


def _shown(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


__all__ = ["MAX_REPLY_LINES", "NAME", "SEED_RANGE", "Command", "End", "Error", "Input", "Output",
           "RefereeProtocolError", "command", "error_of", "is_command", "ranking", "referee_seed",
           "start_lines"]
