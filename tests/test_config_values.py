"""Hostile YAML and path values (issue 34, items 8 and 9): a value that holds itself through
an alias, and a path holding a NUL, a control character or an over-long name, are one line
naming the file (and key, or the argument), exit 2, in every command that reads them, and
nothing is written. Real CLI runs on real files."""

import subprocess
import sys
from pathlib import Path

LEAGUE = ("name: t\ngame: tictactoe\ngames_per_pairing: 2\nbots:\n"
          "  - {name: a, bot: random}\n  - {name: b, bot: random}\n")


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          check=False, timeout=60, cwd=cwd, stdin=subprocess.DEVNULL)


def arenas(commands: list[list[str]], cwd: Path) -> list[subprocess.CompletedProcess[str]]:
    """Each command run at once (they only read and refuse), their results in order."""
    started = [(args, subprocess.Popen([sys.executable, "-m", "arena", *args], cwd=cwd, text=True,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE)) for args in commands]
    done = []
    for args, process in started:
        out, err = process.communicate(timeout=60)
        done.append(subprocess.CompletedProcess(args, process.returncode, out, err))
    return done


def refused(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2, no traceback, the error on the last line of stderr holding every needle."""
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    for needle in needles:
        assert needle in last, last
    return last


def snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_a_value_that_holds_itself_is_one_line_in_every_command(tmp_path):
    # before: RecursionError traceback, exit 1, in run, leaderboard, publish and users
    (tmp_path / "s.yaml").write_text("&a [*a]\n")                     # the one line
    (tmp_path / "m.yaml").write_text("x: &a {k: *a}\n")
    (tmp_path / "b.yaml").write_text(LEAGUE.replace(
        "{name: a, bot: random}", "&b {name: a, bot: random, options: {seed: [*b]}}"))
    before = snapshot(tmp_path)
    commands = [["run", "s.yaml"], ["leaderboard", "s.yaml"], ["publish", "s.yaml", "--out", "site"],
                ["versions", "s.yaml"], ["users", "s.yaml", "list"], ["run", "m.yaml"],
                ["run", "b.yaml"]]
    for args, done in zip(commands, arenas(commands, tmp_path)):
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr[-2000:]
        refused(done, f"arena {args[0]}: error: {args[1]}:", "the alias *",
                "lies inside the value it names", "would hold itself without end")
    assert snapshot(tmp_path) == before


def test_an_alias_used_twice_is_no_value_that_holds_itself(tmp_path):
    (tmp_path / "l.yaml").write_text(LEAGUE + "x: &r [1]\ny: [*r, *r]\n")
    refused(arena("run", "l.yaml", cwd=tmp_path), "l.yaml:7: x: unknown key")


LONG = "x" * 300
DEEP = "/".join(["d" * 200] * 25)
SEED_LEAGUE = ("name: t\ngame: meta\ngames_per_pairing: 2\nbots:\n"
               "  - {name: a, bot: meta-minimax, options: {depth: 1, weights: WEIGHTS}}\n"
               "  - {name: b, bot: random}\n")


def test_a_path_value_holding_a_nul_or_a_control_character_or_too_long_is_one_line(tmp_path):
    # before: ValueError: embedded null byte, a traceback, exit 1; "File name too long", a
    # traceback; a newline went into the store's file name
    configs = {
        "store": (LEAGUE + 'store: "results/a\\0b.sqlite"\n', "store", "NUL character"),
        "publish": (LEAGUE + 'publish: "si\\0te"\n', "publish", "NUL character"),
        "readable": (LEAGUE.replace("{name: a, bot: random}",
                                    '{name: a, bot: random, readable: ["x\\0y"]}'),
                     "bots[0].readable[0]", "NUL character"),
        "dir": (LEAGUE.replace("{name: a, bot: random}",
                               '{name: a, command: "python3 bot.py", build: make, dir: "b\\0c"}'),
                "bots[0].dir", "NUL character"),
        "option": (SEED_LEAGUE.replace("WEIGHTS", '"w\\0.json"'), "bots[0].options.weights",
                   "NUL character"),
        "newline": (LEAGUE + 'store: "results/a\\nb.sqlite"\n', "store",
                    "control character '\\n'"),
        "escape": (LEAGUE + 'publish: "\\e[31mred"\n', "publish", "control character '\\x1b'"),
        "long": (LEAGUE + f"store: results/{LONG}.sqlite\n", "store",
                 "of 307 bytes; a file or directory name holds at most 255"),
        "deep": (LEAGUE + f"store: {DEEP}\n", "store", "bytes long made absolute; a path holds "
                                                        "at most 4,095"),
    }
    for name, (text, _, _) in configs.items():
        (tmp_path / f"{name}.yaml").write_text(text)
    before = snapshot(tmp_path)
    commands = [["run", f"{name}.yaml"] for name in configs]
    commands += [["versions", "store.yaml"], ["users", "store.yaml", "list"]]
    for args, done in zip(commands, arenas(commands, tmp_path)):
        _, key, problem = configs[args[1].removesuffix(".yaml")]
        line = refused(done, f"arena {args[0]}: error: {args[1]}:", f": {key}: ", problem)
        assert "; got '" in line
        assert len(line) < 400, line        # a long value is quoted cut, with its length
    assert snapshot(tmp_path) == before


def test_a_path_argument_is_checked_as_a_config_path_is(tmp_path):
    # before: a traceback for an over-long name (OSError: File name too long), and a
    # newline or escape sequence went into the file name
    (tmp_path / "l.yaml").write_text(LEAGUE)
    before = snapshot(tmp_path)
    cases = [
            (["leaderboard", f"results/{LONG}.sqlite"], "argument STORE_OR_CONFIG"),
            (["publish", "l.yaml", "--out", "si\nte"], "argument --out"),
            (["versions", "a\x1b[31m"], "argument STORE_OR_CONFIG"),
            (["replay", "a\x7f"], "argument SOURCE"),
            (["users", DEEP, "list"], "argument config"),
            (["match", "random", "random", "--game", "tictactoe", "--store", "a\tb"],
             "argument --store"),
            (["match", "random", "random", "--game", "tictactoe", "--read", LONG], "argument --read"),
            (["match", "meta-minimax:weights=w\x01.json", "random", "--game", "meta"],
             "meta-minimax:weights: names a file, but holds the control character"),
            (["match", "tron-random", "tron-random", "--game", "tron", "--rule", "map=m\x01p"],
             "'m\\x01p': cannot read the map file in the 2010 Google AI Challenge's format: "
             "the path holds the control character '\\x01'")]
    for (args, where), done in zip(cases, arenas([args for args, _ in cases], tmp_path)):
        refused(done, f"arena {args[0]}: error: {where}")
    assert snapshot(tmp_path) == before


def test_a_store_name_leaves_room_for_sqlites_files_beside_it(tmp_path):
    # a name of two-byte characters counts in bytes; a store of 247 bytes (and its 255-byte
    # -journal) is made, one of 248 is refused in one line (before: "not a usable arena
    # store (unable to open database file)", SQLite unable to make its -journal beside it)
    name = "é" * 120 + ".sqlite"          # 247 bytes
    (tmp_path / "l.yaml").write_text(LEAGUE + f"store: {name}\n")
    done = arena("run", "l.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / name).is_file()
    (tmp_path / "l.yaml").write_text(LEAGUE + f"store: x{name}\n")
    refused(arena("run", "l.yaml", cwd=tmp_path), "l.yaml:7: store: names a file of 248 bytes",
            "at most 247", "-journal")
