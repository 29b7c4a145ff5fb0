"""`arena train`: seed 000's and seed 001's TD learning, reproducible and loadable by the agents."""

import json
import random
import subprocess
import sys

import pytest

from arena.games import default_registry, random_positions
from bots import agent_class
from bots.features import (
    ADVANCED_WEIGHTS,
    META_CONSTANTS,
    advanced_eval,
    advanced_features,
    meta_basis,
    meta_eval,
)
from bots.training import (
    FEATURES,
    UltimateRollouts,
    main,
    meta_board_eval,
    meta_search,
    meta_td_update,
    meta_utility,
    td_update,
    train_meta,
)

REGISTRY = default_registry()


def random_states(game_name, count, seed, plies=(4, 40)):
    game = REGISTRY.create(game_name)
    return game, random_positions(game, count, random.Random(seed), plies)


# ---------------------------------------------------------------- reproducible

def test_same_seed_same_bytes_and_another_seed_differs(tmp_path, capsys):
    paths = [tmp_path / f"{name}.json" for name in ("a", "b", "c")]
    for path, seed in zip(paths, (7, 7, 8)):
        assert main(["meta", "--games", "1", "--seed", str(seed), "--depth", "2", "--out", str(path)]) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes() != paths[2].read_bytes()
    err = capsys.readouterr().err
    assert err.count("game 1/1:") == 3 and "c1=" in err   # one progress line per game, with the weights

    upaths = [tmp_path / f"u{name}.json" for name in ("a", "b")]
    for path in upaths:
        assert main(["ultimate", "--games", "1", "--seed", "3", "--rollouts", "2", "--depth", "0",
                     "--out", str(path), "--quiet"]) == 0
    assert upaths[0].read_bytes() == upaths[1].read_bytes()
    assert list(json.loads(upaths[0].read_text())) == list(FEATURES)
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- loaded by the agents

def test_meta_weights_file_loads_through_the_agent_option_and_changes_play(tmp_path):
    path = tmp_path / "td.json"
    assert main(["meta", "--games", "1", "--seed", "1", "--alpha", "0.05", "--out", str(path), "--quiet"]) == 0
    learned = json.loads(path.read_text())
    assert set(learned) == set(META_CONSTANTS) and learned != META_CONSTANTS
    game, states = random_states("meta", 40, 11)
    trained = agent_class("meta-minimax")(game, random.Random(0), depth=2, weights=str(path))
    static = agent_class("meta-minimax")(game, random.Random(0), depth=2)
    assert trained.constants == pytest.approx(learned)
    assert any(trained.choose(s, None) != static.choose(s, None) for s in states)


def test_ultimate_weights_load_as_file_json_or_mapping_and_change_play(tmp_path):
    path = tmp_path / "w.json"
    assert main(["ultimate", "--games", "1", "--seed", "2", "--rollouts", "2", "--depth", "1",
                 "--out", str(path), "--quiet"]) == 0
    learned = json.loads(path.read_text())
    game, states = random_states("ultimate", 40, 12)
    for name in ("uttt-advanced-perceptron", "uttt-minimax", "uttt-minimax-pruning", "uttt-expectimax"):
        for given in (str(path), path.read_text(), learned):
            agent = agent_class(name)(game, random.Random(0), weights=given)
            assert dict(agent.weight_items) == pytest.approx(learned)
    trained = agent_class("uttt-advanced-perceptron")(game, random.Random(0), weights=str(path))
    paper = agent_class("uttt-advanced-perceptron")(game, random.Random(0))
    assert dict(paper.weight_items) == ADVANCED_WEIGHTS
    assert any(trained.choose(s, None) != paper.choose(s, None) for s in states)
    # missing names keep the paper's weights; unknown names and unreadable files are errors
    partial = agent_class("uttt-minimax")(game, random.Random(0), weights={"numWins": 2})
    assert dict(partial.weight_items) == {**ADVANCED_WEIGHTS, "numWins": 2.0}
    with pytest.raises(ValueError, match="unknown feature 'wins'"):
        agent_class("uttt-minimax")(game, random.Random(0), weights={"wins": 1})
    with pytest.raises(ValueError, match="cannot read weights file"):
        agent_class("uttt-minimax")(game, random.Random(0), weights=str(tmp_path / "missing.json"))


# ---------------------------------------------------------------- the update rules

def test_meta_update_follows_the_seed_rule():
    # x to move in board 2 holding squares 0 and 1 there: the search predicts x wins board 2,
    # so f1 (boards won) rises along the principal variation: dU > 0 and dv_1 = c1 * df1 > 0,
    # and the rule c1 += alpha * dU * dv_1 * (-1) lowers c1 relative to the constants that
    # did not change
    game = REGISTRY.create("meta")
    cells = ["."] * 81
    for c in (18, 19, 5):
        cells[c] = "x"
    for c in (40, 41, 12):
        cells[c] = "o"
    state = game.parse_state("".join(cells) + " x 2")
    consts = dict(META_CONSTANTS, c1=10.0)
    _, leaf = meta_search(state, meta_board_eval(consts), 1, random.Random(0))
    f_prev, f_leaf = meta_basis(state, 0), meta_basis(leaf, 0)
    assert f_leaf[0] == f_prev[0] + 1
    change = meta_utility(consts, f_leaf) - meta_utility(consts, f_prev)
    alpha, total = 0.001, sum(consts.values())
    new = meta_td_update(consts, state, leaf, alpha, total)
    raw = {k: consts[k] - alpha * change * consts[k] * (b - a)
           for k, a, b in zip(("c1", "c2", "c3", "c4", "c5", "c6"), f_prev, f_leaf)}
    assert new == pytest.approx({k: v * total / sum(abs(x) for x in raw.values()) for k, v in raw.items()})
    assert sum(abs(x) for x in new.values()) == pytest.approx(total)   # normalised
    assert new["c1"] / new["c2"] < consts["c1"] / consts["c2"]
    # the update does not depend on the point of view: o to move, computed with x's basis
    cells_o = ["."] * 81
    for c in (18, 19, 5):
        cells_o[c] = "o"
    for c in (40, 41, 12, 80):
        cells_o[c] = "x"
    flipped = game.parse_state("".join(cells_o) + " o 2")
    _, leaf2 = meta_search(flipped, meta_board_eval(consts), 1, random.Random(0))
    g_prev, g_leaf = meta_basis(flipped, 0), meta_basis(leaf2, 0)
    assert g_leaf[0] == g_prev[0] - 1          # o wins board 2
    change = meta_utility(consts, g_leaf) - meta_utility(consts, g_prev)
    raw = {k: consts[k] - alpha * change * consts[k] * (b - a)
           for k, a, b in zip(("c1", "c2", "c3", "c4", "c5", "c6"), g_prev, g_leaf)}
    new2 = meta_td_update(consts, flipped, leaf2, alpha, total)
    assert new2 == pytest.approx({k: v * total / sum(abs(x) for x in raw.values()) for k, v in raw.items()})
    assert new2["c1"] / new2["c2"] < consts["c1"] / consts["c2"]


def test_meta_tables_equal_the_agents_and_a_tiny_run_changes_the_constants():
    consts = {"c1": 2.5, "c2": -1.25, "c3": 0.75, "c4": 0.5, "c5": 0.125, "c6": 1.0}
    fast, agents = meta_board_eval(consts), meta_eval(0, tuple(consts.values()))
    assert fast.board == agents.board and fast.xwon_table == agents.xwon_table
    assert fast.owon_table == agents.owon_table and fast.win == agents.win
    snaps = []
    final = train_meta(1, seed=4, depth=2, snapshots=snaps)
    assert snaps[0] == META_CONSTANTS and snaps[1] == final != META_CONSTANTS
    assert sum(abs(x) for x in final.values()) == pytest.approx(sum(META_CONSTANTS.values()))


def test_ultimate_features_and_rollout_scores_match_the_agents_definitions():
    _, states = random_states("ultimate", 30, 5)
    sims = UltimateRollouts(states[0])
    for state in states:
        for agent in (0, 1):
            phi = sims.features(state.boards, state.to_move, state.target, state.xwon, state.owon, agent)
            assert phi == [advanced_features(state, agent)[k] for k in FEATURES]
    # the evaluation tables the training agent builds equal the agents' own
    w = tuple((k, random.Random(1).uniform(-1, 1) + i) for i, k in enumerate(FEATURES))
    built = advanced_eval.__wrapped__(1, w)
    assert built.board == advanced_eval(1, w).board


def test_one_rollout_from_zero_weights_moves_them_towards_the_final_reward():
    # with w = 0 every prediction is 0, so the last transition (done first) gives
    # w = eta * r * phi(s_last); the earlier ones then change w by O(eta**2) only
    state = REGISTRY.create("ultimate").initial_state()
    sims = UltimateRollouts(state)
    history = sims.rollout(state, [0.0] * len(FEATURES), random.Random(9))
    phi, reward, nxt = history[-1]
    assert nxt is None and reward in (100.0, -100.0, 0.0)
    assert all(n is not None and r == 0 for _, r, n in history[:-1])
    eta = 1e-5
    weights = [0.0] * len(FEATURES)
    td_update(weights, history[-1:], eta)
    assert weights == pytest.approx([eta * reward * f for f in phi])
    # the whole history, last transition first, is that step followed by the earlier ones
    manual = list(weights)
    for phi_s, r, phi_n in reversed(history[:-1]):
        err = sum(w * f for w, f in zip(manual, phi_s)) - (r + sum(w * f for w, f in zip(manual, phi_n)))
        manual = [w - eta * err * f for w, f in zip(manual, phi_s)]
    weights = [0.0] * len(FEATURES)
    td_update(weights, history, eta)
    assert weights == pytest.approx(manual)
    # and a prediction below the reward is raised: the update is gradient descent on the TD error
    weights = [0.1] * len(FEATURES)
    before = sum(w * f for w, f in zip(weights, phi))
    td_update(weights, [(phi, before + 50.0, None)], eta)
    assert sum(w * f for w, f in zip(weights, phi)) > before


# ---------------------------------------------------------------- bad arguments

@pytest.mark.parametrize("argv, message", [
    (["meta", "--games", "-1", "--seed", "1", "--out", "{tmp}/w.json"], "--games: must be >= 0, got -1"),
    (["meta", "--games", "two", "--seed", "1", "--out", "{tmp}/w.json"], "expected a whole number, got 'two'"),
    (["meta", "--games", "1", "--seed", "1", "--out", "{tmp}/w.json", "--alpha", "0"], "--alpha: must be a positive"),
    (["meta", "--games", "1", "--seed", "1", "--out", "{tmp}/w.json", "--start", "c9=1"], "unknown constant 'c9'"),
    (["ultimate", "--games", "1", "--seed", "1", "--out", "{tmp}/w.json", "--rollouts", "0"],
     "--rollouts: must be >= 1"),
    (["ultimate", "--games", "1", "--seed", "1", "--out", "{tmp}/no/such/dir/w.json"], "does not exist"),
    (["ultimate", "--games", "1", "--out", "{tmp}/w.json"], "required: --seed"),
    (["chess", "--games", "1"], "invalid choice: 'chess'"),
    (["meta", "--games", "1", "--seed", "1", "--out", "{tmp}/w.json", "--static", "c2=1"],
     "apply to --opponent static only"),
    (["meta", "--games", "1", "--seed", "1", "--out", "{tmp}/w.json", "--opponent", "static",
      "--learner-seat", "second"], "invalid choice: 'second'"),
])
def test_bad_arguments_are_one_clear_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "w.json").exists()


def test_arena_train_forwards_to_the_trainer(tmp_path):
    out = tmp_path / "w.json"
    done = subprocess.run([sys.executable, "-m", "arena", "train", "meta", "--games", "1", "--seed", "2",
                           "--depth", "1", "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "game 1/1:" in done.stderr and set(json.loads(out.read_text())) == set(META_CONSTANTS)
    helped = subprocess.run([sys.executable, "-m", "arena", "train", "ultimate", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "--rollouts" in helped.stdout
    top = subprocess.run([sys.executable, "-m", "arena", "train", "--help"],
                         capture_output=True, text=True, timeout=60)
    assert top.returncode == 0 and "meta" in top.stdout and "ultimate" in top.stdout, top.stderr
    bad = subprocess.run([sys.executable, "-m", "arena", "train", "meta", "--games", "-3", "--seed", "1",
                          "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--games: must be >= 0" in bad.stderr


def test_the_authors_figure_1_settings_learner_first_static_c2_and_draws_to_static(tmp_path):
    """--learner-seat first, --static c2=1, --draws static: the author's trainer (seed 000)."""
    lines: list[str] = []
    tally: list[int] = []
    author = train_meta(4, 3, depth=1, opponent="static", learner_seat="first", static={"c2": 1.0},
                        draws="static", tally=tally, progress=lines.append)
    assert all("learner was x" in line for line in lines) and sum(tally) == 4 and tally[1] == 0
    ours_lines: list[str] = []
    ours_tally: list[int] = []
    ours = train_meta(4, 3, depth=1, opponent="static", tally=ours_tally, progress=ours_lines.append)
    assert [("learner was x" in line) for line in ours_lines] == [True, False, True, False]
    assert author != ours  # the other static opponent and seats change what is learned
    # a draw goes to the static AI's column only when asked: same games, same moves
    draws_counted: list[int] = []
    train_meta(4, 3, depth=1, opponent="static", learner_seat="first", static={"c2": 1.0}, tally=draws_counted)
    assert draws_counted[0] == tally[0] and draws_counted[1] + draws_counted[2] == tally[2]
    out = tmp_path / "a.json"
    done = subprocess.run([sys.executable, "-m", "arena", "train", "meta", "--games", "2", "--seed", "3", "--depth",
                           "1", "--opponent", "static", "--learner-seat", "first", "--static", "c2=1", "--draws",
                           "static", "--out", str(out)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "learner against the static AI: won" in done.stderr and "counted as the static AI's wins" in done.stderr
