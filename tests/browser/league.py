"""Real stores of real games for the publish tests.

Every record is a legal game of random moves (arena.games.random_game) stored in a
real arena.league.Store against a real Fixture, so the site is built from exactly
what a league run leaves behind. Stronger bots win more often (a game is re-drawn
until its outcome matches a draw from a strength model), a few bots fault, and
their stderr is hostile HTML, to prove the site escapes it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from made_once import made_once

from arena.games import default_registry, random_game
from arena.league import Fixture, Store, config_from_dict, make_fixtures
from arena.record import BotEntry, GameRecord, MoveRecord, Termination

#: what a faulting bot leaves on stderr: the site must show it as text, never run it
HOSTILE_STDERR = ('thinking about move {ply}\n<script>alert(1)</script>\n'
                  '<img src=x onerror="alert(2)">\nTraceback (most recent call last):\n'
                  '  File "bot.py", line 42, in choose\nRuntimeError: out of ideas & patience\n')

NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
         "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu")


@dataclass(frozen=True)
class FaultPlan:
    """How often one bot faults, and how."""

    termination: Termination
    rate: float
    reason: str


def bot_names(count: int, hostile: bool = False) -> list[str]:
    """count distinct bot names; with hostile, the last one is HTML (names are escaped too)."""
    names = [NAMES[i % len(NAMES)] + (str(i // len(NAMES)) if i >= len(NAMES) else "")
             for i in range(count)]
    if hostile:
        names[-1] = "<b>evil</b>&bot"
    return names


def default_faults(names: Sequence[str]) -> dict[str, FaultPlan]:
    """A crashing bot and a slow one (the 3rd and 4th names), when there are that many."""
    plans = {}
    if len(names) > 2:
        plans[names[2]] = FaultPlan(Termination.CRASH, 0.08, "exited during its turn (exit code 1)")
    if len(names) > 3:
        plans[names[3]] = FaultPlan(Termination.TIMEOUT, 0.05,
                                    "no reply within 1000 ms (+50 ms overhead)")
    return plans


def build_store(path: Path, names: Sequence[str], games: int | None = None, *,
                games_per_pairing: int = 2, game: str = "ultimate", seed: int = 7,
                faults: dict[str, FaultPlan] | None = None) -> list[Fixture]:
    """A store of the first `games` fixtures of a league (all of them if None); returns them."""
    config = config_from_dict({"name": "publish-test", "game": game, "seed": seed, "workers": 1,
                               "games_per_pairing": games_per_pairing,
                               "bots": [{"name": n, "bot": "random"} for n in names]},
                              base_dir=path.parent)
    fixtures = make_fixtures(list(names), games_per_pairing, seed)
    if games is not None:
        if games > len(fixtures):
            raise ValueError(f"{games} games asked, the league has {len(fixtures)} fixtures")
        fixtures = fixtures[:games]
    plans = default_faults(names) if faults is None else faults
    rules = dict(config.rules)
    rules_game = default_registry().create(game, **rules)
    strength = {name: len(names) - i for i, name in enumerate(names)}   # first name strongest
    with Store(path) as store:
        store.bind(config)
        for fixture in fixtures:
            record = _record(fixture, rules_game, game, rules, strength, plans)
            store.add_game(fixture, record)
    return fixtures


def _record(fixture: Fixture, rules_game, game: str, rules: dict, strength: dict[str, int],
            plans: dict[str, FaultPlan]) -> GameRecord:
    rng = random.Random(fixture.seed * 2 + fixture.round % 2)
    diff = strength[fixture.seat0] - strength[fixture.seat1]
    p_first = 1 / (1 + math.exp(-0.35 * diff))
    roll = rng.random()
    wanted: int | None = None if roll < 0.15 else 0 if rng.random() < p_first else 1
    for _attempt in range(8):
        cells = random_game(rules_game, rng)
        final = rules_game.replay(cells)
        if final.winner == wanted:
            break
    speed = [5.0 + 3.0 * (strength[name] % 5) for name in fixture.seats]
    moves = []
    for ply, cell in enumerate(cells):
        seat = ply % 2
        wall = round(speed[seat] * math.exp(rng.gauss(0.0, 0.4)), 3)
        moves.append(MoveRecord(seat=seat, move=str(cell), wall_ms=wall,
                                cpu_ms=round(wall * rng.uniform(0.85, 0.99), 3)))
    record = GameRecord(game=game, rule_options=rules, seed=fixture.seed,
                        bots=[BotEntry(fixture.seat0, "random"), BotEntry(fixture.seat1, "random")],
                        moves=moves, winner=final.winner,
                        reason="draw" if final.winner is None else f"{'xo'[final.winner]} wins",
                        started_at=f"2024-05-01T12:{fixture.index // 60 % 60:02d}:"
                                   f"{fixture.index % 60:02d}+00:00",
                        duration_ms=round(sum(m.wall_ms for m in moves) + 40.0, 3),
                        startup_ms=25.0, play_ms=round(sum(m.wall_ms for m in moves), 3))
    for seat, name in enumerate(fixture.seats):
        plan = plans.get(name)
        if plan is None or rng.random() >= plan.rate or len(moves) < 4:
            continue
        ply = rng.randrange(1, len(moves) // 2) * 2 + seat   # a ply where this seat moves
        record.moves = moves[:ply]
        if plan.termination is Termination.TIMEOUT and ply >= 4:
            strike = record.moves[ply - 2]      # a strike before the forfeit
            record.moves[ply - 2] = MoveRecord(seat=seat, move=strike.move, wall_ms=1050.0,
                                               cpu_ms=None, substituted="timeout strike 1 of 3")
        record.termination = plan.termination
        record.faulted = seat
        record.winner = 1 - seat
        record.reason = f"{name} (seat {seat}): move {ply + 1}: {plan.reason}"
        record.stderr_tails = ["", ""]
        record.stderr_tails[seat] = HOSTILE_STDERR.format(ply=ply + 1)
        break
    return record


def shared_store(base: Path, bots: int = 20, games: int = 2000) -> Path:
    """A league store of `bots` bots (the last with an HTML name) and `games` games, built once
    under base (e.g. made_once.session_dir()) and reused by later callers, in any process."""
    per_pair = bots * (bots - 1) // 2
    gpp = max(2, -(-games // per_pair))
    gpp += gpp % 2
    return made_once(base, f"league-{bots}-bots-{games}-games.sqlite", lambda path: build_store(
        path, bot_names(bots, hostile=True), games, games_per_pairing=gpp))


def shared_site(base: Path, bots: int = 20, games: int = 2000) -> tuple[Path, Path]:
    """shared_store()'s store and the site arena.publish.publish_site makes of it, published
    once under base and reused by later callers (who only read it)."""
    from arena.publish import publish_site
    store = shared_store(base, bots, games)
    return store, made_once(base, f"{store.stem}-site", lambda path: publish_site(store, path))
