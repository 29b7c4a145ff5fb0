"""League config: real YAML files in temporary directories, every error path one clear line."""

import json
import os
import re
from pathlib import Path

import pytest

from arena.league import BotProblem, ConfigError, LeagueConfig, config_from_dict, load_config, schedule
from arena.sandbox import Limits

DOCS = Path(__file__).resolve().parent.parent / "docs" / "config.md"

BASE = """\
name: quick
game: ultimate
rules: {tiebreak: none}
bots:
  - name: mcts
    bot: mcts
    options: {time_ms: 50}
  - name: rand
    bot: random
  - name: mine
    command: "python3 bots/mine/bot.py --fast"
    dialect: codingame
games_per_pairing: 4
time_control: {move_ms: 200, startup_ms: 1000}
timeout_policy: {mode: strikes, strikes: 2}
rating: {draw_probability: 0.2}
workers: 3
seed: 7
"""


@pytest.fixture
def league_dir(tmp_path):
    (tmp_path / "bots" / "mine").mkdir(parents=True)
    (tmp_path / "bots" / "mine" / "bot.py").write_text("print('hi')\n")
    return tmp_path


def write(directory, text, name="league.yaml"):
    path = directory / name
    path.write_text(text)
    return path


def error_of(path, **kwargs) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


def line_of(text, needle) -> int:
    """1-based line of the first line containing needle."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_valid_config_loads_with_resolved_paths_and_defaults(league_dir, tmp_path, monkeypatch):
    path = write(league_dir, BASE)
    monkeypatch.chdir(tmp_path.parent)         # relative paths follow the file, not the cwd
    config = load_config(path)
    assert isinstance(config, LeagueConfig)
    assert config.name == "quick" and config.game == "ultimate"
    assert config.rules == {"tiebreak": "none", "column258": "counts"}
    assert config.bot_names == ["mcts", "rand", "mine"]
    mcts, rand, mine = config.bots
    assert mcts.bot == "mcts" and mcts.options == {"time_ms": 50} and mcts.spec == "mcts"
    assert rand.options == {} and rand.command is None
    assert mine.command == "python3 bots/mine/bot.py --fast" and mine.dialect == "codingame"
    assert mine.argv == ("python3", str(league_dir / "bots" / "mine" / "bot.py"), "--fast")
    assert mine.dir == league_dir / "bots" / "mine"
    assert mine.spec == "codingame:python3 bots/mine/bot.py --fast"
    assert config.games_per_pairing == 4
    assert (config.time_control.move_ms, config.time_control.startup_ms) == (200, 1000)
    assert (config.time_control.bank_ms, config.time_control.overhead_ms) == (0, 50)
    assert (config.timeout_policy.mode, config.timeout_policy.strikes) == ("strikes", 2)
    assert config.rating.draw_probability == 0.2 and config.rating.mu == 25.0
    assert config.rating.faults_count_as_losses is True
    assert config.sandbox_mode == "auto" and config.limits == Limits()
    assert config.workers == 3 and config.executor == "local" and config.ray is None
    assert config.store == league_dir / "results" / "quick.sqlite"
    assert config.seed == 7 and config.publish is None and config.base_dir == league_dir
    snapshot = json.loads(config.to_json())
    assert snapshot["bots"][2]["dir"] == str(league_dir / "bots" / "mine")


def test_minimal_config_takes_every_default(tmp_path):
    config = load_config(write(tmp_path, "name: m\ngame: tictactoe\nbots:\n"
                                         "  - {name: a, bot: x}\n  - {name: b, bot: y}\n"))
    assert config.rules == {} and config.games_per_pairing == 2 and config.seed == 0
    assert config.workers == (os.cpu_count() or 1)
    assert config.timeout_policy.mode == "forfeit"
    assert config.rating.sigma == pytest.approx(25 / 3)
    assert config.store == tmp_path / "results" / "m.sqlite"
    ultimate = load_config(write(tmp_path, "name: u\ngame: ultimate\nbots:\n"
                                           "  - {name: a, bot: x}\n  - {name: b, bot: y}\n"))
    assert ultimate.rules == {"tiebreak": "none", "column258": "counts"}


def test_the_full_example_in_the_docs_loads(tmp_path):
    text = DOCS.read_text()
    example = re.search(r"## Full example\s+```yaml\n(.*?)```", text, re.S).group(1)
    (tmp_path / "bots" / "mine").mkdir(parents=True)
    (tmp_path / "bots" / "mine" / "my_bot.py").write_text("")
    seen = []
    config = load_config(write(tmp_path, example),
                         known_bots=lambda bot, game, options: seen.append((bot, game, options)))
    assert seen == [("mcts", "ultimate", {"time_ms": 50}), ("random", "ultimate", {})]
    assert config.store == tmp_path / "results" / "quickstart.sqlite"
    assert config.publish == tmp_path / "site" / "quickstart"
    assert len(schedule(config)) == 3 * 4


def test_every_documented_key_is_a_real_key():
    from arena.league import botentries
    from arena.league import config as cfg
    text = DOCS.read_text()
    documented = set(re.findall(r"^\| `(\w+)` \|", text, re.M))
    assert set(cfg.TOP_KEYS) | set(botentries.BOT_KEYS) <= documented
    import dataclasses
    for section in (cfg.TimeControl, cfg.TimeoutPolicy, cfg.Limits, cfg.RatingConfig):
        assert {f.name for f in dataclasses.fields(section)} <= documented
    assert set(cfg.SANDBOX_KEYS) <= documented
    assert set(cfg.LADDER_KEYS) | set(cfg.UNTIL_KEYS) | set(cfg.SUSPEND_KEYS) <= documented


# Each case: (replace this, with that) in BASE, then what the one-line error must contain:
# the line holding `at`, the key path, and the allowed values.
ERRORS = [
    (("workers: 3", "wokers: 3"), "wokers:", "wokers", ["did you mean 'workers'", "allowed keys"]),
    (("games_per_pairing: 4", "games_per_pairing: 3"), "games_per_pairing", "games_per_pairing",
     ["even integer >= 2", "got 3"]),
    (("games_per_pairing: 4", "games_per_pairing: 0"), "games_per_pairing", "games_per_pairing",
     ["integer >= 2", "got 0"]),
    (("move_ms: 200", "move_ms: -5"), "move_ms", "time_control.move_ms", ["integer >= 1", "got -5"]),
    (("startup_ms: 1000", "startup_ms: 1.5"), "startup_ms", "time_control.startup_ms",
     ["integer >= 1", "got 1.5"]),
    (("move_ms: 200", "move_ms: 200, bank_ms: -1"), "bank_ms", "time_control.bank_ms",
     ["integer >= 0", "got -1"]),
    (("move_ms: 200", "move_msec: 200"), "move_msec", "time_control.move_msec",
     ["did you mean 'move_ms'", "increment_ms"]),
    (("tiebreak: none", "tiebreak: coin"), "tiebreak", "rules.tiebreak",
     ["'none', 'boards'", "got 'coin'"]),
    (("tiebreak: none", "tiebrake: none"), "tiebrake", "rules.tiebrake",
     ["did you mean 'tiebreak'", "allowed keys: tiebreak"]),
    (("game: ultimate", "game: ultimat"), "game:", "game", ["did you mean 'ultimate'",
                                                             "known games: tictactoe, ultimate"]),
    (("game: ultimate", "game: 3"), "game:", "game", ["non-empty text", "got 3"]),
    (("name: rand", "name: mcts  # again"), "again", "bots[1].name",
     ["duplicate bot name 'mcts'", "bots[0]", "unique"]),
    (("name: rand", "name: 'a|b'"), "a|b", "bots[1].name", ["without '|'"]),
    (("dialect: codingame", "dialect: uci"), "dialect", "bots[2].dialect",
     ["'arena', 'codingame', 'theaigames'", "got 'uci'"]),
    (("seed: 7", "seed: 7\nsandbox: {open_files: 2}"), "sandbox", "sandbox.open_files",
     ["integer >= 3", "got 2"]),
    (("mode: strikes, strikes: 2", "mode: forfeit, strikes: 2"), "timeout_policy",
     "timeout_policy.strikes", ["only allowed with mode: strikes"]),
    (("mode: strikes, strikes: 2", "mode: sometimes"), "timeout_policy", "timeout_policy.mode",
     ["'forfeit', 'strikes'", "got 'sometimes'"]),
    (("mode: strikes, strikes: 2", "mode: strikes, strikes: 0"), "timeout_policy",
     "timeout_policy.strikes", ["integer >= 1", "got 0"]),
    (("draw_probability: 0.2", "draw_probability: 1"), "draw_probability",
     "rating.draw_probability", ["number > 0 and < 1", "got 1"]),
    (("draw_probability: 0.2", "sigma: -1"), "sigma", "rating.sigma", ["number > 0", "got -1"]),
    (("draw_probability: 0.2", "faults_count_as_losses: maybe"), "faults_count_as_losses",
     "rating.faults_count_as_losses", ["true or false", "got 'maybe'"]),
    (("workers: 3", "workers: 0"), "workers", "workers", ["integer >= 1", "got 0"]),
    (("workers: 3", "workers: yes"), "workers", "workers", ["integer >= 1", "got True"]),
    (("workers: 3", "workers: 3\npin_workers: 2"), "pin_workers", "pin_workers",
     ["true or false", "got 2"]),
    (("seed: 7", "seed: -1"), "seed", "seed", ["integer >= 0", "got -1"]),
    (("seed: 7", "seed: 7\nexecutor: slurm"), "executor", "executor",
     ["'local', 'ray'", "got 'slurm'"]),
    (("seed: 7", "seed: 7\nray: {address: 'ray://head:10001'}"), "ray:", "ray",
     ["only allowed with executor: ray"]),
    (("seed: 7", "seed: 7\nexecutor: ray\nray: {adress: x}"), "adress", "ray.adress",
     ["did you mean 'address'"]),
    (("seed: 7", "seed: 7\nsandbox: {mode: docker}"), "sandbox", "sandbox.mode",
     ["'auto', 'bwrap', 'unshare', 'none'", "got 'docker'"]),
    (("seed: 7", "seed: 7\nsandbox: {memory_mb: 0}"), "sandbox", "sandbox.memory_mb",
     ["integer >= 1", "got 0"]),
    (("seed: 7", "seed: 7\nsandbox: 12"), "sandbox", "sandbox",
     ["must be a mapping with keys mode, memory_mb", "got 12"]),
    (("name: quick", "name: 'quick league'"), "name: ", "name",
     ["letters, digits, '.', '_' or '-'", "got 'quick league'"]),
    (("name: quick", "nme: quick"), "nme", "nme", ["did you mean 'name'"]),
    (("  - name: rand\n    bot: random\n", "  - name: rand\n"), "name: rand", "bots[1]",
     ["exactly one of 'bot'", "'command'"]),
    (("    bot: random\n", "    bot: random\n    command: ./x\n"), "name: rand", "bots[1]",
     ["exactly one of 'bot'"]),
    (("    bot: random\n", "    bot: random\n    dialect: arena\n"), "dialect: arena", "bots[1].dialect",
     ["only allowed with 'command'"]),
    (("    bot: random\n", "    bot: random\n    options: [1, 2]\n"), "options: [1", "bots[1].options",
     ["mapping of option names", "got [1, 2]"]),
    (("    dialect: codingame\n", "    dialect: codingame\n    options: {depth: 3}\n"), "depth: 3",
     "bots[2].options", ["only allowed with 'bot'"]),
    (("    bot: random\n", "    bot: random\n    colour: red\n"), "colour", "bots[1].colour",
     ["unknown key", "allowed keys: name, bot, options, command, dialect, dir"]),
    (('"python3 bots/mine/bot.py --fast"', '"python3 \'bots/mine/bot.py"'), "python3", "bots[2].command",
     ["check the quotes"]),
    (('"python3 bots/mine/bot.py --fast"', '"bots/mine/nothere"'), "nothere", "bots[2].command",
     ["program 'bots/mine/nothere' not found", "relative to"]),
    (('"python3 bots/mine/bot.py --fast"', '"no-such-program-xyz"'), "no-such", "bots[2].command",
     ["not on PATH"]),
    (('"python3 bots/mine/bot.py --fast"', '"python3 bots/mine/gone.py --fast"'), "gone.py",
     "bots[2].command", ["script 'bots/mine/gone.py' not found: python3 would run", "/bots/mine/gone.py'"]),
    (("    dialect: codingame\n", "    dialect: codingame\n    dir: bots/nope\n"), "dir:",
     "bots[2].dir", ["must be an existing directory", "bots/nope"]),
    # a value of a few choices mistyped is guessed, as a key or a game is (before: no guess)
    (("seed: 7", "seed: 7\nschedule: ladr"), "schedule", "schedule",
     ["'round-robin', 'gauntlet', 'ladder', got 'ladr' (did you mean 'ladder'?)"]),
    (("dialect: codingame", "dialect: codingam"), "dialect", "bots[2].dialect",
     ["got 'codingam' (did you mean 'codingame'?)"]),
    (("seed: 7", "seed: 7\nsandbox: {mode: bwrp}"), "sandbox", "sandbox.mode",
     ["got 'bwrp' (did you mean 'bwrap'?)"]),
    (("mode: strikes, strikes: 2", "mode: strike"), "timeout_policy", "timeout_policy.mode",
     ["got 'strike' (did you mean 'strikes'?)"]),
    (("tiebreak: none", "tiebreak: bords"), "tiebreak", "rules.tiebreak",
     ["got 'bords' (did you mean 'boards'?)"]),
]


@pytest.mark.parametrize("change, at, key, allowed", ERRORS, ids=[e[2] for e in ERRORS])
def test_config_errors_name_file_line_key_and_what_is_allowed(league_dir, change, at, key, allowed):
    text = BASE.replace(*change)
    assert text != BASE, change
    message = error_of(write(league_dir, text))
    assert message.startswith(f"{league_dir / 'league.yaml'}:{line_of(text, at)}: {key}: "), message
    for needle in allowed:
        assert needle in message, (needle, message)


def test_bots_must_be_two_or_more(league_dir):
    one_bot = "name: q\ngame: meta\nbots:\n  - {name: a, bot: x}\n"
    message = error_of(write(league_dir, one_bot))
    assert ":3: bots: must be a list of at least 2 bots" in message and "got 1 bot" in message
    message = error_of(write(league_dir, "name: q\ngame: meta\nbots: mcts\n"))
    assert ":3: bots: must be a list" in message and "got 'mcts'" in message


def test_a_game_of_more_than_two_seats_takes_games_and_refuses_what_pairs_two(league_dir):
    # before: a 3-player tron league was refused ("a league plays games of two seats for now")
    three = "name: q\ngame: tron\nrules: {players: 3}\nbots:\n  - {name: a, bot: tron-random}\n" \
            "  - {name: b, bot: tron-territory}\n  - {name: c, bot: tron-random}\n"
    message = error_of(write(league_dir, three))
    assert ":2: game: a game of tron with these rules seats 3 bots: give games: N, the number " \
           "of games the league plays" in message
    config = load_config(write(league_dir, three + "games: 7\n"))
    assert config.games == 7 and "games" in config.to_dict()
    message = error_of(write(league_dir, three + "games: 7\ngames_per_pairing: 4\n"))
    assert "games_per_pairing: not allowed for a game of 3 seats (give games: N" in message
    message = error_of(write(league_dir, three.replace("  - {name: c, bot: tron-random}\n", "")
                             + "games: 7\n"))
    assert "bots: a game of tron with these rules seats 3 bots; the league has 2" in message
    laddered = load_config(write(league_dir, three + "schedule: ladder\nladder: {games: 9}\n"))
    assert laddered.games is None and laddered.ladder.games == 9
    message = error_of(write(league_dir, three + "schedule: ladder\ngames: 9\n"))
    assert "games: not allowed for a game of 3 seats (give ladder: {games: N})" in message
    two = three.replace("players: 3", "players: 2")
    assert "games" not in load_config(write(league_dir, two)).to_dict()   # snapshots as before
    assert "games: only for games of more than two seats" in error_of(write(league_dir, two + "games: 4\n"))


def test_missing_required_keys_and_rules_for_a_game_without_options(league_dir):
    message = error_of(write(league_dir, "name: q\nbots: []\n"))
    assert message.endswith(":1: required key 'game' is missing; allowed keys: name, game, rules, "
                            "bots, games_per_pairing, games, time_control, timeout_policy, sandbox, "
                            "rating, workers, pin_workers, executor, ray, store, seed, publish, openings, "
                            "schedule, candidates, ladder, server, requires")
    text = BASE.replace("game: ultimate", "game: meta")
    message = error_of(write(league_dir, text))
    assert ":3: rules: game 'meta' has no rule options" in message


def test_malformed_yaml_names_the_line(league_dir):
    text = BASE.replace("options: {time_ms: 50}", "options: {time_ms: 50")
    message = error_of(write(league_dir, text))
    assert message.startswith(f"{league_dir / 'league.yaml'}:")
    assert "malformed YAML" in message
    assert f"on line {line_of(text, 'time_ms')}" in message
    message = error_of(write(league_dir, BASE.replace("  - name: rand", "\t- name: rand")))
    assert f"league.yaml:{line_of(BASE, 'name: rand')}: malformed YAML" in message


def test_a_duplicate_key_is_refused_not_silently_overwritten(league_dir):
    text = BASE.replace("seed: 7", "seed: 7\nseed: 8")
    message = error_of(write(league_dir, text))
    assert f"league.yaml:{line_of(text, 'seed: 8')}: seed: duplicate key" in message


def test_empty_file_and_non_mapping_and_unreadable(league_dir):
    assert "league.yaml:1: the config is empty" in error_of(write(league_dir, ""))
    assert "league.yaml:1: must be a mapping" in error_of(write(league_dir, "- a\n- b\n"))
    message = error_of(league_dir / "absent.yaml")
    assert "absent.yaml: cannot read the config" in message


def test_known_bots_check_points_at_the_bot_or_at_the_option(league_dir):
    text = BASE.replace("options: {time_ms: 50}", "options:\n      time_ms: 50\n      depth: deep")
    calls = []

    def check(bot, game, options):
        calls.append((bot, game, dict(options)))
        if bot == "random":
            return "unknown bot 'random' for game 'ultimate'; bots: mcts, minimax"
        if options.get("depth") == "deep":
            return BotProblem("must be an integer >= 1, got 'deep'", option="depth")
        return None

    message = error_of(write(league_dir, text), known_bots=check)
    assert message == (f"{league_dir / 'league.yaml'}:{line_of(text, 'depth: deep')}: "
                       f"bots[0].options.depth: must be an integer >= 1, got 'deep'")
    assert calls == [("mcts", "ultimate", {"time_ms": 50, "depth": "deep"})]
    message = error_of(write(league_dir, BASE), known_bots=check)
    assert message.endswith(f":{line_of(BASE, 'bot: random')}: bots[1].bot: unknown bot 'random' "
                            f"for game 'ultimate'; bots: mcts, minimax")
    problem = BotProblem("bot 'random' plays tictactoe, not ultimate")
    message = error_of(write(league_dir, BASE),
                       known_bots=lambda bot, game, options: problem if bot == "random" else None)
    assert "bots[1].bot: bot 'random' plays tictactoe, not ultimate" in message


def test_bot_dir_defaults_and_explicit(league_dir):
    # a bot's own directory is its program's (or script's), never the config's by default
    assert load_config(write(league_dir, BASE)).bots[2].dir == league_dir / "bots" / "mine"
    text = BASE.replace("python3 bots/mine/bot.py --fast", "python3 -c pass")
    assert load_config(write(league_dir, text)).bots[2].dir is None
    text = BASE.replace("python3 bots/mine/bot.py --fast", f"python3 {league_dir}/bots/mine/bot.py")
    assert load_config(write(league_dir, text)).bots[2].dir == league_dir / "bots" / "mine"
    text = BASE.replace("    dialect: codingame\n", "    dialect: codingame\n    dir: bots\n")
    assert load_config(write(league_dir, text)).bots[2].dir == league_dir / "bots"


def test_a_bot_whose_directory_holds_the_store_or_the_config_is_refused(league_dir):
    (league_dir / "solo.py").write_text("")
    text = BASE.replace("python3 bots/mine/bot.py --fast", "python3 solo.py")
    message = error_of(write(league_dir, text))
    assert f"league.yaml:{line_of(text, 'command:')}: bots[2].command: bot 'mine' would read" in message
    assert "holds the store" in message and "allow_shared_dir: true" in message
    # the store elsewhere: the config itself is still in sight
    text2 = text + f"store: {league_dir.parent / 'elsewhere.sqlite'}\n"
    assert "holds this config" in error_of(write(league_dir, text2))
    # an explicit opt-in lets it run
    opted = text.replace("    dialect: codingame\n", "    dialect: codingame\n    allow_shared_dir: true\n")
    assert load_config(write(league_dir, opted)).bots[2].dir == league_dir
    # a dir or a readable path holding the store is refused on that key
    (league_dir / "results").mkdir()
    text = BASE.replace("    dialect: codingame\n", "    dialect: codingame\n    dir: results\n")
    text = text + "store: results/q.sqlite\n"
    assert f"league.yaml:{line_of(text, 'dir: results')}: bots[2].dir: " in error_of(write(league_dir, text))
    text = BASE.replace("    bot: random\n", "    bot: random\n    readable: [., bots]\n")
    assert f"league.yaml:{line_of(text, 'readable:')}: bots[1].readable[0]: bot 'rand' would read" \
        in error_of(write(league_dir, text))


def test_a_bot_whose_directory_holds_another_bots_is_refused(league_dir):
    (league_dir / "bots" / "other").mkdir()
    (league_dir / "bots" / "other" / "b.py").write_text("")
    (league_dir / "bots" / "mine" / "a.py").write_text("")
    text = BASE + ""
    text = text.replace("    dialect: codingame\n", "    dialect: codingame\n    dir: bots\n") \
        + ""
    text = text.replace("bots:\n", "bots:\n  - {name: other, command: python3 bots/other/b.py}\n", 1)
    message = error_of(write(league_dir, text))
    assert "bots[3].dir: bot 'mine' would read" in message and "bot 'other''s directory" in message
    # two bots side by side in one directory see each other's code
    text = BASE.replace("bots:\n", "bots:\n  - {name: a, command: python3 bots/mine/a.py}\n", 1)
    assert "bot 'mine''s directory" in error_of(write(league_dir, text))
    # the same program under two names shares its directory freely
    text = BASE.replace("bots:\n", "bots:\n  - {name: slow, command: python3 bots/mine/bot.py}\n", 1)
    assert len(load_config(write(league_dir, text)).bots) == 4


def test_readable_paths_are_relative_to_the_config_and_must_exist(league_dir):
    (league_dir / "models").mkdir()
    (league_dir / "models" / "net.bin").write_bytes(b"")
    text = BASE.replace("    bot: random\n", "    bot: random\n    readable: [models/net.bin]\n")
    assert load_config(write(league_dir, text)).bots[1].readable == (league_dir / "models" / "net.bin",)
    text = BASE.replace("    bot: random\n", "    bot: random\n    readable: [models/none.bin]\n")
    message = error_of(write(league_dir, text))
    assert f":{line_of(text, 'readable:')}: bots[1].readable[0]: no such file or directory" in message
    text = BASE.replace("    bot: random\n", "    bot: random\n    readable: models\n")
    assert "bots[1].readable: must be a list of paths" in error_of(write(league_dir, text))


def test_store_and_publish_are_relative_to_the_config_file(league_dir):
    text = BASE + "store: data/q.db\npublish: site\n"
    config = load_config(write(league_dir, text))
    assert config.store == league_dir / "data" / "q.db"
    assert config.publish == league_dir / "site"
    (league_dir / "data").mkdir()
    message = error_of(write(league_dir, BASE + "store: data\n"))
    assert f":{line_of(BASE + 'store: data', 'store:')}: store: must be a regular file" in message
    assert message.endswith("data' is a directory")


def test_executor_ray_gets_a_ray_section(league_dir):
    config = load_config(write(league_dir, BASE + "executor: ray\n"))
    assert config.executor == "ray" and config.ray is not None and config.ray.address is None
    config = load_config(write(league_dir, BASE + "executor: ray\nray: {address: 'ray://h:1'}\n"))
    assert config.ray.address == "ray://h:1"


def test_config_from_dict_validates_the_same_way(tmp_path):
    data = {"name": "d", "game": "ultimate", "rules": {"tiebreak": "boards"},
            "bots": [{"name": "a", "bot": "x"}, {"name": "b", "bot": "y"}], "workers": 1}
    config = config_from_dict(data, base_dir=tmp_path)
    assert config.rules == {"tiebreak": "boards", "column258": "counts"} and config.source is None
    assert config.store == tmp_path / "results" / "d.sqlite"
    with pytest.raises(ConfigError) as info:
        config_from_dict({**data, "games_per_pairing": 5}, base_dir=tmp_path)
    assert str(info.value).startswith("<config>: games_per_pairing: must be an even integer >= 2")
    assert info.value.line is None and info.value.path == ("games_per_pairing",)
    with pytest.raises(ConfigError, match=r"bots\[1\]\.options: must be a mapping"):
        config_from_dict({**data, "bots": [{"name": "a", "bot": "x"},
                                           {"name": "b", "bot": "y", "options": 3}]})


@pytest.mark.parametrize("path", sorted((Path(__file__).resolve().parent.parent / "tournaments")
                                        .glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_league_config_is_valid(path):
    from arena.league.config import AbsentRequirement
    from arena.league.runner import load_league
    try:
        config = load_league(str(path))
    except AbsentRequirement as absent:   # other people's bots, cloned as its comment says
        pytest.skip(str(absent))
    assert config.name and len(config.bots) >= 2
    assert config.store.parent.name == "results"    # generated results stay out of git


@pytest.mark.parametrize("name", ["tron-public.yaml", "tron-public-2010.yaml",
                                  "csb-public.yaml", "csb-public-ladder.yaml",
                                  "tron-public-referee.yaml"])
def test_a_league_of_cloned_public_bots_without_its_clones_says_so_in_one_line(tmp_path, name):
    # the shipped configs of public bots name clones bot-arena does not ship (requires:);
    # without them a run stops before anything, in one line saying what is absent and where
    # to read how to get it, not with the first bot's missing script
    import shutil
    import subprocess
    import sys
    shipped = Path(__file__).resolve().parent.parent / "tournaments" / name
    (tmp_path / "tournaments").mkdir()
    shutil.copy(shipped, tmp_path / "tournaments" / name)
    run = subprocess.run([sys.executable, "-m", "arena", "run", f"tournaments/{name}"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert f"tournaments/{name}:" in run.stderr and ": requires" in run.stderr
    assert f"{tmp_path / 'public-bots'}" in run.stderr and "is absent" in run.stderr
    assert f"get them as the comment at the top of {name} says" in run.stderr
    assert not (tmp_path / "results").exists()


def test_one_entrant_is_admitted_as_the_config_would_have_it_or_refused_in_one_line(league_dir):
    from arena.league.config import validate_entrant
    path = write(league_dir, BASE)
    config = load_config(path)
    (league_dir / "bots" / "new").mkdir()
    (league_dir / "bots" / "new" / "bot.py").write_text("print('hi')\n")
    newcomer = {"name": "new", "command": "python3 bots/new/bot.py"}
    admitted = validate_entrant(newcomer, config)
    # as it would be had the config listed it among its bots
    listed = load_config(write(league_dir, BASE.replace("games_per_pairing",
                               "  - {name: new, command: python3 bots/new/bot.py}\ngames_per_pairing"),
                               "with.yaml"))
    assert admitted == listed.bots[3]
    assert validate_entrant({"name": "r2", "bot": "random"}, config).bot == "random"

    def refused(raw, **kwargs) -> str:
        with pytest.raises(ConfigError) as info:
            validate_entrant(raw, config, **kwargs)
        message = str(info.value)
        assert "\n" not in message and message.startswith(f"{path}:")
        return message
    assert "bots[3].name: duplicate bot name 'rand' (already used by bots[1])" in refused(
        {"name": "rand", "bot": "random"})
    assert "bots[3].opts: unknown key" in refused({"name": "x", "bot": "random", "opts": {}})
    assert "unknown bot 'nosuch'" in refused({"name": "x", "bot": "nosuch"},
                                             known_bots=lambda name, game, options: f"unknown bot {name!r}")
    # reading another bot's directory is refused, as among the config's own bots
    assert "which holds bot 'mine''s directory" in refused(
        {"name": "peek", "command": "python3 bots/new/bot.py", "readable": ["bots/mine"]})


LADDER = BASE.replace("games_per_pairing: 4\n", "schedule: ladder\n")

# Each case: (replace this, with that) in LADDER, the line, the key path and what is allowed.
LADDER_ERRORS = [
    (("schedule: ladder", "schedule: ladder\nladder: {matchmaker: activ}"), "ladder:",
     "ladder.matchmaker", ["unknown matchmaker 'activ'", "did you mean 'active'",
                           "known: active, uniform"]),
    (("schedule: ladder", "schedule: ladder\nladder: {gamez: 10}"), "ladder:", "ladder.gamez",
     ["did you mean 'games'", "allowed keys: matchmaker, games, hours, until"]),
    (("schedule: ladder", "schedule: ladder\nladder: {games: 0}"), "ladder:", "ladder.games",
     ["integer >= 1", "got 0"]),
    (("schedule: ladder", "schedule: ladder\nladder: {hours: 0}"), "ladder:", "ladder.hours",
     ["number > 0", "got 0"]),
    (("schedule: ladder", "schedule: ladder\nladder: {until: {top: 4}}"), "ladder:",
     "ladder.until", ["required key 'separated'"]),
    (("schedule: ladder", "schedule: ladder\nladder: {until: {separated: 1.5}}"), "ladder:",
     "ladder.until.separated", ["number > 0.5 and < 1", "got 1.5"]),
    (("schedule: ladder", "schedule: ladder\nladder: {until: {separated: 0.9, top: 1}}"),
     "ladder:", "ladder.until.top", ["integer >= 2", "got 1"]),
    (("schedule: ladder", "schedule: ladder\nladder: {suspend: {share: 2}}"), "ladder:",
     "ladder.suspend.share", ["number >= 0 and <= 1", "got 2"]),
    (("schedule: ladder", "schedule: ladder\nladder: {suspend: {after: 0}}"), "ladder:",
     "ladder.suspend.after", ["integer >= 1", "got 0"]),
    (("schedule: ladder", "schedule: ladder\nladder: {min_games: -1}"), "ladder:",
     "ladder.min_games", ["integer >= 0", "got -1"]),
    (("schedule: ladder", "schedule: ladder\ngames_per_pairing: 4"), "games_per_pairing",
     "games_per_pairing", ["not allowed with schedule: ladder"]),
    (("schedule: ladder", "schedule: ladder\ncandidates: [mcts]"), "candidates",
     "candidates", ["only allowed with schedule: gauntlet"]),
    (("schedule: ladder", "ladder: {games: 10}"), "ladder:", "ladder",
     ["only allowed with schedule: ladder", "'round-robin'"]),
]


@pytest.mark.parametrize("change, at, key, allowed", LADDER_ERRORS, ids=[e[2] for e in LADDER_ERRORS])
def test_ladder_errors_name_file_line_key_and_what_is_allowed(league_dir, change, at, key, allowed):
    text = LADDER.replace(*change)
    assert text != LADDER, change
    message = error_of(write(league_dir, text))
    assert message.startswith(f"{league_dir / 'league.yaml'}:{line_of(text, at)}: {key}: "), message
    for needle in allowed:
        assert needle in message, (needle, message)


def test_a_ladder_takes_its_defaults_or_its_section(league_dir):
    from arena.league.config import LadderConfig
    config = load_config(write(league_dir, LADDER))
    assert config.schedule == "ladder" and config.ladder == LadderConfig()
    assert (config.ladder.matchmaker, config.ladder.min_games, config.ladder.suspend_share,
            config.ladder.suspend_after) == ("active", 10, 0.5, 10)
    text = LADDER + ("ladder: {matchmaker: halite, games: 300, hours: 0.5, min_games: 4,\n"
                     "         until: {separated: 0.95, top: 3}, suspend: {share: 0.25, after: 6}}\n")
    config = load_config(write(league_dir, text))
    assert config.ladder == LadderConfig(matchmaker="halite", games=300, hours=0.5,
                                         until_separated=0.95, until_top=3, min_games=4,
                                         suspend_share=0.25, suspend_after=6)
    assert config.to_dict()["ladder"]["games"] == 300
    assert "ladder" not in load_config(write(league_dir, BASE)).to_dict()   # leagues unchanged
