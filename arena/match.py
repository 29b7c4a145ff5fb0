"""A match: N games between two bots with seats alternating, as `arena match` plays it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from arena.games import Game
from arena.record import GameRecord
from arena.referee import BotSpec, MatchSettings, play_game
from arena.sandbox import Sandbox


def play_match(game: Game, a: BotSpec, b: BotSpec, games: int, seed: int, sandbox: Sandbox,
               settings: MatchSettings) -> Iterator[GameRecord]:
    """Records of games A-B, B-A, A-B, ...; game i has seed seed + i // 2, so each
    seat-swapped pair shares a seed."""
    if a.name == b.name:
        b = dataclasses.replace(b, name=b.name + " (2)")
    for i in range(games):
        seats = (a, b) if i % 2 == 0 else (b, a)
        yield play_game(game, seats, seed + i // 2, sandbox, settings)


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

