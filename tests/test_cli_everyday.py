"""Everyday use of the arena command, as a new user meets it (issue 17): every test runs
the real CLI in a subprocess on real leagues, stores and sandboxed bots."""

import os
import pty
import re
import select
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena"]


def arena(*args, input=None, cwd=None):
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, check=False, timeout=300,
                          input=input, cwd=cwd or ROOT)


def write_league(path: Path, bots, games_per_pairing=2, workers=2, game="ultimate") -> Path:
    lines = [f"name: {path.stem}", f"game: {game}", "bots:"]
    lines += [f"  - {entry}" for entry in bots]
    lines += [f"games_per_pairing: {games_per_pairing}", f"workers: {workers}", "seed: 17",
              "time_control: {move_ms: 2000, startup_ms: 10000}", f"store: {path.stem}.sqlite"]
    path.write_text("\n".join(lines) + "\n")
    path.parent.chmod(0o755)     # a command bot's directory is shown to its sandboxed user
    return path


# a bot that exits at start-up (a missing script is refused before any game: see below)
BROKEN = """{name: broken, command: 'python3 -c "import nosuch_weights"', dialect: arena}"""
BROKEN_CAUSE = "No module named 'nosuch_weights'"    #: the end of its stderr


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A played league of two random bots and one that cannot start: (config, store, run)."""
    config = write_league(tmp_path_factory.mktemp("everyday") / "everyday.yaml",
                          ["{name: r1, bot: uttt-random}", "{name: r2, bot: random}", BROKEN])
    run = arena("run", str(config), "--keep-going")   # the broken bot plays and loses its games
    assert run.returncode == 0, run.stderr
    return config, config.with_name("everyday.sqlite"), run


# --- replay --------------------------------------------------------------------------------

def test_replay_reads_a_league_store_or_its_config_by_game_number_or_fixture(league):
    config, store, _run = league
    by_store = arena("replay", str(store), "--game", "1")
    assert by_store.returncode == 0, by_store.stderr
    assert "(game 1 of 6, fixture " in by_store.stdout and "result: " in by_store.stdout
    by_config = arena("replay", str(config), "--game", "1")
    assert by_config.stdout == by_store.stdout
    key = re.search(r"fixture (\S+)\)", by_store.stdout).group(1)
    by_fixture = arena("replay", str(store), "--fixture", key)
    assert by_fixture.returncode == 0 and by_fixture.stdout.splitlines()[1:] == by_store.stdout.splitlines()[1:]

    far = arena("replay", str(store), "--game", "7")
    assert far.returncode == 2 and far.stderr.count("\n") == 1 and "--game must be 1..6" in far.stderr
    unknown = arena("replay", str(config), "--fixture", "a|b|0|0")
    assert unknown.returncode == 2 and "is not in" in unknown.stderr and "Traceback" not in unknown.stderr
    typo = arena("replay", str(store), "--fixture", key[1:])   # a letter short: the key is suggested
    assert typo.returncode == 2 and f"(did you mean {key!r}?)" in typo.stderr, typo.stderr


def test_replay_of_a_startup_failure_shows_the_bots_stderr(league):
    _config, store, _run = league
    out = next(o for o in (arena("replay", str(store), "--game", str(n)) for n in range(1, 7))
               if "broken" in o.stdout)
    assert "exited (exit code 1) while starting up" in out.stdout
    assert "stderr of broken" in out.stdout and BROKEN_CAUSE in out.stdout


def test_replay_still_reads_saved_matches_and_steps_with_enter(tmp_path):
    saved = tmp_path / "games.jsonl"
    match = arena("match", "uttt-random", "random", "--game", "ultimate", "--games", "2",
                  "--seed", "5", "--save", str(saved))
    assert match.returncode == 0, match.stderr
    whole = arena("replay", str(saved), "--game", "2")
    assert whole.returncode == 0 and "ply 2:" in whole.stdout
    stepped = arena("replay", str(saved), "--game", "2", "--step", input="\nq\n")
    assert stepped.returncode == 0
    assert "ply 1:" in stepped.stdout and "ply 2:" not in stepped.stdout   # one Enter, one move
    assert "[Enter: next move, q: quit]" in stepped.stdout
    text = tmp_path / "notes.txt"
    text.write_bytes(b"\xd0\xff not a record")
    bad = arena("replay", str(text))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1


# --- every command that reads a league takes its config ---------------------------------

def test_publish_and_leaderboard_take_the_league_config(league, tmp_path):
    config, store, _run = league
    site = tmp_path / "site"
    out = arena("publish", str(config), "--out", str(site))
    assert out.returncode == 0, out.stderr
    assert (site / "index.html").is_file() and "everyday" in (site / "index.html").read_text()
    board = arena("leaderboard", str(config))
    assert board.returncode == 0 and board.stdout == arena("leaderboard", str(store)).stdout
    missing = write_league(tmp_path / "unplayed.yaml", ["{name: r1, bot: uttt-random}",
                                                        "{name: r2, bot: random}"])
    early = arena("publish", str(missing), "--out", str(tmp_path / "x"))
    assert early.returncode == 2 and "run `arena run" in early.stderr


@pytest.mark.parametrize("out, why", [("/proc/x", ""),     # the kernel's words, whatever they are
                                      ("FILE/sub", "FILE is a file, not a directory")])
def test_publish_to_an_output_it_cannot_write_is_one_line_naming_it(league, tmp_path, out, why):
    _config, store, _run = league
    (tmp_path / "FILE").write_text("not a directory\n")
    out, why = (text.replace("FILE", str(tmp_path / "FILE")) for text in (out, why))
    done = arena("publish", str(store), "--out", out)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"arena publish: error: {out}: cannot write the site there: {why}")
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["FILE"]      # no staging directory left


# --- a closed pipe ---------------------------------------------------------------------------

@pytest.mark.parametrize("args", [("leaderboard", "STORE"), ("replay", "STORE", "--game", "2"),
                                  ("bots",), ("random-game", "ultimate", "--seed", "3")])
def test_output_into_a_closed_pipe_ends_quietly(league, args):
    """As `arena ... | head -1` once head has gone: no BrokenPipeError traceback."""
    _config, store, _run = league
    argv = [str(store) if a == "STORE" else a for a in args]
    proc = subprocess.Popen([*ARENA, *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()              # the reader is gone before the first line is written
    _out, err = proc.communicate(timeout=120)
    assert err == "" and proc.returncode in (0, 141)


# --- match and play refuse what cannot work --------------------------------------------------

def test_a_bot_for_another_game_is_refused_up_front():
    out = arena("match", "ttt-master", "uttt-random", "--game", "ultimate")
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1
    assert "'ttt-master' plays tictactoe, not ultimate" in out.stderr and "uttt-random" in out.stderr
    play = arena("play", "ultimate", "--against", "ttt-master", input="")
    assert play.returncode == 2 and "plays tictactoe, not ultimate" in play.stderr


def test_a_mistyped_bot_name_gets_a_guess():
    out = arena("match", "uttt-randon", "mcts", "--game", "ultimate")
    assert out.returncode == 2 and "did you mean 'uttt-random'?" in out.stderr


def test_a_match_with_a_bot_that_cannot_start_stops_before_any_game(tmp_path):
    # the program is found (so the match cannot refuse it up front), the bot dies at start-up;
    # as `arena run`, the match starts each bot once first
    db = tmp_path / "dies.sqlite"
    command = 'arena:python3 -c "import nosuch_weights"'
    out = arena("match", command, "uttt-random", "--game", "ultimate", "--games", "6",
                "--sprt", "elo0=0,elo1=10", "--store", str(db), cwd=tmp_path)
    assert out.returncode == 1, out.stderr            # a run that failed, as `arena run`'s
    assert out.stdout == ""                           # no game, no summary, no SPRT verdict
    line = out.stderr.strip()     # one line; the "Traceback" in it is the bot's, quoted
    assert "\n" not in line, out.stderr
    assert line.startswith("arena match: error: bot 'python3 -c \"import nosuch_weights\"' "
                           "cannot start: exited (exit code 1) while starting up"), line
    assert BROKEN_CAUSE in line and "nothing was played" in line and "--keep-going" in line
    with sqlite3.connect(db) as conn:                 # nothing stored, not 6 startup failures
        assert conn.execute("SELECT count(*) FROM games").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM versions").fetchone() == (0,)
    # a script of the user's that dies at start-up, named: the same, without a store
    tmp_path.chmod(0o755)        # a command bot's directory is shown to its sandboxed user
    (tmp_path / "dies.py").write_text("import sys\nprint('no weights.bin', file=sys.stderr)\n"
                                      "sys.exit(3)\n")
    dies = arena("match", "uttt-random", "arena:python3 dies.py", "--name", "B=mine", "--game",
                 "ultimate", "--games", "2", cwd=tmp_path)
    assert dies.returncode == 1 and dies.stdout == "", dies.stdout
    assert "bot 'mine' cannot start" in dies.stderr and "no weights.bin" in dies.stderr
    # --keep-going plays anyway: the bot loses its games, its stderr shown with each
    kept = arena("match", command, "uttt-random", "--game", "ultimate", "--keep-going", cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    assert "WARNING: bot 'python3 -c \"import nosuch_weights\"' cannot start" in kept.stderr
    assert "exited (exit code 1) while starting up" in kept.stdout
    assert "to the handshake" not in kept.stdout
    assert "stderr of python3 -c" in kept.stdout and BROKEN_CAUSE in kept.stdout


@pytest.mark.parametrize("name, first_line, interpreter", [
    ("bot.sh", "echo hi", "sh"), ("bot.py", "print(1)", "python3"),
    ("bot", "#!/usr/bin/env node", "node"), ("bot.sh", "#!/bin/bash -e", "/bin/bash -e"),
    ("bot.bin", "\x7fELF", None)])
def test_a_script_that_is_not_executable_gets_a_hint_of_its_own_interpreter(tmp_path, name, first_line,
                                                                            interpreter):
    """The hint was "e.g. ['python3', '/abs/path/bot.py']" for any file: a Python list where a
    config's command is a string, and python3 for a shell script."""
    tmp_path.chmod(0o755)
    (tmp_path / "b").mkdir(mode=0o755)
    script = tmp_path / "b" / name
    script.write_text(first_line + "\n")
    script.chmod(0o644)
    out = arena("match", "random", f"arena:./b/{name} --fast", "--game", "tictactoe", "--games", "2",
                cwd=tmp_path)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert f"is not an executable file; hint: chmod +x '{script}'" in out.stderr
    if interpreter is None:
        assert "interpreter" not in out.stderr, out.stderr
    else:
        assert f'start it through its interpreter: command: "{interpreter} {script} --fast"' \
            in out.stderr, out.stderr


def test_a_missing_script_is_refused_before_the_match(tmp_path):
    # the program (python3) is found, so before, only the game told: a startup_failure
    out = arena("match", "arena:python3 bots/nosuch.py", "uttt-random", "--game", "ultimate",
                cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert (f"script 'bots/nosuch.py' not found: python3 would run '{tmp_path}/bots/nosuch.py', "
            "which does not exist") in out.stderr
    assert out.stdout == ""                                       # no game was played
    config = write_league(tmp_path / "lost.yaml", ["{name: r1, bot: uttt-random}",
                                                   '{name: lost, command: "python3 bots/lost.py"}'])
    run = arena("run", str(config))
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert (f"lost.yaml:5: bots[1].command: script 'bots/lost.py' not found: python3 would run "
            f"'{tmp_path}/bots/lost.py', which does not exist") in run.stderr
    assert not (tmp_path / "lost.sqlite").exists()


# --- progress ----------------------------------------------------------------------------------

def test_piped_progress_is_a_line_now_and_then_with_eta_and_faults(league):
    _config, _store, run = league
    lines = run.stderr.splitlines()
    assert lines[0].startswith("arena: WARNING: bot 'broken' cannot start")   # the preflight
    assert lines[1] == "0 of 6 games already stored; playing 6"
    status = [line for line in lines if line.startswith("[")]
    assert status[-1].startswith("[6/6] 100%,") and "ETA" in status[-1] and "4 faults" in status[-1]
    faults = [line for line in lines if line.startswith("fault:")]
    assert len(faults) == 1 and BROKEN_CAUSE in faults[0]     # the cause, once
    # the game in the record's one-line summary: the faulting bot named once, not again in its reason
    assert re.match(r"fault: \S+ \(x\) vs \S+ \(o\): broken faulted \(start-up failure\); r[12] wins, "
                    r"exited \(exit code 1\) while starting up, 0 moves, seed \d+; broken's stderr: ",
                    faults[0]), faults[0]
    assert "(seat " not in faults[0]
    assert lines[-1].startswith("finished: 6 games played")


CRASH_ON_FIRST_TURN = """import sys
for line in sys.stdin:
    if line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("turn"):
        print("boom: a deliberate crash on its first turn", file=sys.stderr, flush=True)
        sys.exit(3)
"""


def test_a_seat_put_out_in_a_free_for_all_is_a_fault_in_the_progress(tmp_path):
    # before: '[3/3] 100%, ... 0 faults' and no fault line, while the table said 3 (crash 3):
    # the seat put out while the others played on (record.out) was not counted
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "crash.py").write_text(CRASH_ON_FIRST_TURN)
    tmp_path.chmod(0o755)
    (tmp_path / "ffa.yaml").write_text(
        "name: ffa\ngame: tron\nrules: {players: 3, width: 8, height: 8}\nbots:\n"
        "  - {name: crash, command: python3 bots/crash.py}\n  - {name: a, bot: tron-random}\n"
        "  - {name: b, bot: tron-random, options: {seed: 5}}\n"
        "games: 3\nworkers: 1\nstore: ffa.sqlite\nseed: 3\n")
    run = arena("run", "ffa.yaml", "--standings", "0", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    status = [line for line in lines if line.startswith("[")]
    assert status[-1].startswith("[3/3] 100%,") and status[-1].endswith(", 3 faults"), status
    faults = [line for line in lines if line.startswith("fault:")]
    assert len(faults) == 1, faults           # the first of its kind, the others counted
    assert re.match(r"fault: (crash|a|b), (crash|a|b), (crash|a|b) by seat: .*crash 3rd, normal "
                    r"\(crash out on turn 1 \(crash\)\), \d+ turns, \d+ moves, seed \d+; "
                    r"crash \(seat \d\): exited \(exit code 3\) before replying to move on turn 1; "
                    r"crash's stderr: boom: a deliberate crash on its first turn \(further crash "
                    r"faults of crash are only counted\)$", faults[0]), faults[0]
    assert re.search(r"\n +3 +crash .* 3 \(crash 3\) ", run.stdout), run.stdout   # as the table


def test_a_long_league_into_a_pipe_prints_about_ten_lines(tmp_path):
    config = write_league(tmp_path / "long.yaml", ["{name: r1, bot: uttt-random}",
                                                   "{name: r2, bot: random}"], games_per_pairing=40)
    out = arena("run", str(config))
    assert out.returncode == 0, out.stderr
    status = [line for line in out.stderr.splitlines() if line.startswith("[")]
    assert 5 <= len(status) <= 12, status
    # the rate and ETA once a second has gone (on a quiet machine, 40 games take less)
    assert all(re.fullmatch(r"\[\d+/40\] \d+%, (\d+\.\d games/s, ETA \d:\d\d:\d\d, )?0 faults", line)
               for line in status), status
    assert status[-1].startswith("[40/40] 100%") and "games/s, ETA 0:00:00" in status[-1]


def test_the_rate_is_shown_once_it_means_something():
    """Two games a ms after the start were '2420.1 games/s': the rate and ETA wait for a
    second of play (RATE_AFTER_S) or the last game, and a league's rate counts from when its
    workers began, during the bots' start-up check (a clock stands in for the time)."""
    import io

    from arena.league.progress import RATE_AFTER_S, Progress
    from arena.record import BotEntry, GameRecord

    record = GameRecord("tictactoe", {}, 1, [BotEntry("a"), BotEntry("b")])
    now = [100.0]
    out = io.StringIO()
    progress = Progress(20, stream=out, tty=False, clock=lambda: now[0], every=1)
    progress.start()
    for step in (0.001, 0.001, RATE_AFTER_S):
        now[0] += step
        progress.update(record)
    assert out.getvalue().splitlines()[1:] == [
        "[1/20] 5%, 0 faults", "[2/20] 10%, 0 faults", "[3/20] 15%, 3.0 games/s, ETA 0:00:05, 0 faults"]
    out = io.StringIO()
    began = now[0]
    progress = Progress(2, stream=out, tty=False, clock=lambda: now[0], every=1)
    now[0] += 0.5                         # the bots' start-up check, while workers play
    progress.start(since=began)
    now[0] += 0.001
    progress.update(record)
    progress.update(record)               # the last game: the whole run's rate
    assert out.getvalue().splitlines()[1:] == ["[1/2] 50%, 0 faults",
                                               "[2/2] 100%, 4.0 games/s, ETA 0:00:00, 0 faults"]


def test_on_a_terminal_progress_is_one_redrawn_line(tmp_path):
    config = write_league(tmp_path / "tty.yaml", ["{name: r1, bot: uttt-random}",
                                                  "{name: r2, bot: random}", BROKEN],
                          games_per_pairing=6)
    leader, follower = pty.openpty()
    # the progress line alone (test_league_standings redraws the standings on a terminal)
    proc = subprocess.Popen([*ARENA, "run", str(config), "--keep-going", "--standings", "0"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:          # the terminal closed: the run is over
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=60) == 0
    os.close(leader)
    text = seen.decode().replace("\r\n", "\n")
    lines = text.split("\n")
    assert "\r[" in text                                         # redrawn in place
    assert lines[0].startswith("arena: WARNING: bot 'broken' cannot start")   # the preflight
    assert lines[1] == "0 of 18 games already stored; playing 18"
    assert sum(1 for line in lines[1:] if BROKEN_CAUSE in line) == 1   # its first fault
    final = lines[-3].split("\r")[-1]                            # the line left on screen
    assert final.startswith("[18/18] 100%,") and "ETA" in final and "12 faults" in final
    assert lines[-2].startswith("finished: 18 games played")
    assert len(lines) <= 6                                       # not a line per game


# --- leaderboard ---------------------------------------------------------------------------------

def test_leaderboard_explains_its_columns_and_fits_100_columns(tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    from browser.league import build_store
    names = [f"a-rather-long-bot-name-{i:02d}" for i in range(20)]
    store = tmp_path / "wide.sqlite"
    build_store(store, names, games_per_pairing=2)
    out = arena("leaderboard", str(store))
    assert out.returncode == 0, out.stderr
    assert "Ranked by exposed = mu - 3 sigma" in out.stdout and "sigma: its uncertainty" in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()[25:]) <= 100   # the crosstable
    assert "score of the row bot in %" in out.stdout
    wide = arena("leaderboard", str(store), "--wide")
    assert "win, draw, loss rates (games)" in wide.stdout
    assert max(len(line) for line in wide.stdout.splitlines()) > 100       # today's, as asked


# --- play ------------------------------------------------------------------------------------------

def test_play_draws_coordinates_explains_ranges_and_shows_the_last_move():
    moves = "".join(f"{cell}\n" for _ in range(60) for cell in range(81))   # first legal, always
    out = arena("play", "ultimate", "--against", "uttt-random", "--seat", "1", "--seed", "3",
                input="99\n9 9\n" + moves)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "99 is out of range: a cell is 0-80, or BOARD SQUARE with each 0-8" in text
    assert "9 9 is out of range: board and square are each 0-8" in text
    assert "squares in a board:" in text and "+---- 0 ----+" in text
    assert "legal: 0 1 2" not in text and re.search(r"your move \(board \d: type '\d SQUARE'", text)
    assert re.search(r"\[[xo]\]", text)                                   # the last move marked
    assert re.search(r"\d [xo] won", text)                                # won boards named
    end = text[text.rindex("your move"):]
    result = re.search(r"result: .*, (\d+) moves", end)
    assert result
    if int(result.group(1)) % 2 == 1:          # x (the bot) made the last move: it is shown
        assert "opponent played" in end


def test_play_tictactoe_lists_the_free_cells():
    out = arena("play", "tictactoe", "--against", "ttt-master", input="q\n")
    assert out.returncode == 0 and "a free cell: 0 1 2 3 4 5 6 7 8" in out.stdout


# --- SDK docs, bots, train -------------------------------------------------------------------

def test_the_sdk_docs_example_is_a_bot_that_plays(tmp_path):
    doc = (ROOT / "docs" / "sdk.md").read_text()
    code = re.search(r"```python\n(.*?)```", doc, re.DOTALL).group(1)
    assert code == (ROOT / "examples" / "lookahead_bot.py").read_text()
    for name in ("to_move", "legal_moves", "play", "is_terminal", "winner", "returns"):
        assert f"`state.{name}" in doc
    bot = tmp_path / "doc_bot.py"
    bot.write_text(code)
    tmp_path.chmod(0o755)        # shown to the bot's sandboxed user
    out = arena("match", f"arena:python3 {bot}", "ttt-blind", "--game", "tictactoe", "--games", "4",
                "--json")
    assert out.returncode == 0, out.stderr
    import json
    records = [json.loads(line) for line in out.stdout.splitlines()][:-1]   # then a summary
    assert len(records) == 4 and all(r["termination"] == "normal" for r in records)
    trial = re.search(r"```sh\n(printf .*?)\n# ready", doc, re.DOTALL).group(1)
    shown = subprocess.run(trial.replace("python3 ", f"{sys.executable} "), shell=True, cwd=ROOT, check=False,
                           capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert shown.stdout == "ready\n2\n"        # the output the doc shows: it takes the win


def test_bots_name_the_paper_not_a_seed():
    out = arena("bots")
    assert "paper 001" in out.stdout and not re.search(r"seed 00\d", out.stdout)


def test_train_says_how_to_use_the_weights_and_that_line_works(tmp_path):
    out = arena("train", "meta", "--games", "1", "--seed", "1", "--out", "meta.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert f"options: {{weights: {tmp_path / 'meta.json'}}}" in out.stderr
    line = next(text.strip() for text in out.stderr.splitlines() if text.strip().startswith("arena match"))
    argv = shlex.split(line)[1:]
    argv[argv.index("--games") + 1] = "2"
    match = arena(*argv, cwd=tmp_path)
    assert match.returncode == 0, match.stderr
    games = [line for line in match.stdout.splitlines() if line.startswith("game ")]
    assert len(games) == 2 and all(", normal, " in line for line in games)
    assert "meta-minimax:weights=meta.json: " in match.stdout


@pytest.mark.parametrize("bot, words", [
    ("uttt-minimax-pruning:depth=-3", "uttt-minimax-pruning:depth: must be an integer from 1 to 81, got -3"),
    ("uttt-minimax-pruning:depth=deep", "uttt-minimax-pruning:depth: must be an integer from 1 to 81, got 'deep'"),
    ("mcts:time_ms=fast", "mcts:time_ms: must be a number from 0 to 86400000, got 'fast'"),
])
def test_a_match_bot_option_out_of_bounds_is_refused_as_a_league_config_would(bot, words):
    # the bounds a league config checks hold on the command line too: one line, exit 2, no game
    out = arena("match", bot, "uttt-random", "--game", "ultimate", "--games", "1")
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.strip().startswith(f"arena match: error: {words}"), out.stderr
    assert "game 1" not in out.stdout
