"""A match: N games between two bots with seats alternating, as `arena match` plays it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from arena.games import Game
from arena.openings import NONE, Openings
from arena.record import GameRecord
from arena.referee import BotSpec, MatchSettings, play_game
from arena.sandbox import Sandbox


def play_match(game: Game, a: BotSpec, b: BotSpec, games: int, seed: int, sandbox: Sandbox,
               settings: MatchSettings, openings: Openings = NONE) -> Iterator[GameRecord]:
    """Records of games A-B, B-A, A-B, ...; game i has seed seed + i // 2, so each
    seat-swapped pair shares a seed and an opening (pair i // 2 of the openings)."""
    if a.name == b.name:
        b = dataclasses.replace(b, name=b.name + " (2)")
    for i in range(games):
        seats = (a, b) if i % 2 == 0 else (b, a)
        pair_seed = seed + i // 2
        yield play_game(game, seats, pair_seed, sandbox, settings,
                        opening=openings.opening(game, i // 2, pair_seed))


def tally(records: list[GameRecord], names: tuple[str, str]) -> dict[str, list[int]]:
    """Wins, draws, losses per bot name."""
    table = {name: [0, 0, 0] for name in names}
    for rec in records:
        for seat, entry in enumerate(rec.bots):
            if rec.winner is None:
                table[entry.name][1] += 1
            elif rec.winner == seat:
                table[entry.name][0] += 1
            else:
                table[entry.name][2] += 1
    return table

