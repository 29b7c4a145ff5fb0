"""Fixtures of a league: a double round robin (or a gauntlet) with seat swaps, fixed by the
league seed alone; for a game of more than two seats, balanced blocks of free-for-all games.

A fixture's identity (its key) and its seed depend only on the league seed, the two
bot names and the pair number, never on the other bots or their order in the config:
adding a bot adds fixtures and leaves every existing one as it was. A free-for-all
schedule is drawn over the whole bot list, so there adding a bot draws it anew.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from math import comb
from typing import NamedTuple

from arena.games import GameRegistry
from arena.openings import NONE, Openings, parse_spec
from arena.plugins import loaded_plugins
from arena.referee import BotSpec

from .config import LeagueConfig

SEED_BITS = 63
#: a free-for-all block's group is chosen among every possible group up to this many
MAX_GROUPS_WEIGHED = 2000


@dataclass(frozen=True)
class Fixture:
    """One game to play: who sits where, with which seed, and where it falls in the order."""

    index: int      #: position in the schedule (the order ratings replay games in)
    key: str        #: identity, stable across config changes: "alice|bob|3|0"
    pairing: str    #: the two bots, sorted: "alice|bob"
    seat0: str      #: display name of the bot moving first
    seat1: str
    seed: int       #: shared by the two seat-swapped games of a pair
    round: int      #: 2*k + swap; round r holds one game of every pairing
    #: moves the referee plays first, shared by the pair; part of the key when not empty
    opening: tuple[int, ...] = ()
    #: how to start the bots of (seat0, seat1), when the fixture carries them (a bot that
    #: joins or changes during a run reaches a running worker so); else the job's
    bots: tuple[BotSpec, ...] | None = field(default=None, compare=False, repr=False)
    #: the bots' versions (v0, v1) the game is played and stored for; else the store's
    versions: tuple[int, ...] | None = field(default=None, compare=False, repr=False)
    #: the bots of seats 2, 3, ... in a game of more than two seats (free-for-all)
    more: tuple[str, ...] = ()

    @property
    def seats(self) -> tuple[str, ...]:
        """The bots by seat: (seat0, seat1, *more)."""
        return (self.seat0, self.seat1, *self.more)

    def carrying(self, bots: Mapping[str, BotSpec], versions: tuple[int, ...]) -> Fixture:
        """This fixture carrying its bots' specs (from a map by name) and versions."""
        return replace(self, bots=tuple(bots[name] for name in self.seats), versions=versions)

    @property
    def order(self) -> tuple[int, int, str]:
        """The sort key of the schedule; comparable across schedules of the same league."""
        return (self.round, self.seed, self.key)


class KeyParts(NamedTuple):
    """What a fixture key says: the two bots, the pair number, the seat swap, the opening;
    for a game of more seats, the bots of seats 0 and 1, the game number as pair (swap 0)
    and the bots of the seats after them in more."""

    first: str
    second: str
    pair: int
    swap: int
    opening: tuple[int, ...] = ()
    more: tuple[str, ...] = ()


def fixture_key(first: str, second: str, pair: int, swap: int, opening: Sequence[int] = (),
                more: Sequence[str] = ()) -> str:
    """A fixture's key: "alice|bob|3|0", with "|40,36,4,12" after it when the pair starts
    from an opening (a league without openings keeps the keys it always had). Bot names
    never hold a '|' (the config refuses them). With more (the bots of seats 2..), the key
    of game number `pair` of more than two seats (ffa_key)."""
    if more:
        return ffa_key((first, second, *more), pair)
    tail = "|" + ",".join(map(str, opening)) if opening else ""
    return f"{first}|{second}|{pair}|{swap}{tail}"


def parse_fixture_key(key: str) -> KeyParts | None:
    """The parts of a key fixture_key made; None for a key of another shape."""
    parts = key.split("|")
    if len(parts) >= 5 and parts[-2] == "":    # "a|b|c||7": no bot name is empty
        try:
            return KeyParts(parts[0], parts[1], int(parts[-1]), 0, (), tuple(parts[2:-2]))
        except ValueError:
            return None
    if len(parts) not in (4, 5):
        return None
    try:
        opening = tuple(int(move) for move in parts[4].split(",")) if len(parts) == 5 else ()
        return KeyParts(parts[0], parts[1], int(parts[2]), int(parts[3]), opening)
    except ValueError:
        return None


def ffa_key(seats: Sequence[str], game: int) -> str:
    """The key of game number `game` of a league of more than two seats: its bots in seat
    order, an empty part, the number ("a|b|c|d||7"); names are never empty, so the key
    reads as no two-seat key."""
    return "|".join(seats) + f"||{game}"


def game_seed(league_seed: int, first: str, second: str, k: int) -> int:
    """The seed of pair k of two bots (names sorted): a 63-bit slice of a SHA-256."""
    text = f"{league_seed}|{first}|{second}|{k}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> (64 - SEED_BITS)


#: the opening of pair k of a pairing whose games have seed s: opening_of(k, s)
OpeningOf = Callable[[int, int], tuple[int, ...]]


def make_fixtures(bots: Sequence[str], games_per_pairing: int, seed: int,
                  opening_of: OpeningOf | None = None,
                  candidates: Sequence[str] = ()) -> list[Fixture]:
    """Every pair of bots plays games_per_pairing games: pairs of one seed, seats swapped.

    With candidates (a gauntlet), only pairs of a candidate and a bot that is not one
    meet: candidates play the pool, not each other, and the pool does not play itself.
    A pairing's fixtures are the same in both schedules (keys, seeds, openings).

    Round r = 2k + swap holds one game of every pairing, so early games spread over
    all pairings; within a round pairings come in the order of their seeds (a
    shuffle fixed by the league seed that stays put when bots are added). Pair k of
    every pairing starts from opening_of(k, its seed); a fixture with an opening has
    it in its key ("alice|bob|3|0|40,36,4,12"), so a game is known by where it started
    and a league without openings keeps the keys it always had.
    """
    if len(set(bots)) != len(bots):
        raise ValueError(f"bot names must be unique: {list(bots)}")
    if games_per_pairing < 2 or games_per_pairing % 2:
        raise ValueError(f"games_per_pairing must be even and >= 2, not {games_per_pairing}")
    unordered = []
    testing = set(candidates)
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            if testing and (a in testing) == (b in testing):
                continue
            first, second = sorted((a, b))
            for k in range(games_per_pairing // 2):
                pair_seed = game_seed(seed, first, second, k)
                opening = opening_of(k, pair_seed) if opening_of is not None else ()
                for swap, seats in enumerate(((first, second), (second, first))):
                    unordered.append(Fixture(
                        index=-1, key=fixture_key(first, second, k, swap, opening),
                        pairing=f"{first}|{second}", seat0=seats[0], seat1=seats[1], seed=pair_seed,
                        round=2 * k + swap, opening=opening))
    unordered.sort(key=lambda f: f.order)
    return [replace(f, index=i) for i, f in enumerate(unordered)]


def make_ffa_fixtures(bots: Sequence[str], seats: int, games: int, seed: int) -> list[Fixture]:
    """`games` games of `seats` bots each (a free-for-all league), balanced and fixed by the
    league seed.

    Games come in blocks of `seats` games played by one group of bots, seated in turn at
    every seat (game j of a block seats the group rotated by j) and sharing a seed, as a
    pair's two games do: every bot plays every seat equally often, up to one game of a
    last, short block. Each block's group is the one whose bots played the fewest blocks
    so far, then whose pairs met least (the sum of their meeting counts squared), then a
    shuffle fixed by the league seed: so games per bot differ by a block or so and every
    two bots meet about equally often. Of more than MAX_GROUPS_WEIGHED possible groups the
    group is picked one bot at a time by the same measure. The key names the bots in seat
    order and the game number ("a|b|c|d||7"); the schedule depends on the bot list, so
    adding a bot changes it (games stored for keys it no longer has are left out).
    """
    if len(set(bots)) != len(bots):
        raise ValueError(f"bot names must be unique: {list(bots)}")
    if not 2 < seats <= len(bots):
        raise ValueError(f"{seats} seats need at least {seats} bots, not {len(bots)}")
    count = len(bots)
    blocks = [0] * count                            # by bot index
    met = [[0] * count for _ in range(count)]       # blocks two bots met in, both ways
    every = (list(combinations(range(count), seats))
             if comb(count, seats) <= MAX_GROUPS_WEIGHED else None)

    def fit(group: Sequence[int]) -> tuple[int, int]:
        """Lower first: the blocks its bots played, then its pairs' meetings squared."""
        return (sum(blocks[i] for i in group),
                sum(met[i][j] ** 2 for i, j in combinations(group, 2)))
    fixtures = []
    for block in range(-(-games // seats)):
        def shuffle(group: Sequence[int], block: int = block) -> int:
            return game_seed(seed, "ffa", "|".join(bots[i] for i in group), block)
        if every is not None:
            chosen = _least(every, fit, shuffle)
        else:   # too many groups to weigh each: one bot at a time, by the same measure
            chosen = ()
            while len(chosen) < seats:
                chosen = _least([(*chosen, i) for i in range(count) if i not in chosen], fit, shuffle)
        for i in chosen:
            blocks[i] += 1
        for i, j in combinations(chosen, 2):
            met[i][j] += 1
            met[j][i] += 1
        group = [bots[i] for i in chosen]
        block_seed = game_seed(seed, "ffa", "", block)
        for turn in range(min(seats, games - block * seats)):
            seated = [group[(s + turn) % seats] for s in range(seats)]
            number = block * seats + turn
            fixtures.append(Fixture(
                index=number, key=ffa_key(seated, number), pairing="|".join(sorted(group)),
                seat0=seated[0], seat1=seated[1], seed=block_seed, round=number,
                more=tuple(seated[2:])))
    return fixtures


def _least(options: Sequence[tuple[int, ...]], fit: Callable[[Sequence[int]], tuple[int, int]],
           shuffle: Callable[[Sequence[int]], int]) -> tuple[int, ...]:
    """The option of least fit, ties broken by the shuffle (hashed for the tied ones only:
    a SHA-256 per group made 12 bots' 10,000 games take 3 s)."""
    fits = [fit(option) for option in options]
    best = min(fits)
    return min((option for option, f in zip(options, fits) if f == best), key=shuffle)


def schedule(config: LeagueConfig, games: GameRegistry | None = None) -> list[Fixture]:
    """The fixtures of a league config, in playing (and rating) order."""
    if config.games is not None:
        seats = (games or loaded_plugins().games).create(config.game, **config.rules).seats
        return make_ffa_fixtures(config.bot_names, seats, config.games, config.seed)
    openings = league_openings(config, games)
    if openings.is_none:
        return make_fixtures(config.bot_names, config.games_per_pairing, config.seed,
                             candidates=config.candidates)
    game = (games or loaded_plugins().games).create(config.game, **config.rules)

    def opening_of(k: int, pair_seed: int) -> tuple[int, ...]:
        return openings.opening(game, k, pair_seed)
    return make_fixtures(config.bot_names, config.games_per_pairing, config.seed, opening_of,
                         candidates=config.candidates)


def league_openings(config: LeagueConfig, games: GameRegistry | None = None) -> Openings:
    """The league's openings: its spec read for its game, a book shuffled by its seed."""
    if config.openings == "none":
        return NONE
    game = (games or loaded_plugins().games).create(config.game, **config.rules)
    return parse_spec(config.openings, game, config.openings_order, config.seed, config.base_dir)
