"""Seed 001's published-code emulation: each defect pinned on a small hand-built position.

The defects are those of the authors' simulator (github.com/karan1149/ultimate-tic-tac-toe)
that explain the paper's Table 1; docs/results/seed001-table1.md describes them."""

import random
import subprocess
import sys

import pytest

from arena.games import default_registry
from bots import agent_class
from bots.features import (
    ADJACENT,
    ADJACENT_PAIRS,
    ADVANCED_WEIGHTS,
    SIMPLE_WEIGHTS,
    advanced_eval,
    advanced_features,
    scaled,
    simple_features,
)
from bots.search9 import Search9
from bots.ultimate_agents import EMULATE_PARTS, NO_VALUE

REGISTRY = default_registry()
COUNTS = REGISTRY.create("ultimate")
IGNORED = REGISTRY.create("ultimate", column258="ignored")
WIN = 100.0  # the paper's utility of a won game, as last_stats reports values

# Board texts (9 squares, row-major; x moves first). DRAWN is full with no line.
EMPTY = "........."
X_TOP_ROW = "xxxoo...."


def position(game, boards: dict[int, str], to_move: str, target: str):
    cells = "".join(boards.get(b, EMPTY) for b in range(9))
    return game.parse_state(f"{cells} {to_move} {target}")


def agent(name, game=COUNTS, seed=1, **options):
    return agent_class(name)(game, random.Random(seed), **options)


# ------------------------------------------------------------------ 1. the 2-5-8 column of boards

# x has won boards 2 and 5 (right column, top and middle) and is sent to board 8, where
# square 2 completes a line; playing it wins board 8.
COLUMN = {2: X_TOP_ROW, 5: X_TOP_ROW, 8: "xx.oo....", 0: "o...o...."}


def test_column258_counts_by_default_and_is_ignored_on_request():
    for game, over in ((COUNTS, True), (IGNORED, False)):
        state = position(game, COLUMN, "x", "8")
        after = state.play(8 * 9 + 2)
        assert after.boards_won() == (3, 0)
        assert after.is_terminal() is over
        if over:
            assert after.winner == 0
        else:
            assert after.legal_moves()  # o plays on: the three boards 2, 5, 8 are no line


def test_column258_ignored_reaches_the_searchers_and_other_lines_still_win():
    for game, term in ((COUNTS, WIN * 1e6), (IGNORED, None)):
        state = position(game, COLUMN, "x", "8")
        s9 = Search9(state, agent("uttt-minimax", game).evaluation(0), 0)
        assert s9.child(0, s9.target, s9.closed, s9.xwon, s9.owon, s9.e, 8 * 9 + 2)[1] == term
    # the top row 0-1-2 still wins under column258=ignored
    state = position(IGNORED, {0: X_TOP_ROW, 1: X_TOP_ROW, 2: "xx.oo....", 3: "o...o...."}, "x", "2")
    assert state.play(2 * 9 + 2).winner == 0


def test_column258_is_a_rule_option_the_cli_lists_and_checks():
    run = subprocess.run([sys.executable, "-m", "arena", "games", "-v"], capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 0 and "column258" in run.stdout and "ignored" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "arena", "random-game", "ultimate", "--rule", "column258=no"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "column258" in bad.stderr


# ------------------------------------------------------------------ options

@pytest.mark.parametrize("name,parts", [
    ("uttt-perceptron", {"adjacent-pairs"}),
    ("uttt-reflex", {"reflex-wins"}),
    ("uttt-advanced-perceptron", {"seat0", "adjacent-pairs"}),
    ("uttt-minimax", {"seat0", "depth", "adjacent-pairs"}),
    ("uttt-minimax-pruning", {"min-node", "seat0", "depth", "adjacent-pairs"}),
    ("uttt-expectimax", {"seat0", "depth", "adjacent-pairs"}),
])
def test_emulate_published_code_names_each_agents_own_defects(name, parts):
    assert set(EMULATE_PARTS) >= parts
    assert agent(name).emulate == frozenset()
    assert agent(name, emulate="published-code").emulate == parts
    for part in parts:
        assert agent(name, emulate=part).emulate == {part}
    with pytest.raises(ValueError, match="emulate.*allowed: none, published-code"):
        agent(name, emulate="reflex-wins,seat0" if "reflex-wins" not in parts else "seat0")


# ------------------------------------------------------------------ 2. the min node returns nothing

# x has won boards 0 and 1 and plays in board 2: square 2 wins the game, square 8 does not
# (it sends o to the empty board 8). Board 3 has o two in a row: o could win it next if sent
# anywhere, which is where the winning move would send o (board 2 is then closed).
WIN_NOW = {0: X_TOP_ROW, 1: X_TOP_ROW, 2: "xx.ooxxo.", 3: "oo.......", 4: "o........"}


def test_min_node_defect_leaves_every_move_but_a_win_without_value():
    start = COUNTS.initial_state()
    faithful = agent("uttt-minimax-pruning", depth=1)
    faithful.choose(start, None)
    emulated = agent("uttt-minimax-pruning", depth=1, emulate="min-node")
    emulated.choose(start, None)
    assert emulated.last_stats["tied"] == 81 and emulated.last_stats["value"] == NO_VALUE
    assert faithful.last_stats["tied"] < 81
    # an immediate win is the one number above None, so it is always taken
    state = position(COUNTS, WIN_NOW, "x", "2")
    for seed in range(20):
        a = agent("uttt-minimax-pruning", seed=seed, depth=1, emulate="min-node")
        assert a.choose(state, None) == 2 * 9 + 2 and a.last_stats["value"] == WIN


def test_min_node_defect_makes_depth_1_minimax_a_random_player_against_most_moves():
    # along random games, when no move ends the game, every move ties at None
    rng = random.Random(3)
    checked = 0
    for _ in range(5):
        state = COUNTS.initial_state()
        while not state.is_terminal():
            moves = state.legal_moves()
            if state.to_move == 0 and not any(state.play(m).is_terminal() for m in moves):
                a = agent("uttt-minimax-pruning", depth=1, emulate="min-node")
                a.choose(state, None)
                assert a.last_stats["tied"] == len(moves) and a.last_stats["value"] == NO_VALUE
                checked += 1
            state = state.play(rng.choice(moves))
    assert checked > 50


# ------------------------------------------------------------------ 3. features of seat 0 in either seat

def _argmax_for(state, seat):
    w = {k: scaled(v) for k, v in ADVANCED_WEIGHTS.items()}
    scored = {m: sum(advanced_features(state.play(m), seat)[k] * w[k] for k in w) for m in state.legal_moves()
              if not state.play(m).is_terminal()}
    best = max(scored.values())
    return {m for m, v in scored.items() if v == best}


def test_seat0_defect_makes_the_second_player_maximise_the_first_players_evaluation():
    rng = random.Random(7)
    differ = 0
    for _ in range(30):
        state = COUNTS.initial_state()
        for _ in range(rng.randrange(1, 30)):
            state = state.play(rng.choice(state.legal_moves()))
            if state.is_terminal():
                break
        if state.is_terminal() or state.to_move == 0:
            state = state if state.is_terminal() else state.play(rng.choice(state.legal_moves()))
        if state.is_terminal() or any(state.play(m).is_terminal() for m in state.legal_moves()):
            continue
        assert state.to_move == 1
        mine, theirs = _argmax_for(state, 1), _argmax_for(state, 0)
        assert agent("uttt-advanced-perceptron").choose(state, None) in mine
        assert agent("uttt-advanced-perceptron", emulate="seat0").choose(state, None) in theirs
        differ += not mine & theirs
    assert differ >= 5  # seat 1 playing for seat 0 picks other moves than its own best


def test_seat0_defect_leaves_the_first_player_unchanged():
    rng = random.Random(8)
    for _ in range(20):
        state = COUNTS.initial_state()
        for _ in range(2 * rng.randrange(0, 12)):
            state = state.play(rng.choice(state.legal_moves()))
        if state.is_terminal():
            continue
        a = agent("uttt-advanced-perceptron", seed=5)
        b = agent("uttt-advanced-perceptron", seed=5, emulate="seat0")
        assert a.choose(state, None) == b.choose(state, None)


# ------------------------------------------------------------------ 4. the Reflex filter drops its wins

def test_reflex_wins_defect_filters_out_the_winning_move():
    state = position(COUNTS, WIN_NOW, "x", "2")
    faithful = agent("uttt-reflex")
    faithful.choose(state, None)
    assert faithful.last_stats == {"safe": 2, "moves": 2}
    for seed in range(20):
        emulated = agent("uttt-reflex", seed=seed, emulate="reflex-wins")
        assert emulated.choose(state, None) == 2 * 9 + 8  # never the win: o "could" win board 3 next
        assert emulated.last_stats == {"safe": 1, "moves": 2}


# ------------------------------------------------------------------ the depth counted after the agent's move

# x must play board 6's last square (sending o to board 5), o must play board 5's last square
# (sending x to board 2), and x then completes the top row of boards: a win at the third ply.
THREE_PLIES = {0: X_TOP_ROW, 1: X_TOP_ROW, 2: "xx.ooxxoo", 5: "xo.oxxxoo", 6: "oxoxo.xox", 3: "o...o...."}


@pytest.mark.parametrize("name", ["uttt-expectimax", "uttt-minimax-pruning", "uttt-minimax"])
def test_depth_defect_searches_one_ply_more(name):
    state = position(COUNTS, THREE_PLIES, "x", "6")
    assert state.legal_moves() == (6 * 9 + 5,)
    faithful = agent(name, depth=1)
    faithful.choose(state, None)
    assert faithful.last_stats["value"] < WIN  # 2 plies: an evaluation
    emulated = agent(name, depth=1, emulate="depth")
    emulated.choose(state, None)
    assert emulated.last_stats["value"] == WIN  # 3 plies: the win


# ------------------------------------------------------------------ stores made before column258 existed

def test_a_store_made_before_the_column258_option_still_opens_with_the_default(tmp_path):
    import sqlite3

    from arena.league import Store, StoreError, config_from_dict

    def config(rules):
        return config_from_dict({"name": "s", "game": "ultimate", "seed": 1, "workers": 1, "rules": rules,
                                 "bots": [{"name": b, "bot": "random"} for b in ("a", "b")]}, base_dir=tmp_path)

    path = tmp_path / "old.sqlite"
    with Store(path) as store:
        store.bind(config({}))
    db = sqlite3.connect(path)  # as an older version wrote it: only the options it knew
    db.execute("UPDATE league SET value = ? WHERE key = 'rules'", ('{"tiebreak": "none"}',))
    db.commit()
    db.close()
    with Store(path) as store:
        store.bind(config({}))  # column258 left at its default: the same league
    with Store(path) as store, pytest.raises(StoreError, match="rules"):
        store.bind(config({"column258": "ignored"}))


# ------------------------------------------------------------------ adjacent pieces counted as pairs

def _random_states(seed, count):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = COUNTS.initial_state()
        for _ in range(rng.randrange(4, 40)):
            state = state.play(rng.choice(state.legal_moves()))
            if state.is_terminal():
                break
        if not state.is_terminal():
            out.append(state)
    return out


def test_adjacent_pairs_count_each_neighbouring_pair_from_both_ends():
    row = 0b000_000_111        # squares 0, 1, 2: three squares with a neighbour, two pairs
    block = 0b000_011_011      # squares 0, 1, 3, 4: four squares, six pairs (all touch)
    assert (ADJACENT[row], ADJACENT_PAIRS[row]) == (3, 4)
    assert (ADJACENT[block], ADJACENT_PAIRS[block]) == (4, 12)
    w = {k: scaled(v) for k, v in ADVANCED_WEIGHTS.items()}
    for state in _random_states(11, 40):
        for seat in (0, 1):
            f = advanced_features(state, seat, pairs=True)
            ev = advanced_eval(seat, tuple(ADVANCED_WEIGHTS.items()), True)
            assert ev.static(state.boards, state.xwon, state.owon, state.target, state.to_move == seat) == \
                sum(f[k] * w[k] for k in w)


def test_adjacent_pairs_make_the_perceptron_maximise_the_pair_count():
    w = {k: scaled(v) for k, v in SIMPLE_WEIGHTS.items()}
    differ = 0

    def best(state, pairs):
        seat = state.to_move
        scored = {m: sum(simple_features(state.play(m), seat, pairs)[k] * w[k] for k in w)
                  for m in state.legal_moves()}
        top = max(scored.values())
        return {m for m, v in scored.items() if v == top}

    for state in _random_states(12, 300):  # the two counts rank moves differently in a few of them
        squares, pairs = best(state, False), best(state, True)
        assert agent("uttt-perceptron").choose(state, None) in squares
        assert agent("uttt-perceptron", emulate="adjacent-pairs").choose(state, None) in pairs
        differ += squares != pairs
    assert differ >= 3


def test_a_league_with_column258_ignored_plays_and_records_it(tmp_path):
    import json
    import sqlite3

    config = tmp_path / "l.yaml"
    config.write_text("name: l\ngame: ultimate\nrules: {column258: ignored}\n"
                      "bots:\n  - {name: a, bot: uttt-random}\n"
                      "  - {name: b, bot: uttt-reflex, options: {emulate: published-code}}\n"
                      "games_per_pairing: 2\nworkers: 1\nstore: l.sqlite\nseed: 3\n")
    run = subprocess.run([sys.executable, "-m", "arena", "run", str(config)], capture_output=True, text=True,
                         timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    db = sqlite3.connect(tmp_path / "l.sqlite")
    records = [json.loads(r) for (r,) in db.execute("SELECT record FROM games")]
    db.close()
    assert len(records) == 2
    assert all(r["rule_options"]["column258"] == "ignored" for r in records)
    assert all(r["termination"] == "normal" for r in records), records
    # an emulate part the agent does not have: its bot cannot start, which the preflight says
    # before any game; with --keep-going it loses its games and the league goes on
    config.write_text(config.read_text().replace("emulate: published-code", "emulate: min-node")
                      .replace("store: l.sqlite", "store: bad.sqlite"))
    refused = subprocess.run([sys.executable, "-m", "arena", "run", str(config)], capture_output=True,
                             text=True, timeout=120, check=False)
    assert refused.returncode == 1 and "bot 'b' cannot start" in refused.stderr, refused.stderr
    assert "min-node" in refused.stderr
    subprocess.run([sys.executable, "-m", "arena", "run", str(config), "--keep-going"],
                   capture_output=True, text=True, timeout=120, check=False)
    db = sqlite3.connect(tmp_path / "bad.sqlite")
    bad = [json.loads(r) for (r,) in db.execute("SELECT record FROM games")]
    db.close()
    assert len(bad) == 2, bad
    for r in bad:
        loser = [b["name"] for b in r["bots"]].index("b")
        assert r["winner"] == 1 - loser and r["termination"] == "startup_failure", r
