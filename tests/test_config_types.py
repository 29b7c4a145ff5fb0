"""The league config builds the runtime types themselves: one definition of each setting and
its bounds (TimeControl, TimeoutPolicy, Limits), and one reading of a bot's command."""

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bounds import DAY_MS
from arena.league import ConfigError, load_config
from arena.referee import TimeControl, TimeoutPolicy
from arena.referee.botspec import BotSpecError, command_spec
from arena.sandbox import MODES, Limits, SandboxError

ROOT = Path(__file__).resolve().parent.parent


def league(directory: Path, extra: str = "", command: str = "python3 bots/mine/bot.py",
           shared: bool = False) -> Path:
    """A league file: a registered bot, a command bot (line 6: its command), then extra (line 7)."""
    path = directory / "league.yaml"
    shared_line = "    allow_shared_dir: true\n" if shared else ""
    path.write_text(f"name: t\ngame: tictactoe\nbots:\n  - {{name: a, bot: random}}\n"
                    f"  - name: mine\n    command: {command!r}\n{shared_line}{extra}")
    return path


@pytest.fixture
def here(tmp_path):
    (tmp_path / "bots" / "mine").mkdir(parents=True)
    (tmp_path / "bots" / "mine" / "bot.py").write_text("print('hi')\n")
    return tmp_path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


def test_sections_are_the_runtime_objects_the_referee_and_sandbox_take(here):
    config = load_config(league(here, "time_control: {move_ms: 300, load_grace: 2}\n"
                                      "timeout_policy: {mode: strikes, strikes: 4}\n"
                                      "sandbox: {mode: none, memory_mb: 512, open_files: 64}\n"))
    assert config.time_control == TimeControl(move_ms=300, load_grace=2.0)
    assert config.timeout_policy == TimeoutPolicy(mode="strikes", strikes=4)
    assert config.sandbox_mode == "none" and config.limits == Limits(memory_mb=512, open_files=64)
    assert config.to_dict()["sandbox"] == {"mode": "none", **dataclasses.asdict(config.limits)}


# (section, field, a value out of bounds): the config refuses it with the very words the
# runtime type uses, because both read the bounds declared on the type's field
OUT_OF_BOUNDS = [(section, f.name, value) for section, cls in (
    ("time_control", TimeControl), ("timeout_policy", TimeoutPolicy), ("sandbox", Limits))
    for f in dataclasses.fields(cls)
    for value in ((f.metadata["min"] - 1, f.metadata["max"] + 1) if "min" in f.metadata
                  else ("sometimes",))]


@pytest.mark.parametrize("section, key, value", OUT_OF_BOUNDS,
                         ids=[f"{s}.{k}={v}" for s, k, v in OUT_OF_BOUNDS])
def test_config_and_runtime_type_refuse_a_value_in_the_same_words(here, section, key, value):
    cls = {"time_control": TimeControl, "timeout_policy": TimeoutPolicy, "sandbox": Limits}[section]
    with pytest.raises((ValueError, SandboxError)) as runtime:
        cls(**{key: value})
    message = error_of(league(here, f"{section}: {{{key}: {value}}}\n"))
    said = message.split(f"{section}.{key}: ", 1)[1]
    assert f"{key} {said}" in str(runtime.value), (message, str(runtime.value))
    assert f"league.yaml:7: {section}.{key}: must be " in message


def test_open_files_is_at_least_three_everywhere(here):
    # descriptors 0-2 are a bot's pipes: one bound, held by Limits and read by the config
    assert Limits(open_files=3).open_files == 3
    with pytest.raises(SandboxError, match=r"open_files must be an integer >= 3 and <= 1000000, got 2"):
        Limits(open_files=2)
    assert "sandbox.open_files: must be an integer >= 3" in error_of(league(here, "sandbox: {open_files: 2}\n"))
    assert load_config(league(here, "sandbox: {open_files: 3}\n")).limits.open_files == 3


def test_time_settings_are_capped_at_a_day_for_the_cli_too():
    with pytest.raises(ValueError, match=f"time control: move_ms must be an integer >= 1 and <= {DAY_MS}"):
        TimeControl(move_ms=DAY_MS + 1)
    run = subprocess.run([sys.executable, "-m", "arena", "match", "random", "random", "--game",
                          "tictactoe", "--move-ms", str(DAY_MS + 1)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 2 and f"<= {DAY_MS}, got {DAY_MS + 1}" in run.stderr


def test_sandbox_modes_are_one_list_for_config_and_cli(here):
    assert f"must be one of {', '.join(map(repr, MODES))}, got 'docker'" in \
        error_of(league(here, "sandbox: {mode: docker}\n"))
    run = subprocess.run([sys.executable, "-m", "arena", "match", "random", "random", "--game",
                          "tictactoe", "--sandbox", "docker"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 2 and f"choose from {', '.join(map(repr, MODES))}" in run.stderr


def test_a_dialect_is_a_registered_name_that_can_express_the_game(here):
    message = error_of(league(here, "    dialect: theaigames\n"))
    assert message.endswith("league.yaml:7: bots[1].dialect: the theaigames dialect plays ultimate, "
                            "meta, nineboard, not tictactoe"), message
    message = error_of(league(here, "    dialect: hackerearth\n"))
    assert "league.yaml:7: bots[1].dialect: must be one of 'arena', 'codingame', 'theaigames', " \
           "'riddles', 'aichallenge2010', got 'hackerearth'" in message


# --- one reading of a bot's command ---------------------------------------------------------

def test_the_config_reads_a_command_as_the_referee_runs_it(here):
    (here / "bots" / "mine" / "weights.bin").write_bytes(b"")
    (here / "link.py").symlink_to(here / "bots" / "mine" / "bot.py")
    for command in ("python3 bots/mine/bot.py --fast", "python3 ./link.py bots/mine/weights.bin",
                    f"python3 {here}/bots/mine/bot.py bots", "python3 -c pass"):
        path = league(here, command=command)
        bot = load_config(path).bots[1]
        spec = command_spec("mine", "arena", command, cwd=str(here))
        assert bot.argv == spec.argv, command
    # a symlinked program runs as the file it points to (that file's directory is what is shown)
    assert load_config(league(here, "", "python3 ./link.py")).bots[1].argv[1] == \
        str(here / "bots" / "mine" / "bot.py")


@pytest.mark.parametrize("command, needle", [
    ("bots/mine/nothere", "program 'bots/mine/nothere' not found: the file does not exist"),
    ("no-such-program-xyz", "program 'no-such-program-xyz' is not on PATH"),
    ("python3 'bots/mine/bot.py", "cannot split into words (No closing quotation): check the quotes"),
    ("mybot", "program 'mybot' is not on PATH (for the file in"),
    # the program is found; the script it would run is not
    ("python3 bots/mine/nothere.py", "script 'bots/mine/nothere.py' not found: python3 would run "
                                     "'{here}/bots/mine/nothere.py', which does not exist"),
    ("python3 -u -W ignore bots/nothere.py --fast",
     "script 'bots/nothere.py' not found: python3 would run '{here}/bots/nothere.py'"),
    ("bash -eo pipefail run.sh", "script 'run.sh' not found: bash would run '{here}/run.sh'"),
    pytest.param("node bots/mine/dist/bot.js", "script 'bots/mine/dist/bot.js' not found: node would run",
                 marks=pytest.mark.skipif(shutil.which("node") is None, reason="needs node")),
    pytest.param("java -Xmx64m -jar bots/bot.jar", "script 'bots/bot.jar' not found: java would run",
                 marks=pytest.mark.skipif(shutil.which("java") is None, reason="needs java")),
])
def test_a_bad_command_is_refused_in_the_same_words_by_config_and_referee(here, command, needle):
    needle = needle.format(here=here)
    mybot = here / "mybot"
    mybot.write_text("#!/bin/sh\n")
    mybot.chmod(0o755)
    message = error_of(league(here, "", command))
    assert f"league.yaml:6: bots[1].command: {needle}" in message, message
    with pytest.raises(BotSpecError) as info:
        command_spec("mine", "arena", command, cwd=str(here))
    assert needle in str(info.value)
    if command == "mybot":   # the hint is right: ./mybot is that file
        assert load_config(league(here, command="./mybot", shared=True)).bots[1].argv == (str(mybot),)


@pytest.mark.parametrize("command", [
    "python3 -m http.server", "python3 -c 'import sys'", "python3 -Bc pass", "python3 -",
    "sh -c 'exec python3 bots/mine/bot.py'", "python3 -X dev bots/mine/bot.py", "python3 bots/mine",
    "python3 -W ignore bots/mine/bot.py",
])
def test_commands_that_name_no_missing_script_are_accepted(here, command):
    # code given inline, a module, stdin, a directory, a word that is no path: nothing to check
    assert load_config(league(here, command=command)).bots[1].command == command
    command_spec("mine", "arena", command, cwd=str(here))


def test_a_script_a_build_makes_need_not_exist_yet(here):
    config = load_config(league(here, "    build: 'true'\n    dir: bots/mine\n",
                                command="python3 bots/mine/dist/bot.py"))
    assert config.bots[1].build == "true"


def test_a_jar_a_build_makes_gives_the_bot_its_directory_before_and_after_the_build(here, monkeypatch):
    # no java needed: the command is read at config time; a stand-in java is put on PATH
    tools = here / "tools"
    tools.mkdir()
    (tools / "java").write_text("#!/bin/sh\nexit 0\n")
    (tools / "java").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{Path(sys.executable).parent}:/usr/bin:/bin")
    (here / "bots" / "x").mkdir()
    (here / "bots" / "x" / "Bot.java").write_text("class Bot {}\n")
    path = league(here, "    build: 'sh make_jar.sh'\n", command="java -jar bots/x/bot.jar")
    fresh = load_config(path).bots[1]       # a fresh checkout: the jar is not made yet
    assert fresh.dir == (here / "bots" / "x").resolve()
    (here / "bots" / "x" / "bot.jar").write_bytes(b"PK\x03\x04 made by the build")
    assert load_config(path).bots[1].dir == fresh.dir


def test_the_script_of_an_interpreter_outside_the_system_is_the_bots_directory(here):
    interpreter = here / "py" / "bin" / "python3"
    interpreter.parent.mkdir(parents=True)
    interpreter.write_text("#!/bin/sh\nexec python3 \"$@\"\n")
    interpreter.chmod(0o755)
    made = league(here, "    build: 'true'\n", command=f"{interpreter} bots/mine/out.py")
    assert load_config(made).bots[1].dir == (here / "bots" / "mine").resolve()
    # a directory the build makes holds only outputs: the sources are elsewhere, say where
    assert "bots[1].build: needs 'dir' (the directory to build in, which holds the bot's " \
        "sources)" in error_of(league(here, "    build: 'true'\n",
                                      command=f"{interpreter} bots/mine/dist/bot.py"))
    there = league(here, command=f"{interpreter} -u bots/mine/bot.py")
    assert load_config(there).bots[1].dir == (here / "bots" / "mine").resolve()
