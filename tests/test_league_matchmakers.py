"""Matchmakers: every built-in keeps the contract a ladder relies on, is reproducible from
its seed, and `active` ranks a simulated ladder better than random pairing for the same
games (benchmarks/matchmaking.py, run as a user runs it)."""

import json
import os
import random
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import trueskill

from arena.league.matchmakers import BotStanding, Pairing, Standings, pair_key
from arena.plugins import load_plugins
from arena.registry import UnknownExtensionError

ROOT = Path(__file__).resolve().parent.parent
BUILT_IN = ["active", "uniform", "psyleague", "halite", "neighbors"]


def registry():
    return load_plugins(entry_points=False).matchmakers


def field(n: int, rng: random.Random, games: int = 30) -> list[BotStanding]:
    """n bots with spread ratings, as a ladder's standings after some games."""
    return [BotStanding(f"bot{i}", mu=rng.gauss(25, 6), sigma=rng.uniform(0.8, 3), games=games)
            for i in range(n)]


def test_the_built_in_matchmakers_are_registered_by_a_default_plugin():
    matchmakers = registry()
    assert matchmakers.names() == BUILT_IN
    assert {matchmakers.plugin(name) for name in matchmakers} == {"builtin-matchmakers"}


@pytest.mark.parametrize("name", BUILT_IN)
def test_pairings_are_two_distinct_playable_bots_and_as_many_as_asked(name):
    rng = random.Random(1)
    bots = field(20, rng)
    bots[3] = BotStanding("suspended", 40.0, 1.0, 30, suspended=True)   # the best, but locked
    matchmaker = registry().require(name)()
    pairs: Counter = Counter()
    for count in (1, 3, 8, 25, 40):     # 25 and 40: more slots than pairs of free bots
        standings = Standings(bots, pairs=dict(pairs))
        chosen = matchmaker.pairings(standings, count, rng)
        assert len(chosen) == count
        for pairing in chosen:
            assert isinstance(pairing, Pairing) and pairing.first != pairing.second
            assert {pairing.first, pairing.second} <= {b.name for b in bots} - {"suspended"}
            pairs[pair_key(*pairing)] += 1
    assert matchmaker.pairings(Standings(bots[:1]), 4, rng) == []          # nobody to play
    for none in (0, -1):                                                    # no slot free
        assert matchmaker.pairings(Standings(bots, min_games=100), none, rng) == []
    assert matchmaker.pairings(Standings([bots[0], bots[3]]), 4, rng) == []  # the other is suspended


@pytest.mark.parametrize("name", BUILT_IN)
def test_two_bots_can_only_play_each_other(name):
    bots = field(2, random.Random(2))
    chosen = registry().require(name)().pairings(Standings(bots), 3, random.Random(3))
    assert len(chosen) == 3 and all({p.first, p.second} == {"bot0", "bot1"} for p in chosen)


@pytest.mark.parametrize("name", BUILT_IN)
def test_newcomers_come_first(name):
    rng = random.Random(4)
    bots = field(30, rng) + [BotStanding(f"new{i}", 25.0, 25 / 3, games=i) for i in range(3)]
    standings = Standings(bots, min_games=10)
    chosen = registry().require(name)().pairings(standings, 5, rng)
    assert len(chosen) == 5
    for pairing in chosen[:3]:               # one newcomer a pairing while there are newcomers
        assert "new" in pairing.first + pairing.second
    if name != "psyleague":                  # psyleague draws its first bot among them, with replacement
        seated = {bot for pairing in chosen[:3] for bot in pairing if bot.startswith("new")}
        assert seated == {"new0", "new1", "new2"}


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_same_seed_gives_the_same_pairings(name):
    def run(seed: int) -> list[list[Pairing]]:
        rng = random.Random(seed)
        bots = [BotStanding(f"bot{i}", 25.0, 25 / 3) for i in range(40)]   # a fresh ladder: all ties
        matchmaker = registry().require(name)()
        return [matchmaker.pairings(Standings(bots), 6, rng) for _ in range(4)]

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_active_spreads_a_call_over_distinct_bots_and_avoids_repeats():
    rng = random.Random(9)
    bots = field(64, rng)
    chosen = registry().require("active")().pairings(Standings(bots), 16, rng)
    seated = [bot for pairing in chosen for bot in pairing]
    assert len(seated) == len(set(seated)) == 32
    # a pairing played many times gives way to another
    first = chosen[0]
    again = registry().require("active")().pairings(
        Standings(bots, pairs={pair_key(*first): 50}), 16, random.Random(9))
    assert first not in again and Pairing(first.second, first.first) not in again


def test_active_prefers_a_bot_a_worker_already_runs_among_equals():
    twins = [BotStanding("seed", 25.0, 5.0, 30), BotStanding("cold", 26.0, 2.0, 30),
             BotStanding("warm", 24.0, 2.0, 30, running=True)]
    chosen = registry().require("active")().pairings(Standings(twins), 1, random.Random(1))
    assert chosen == [Pairing("seed", "warm")]


def test_neighbors_drops_queued_pairings_of_a_bot_that_may_no_longer_play():
    rng = random.Random(10)
    bots = field(12, rng)
    matchmaker = registry().require("neighbors")()
    matchmaker.pairings(Standings(bots), 1, rng)            # queues a round of 12
    locked = [BotStanding(b.name, b.mu, b.sigma, b.games, suspended=b.name == "bot5") for b in bots]
    for _ in range(12):
        assert all("bot5" not in p for p in matchmaker.pairings(Standings(locked), 2, rng))


def test_active_ranks_a_simulated_ladder_better_than_uniform_pairing(tmp_path):
    """32 bots, 6 seeds, 20 and 40 games per bot: the benchmark's own simulation."""
    out = tmp_path / "figures.json"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "matchmaking.py"), "--bots", "32",
                          "--seeds", "6", "--games", "20,40", "--matchmakers", "active,uniform",
                          "--jobs", "1", "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    figures = json.loads(out.read_text())["32"]
    assert "active" in run.stdout and "uniform" in run.stdout
    for games in ("20", "40"):
        active, uniform = figures["active"]["tau"][games], figures["uniform"]["tau"][games]
        assert active["mean"] > uniform["mean"] + 0.02, (games, active, uniform)


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory) -> Path:
    """docs/plugins.md's matchmaker example, installed as an entry point of a distribution."""
    text = (ROOT / "docs" / "plugins.md").read_text()
    found = re.search(r"```python\n(# arena_fewest_games\.py.*?)```", text, re.S)
    assert found, "docs/plugins.md has no example arena_fewest_games.py"
    root = tmp_path_factory.mktemp("plugin")
    (root / "arena_fewest_games.py").write_text(found.group(1))
    dist = root / "arena_fewest_games-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-fewest-games\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[arena]\nfewest-games = arena_fewest_games\n")
    return root


def test_a_plugin_matchmaker_is_registered_listed_and_simulated(plugin_path, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(plugin_path)}
    listed = subprocess.run([sys.executable, "-m", "arena", "plugins"], capture_output=True, text=True,
                            env=env, timeout=300)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert re.search(r"^fewest-games +arena-fewest-games 0.1 +1 matchmaker, 0 bots$", listed.stdout, re.M)
    out = tmp_path / "figures.json"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "matchmaking.py"), "--bots", "16",
                          "--seeds", "2", "--games", "10", "--matchmakers", "fewest-games,uniform",
                          "--jobs", "1", "--json", str(out)], capture_output=True, text=True, env=env,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    assert set(json.loads(out.read_text())["16"]) == {"fewest-games", "uniform"}
    # the contract the built-ins keep, in this process
    sys.path.insert(0, str(plugin_path))
    try:
        import arena_fewest_games
    finally:
        sys.path.remove(str(plugin_path))
    matchmakers = load_plugins(extra=(arena_fewest_games,), entry_points=False).matchmakers
    assert matchmakers.plugin("fewest-games") == "arena_fewest_games"
    bots = field(6, random.Random(11)) + [BotStanding("new", 25.0, 25 / 3, games=0)]
    chosen = matchmakers.require("fewest-games")().pairings(Standings(bots, min_games=4), 4,
                                                              random.Random(12))
    assert len(chosen) == 4 and "new" in chosen[0] and all(p.first != p.second for p in chosen)


def test_a_misspelt_matchmaker_is_named_with_the_known_ones():
    with pytest.raises(UnknownExtensionError) as error:
        registry().require("activ")
    assert str(error.value) == ("unknown matchmaker 'activ' (did you mean 'active'?); "
                                "known: active, uniform, psyleague, halite, neighbors")


def test_active_gives_newcomers_distinct_opponents_while_there_are_free_bots():
    rng = random.Random(13)
    bots = field(20, rng) + [BotStanding(f"new{i}", 25.0, 25 / 3, games=0) for i in range(4)]
    chosen = registry().require("active")().pairings(Standings(bots, min_games=10), 4, rng)
    seated = [bot for pairing in chosen for bot in pairing]
    assert len(set(seated)) == 8 and {"new0", "new1", "new2", "new3"} <= set(seated)


def test_active_plays_no_pairing_over_and_over_in_a_ladder_with_one_far_stronger_bot():
    """A ladder asks for one pairing at a time: six bots, one of them 1,000 Elo above the
    rest, 200 seat-swapped pairs rated by TrueSkill as they come. No pairing takes more
    than twice its share (the mean over the 15 pairings), the strong bot included."""
    env = trueskill.TrueSkill(draw_probability=0.1)
    elo = {"e0": 0, "e1": 100, "e2": 200, "e3": 300, "e4": 400, "strong": 1400}
    ratings = {name: env.create_rating() for name in elo}
    games: Counter = Counter()
    pairs: Counter = Counter()
    rng, results = random.Random(14), random.Random(15)
    matchmaker = registry().require("active")()
    for _ in range(200):
        bots = [BotStanding(n, r.mu, r.sigma, games[n]) for n, r in ratings.items()]
        (pairing,) = matchmaker.pairings(Standings(bots, pairs=dict(pairs), beta=env.beta), 1, rng)
        pairs[pair_key(*pairing)] += 1
        for a, b in (pairing, pairing[::-1]):
            expected = 1 / (1 + 10 ** ((elo[b] - elo[a]) / 400))
            roll = results.random()
            if abs(roll - expected) < 0.05:
                ratings[a], ratings[b] = trueskill.rate_1vs1(ratings[a], ratings[b], drawn=True, env=env)
            elif roll < expected:
                ratings[a], ratings[b] = trueskill.rate_1vs1(ratings[a], ratings[b], env=env)
            else:
                ratings[b], ratings[a] = trueskill.rate_1vs1(ratings[b], ratings[a], env=env)
            games[a] += 1
            games[b] += 1
    fair = 200 / 15
    assert max(pairs.values()) <= 2 * fair, pairs.most_common(3)
    assert games["strong"] <= 2 * statistics.fmean(games.values()), games


def test_active_pairs_bots_whose_sigma_is_zero():
    """A plugin's or a test's standings may say a bot is known exactly: equal mu and sigma 0
    is an even pair (a half chance of being misordered), not a division by zero."""
    bots = [BotStanding("a", 25.0, 0.0, 10), BotStanding("b", 25.0, 0.0, 10), BotStanding("c", 20.0, 0.0, 10)]
    chosen = registry().require("active")().pairings(Standings(bots), 2, random.Random(16))
    assert len(chosen) == 2 and {chosen[0].first, chosen[0].second} == {"a", "b"}
