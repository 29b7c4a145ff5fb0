"""arena serve of a ladder whose game is played by a referee process (docs/referees.md,
docs/server.md): a real `arena serve` subprocess (its ladder, its worker, the sandbox, the
store), the real `arena submit`. A participant's bot is validated through the referee and
plays in the ladder; one that crashes under the referee is rejected with its fault; one
given a dialect is refused in one line; the live site serves the games' transcripts."""

from __future__ import annotations

import shutil

import httpx
import pytest

from tests.server import ROOT, add_users, arena
from tests.server.serving import LOOPBACK_SSL, Serving, poll

LADDER = """\
name: serve-referee
game: {name: tictactoe-ref, referee: python3 ttt/referee/referee.py, players: 2}
bots:
  - {name: first-free, command: python3 ttt/first-free/bot.py}
  - {name: random-1, command: python3 ttt/random/bot.py 1}
schedule: ladder
ladder: {matchmaker: active}   # no games limit: a ladder that stopped at N would never play a bot submitted late
time_control: {move_ms: 500, startup_ms: 5000}
workers: 1
store: store.sqlite
seed: 7
server:
  validate: {against: first-free, games: 2}
"""

@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve-referee")
    shutil.copytree(ROOT / "examples" / "referee-tictactoe", folder / "ttt")
    config = folder / "ladder.yaml"
    config.write_text(LADDER)
    tokens = add_users(config, ["alice"])
    serving = Serving(config)
    yield folder, serving, tokens["alice"]
    assert serving.stop() == 130, serving.stderr()


def submit(folder, serving, token, name, source, *more):
    (folder / f"{name}.py").write_text(source)
    return arena("submit", serving.url, str(folder / f"{name}.py"), "--token", token, "--name", name,
                 "--command", f"python3 {name}.py", *more, "--wait")


def test_a_submitted_bot_is_validated_through_the_referee_and_plays_in_the_ladder(served):
    # before: rejected, "unknown game 'tictactoe-ref' (did you mean 'tictactoe'?)"
    folder, serving, token = served
    bot = ROOT / "examples" / "referee-tictactoe" / "random" / "bot.py"
    done = submit(folder, serving, token, "mine", bot.read_text())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "accepted" in done.stdout and "2 validation games against first-free without a fault" in done.stdout

    def games_of_mine():
        rows = httpx.get(f"{serving.url}/api/leaderboard", verify=LOOPBACK_SSL, timeout=30).json()["rows"]
        return next((row["games"] for row in rows if row["bot"] == "mine"), 0)
    poll(lambda: games_of_mine() > 0, "mine to play in the ladder")
    transcript = httpx.get(f"{serving.url}/site/data/transcripts/1/1.js", verify=LOOPBACK_SSL, timeout=30)
    assert transcript.status_code == 200 and transcript.text.startswith('arenaData("transcripts/1/1",')
    assert '"-1 -1"' in transcript.text           # the referee's first line to seat 0


def test_a_bot_given_a_dialect_is_refused_in_one_line(served):
    # before: taken by the validation, whose games ignore a dialect, then refused by the
    # roster in a line naming the server's file ("/.../.ladder.serve.yaml:18: bots[3].dialect:
    # ..."); `--dialect codingame` was refused as "the codingame dialect plays tictactoe, ...,
    # not tictactoe-ref"
    folder, serving, token = served
    done = submit(folder, serving, token, "talker", "print('hi')\n", "--dialect", "arena")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == ("dialect: a game played by a referee process relays its referee's "
                                            "lines to the bots as they are: leave dialect out")
