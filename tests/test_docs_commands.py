"""Every command in the code blocks of README.md, CONTRIBUTING.md and docs/*.md runs as written (issue 34,
item 20: the README's `arena match first-bot last-bot ...` named no bots).

The commands are taken from the pages themselves: each ```sh block's lines (a trailing
backslash joins the next line, `# ...` is a comment) and each ```console block's `$ `
lines. Each one is run by bash in a workspace (a copy of tournaments/ and examples/, with
the files the pages assume a reader has: their own bots, a weights file), with `arena` on
the PATH, unless it is listed here:

- CHEAPER: run in a cheaper form (fewer games, a shorter think), and why;
- NOT_RUN: not run here, and why (it installs, serves, needs a cluster, or takes minutes;
  most are run by another test, named).

A command on a page that is in neither list and fails, a command in a list that is on no
page, or a block of commands without its `sh` tag fails this test: a page that changes
changes these lists with it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
VENV_BIN = Path(sys.executable).parent

INSTALL = "installs bot-arena into .venv (pip, apt-get): the suite's own set-up, which CI runs"
SERVER = "serves until stopped: tests/test_server_*.py start `arena serve` and submit to it"
RAY = "needs Ray and a cluster: tests/test_ray.py runs a league on a local Ray"
DESKTOP = "opens a browser on the desktop"
SUITE = "runs part of this test suite"
STATIC = "a static check of the repository's code: tests/test_static.py runs it"
QUICKSTART = ("plays the quickstart's 168 games (about half a minute); every shipped config is "
              "loaded by tests/test_league_config.py")

NOT_RUN: dict[str, str] = {
    # README.md
    "scripts/install.sh && .venv/bin/arena run tournaments/quickstart.yaml": f"{INSTALL}; {QUICKSTART}",
    "scripts/install.sh --test && .venv/bin/python -m pytest -q -n 2 --dist worksteal":
        f"{INSTALL}; {SUITE}: the whole of it",
    "scripts/install.sh && .venv/bin/arena serve tournaments/ladder-demo.yaml": f"{INSTALL}; {SERVER}",
    # CONTRIBUTING.md
    ".venv/bin/python -m pytest -q -x tests/test_league_run.py": SUITE,
    ".venv/bin/python -m pytest -q --durations 10 tests/test_league_run.py": SUITE,
    ".venv/bin/python -m pytest -q tests/test_static.py": SUITE,
    ".venv/bin/ruff check arena bots tests benchmarks examples": STATIC,
    ".venv/bin/mypy arena bots": STATIC,
    ".venv/bin/python benchmarks/engine.py --seconds 1": "a benchmark (a timing): never in the tests",
    ".venv/bin/python benchmarks/referee.py --rounds 3": "a benchmark of minutes",
    # docs/distributed.md
    "pip install 'bot-arena[ray]'": "installs Ray from the network",
    "ray start --head --port=6379 --num-cpus=8": RAY,
    "ray start --address=HEAD_IP:6379 --num-cpus=8": RAY,
    "arena run big.yaml": f"{RAY}; big.yaml is the page's cluster league",
    # docs/ladder.md
    "arena run tournaments/ladder-demo.yaml": "plays a ladder of 300 games (minutes); "
                                              "tests/test_league_ladder.py runs ladders",
    "python benchmarks/ladder_real.py --bots 12 --truth-games 40 --checkpoints 1,2,4,8,16,32 "
    "--ladders 5": "a benchmark of minutes",
    "python benchmarks/ladder_real.py": "a benchmark of an hour",
    # docs/openings.md: the shipped books' own commands, minutes each, and a benchmark
    **{f"arena openings {game} --plies {plies} --count {count} --seed 0 --simulations {sims} "
       f"--band {band} --out arena/books/{game}-{plies}ply.txt":
       "writes a shipped book (minutes); tests/test_openings.py checks every book against "
       "its header's command"
       for game, plies, count, sims, band in (("tictactoe", 2, 72, 10000, 0.5),
                                              ("ultimate", 4, 200, 10000, 0.05),
                                              ("meta", 4, 200, 2000, 0.05),
                                              ("nineboard", 4, 200, 2000, 0.05))},
    "nice -n 10 python benchmarks/openings_balance.py --games 300 --iterations 100 --starts book":
        "a benchmark of an hour",
    "nice -n 10 python benchmarks/openings_balance.py --games 300 --iterations 100 --starts empty":
        "a benchmark of an hour",
    # docs/plugins.md: the page's own plugins, which other tests build from the page
    "pip install ./arena-nim": "tests/test_plugin_nim.py builds arena-nim from the page and "
                               "runs these commands",
    "arena perft nim 8": "the page's nim plugin: tests/test_plugin_nim.py",
    "arena match nim-solver random --game nim --games 6 --seed 5 --save nim.jsonl":
        "the page's nim plugin: tests/test_plugin_nim.py",
    "arena replay nim.jsonl --game 2": "the page's nim plugin: tests/test_plugin_nim.py",
    "arena match nim-solver random --game nim --games 2 --store nim.sqlite":
        "the page's nim plugin: tests/test_plugin_nim.py",
    "arena publish nim.sqlite --out site": "the page's nim plugin: tests/test_plugin_nim.py",
    "arena leaderboard results/league.sqlite": "the page's seq-elo rating plugin: "
                                               "tests/test_league_plugins.py",
    "arena leaderboard results/league.sqlite --rating trueskill":
        "the page's seq-elo rating plugin: tests/test_league_plugins.py",
    "arena publish results/league.sqlite --out site --rating seq-elo":
        "the page's seq-elo rating plugin: tests/test_league_plugins.py",
    "arena leaderboard results/league.sqlite --format tsv > standings.tsv":
        "the page's tsv format plugin: tests/test_league_plugins.py",
    "arena legal tictactoe --moves 4,0": "the page's command plugin: tests/test_cli_commands.py",
    "arena legal tictactoe --moves 4,4": "the page's command plugin: tests/test_cli_commands.py",
    "echo $?": "the exit code of the command before it",
    "pip install examples/arena-hackerearth-dialect": "tests/test_plugin_dialect.py installs "
                                                      "it into a venv of its own",
    'arena match "hackerearth:python3 examples/arena-hackerearth-dialect/hackerearth_bot.py" '
    "random --game tictactoe --games 4": "needs the dialect plugin: tests/test_plugin_dialect.py",
    "pip install examples/arena-connect-four": "tests/test_plugin_connect_four.py installs it "
                                               "into a venv of its own",
    "arena perft connect-four 5": "needs the plugin: tests/test_plugin_connect_four.py",
    "arena match c4-search c4-random --game connect-four --games 4":
        "needs the plugin: tests/test_plugin_connect_four.py",
    "arena run league.yaml": "the plugin's league: tests/test_plugin_connect_four.py",
    "arena publish results/league.sqlite --out site": "the plugin's league: "
                                                      "tests/test_plugin_connect_four.py",
    "python -m pytest examples/arena-connect-four/tests": "the plugin's own tests: "
                                                          "tests/test_plugin_connect_four.py",
    # docs/publish.md
    "xdg-open site/index.html": DESKTOP,
    "arena run tournaments/tron-duel.yaml": "builds the C++ bot and plays 24 games of 30x20 "
                                            "tron (half a minute); tests/test_publish_tron.py runs "
                                            "a league of the C++ example",
    "xdg-open results/tron-duel-site/replay.html": DESKTOP,
    "python -m pytest -q tests/test_publish.py tests/test_publish_scale.py "
    "tests/test_publish_browser.py tests/test_publish_tron.py tests/test_publish_templates.py": SUITE,
    # docs/server.md
    ".venv/bin/arena users tournaments/ladder-demo.yaml add alice": SERVER,
    '.venv/bin/arena submit http://127.0.0.1:8000 bot.py --name mybot --command "python3 bot.py" '
    "--token TOKEN --wait": SERVER,
    "arena submit URL --token T --name BOT PATH --command CMD [--dialect D] [--build B] [--wait]":
        "a synopsis, its words placeholders",
    "arena submit URL --token T --name BOT --wheel FILE.whl [--wait]":
        "a synopsis, its words placeholders",
    ".venv/bin/python benchmarks/server.py": "a benchmark of about 8 minutes",
    # docs/referees.md
    "arena run tournaments/referee-java.yaml": "builds the Java referee with javac and plays 12 "
                                               "games, a JVM each; tests/test_league_referees.py "
                                               "runs it with 6",
    "python benchmarks/referees.py": "a benchmark of about a minute",
    **{command: "plays other people's referee and bots, cloned as the config's comment says "
                "(minutes); without the clones tests/test_league_config.py checks it stops in "
                "one line"
       for command in (
           "arena run tournaments/csb-public.yaml", "arena run tournaments/csb-public-ladder.yaml",
           "arena run tournaments/tron-public-referee.yaml",
           "arena match ./public-bots/csb-snuskasaurus/gold \"/usr/bin/python3 "
           "public-bots/csb-sajus/final_submission.py\" --game tournaments/csb-public.yaml "
           "--games 4 --name A=snuskasaurus --name B=sajus",
           "arena replay tournaments/csb-public.yaml --game 1",
           "arena publish tournaments/csb-public.yaml --out site")},
    # run as written, and its figure checked, by another test
    "arena perft ultimate 6": "tests/test_cli_games.py::test_perft_prints_the_count_last runs "
                              "it and checks the page's 4020960",
}

#: each run in a cheaper form: the command run instead, and why
CHEAPER: dict[str, tuple[str, str]] = {
    "arena match mcts:time_ms=100 uttt-minimax --game ultimate --games 4":
        ("arena match mcts:time_ms=1 uttt-minimax --game ultimate --games 2",
         "mcts at 1 ms a move, 2 games"),
    "arena match arena:./mybot mcts --game ultimate --read ~/models/net.bin":
        ("arena match arena:./mybot mcts:time_ms=1 --game ultimate --read ~/models/net.bin",
         "mcts at 1 ms a move, not half of the referee's second"),
    "arena match uttt-minimax-pruning uttt-expectimax --game ultimate --games 20 --openings random:4":
        ("arena match uttt-minimax-pruning uttt-expectimax --game ultimate --games 2 "
         "--openings random:4", "2 games"),
    "arena match mcts uttt-random --game ultimate --sprt elo0=0,elo1=100 --concurrency 2":
        ("arena match mcts:time_ms=1 uttt-random --game ultimate --sprt elo0=0,elo1=100 "
         "--concurrency 2 --games 2", "mcts at 1 ms a move, capped at 2 games"),
    "arena match mcts:time_ms=50 mcts --game ultimate --name A=new --name B=old "
    "--sprt elo0=0,elo1=10 --store new-vs-old.sqlite":
        ("arena match mcts:time_ms=2 mcts:time_ms=1 --game ultimate --name A=new --name B=old "
         "--sprt elo0=0,elo1=10 --store new-vs-old.sqlite --games 2",
         "mcts at 2 and 1 ms a move, capped at 2 games"),
    "arena openings ultimate --plies 4 --count 200 --out book.txt":
        ("arena openings ultimate --plies 4 --count 2 --simulations 50 --out book.txt",
         "2 openings judged by 50 simulations"),
    "arena train meta --games 20 --seed 1 --out meta.json":
        ("arena train meta --games 1 --seed 1 --out meta.json", "1 training game"),
    "arena match arena:examples/lookahead_bot.py uttt-random --game ultimate --games 4":
        ("arena match arena:examples/lookahead_bot.py uttt-random --game ultimate --games 2",
         "2 games"),
}

#: what a page says a command prints
EXPECT: dict[str, str] = {
    "printf 'arena 1 tictactoe 0 7\\nturn 1000 0 4 2,5,6,7,8 xx.oo.... x\\nquit\\n' | "
    ".venv/bin/python examples/lookahead_bot.py": "ready\n2\n",
}

#: the files commands share, each making one chain of commands run in turn (the others run
#: two at a time): those that write a file come first, what the workspace prepares before them
CHAINS = (r"my-league|quickstart|--out site", r"games\.jsonl", r"meta\.json", r"tron\.jsonl",
          r"referee-tictactoe\.yaml", r"ttt\.yaml")
PREPARE = {
    # the quickstart's store (the README's first command) of the two bots a README line names
    "quickstart": "arena run tournaments/quickstart-two.yaml",
    r"games\.jsonl": "arena match uttt-random random --game ultimate --games 2 --save games.jsonl",
}
FIRST = ("arena train meta --games 20 --seed 1 --out meta.json",
         "arena match tron-random tron-territory --game tron --games 2 --save tron.jsonl",
         "arena run tournaments/referee-tictactoe.yaml",
         "printf 'name: tictactoe-ref\\nreferee: python3 examples/referee-tictactoe/referee/referee.py"
         "\\nplayers: 2\\n' > ttt.yaml")

#: the first word of a line that is a command (a block of them needs its `sh` tag)
COMMAND_WORDS = ("arena", "python", "python3", "pip", "ray", "nice", "printf")
COMMAND_PATHS = (".venv/bin/", "scripts/", "benchmarks/")


@dataclass(frozen=True)
class DocCommand:
    text: str    #: as the page writes it, joined onto one line, spaces collapsed
    where: str   #: page:line


def doc_commands(page: Path) -> tuple[list[DocCommand], list[str]]:
    """The commands of a page's sh and console blocks, and the places of untagged blocks
    that hold commands."""
    commands, untagged = [], []
    lines = page.read_text().splitlines()
    name = page.relative_to(ROOT)
    i = 0
    while i < len(lines):
        fence = re.match(r"\s*```(\S*)\s*$", lines[i])
        if fence is None:
            i += 1
            continue
        tag, start = fence[1], i + 1
        end = next(j for j in range(start, len(lines)) if re.match(r"\s*```\s*$", lines[j]))
        body = lines[start:end]
        i = end + 1
        words = body[0].split() if body else []
        if tag == "" and words and (words[0] in COMMAND_WORDS or words[0].startswith(COMMAND_PATHS)):
            untagged.append(f"{name}:{start}")
        if tag not in ("sh", "console"):
            continue
        text, first = "", None
        for number, line in enumerate(body, start + 1):
            if tag == "console":
                if not text and not line.startswith("$ "):
                    continue             # output
                line = line.removeprefix("$ ") if not text else line
            line = re.sub(r"(^|\s+)#\s.*$", "", line).rstrip()    # a comment
            if not line.strip() and not text:
                continue
            first = first or number
            if line.endswith("\\"):
                text += line[:-1] + " "
                continue
            text += line
            commands.append(DocCommand(" ".join(text.split()), f"{name}:{first}"))
            text, first = "", None
    return commands, untagged


def every_command() -> tuple[list[DocCommand], list[str]]:
    found, untagged = [], []
    for page in PAGES:
        commands, blocks = doc_commands(page)
        found += commands
        untagged += blocks
    return found, untagged


def workspace(root: Path) -> dict[str, str]:
    """What a reader of the pages has: the repository's tournaments and examples, their own
    bots and files; and the stores the pages' commands read, made by cheap runs."""
    for part in ("tournaments", "examples"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__", "bot"))
    (root / ".venv").symlink_to(VENV_BIN.parent)
    mine = root / "bots" / "mine"
    mine.mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "first_move_bot.py", mine / "my_bot.py")      # an SDK bot
    (root / "bots" / "cg").mkdir()
    shutil.copy(ROOT / "tests" / "fixture_bots" / "codingame_bot.py", root / "bots" / "cg" / "cg_bot")
    shutil.copy(ROOT / "tests" / "fixture_bots" / "codingame_bot.py", root / "bot.py")
    shutil.copy(ROOT / "examples" / "random_bot.sh", root / "mybot")             # a bash bot
    (root / "home" / "models").mkdir(parents=True)
    (root / "home" / "models" / "net.bin").write_bytes(b"\x00" * 64)             # a model file
    for path in (root, *root.rglob("*")):
        if path.is_dir() or os.access(path, os.X_OK):
            path.chmod(0o755)        # a command bot's directory is shown to its sandboxed user
    env = {**os.environ, "HOME": str(root / "home"),
           "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    # the README's league (its yaml block, as written) with 2 games a pairing and mcts at 1 ms
    readme = (ROOT / "README.md").read_text()
    league = re.search(r"```yaml\n(name: my-league\n.*?)```", readme, re.S)
    assert league is not None, "README.md has no my-league.yaml block"
    assert "games_per_pairing: 10" in league[1] and "time_ms: 100" in league[1], league[1]
    text = league[1].replace("games_per_pairing: 10", "games_per_pairing: 2")
    (root / "my-league.yaml").write_text(text.replace("time_ms: 100", "time_ms: 1"))
    # the quickstart's store (the README's first command), of the two bots a README line names
    quick = (root / "tournaments" / "quickstart.yaml").read_text()
    assert "games_per_pairing: 8" in quick, quick
    quick = re.sub(r"(bots:\n)(  - .*\n)+", "bots:\n  - {name: random, bot: uttt-random}\n"
                   "  - {name: mcts, bot: mcts, options: {time_ms: 1}}\n", quick)
    (root / "tournaments" / "quickstart-two.yaml").write_text(quick.replace("games_per_pairing: 8",
                                                                            "games_per_pairing: 2"))
    return env


LIMIT_S = 120   #: a hang guard: a command that needs longer belongs in NOT_RUN or CHEAPER


def run(command: str, root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """command run by bash in root; one that has not ended after LIMIT_S is killed, with
    every process it started, and fails."""
    process = subprocess.Popen(["bash", "-c", command], cwd=root, env=env, text=True,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = process.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        err += f"\n(killed: still running after {LIMIT_S} s; list it in NOT_RUN or CHEAPER)"
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def test_the_lists_name_only_commands_on_the_pages_and_every_block_is_tagged():
    found, untagged = every_command()
    assert untagged == [], f"blocks of commands without their sh tag: {untagged}"
    texts = {command.text for command in found}
    stale = [text for text in (*NOT_RUN, *CHEAPER, *EXPECT, *FIRST) if text not in texts]
    stale += [pattern for pattern in (*CHAINS, *PREPARE)
              if not any(re.search(pattern, CHEAPER.get(text, (text, ""))[0]) for text in texts)]
    assert stale == [], f"listed here but on no page (update the lists with the pages): {stale}"
    both = set(NOT_RUN) & set(CHEAPER)
    assert not both, both


def chains(texts: list[str]) -> list[list[str]]:
    """The commands in the order they run: one chain for the commands of each shared file,
    its writers first, and one of its own for every other command; the longest first."""
    shared: dict[str, list[str]] = {pattern: [] for pattern in CHAINS}
    alone = []
    for text in texts:
        ran = CHEAPER.get(text, (text, ""))[0]
        pattern = next((p for p in CHAINS if re.search(p, ran)), None)
        (shared[pattern] if pattern else alone).append(text)
    for group in shared.values():
        group.sort(key=lambda text: text not in FIRST)
    return sorted([group for group in shared.values() if group] + [[text] for text in alone],
                  key=len, reverse=True)


def test_every_command_on_the_pages_runs_as_written(tmp_path):
    # before: README.md's `arena match first-bot last-bot ...` ("unknown bot 'first-bot'"),
    # and docs/openings.md's benchmark `--only GAME`
    found, _ = every_command()
    env = workspace(tmp_path)
    where: dict[str, str] = {}
    for command in found:
        where.setdefault(command.text, command.where)
    texts = [text for text in where if text not in NOT_RUN]

    def play(chain: list[str]) -> list[str]:
        failed: list[str] = []
        steps = [(None, setup) for pattern, setup in PREPARE.items()
                 if any(re.search(pattern, CHEAPER.get(text, (text, ""))[0]) for text in chain)]
        for text, ran in steps + [(text, CHEAPER.get(text, (text, ""))[0]) for text in chain]:
            done = run(ran, tmp_path, env)
            said = f"{where[text]}: {text}\n  ran: {ran}" if text else f"preparing: {ran}"
            if done.returncode != 0 or "Traceback" in done.stderr:
                return failed + [f"{said}\n  exit {done.returncode}: {done.stderr.strip()[-600:]}"]
            if text in EXPECT and EXPECT[text] not in done.stdout:
                failed.append(f"{said}\n  printed {done.stdout[-600:]!r}, the page says "
                              f"{EXPECT[text]!r}")
        return failed

    with ThreadPoolExecutor(2) as pool:     # two at a time: the commands mostly wait on bots
        failed = [line for lines in pool.map(play, chains(texts)) for line in lines]
    assert not failed, "\n".join(failed)
