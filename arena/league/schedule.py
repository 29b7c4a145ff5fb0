"""Fixtures of a league: a double round robin (or a gauntlet) with seat swaps, fixed by the
league seed alone; for a game of more than two seats, balanced blocks of free-for-all games.

A fixture's identity (its key) and its seed depend only on the league seed, the two
bot names and the pair number, never on the other bots or their order in the config:
adding a bot adds fixtures and leaves every existing one as it was. A free-for-all
schedule is drawn over the whole bot list, in balanced rounds, so there adding a bot
draws it anew; a schedule for more games begins with the one for fewer.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from math import comb, gcd
from typing import NamedTuple

from arena.games import Game
from arena.openings import NONE, Openings, parse_spec
from arena.plugins import games_or_loaded
from arena.referee import BotSpec
from arena.registry import Registry

from .config import LeagueConfig

SEED_BITS = 63
#: a free-for-all block's group is chosen among every possible group up to this many
#: (method "greedy")
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

    @classmethod
    def of_pair(cls, first: str, second: str, pair: int, swap: int, seed: int,
                opening: Sequence[int] = (), index: int = -1) -> Fixture:
        """Game `swap` of pair number `pair` of two bots under one seed: first moves first
        in game 0, second in game 1 (the seats swapped); its key is fixture_key's, its
        round 2 * pair + swap. Every two-seat fixture is made here (a league's schedule, a
        ladder's pairs, a match's games)."""
        seats = (first, second) if swap == 0 else (second, first)
        return cls(index=index, key=fixture_key(first, second, pair, swap, opening),
                   pairing=pairing_of(seats), seat0=seats[0], seat1=seats[1], seed=seed,
                   round=2 * pair + swap, opening=tuple(opening))

    @classmethod
    def of_block(cls, seated: Sequence[str], game: int, seed: int, index: int) -> Fixture:
        """Game number `game` of more than two seats, its bots in seat order (a block's
        games seat one group in turn and share a seed); its key is ffa_key's, its round
        the game number. Every free-for-all fixture is made here (a league's schedule, a
        ladder's blocks)."""
        return cls(index=index, key=ffa_key(seated, game), pairing=pairing_of(seated),
                   seat0=seated[0], seat1=seated[1], seed=seed, round=game,
                   more=tuple(seated[2:]))


def pairing_of(names: Iterable[str]) -> str:
    """The pairing of bots, as fixtures name it: their names sorted, joined by '|'
    ("alice|bob", "a|b|c" for a block of more seats); bot names never hold a '|'."""
    return "|".join(sorted(names))


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
                unordered += [Fixture.of_pair(first, second, k, swap, pair_seed, opening)
                              for swap in (0, 1)]
    unordered.sort(key=lambda f: f.order)
    return [replace(f, index=i) for i, f in enumerate(unordered)]


#: how a free-for-all schedule's groups are drawn: in balanced rounds (the default), or
#: block by block as arena drew them before (kept for the stores whose games follow it)
FFA_METHODS = ("rounds", "greedy")
#: swaps tried in all, over a schedule's rounds, to even out how often pairs meet: a bound
#: on the time drawing a long schedule takes (arena run draws it at every start)
MAX_SWAPS_TRIED = 300_000
#: a round's search stops after this many steps that found no better arrangement
STEPS_A_ROUND = 40
#: of a round of more blocks, a step weighs the swaps of this many pairs of its blocks
#: (drawn by its rng), not of all
BLOCK_PAIRS_A_STEP = 120
#: steps during which a bot moved out of a block may not move back into it
TABU = 7
#: what a pair that never met costs, beyond any sum of squares a round can change
UNMET = 1_000_000
#: what a pair costs for each meeting past one more than the pairs' mean (rounded up)
OVER = 10_000
#: what a bot costs for each block of a round's first ones it plays out of step (one more
#: than some bot's one more, or one fewer than some bot's one fewer): less than a pair
#: meeting too often, as it matters only to a schedule cut short in a round
UNEVEN = 3_000


def make_ffa_fixtures(bots: Sequence[str], seats: int, games: int, seed: int,
                      method: str = "rounds") -> list[Fixture]:
    """`games` games of `seats` bots each (a free-for-all league), balanced and fixed by the
    league seed.

    Games come in blocks of `seats` games played by one group of bots, seated in turn at
    every seat (game j of a block seats the group rotated by j) and sharing a seed, as a
    pair's two games do: every bot plays every seat equally often, up to one game of a
    last, short block. The blocks come in rounds (_round_groups): the fewest blocks in
    which every bot plays equally often, and in each round the groups whose pairs have met
    most evenly so far, so that where whole rounds can make every two bots meet they do
    (method "greedy": each block's group the best by the same measure alone, as arena
    drew them before; it can leave a pair unmet while others meet three times). The key
    names the bots in seat order and the game number ("a|b|c|d||7"); a schedule for more
    games begins with the schedule for fewer, and the schedule depends on the bot list,
    so adding a bot changes it (games stored for keys it no longer has are not played
    again).
    """
    if len(set(bots)) != len(bots):
        raise ValueError(f"bot names must be unique: {list(bots)}")
    if not 2 < seats <= len(bots):
        raise ValueError(f"{seats} seats need at least {seats} bots, not {len(bots)}")
    if method not in FFA_METHODS:
        raise ValueError(f"method must be one of {FFA_METHODS}, not {method!r}")
    blocks = -(-games // seats)
    draw = _greedy_groups if method == "greedy" else _round_groups
    fixtures = []
    for block, chosen in enumerate(draw(bots, seats, blocks, seed)):
        group = [bots[i] for i in chosen]
        block_seed = game_seed(seed, "ffa", "", block)
        for turn in range(min(seats, games - block * seats)):
            seated = [group[(s + turn) % seats] for s in range(seats)]
            number = block * seats + turn
            fixtures.append(Fixture.of_block(seated, number, block_seed, index=number))
    return fixtures


def _greedy_groups(bots: Sequence[str], seats: int, blocks: int, seed: int) -> list[tuple[int, ...]]:
    """Each block's group (bot indices): the one whose bots played the fewest blocks so far,
    then whose pairs met least (the sum of their meeting counts squared), then a shuffle
    fixed by the league seed. Of more than MAX_GROUPS_WEIGHED possible groups the group is
    picked one bot at a time by the same measure."""
    count = len(bots)
    played = [0] * count                            # by bot index
    met = [[0] * count for _ in range(count)]       # blocks two bots met in, both ways
    every = (list(combinations(range(count), seats))
             if comb(count, seats) <= MAX_GROUPS_WEIGHED else None)

    def fit(group: Sequence[int]) -> tuple[int, int]:
        """Lower first: the blocks its bots played, then its pairs' meetings squared."""
        return (sum(played[i] for i in group),
                sum(met[i][j] ** 2 for i, j in combinations(group, 2)))
    groups = []
    for block in range(blocks):
        def shuffle(group: Sequence[int], block: int = block) -> int:
            return game_seed(seed, "ffa", "|".join(bots[i] for i in group), block)
        if every is not None:
            chosen = _least(every, fit, shuffle)
        else:   # too many groups to weigh each: one bot at a time, by the same measure
            chosen = ()
            while len(chosen) < seats:
                chosen = _least([(*chosen, i) for i in range(count) if i not in chosen], fit, shuffle)
        for i in chosen:
            played[i] += 1
        for i, j in combinations(chosen, 2):
            met[i][j] += 1
            met[j][i] += 1
        groups.append(chosen)
    return groups


def _round_groups(bots: Sequence[str], seats: int, blocks: int, seed: int) -> list[tuple[int, ...]]:
    """Each block's group (bot indices, sorted), drawn round by round. A round is the
    fewest blocks in which every bot plays equally often (bots / gcd(bots, seats) blocks),
    its blocks in an order where after every one of them the bots' blocks played differ by
    one at most (so a schedule cut short in a round is as even as can be). Its groups
    start as a fill (_fill_round) and are evened out by swaps of bots between its blocks
    (_even_out) towards every pair met, then pairs' meetings as equal as they can be,
    counting the rounds before. Both take their choices in an order fixed by the league
    seed; rounds are drawn in turn, so a schedule for more games begins with the schedule
    for fewer."""
    count = len(bots)
    per_round = count // gcd(count, seats)
    met = [[0] * count for _ in range(count)]
    budget = [MAX_SWAPS_TRIED]
    groups: list[tuple[int, ...]] = []
    for first in range(0, blocks, per_round):
        rng = random.Random(game_seed(seed, "ffa-round", "|".join(bots), first))
        round_groups = _fill_round(count, seats, per_round, met, rng)
        _even_out(round_groups, met, rng, budget)
        for chosen in round_groups[:blocks - first]:
            for i, j in combinations(chosen, 2):
                met[i][j] += 1
                met[j][i] += 1
            groups.append(tuple(sorted(chosen)))
    return groups


def _fill_round(count: int, seats: int, blocks: int, met: list[list[int]],
                rng: random.Random) -> list[list[int]]:
    """A round's groups, block by block, keeping the bots' blocks played in the round within
    one of each other after every block: the bots that played fewer in the round first
    (all of them, when the block's seats outnumber them), then, among those with the
    fewest, the bots whose meetings with the bots chosen cost least (_pair_cost), ties in
    an order fixed by rng."""
    played = [0] * count
    order = list(range(count))
    rng.shuffle(order)
    groups = []
    for _ in range(blocks):
        low = min(played)
        behind = [i for i in order if played[i] == low]
        chosen = behind if len(behind) <= seats else []
        pool = [i for i in order if played[i] == low + (len(behind) <= seats)]
        while len(chosen) < seats:
            best = min((i for i in pool if i not in chosen),
                       key=lambda i: sum(_pair_cost(met[i][j] + 1) - _pair_cost(met[i][j]) for j in chosen))
            chosen.append(best)
        for i in chosen:
            played[i] += 1
        groups.append(chosen)
    return groups


def _pair_cost(meetings: int, high: int = 1 << 30) -> int:
    """What a pair's meetings cost a schedule: their square, far more for none, and much
    more for each past `high`."""
    return meetings * meetings + UNMET * (meetings == 0) + OVER * max(0, meetings - high)


def _floor(before: list[list[int]], adding: int, high: int) -> int:
    """The least cost (_pair_cost over the pairs) that `adding` more meetings could give:
    each added to a pair that met least (water-filling; the round's shape may not allow
    it)."""
    counts = sorted(before[i][j] for i in range(len(before)) for j in range(i))
    for _ in range(adding):       # a round adds some dozens: one at a time is cheap
        counts[0] += 1
        at = 0
        while at + 1 < len(counts) and counts[at] > counts[at + 1]:
            counts[at], counts[at + 1] = counts[at + 1], counts[at]
            at += 1
    return sum(_pair_cost(c, high) for c in counts)


def _even_out(groups: list[list[int]], before: list[list[int]], rng: random.Random,
              budget: list[int]) -> None:
    """Swap bots between the round's blocks towards the least cost, in place: over the
    pairs, of their meetings before and in the round, _pair_cost (a pair never met costs
    UNMET, each meeting past one more than the mean OVER, and each its square), and UNEVEN
    for each bot and block where the round's first blocks leave it two apart from
    another. A tabu search: each step makes the best swap (ties drawn by rng) other than
    one moving a bot back into a block it left in the last TABU steps, unless that beats
    the best arrangement seen, which is kept; until the cost cannot go lower (_floor), no
    better arrangement came for STEPS_A_ROUND steps, or budget[0] (the swaps left to
    weigh, shared by every round) is spent."""
    blocks, seats = len(groups), len(groups[0])
    if blocks < 2:
        return
    met = _met_with(before, groups)
    high, floor = _high_and_floor(before, blocks, seats)
    cost = sum(_pair_cost(met[i][j], high) for i in range(len(met)) for j in range(i))
    # up[m]: what one more meeting costs a pair that met m times
    up = [_pair_cost(m + 1, high) - _pair_cost(m, high) for m in range(high + blocks + 2 + max(map(max, met)))]
    best, kept, since = cost, [group[:] for group in groups], 0
    left: dict[tuple[int, int], int] = {}      # (bot, block) -> the step it left that block
    pairs = list(combinations(range(blocks), 2))
    # a swap of u in block a and v in block b (a < b) takes one from u and gives one to v
    # in played[.][p] for each p in a+1..b; a count outside behind[p]..ahead[p] (two bots
    # more than one apart) costs UNEVEN a block
    bots = len(before)
    played, ahead, behind = _played_by_prefix(groups, bots, seats)
    cost += _uneven(played, ahead, behind)
    best = cost
    step = 0
    while best > floor and since < STEPS_A_ROUND and budget[0] > 0:
        step += 1
        since += 1
        chosen: tuple[int, int, int, int] | None = None
        least, ties = 0, 0
        for a, b in pairs if len(pairs) <= BLOCK_PAIRS_A_STEP else sorted(rng.sample(pairs, BLOCK_PAIRS_A_STEP)):
            one, two = groups[a], groups[b]
            budget[0] -= seats * seats
            # u leaves one for two, v two for one: each gains the partners of the other
            # block and loses its own, but for a bot in both; what each part costs, by bot
            only_one = [w for w in one if w not in two]
            only_two = [w for w in two if w not in one]
            span = range(a + 1, b + 1)
            # what one block less for u, one more for v, in each of those prefixes costs
            fewer = {u: UNEVEN * sum((played[u][p] <= behind[p]) - (played[u][p] > ahead[p]) for p in span)
                     for u in only_one}
            more = {v: UNEVEN * sum((played[v][p] >= ahead[p]) - (played[v][p] < behind[p]) for p in span)
                    for v in only_two}
            into_one = {v: sum(up[met[v][w]] for w in only_one) for v in only_two}
            into_two = {u: sum(up[met[u][w]] for w in only_two) for u in only_one}
            out_one = {u: sum(up[met[u][w] - 1] for w in only_one if w != u) for u in only_one}
            out_two = {v: sum(up[met[v][w] - 1] for w in only_two if w != v) for v in only_two}
            for x, u in enumerate(one):
                if u in two:
                    continue
                for y, v in enumerate(two):
                    if v in one:
                        continue
                    delta = (into_one[v] + into_two[u] - out_one[u] - out_two[v] - 2 * up[met[u][v]]
                             + fewer[u] + more[v])
                    if chosen is not None and delta > least:
                        continue
                    back = left.get((u, b), -TABU) > step - TABU or left.get((v, a), -TABU) > step - TABU
                    if back and cost + delta >= best:
                        continue
                    if chosen is None or delta < least:
                        chosen, least, ties = (a, b, x, y), delta, 1
                    else:              # a tie: each of the tied taken alike often
                        ties += 1
                        if rng.randrange(ties) == 0:
                            chosen = (a, b, x, y)
        if chosen is None:
            break
        a, b, x, y = chosen
        u, v = _swap(groups, met, played, chosen)
        left[u, a] = left[v, b] = step
        cost += least
        if cost < best:
            best, kept, since = cost, [group[:] for group in groups], 0
    groups[:] = kept


def _met_with(before: list[list[int]], groups: list[list[int]]) -> list[list[int]]:
    """The meetings of every two bots before the round (a copy of before) and in it."""
    met = [row[:] for row in before]
    for group in groups:
        for i, j in combinations(group, 2):
            met[i][j] += 1
            met[j][i] += 1
    return met


def _high_and_floor(before: list[list[int]], blocks: int, seats: int) -> tuple[int, int]:
    """With a round of `blocks` blocks of `seats` seats after the meetings `before`: the
    meetings past which a pair is far from even (one more than the mean), and the least
    cost (_floor) the round could reach."""
    adding = blocks * seats * (seats - 1) // 2
    total = sum(before[i][j] for i in range(len(before)) for j in range(i)) + adding
    pairs_of_bots = len(before) * (len(before) - 1) // 2
    high = -(-total // pairs_of_bots) + 1         # a pair meeting more is far from even
    return high, _floor(before, adding, high)


def _uneven(played: list[list[int]], ahead: list[int], behind: list[int]) -> int:
    """UNEVEN for each bot and prefix of the round's blocks (_played_by_prefix) where it
    played more than ahead or fewer than behind, by each block it is out."""
    return UNEVEN * sum(max(0, row[p] - ahead[p]) + max(0, behind[p] - row[p])
                        for row in played for p in range(len(ahead)))


def _played_by_prefix(groups: list[list[int]], bots: int,
                      seats: int) -> tuple[list[list[int]], list[int], list[int]]:
    """played[i][p]: the blocks bot i plays among the round's first p, for p = 0..blocks;
    ahead[p] and behind[p]: the most and the fewest any bot may have played there, if
    every two bots are within one."""
    blocks = len(groups)
    played = [[0] * (blocks + 1) for _ in range(bots)]
    for block, group in enumerate(groups):
        for i in range(bots):
            played[i][block + 1] = played[i][block] + (i in group)
    ahead = [-(-p * seats // bots) for p in range(blocks + 1)]
    behind = [p * seats // bots for p in range(blocks + 1)]
    return played, ahead, behind


def _swap(groups: list[list[int]], met: list[list[int]], played: list[list[int]],
          chosen: tuple[int, int, int, int]) -> tuple[int, int]:
    """Swap bot x of block a with bot y of block b (chosen: a, b, x, y; a < b), in place,
    with the meetings and the prefix counts it changes; the two bots (u from a, v from b)."""
    a, b, x, y = chosen
    one, two = groups[a], groups[b]
    u, v = one[x], two[y]
    for w in one:
        if w != u:
            met[u][w] -= 1
            met[w][u] -= 1
            met[v][w] += 1
            met[w][v] += 1
    for w in two:
        if w != v:
            met[v][w] -= 1
            met[w][v] -= 1
            met[u][w] += 1
            met[w][u] += 1
    one[x], two[y] = v, u
    for p in range(a + 1, b + 1):
        played[u][p] -= 1
        played[v][p] += 1
    return u, v


def _least(options: Sequence[tuple[int, ...]], fit: Callable[[Sequence[int]], tuple[int, int]],
           shuffle: Callable[[Sequence[int]], int]) -> tuple[int, ...]:
    """The option of least fit, ties broken by the shuffle (hashed for the tied ones only:
    a SHA-256 per group made 12 bots' 10,000 games take 3 s)."""
    fits = [fit(option) for option in options]
    best = min(fits)
    return min((option for option, f in zip(options, fits) if f == best), key=shuffle)


def ffa_balance(fixtures: Sequence[Fixture], bots: Sequence[str]) -> str | None:
    """Why a free-for-all schedule is not balanced (every bot playing as many games, every
    two bots meeting), with how near it comes, in words; None when it is balanced."""
    if not fixtures:
        return None
    seats = len(fixtures[0].seats)
    played = dict.fromkeys(bots, 0)
    met: dict[frozenset[str], int] = {frozenset(pair): 0 for pair in combinations(bots, 2)}
    for fixture in fixtures:
        for name in fixture.seats:
            played[name] += 1
        for pair in combinations(fixture.seats, 2):
            met[frozenset(pair)] += 1
    fewest, most = min(played.values()), max(played.values())
    unmet = sum(1 for count in met.values() if not count)
    if fewest == most and not unmet:
        return None
    whole = len(bots) // gcd(len(bots), seats) * seats     # games in a round
    said = []
    if fewest != most:
        said.append(f"bots play {fewest} to {most} games (every one of the {len(bots)} plays as "
                    f"many in a multiple of {whole} games)")
    if unmet:
        room = len(fixtures) // seats * comb(seats, 2)      # pairs' meetings the blocks hold
        why = (f"{-(-len(fixtures) // seats)} blocks of {seats} bots hold only {room} meetings of two"
               if room < len(met) else "no schedule was found where they do")
        said.append(f"{unmet} of {len(met)} pairs of bots never meet ({why})")
    low = min(met.values())
    return (f"the free-for-all schedule of {len(fixtures)} games is not balanced, the nearest found: "
            f"{'; '.join(said)}; two bots meet in {low} to {max(met.values())} games")


def schedule(config: LeagueConfig, games: Registry[type[Game]] | None = None,
             ffa_method: str = "rounds") -> list[Fixture]:
    """The fixtures of a league config, in playing (and rating) order (ffa_method: how a
    free-for-all schedule is drawn, FFA_METHODS); its game made from games (by default the
    loaded plugins')."""
    if config.games is not None:
        seats = _made(config, games).seats
        return make_ffa_fixtures(config.bot_names, seats, config.games, config.seed, ffa_method)
    openings = league_openings(config, games)
    if openings.is_none:
        return make_fixtures(config.bot_names, config.games_per_pairing, config.seed,
                             candidates=config.candidates)
    game = _made(config, games)

    def opening_of(k: int, pair_seed: int) -> tuple[int, ...]:
        return openings.opening(game, k, pair_seed)
    return make_fixtures(config.bot_names, config.games_per_pairing, config.seed, opening_of,
                         candidates=config.candidates)


def league_openings(config: LeagueConfig, games: Registry[type[Game]] | None = None) -> Openings:
    """The league's openings: its spec read for its game, a book shuffled by its seed."""
    if config.openings == "none":
        return NONE
    game = _made(config, games)
    return parse_spec(config.openings, game, config.openings_order, config.seed, config.base_dir)


def _made(config: LeagueConfig, games: Registry[type[Game]] | None) -> Game:
    """The config's game (by its referee process, or made from games: where a caller gives
    none, the loaded plugins')."""
    return config.made_game(games_or_loaded(games))
