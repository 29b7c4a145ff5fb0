"""The game and bot of docs/plugins.md (one-pile Nim and a solver), taken from the page with
the page's pyproject.toml, pip-installed into a fresh environment and used through the real
`arena`: listed, analysed, played against the reference random bot through the sandboxed
referee under both rule options, replayed, and published with a move-list replay."""

import json
import re
import subprocess
from functools import cache

import pytest
from fresh_venv import venv_with_plugin
from test_league_plugins import ROOT, doc_example

PILE, MOST = 21, 3     # the page's pile and largest take
PAGE = ROOT / "docs" / "plugins.md"


def page_block(language: str, pattern: str) -> str:
    """The first `language` block of docs/plugins.md that matches pattern (doc_example
    finds the Python ones)."""
    for block in re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(), re.S):
        if re.search(pattern, block):
            return block
    raise AssertionError(f"docs/plugins.md has no {language} block matching {pattern!r}")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A fresh venv with the page's package pip-installed; the directory commands run in."""
    root = tmp_path_factory.mktemp("nim")
    package = root / "arena-nim"
    package.mkdir()
    for module in ("arena_nim", "arena_nim_bots"):
        (package / f"{module}.py").write_text(doc_example(module))
    (package / "pyproject.toml").write_text(page_block("toml", r'name = "arena-nim"'))
    return root, venv_with_plugin(package, root)


def arena(env, *args: str, code: int = 0) -> subprocess.CompletedProcess:
    root, python = env
    out = subprocess.run([str(python), "-m", "arena", *args], capture_output=True, text=True,
                         timeout=300, cwd=root, check=False)
    assert out.returncode == code, out.stderr
    assert "WARNING" not in out.stderr, out.stderr      # both modules loaded as plugins
    return out


@cache
def sequences(plies: int, stones: int = PILE) -> int:
    """Move sequences of exactly `plies` takes of 1..MOST from `stones`: perft, counted
    without the plugin's code."""
    if plies == 0:
        return 1
    return sum(sequences(plies - 1, stones - take) for take in range(1, min(MOST, stones) + 1))


def test_the_page_plugin_is_listed_with_its_game_rules_and_bot(env):
    games = arena(env, "games", "--verbose").stdout
    assert "nim  " in games and "Nim, one pile of 21 stones: take 1 to 3; the last stone wins." in games
    assert "last" in games and "loses" in games                          # the rule option
    plugins = arena(env, "plugins").stdout
    assert re.search(r"^nim +arena-nim 0\.1\.0 +1 game, 0 bots$", plugins, re.M), plugins
    assert re.search(r"^nim-bots +arena-nim 0\.1\.0 +1 bot$", plugins, re.M), plugins
    bots = arena(env, "bots", "--game", "nim").stdout
    assert re.search(r"nim-solver\s+nim\s+\[nim-bots\]", bots) and "mistakes=0.0" in bots
    assert re.search(r"^random\s+\*", bots, re.M)                        # a reference bot plays it too


def test_perft_and_random_games_follow_the_rules(env):
    shown = re.search(r"^\$ arena perft nim (\d+)\n(\d+)$", page_block("console", "arena perft nim"), re.M)
    assert shown and int(shown.group(2)) == sequences(int(shown.group(1)))     # the page's figure
    for plies in (8, 12):
        assert arena(env, "perft", "nim", str(plies)).stdout.split() == [str(sequences(plies))]
    assert arena(env, "perft", "nim", "3", "--moves", "3,3,3,3,3,3").stdout.split() == [
        str(sequences(3, PILE - 18))]
    game = arena(env, "random-game", "nim", "--seed", "4").stdout
    assert "ply 1: x plays " in game and "\n 0 left\n" in game and "result: " in game
    taken = re.search(r"^moves: ([\d,]+)$", game, re.M).group(1).split(",")
    assert sum(map(int, taken)) == PILE
    for args, message in ((("--moves", "0"), "move 0 is not legal with 21 stones left"),
                          (("--moves", "4"), "'4' is not a move: expected a cell number 0..3"),
                          (("--rule", "last=sometimes"), "'last' cannot be 'sometimes'")):
        bad = arena(env, "perft", "nim", "1", *args, code=2)
        assert message in bad.stderr and len(bad.stderr.splitlines()) == 1, bad.stderr


def match(env, *rule: str, save: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """Six games of the page's bot against random through the sandboxed referee: the output
    and the records."""
    out = arena(env, "match", "nim-solver", "random", "--game", "nim", "--games", "6", "--seed", "5",
                *rule, "--save", save)
    records = [json.loads(line) for line in (env[0] / save).read_text().splitlines()]
    assert len(records) == 6 and all(r["termination"] == "normal" for r in records), out.stdout
    for record in records:
        taken = [int(m["move"]) for m in record["moves"]]
        assert sum(taken) == PILE and all(1 <= t <= MOST for t in taken)
    return out, records


def left_after(record: dict, seat: int) -> list[int]:
    """The stones left after each move of `seat`."""
    left, after = PILE, []
    for move in record["moves"]:
        left -= int(move["move"])
        if move["seat"] == seat:
            after.append(left)
    return after


def test_the_solver_plays_perfectly_under_both_rule_options(env):
    for rule, last_wins, winning_seat, leaves in (((), True, 0, 0), (("--rule", "last=loses"), False, 1, 1)):
        # normal play: the first player wins by leaving multiples of 4; misère (the rule
        # reaches the sandboxed bot in the handshake): the second, by leaving 1, 5, 9, ...
        out, records = match(env, *rule, save=f"{last_wins}.jsonl")
        if last_wins:      # the command the page shows, and what it printed
            shown = re.search(r"--save nim.jsonl\n\.\.\.\n([^$]*)", page_block("console", "--save nim.jsonl"))
            assert shown and out.stdout.endswith(shown.group(1)), out.stdout
        for record in records:
            assert record["rule_options"] == {"last": "wins" if last_wins else "loses"}
            took_last = record["moves"][-1]["seat"]
            assert record["winner"] == (took_last if last_wins else 1 - took_last)
            solver = [bot["name"] for bot in record["bots"]].index("nim-solver")
            if solver == winning_seat:
                assert record["winner"] == solver
                assert all(left % (MOST + 1) == leaves for left in left_after(record, solver)), record


def test_a_game_replays_and_publishes_as_a_move_list(env):
    root = env[0]
    arena(env, "match", "nim-solver", "random", "--game", "nim", "--games", "2", "--seed", "9",
          "--store", "nim.sqlite")
    replay = arena(env, "replay", "nim.sqlite", "--game", "1").stdout
    assert "nim-solver (x) vs random (o)" in replay and "||||| 21 left, x to take" in replay
    assert "ply 1: nim-solver (x) plays 1" in replay
    arena(env, "publish", "nim.sqlite", "--out", "site")
    data = (root / "site" / "data" / "moves" / "0.js").read_text()
    games = json.loads(data[data.index("{"):data.rindex("}") + 1])["games"]
    assert [g["game"] for g in games] == ["nim", "nim"]
    for game in games:
        assert "grid" not in game and game["error"] is None and game["over"]   # no board: the moves
        assert sum(move[0] for move in game["moves"]) == PILE


def test_the_page_league_runs_and_a_bad_bot_option_is_refused_before_it(env):
    root = env[0]
    config = page_block("yaml", "^# nim.yaml")
    (root / "nim.yaml").write_text(config)
    arena(env, "run", "nim.yaml")
    board = json.loads(arena(env, "leaderboard", "results/nim.sqlite", "--format", "json").stdout)
    rows = {row["bot"]: row for row in board["rows"]}
    assert sorted(rows) == ["random", "sloppy", "solver"]
    assert all(row["games"] == 4 and not row["faults"] and row["draws"] == 0 for row in rows.values())
    assert sum(row["wins"] for row in rows.values()) == 6
    (root / "bad.yaml").write_text(config.replace("name: nim\n", "name: bad\n").replace(
        "mistakes: 0.3", "mistakes: 2"))
    bad = arena(env, "run", "bad.yaml", code=2)
    assert bad.stderr.strip() == ("arena run: error: bad.yaml:7: bots[1].options.mistakes: must be "
                                  "a number from 0 to 1, got 2")
