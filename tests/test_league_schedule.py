"""Fixtures: a double round robin with seat swaps, fixed by the league seed alone."""

import hashlib
from collections import Counter
from itertools import combinations

import pytest

from arena.league import config_from_dict, make_fixtures, schedule
from arena.league.schedule import game_seed

BOTS = ["alice", "bob", "carol", "dave"]


def test_every_pair_plays_games_per_pairing_games_in_seat_swapped_pairs():
    fixtures = make_fixtures(BOTS, 6, seed=1)
    assert len(fixtures) == 6 * 6
    assert [f.index for f in fixtures] == list(range(len(fixtures)))
    assert len({f.key for f in fixtures}) == len(fixtures)
    per_pair = Counter(f.pairing for f in fixtures)
    assert per_pair == {f"{a}|{b}": 6 for a, b in combinations(sorted(BOTS), 2)}
    by_key = {f.key: f for f in fixtures}
    for f in fixtures:
        a, b, k, swap = f.key.split("|")
        twin = by_key[f"{a}|{b}|{k}|{1 - int(swap)}"]
        assert twin.seed == f.seed and twin.seats == (f.seat1, f.seat0)
        assert f.seats == ((a, b) if swap == "0" else (b, a))
        assert f.round == 2 * int(k) + int(swap)
        assert 0 <= f.seed < 2 ** 63
    seats = Counter(f.seat0 for f in fixtures)
    assert set(seats.values()) == {3 * 3}            # everyone moves first equally often


def test_early_games_spread_over_all_pairings():
    fixtures = make_fixtures(BOTS, 4, seed=3)
    pairs = len(BOTS) * (len(BOTS) - 1) // 2
    for r in range(4):
        chunk = fixtures[r * pairs:(r + 1) * pairs]
        assert {f.round for f in chunk} == {r}
        assert len({f.pairing for f in chunk}) == pairs


def test_seeds_come_from_sha256_of_league_seed_names_and_pair():
    fixtures = make_fixtures(BOTS, 4, seed=12345)
    again = make_fixtures(BOTS, 4, seed=12345)
    assert fixtures == again
    f = next(f for f in fixtures if f.key == "alice|bob|1|0")
    pinned = int.from_bytes(hashlib.sha256(b"12345|alice|bob|1").digest()[:8], "big") >> 1
    assert f.seed == game_seed(12345, "alice", "bob", 1) == pinned == 585269415444368378
    other = make_fixtures(BOTS, 4, seed=12346)
    assert {f.key for f in other} == {f.key for f in fixtures}
    assert not {f.seed for f in other} & {f.seed for f in fixtures}
    assert len({f.seed for f in fixtures}) == len(fixtures) // 2


def test_adding_or_reordering_bots_keeps_every_existing_fixture_and_its_order():
    old = make_fixtures(BOTS, 4, seed=9)
    new = make_fixtures(["erin"] + BOTS[::-1], 4, seed=9)
    new_by_key = {f.key: f for f in new}
    for f in old:
        g = new_by_key[f.key]
        assert (g.seat0, g.seat1, g.seed, g.round) == (f.seat0, f.seat1, f.seed, f.round)
    kept = [f.key for f in new if f.key in {o.key for o in old}]
    assert kept == [f.key for f in old]                # relative order unchanged
    assert len(new) - len(old) == 4 * 4


def test_schedule_of_a_config_and_bad_arguments(tmp_path):
    config = config_from_dict({"name": "s", "game": "tictactoe", "seed": 5, "games_per_pairing": 2,
                               "bots": [{"name": n, "bot": "random"} for n in BOTS]},
                              base_dir=tmp_path)
    assert schedule(config) == make_fixtures(BOTS, 2, 5)
    with pytest.raises(ValueError, match="unique"):
        make_fixtures(["a", "a"], 2, 0)
    with pytest.raises(ValueError, match="even"):
        make_fixtures(["a", "b"], 3, 0)


@pytest.mark.parametrize(("bots", "per_pairing", "workers", "pieces"), [
    (4, 20, 1, 6),     # one piece per pairing: each starts its two bots once
    (4, 20, 2, 6),     # six pairings already give two workers two pieces each
    (2, 20, 2, 4),     # one pairing, two workers: split evenly in four
    (2, 3 * 2, 8, 6),  # never more pieces than games
    (10, 2, 4, 45),
])
def test_pieces_are_whole_pairings_unless_workers_would_idle(bots, per_pairing, workers, pieces):
    from arena.league.executors.base import chunks
    fixtures = make_fixtures([f"b{i}" for i in range(bots)], per_pairing, 5)
    out = chunks(fixtures, workers)
    assert len(out) == pieces
    assert sorted(f.index for piece in out for f in piece) == list(range(len(fixtures)))
    assert all(len({f.pairing for f in piece}) == 1 for piece in out)
    sizes = {}
    for piece in out:
        sizes.setdefault(piece[0].pairing, []).append(len(piece))
    assert all(max(s) - min(s) <= 1 for s in sizes.values())   # a pairing splits evenly
    assert [p[0].index for p in out] == sorted(p[0].index for p in out)


def test_every_fixture_key_a_league_or_a_match_makes_reads_back_as_its_fixture():
    from arena.league.schedule import KeyParts, fixture_key, parse_fixture_key
    from arena.match import match_fixtures

    def opening_of(k, seed):
        return (40, k, seed % 9) if k % 2 else ()
    fixtures = make_fixtures(["b0", "b1", "b2"], 6, 5, opening_of) + \
        match_fixtures("new", "old", 6, seed=3, opening_of=opening_of)
    assert any(f.opening for f in fixtures) and any(not f.opening for f in fixtures)
    for f in fixtures:
        parts = parse_fixture_key(f.key)
        assert parts is not None and (parts.pair, parts.swap) == divmod(f.round, 2) \
            and parts.opening == f.opening and f.pairing == f"{parts.first}|{parts.second}"
        assert fixture_key(*parts) == f.key
    assert parse_fixture_key("a|b|1|0") == KeyParts("a", "b", 1, 0)
    for other in ("a|b", "a|b|x|0", "a|b|1|0|4,x", "a|b|1|0|2|3", ""):
        assert parse_fixture_key(other) is None
