"""A ladder run as a user runs it: `arena run` on a config with schedule: ladder, real
workers and bots, a real SQLite store; stopped by each of its conditions, by SIGTERM and
by kill -9, resumed, with a bot that always crashes and a matchmaker from a plugin."""

import json
import math
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from statistics import NormalDist

import pytest
from test_league_failures import finish, kill_ours, run_env, start_run
from test_league_run import GATED_MOVE_MS, arena, count, gated, open_gate, wait_for_games

from arena.league import Store, render
from arena.league.config import RatingConfig
from arena.league.ladder import separated
from arena.league.matchmakers import BotStanding
from arena.league.rating_systems import RatedGame, TrueSkill, TrueSkillEP
from arena.league.rating_systems import skill_los as los
from arena.publish.data import LeagueReader, load_league
from arena.stats.trueskill_ep import fit_skills

RANDOMS = [("r1", "uttt-random"), ("r2", "random"), ("r3", "uttt-random"), ("r4", "random")]

#: an arena-protocol bot that starts (its handshake passes the preflight) and crashes at
#: its first move
CRASHER = """\
import sys
for line in sys.stdin:
    if line.startswith("arena"):
        print("ready", flush=True)
    elif line.startswith("turn"):
        sys.exit(3)
"""

#: the same bot, mended: a random legal move
MENDED = """\
import random, sys
for line in sys.stdin:
    words = line.split()
    if words and words[0] == "arena":
        print("ready", flush=True)
    elif words and words[0] == "turn":
        print(random.choice(words[4].split(",")), flush=True)
    elif words and words[0] == "quit":
        break
"""


def write_ladder(path: Path, bots, ladder: str, workers: int = 2, move_ms: int = 2000,
                 extra: str = "") -> Path:
    """A ladder config; a bot given as (name, "python3 ...") is a command bot."""
    lines = [f"name: {path.stem}", "game: ultimate", "bots:"]
    lines += [f"  - {{name: {name}, {'command' if bot.startswith('python3 ') else 'bot'}: {bot}}}"
              for name, bot in bots]
    lines += ["schedule: ladder", f"ladder: {ladder}", f"workers: {workers}", "seed: 7",
              f"time_control: {{move_ms: {move_ms}, startup_ms: 10000}}",
              f"store: {path.stem}.sqlite"]
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def keys(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [key for (key,) in conn.execute("SELECT fixture_key FROM games ORDER BY id")]


def bot_file(tmp_path: Path, name: str, text: str) -> str:
    folder = tmp_path / "bots" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(text)
    return f"python3 bots/{name}/{name}.py"


def test_a_ladder_stops_at_its_games_with_exactly_that_many_stored_and_resumes(tmp_path):
    config = write_ladder(tmp_path / "count.yaml", RANDOMS, "{games: 41, min_games: 4}")
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 0, out.stderr
    db = tmp_path / "count.sqlite"
    first = keys(db)
    assert len(first) == 41 == len(set(first))      # an odd limit: the last pair is cut
    assert out.stderr.strip().splitlines()[-1].startswith("finished (games: 41 stored): 41 games")
    assert "r1" in out.stdout        # the leaderboard follows, as a league's
    # every key is the league's a|b|k|swap, with a and b sorted, and a pair shares its seed
    with sqlite3.connect(db) as conn:
        seeds = dict(conn.execute("SELECT fixture_key, seed FROM games"))
    for key in first:
        a, b, _k, swap = key.split("|")
        assert a < b and swap in "01"
        partner = f"{a}|{b}|{_k}|{1 - int(swap)}"
        assert seeds.get(partner, seeds[key]) == seeds[key]
    again = arena("run", str(config), "--standings", "0")    # the condition holds: nothing to play
    assert again.returncode == 0 and "0 games played" in again.stderr
    config.write_text(config.read_text().replace("games: 41", "games: 60"))
    more = arena("run", str(config), "--standings", "0")
    assert more.returncode == 0, more.stderr
    after = keys(db)
    assert after[:41] == first and len(after) == 60 == len(set(after))
    # the pair the limit cut is played whole first: no pair is left with one game
    pairs = {key.rsplit("|", 1)[0] for key in after}
    whole = ({key.rsplit("|", 1)[0] for key in after if key.endswith("|0")}
             & {key.rsplit("|", 1)[0] for key in after if key.endswith("|1")})
    assert pairs == whole, pairs - whole


def test_kill_9_then_resume_stores_exactly_the_games_asked_without_a_duplicate(tmp_path):
    # the gate bot waits at its first move until the gate opens: a game of it is always in
    # play, so the run cannot end before the kill, however fast or loaded the machine
    config = write_ladder(tmp_path / "kill.yaml", RANDOMS + [gated(tmp_path, free=0)],
                          "{games: 30}", move_ms=GATED_MOVE_MS)
    db = tmp_path / "kill.sqlite"
    with open(tmp_path / "stderr", "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config)],
                                stdout=subprocess.DEVNULL, stderr=err, env=run_env(tmp_path),
                                start_new_session=True)
    try:
        wait_for_games(db, 2)    # the other worker plays on while one waits at the gate
        os.killpg(proc.pid, signal.SIGKILL)     # the run and its workers, at once
        proc.wait()
    finally:
        proc.kill()
        kill_ours(tmp_path)
    before = keys(db)
    assert 2 <= len(before) < 30
    open_gate(tmp_path)
    out = arena("run", str(config), "--standings", "0", env=run_env(tmp_path))
    assert out.returncode == 0, out.stderr
    after = keys(db)
    assert after[:len(before)] == before
    assert len(after) == 30 == len(set(after)), after
    assert "finished (games: 30 stored)" in out.stderr


def test_sigterm_stops_with_130_and_the_next_run_resumes(tmp_path):
    config = write_ladder(tmp_path / "term.yaml", RANDOMS + [gated(tmp_path, free=0)],
                          "{games: 24}", move_ms=GATED_MOVE_MS)
    db = tmp_path / "term.sqlite"
    proc = start_run(config, tmp_path, "--standings", "0")
    try:
        wait_for_games(db, 2)
        os.kill(proc.pid, signal.SIGTERM)
        err = finish(proc, tmp_path)
    finally:
        proc.kill()
        kill_ours(tmp_path)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("stopped:") and "Traceback" not in err
    before = keys(db)
    open_gate(tmp_path)
    out = arena("run", str(config), "--standings", "0", env=run_env(tmp_path))
    assert out.returncode == 0, out.stderr
    after = keys(db)
    assert after[:len(before)] == before and len(after) == 24 == len(set(after))


def test_hours_stops_the_run_and_says_so(tmp_path):
    config = write_ladder(tmp_path / "hours.yaml", RANDOMS[:3], "{hours: 0.0003}", workers=1)
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 0, out.stderr
    found = re.search(r"^finished \(hours: 0.0003 reached\): (\d+) games? played", out.stderr, re.M)
    assert found, out.stderr
    assert count(tmp_path / "hours.sqlite") == int(found.group(1))   # the games in play end


def test_until_stops_once_the_top_are_separated(tmp_path):
    # a bot that crashes at its first move loses every game (never suspended: share 1),
    # so the two are told apart long before the guard of 400 games
    crasher = bot_file(tmp_path, "crash", CRASHER)
    config = write_ladder(tmp_path / "until.yaml", [("r1", "uttt-random"), ("c", crasher)],
                          "{games: 400, until: {separated: 0.95, top: 2}, suspend: {share: 1}}",
                          workers=1)
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 0, out.stderr
    assert "finished (until: the top 2 separated at 0.95)" in out.stderr
    stored = count(tmp_path / "until.sqlite")
    assert 2 <= stored < 400


def test_a_ladder_rated_by_trueskill_ep_stops_when_its_table_says_separated(tmp_path):
    # one model for the table and the stop: the crasher loses every game; TrueSkill online
    # puts the two at LOS 0.98 after 5 games, the fit of all games after 7. A ladder rated
    # by trueskill-ep stops on the fit its leaderboard shows: at 8 games (its pair
    # complete), where the table's own LOS is 0.984 and was 0.974 before that pair
    crasher = bot_file(tmp_path, "crash", CRASHER)
    config = write_ladder(tmp_path / "ep.yaml", [("r1", "uttt-random"), ("c", crasher)],
                          "{games: 400, until: {separated: 0.98, top: 2}, suspend: {share: 1}}",
                          workers=1, extra="rating: {system: trueskill-ep}\n")
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 0, out.stderr
    assert "finished (until: the top 2 separated at 0.98)" in out.stderr
    board = arena("leaderboard", str(config), "--format", "json")
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)["rows"]
    assert [row["bot"] for row in rows] == ["r1", "c"]
    assert los(rows[0]["mu"], rows[0]["sigma"], rows[1]["mu"], rows[1]["sigma"]) >= 0.98
    with Store(tmp_path / "ep.sqlite", readonly=True) as store:
        games = [(s.record.bots[0].name, s.record.bots[1].name, s.record.outcome.points(True)[0])
                 for s in store.records()]
    fit = fit_skills(games)        # the table is the fit of the stored games
    for row in rows:
        assert (row["mu"], row["sigma"]) == pytest.approx(fit[row["bot"]], abs=0.01)
    before = fit_skills(games[:-2])    # and the ladder did not play on once it held
    assert los(*before["r1"], *before["c"]) < 0.98


def test_trueskill_ep_rates_the_same_whatever_the_order_of_the_games():
    # online TrueSkill reads a game by the ratings of the moment: the same results in
    # another order rate otherwise; the fit of all games at once does not
    settings = RatingConfig()
    games = [RatedGame(f"g{i}", bots, points) for i, (bots, points) in enumerate(
        [(("a", "b"), (1.0, 0.0))] * 6 + [(("b", "c"), (1.0, 0.0))] * 6
        + [(("a", "c"), (0.5, 0.5))] * 2 + [(("c", "a"), (1.0, 0.0))])]
    backwards = games[::-1]

    def final(system, order):
        return {bot: path[-1].figures[:2] for bot, path in system.rate(order, settings).items()}
    online, online_backwards = final(TrueSkill(), games), final(TrueSkill(), backwards)
    assert abs(online["a"][0] - online_backwards["a"][0]) > 0.5
    fitted, fitted_backwards = final(TrueSkillEP(), games), final(TrueSkillEP(), backwards)
    for bot in "abc":
        assert fitted[bot] == pytest.approx(fitted_backwards[bot], abs=0.01)
    assert fitted["a"][0] > fitted["b"][0] > fitted["c"][0]
    # every game's rating along the way, as the leaderboard's charts read them
    assert [len(path) for path in TrueSkillEP().rate(games, settings).values()] == [9, 12, 9]


def test_a_crashing_version_is_suspended_and_a_new_version_plays_again(tmp_path):
    crasher = bot_file(tmp_path, "crash", CRASHER)
    config = write_ladder(tmp_path / "susp.yaml", RANDOMS[:2] + [("c", crasher)],
                          "{games: 40, suspend: {share: 0.5, after: 4}}", workers=1)
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 0, out.stderr
    assert re.search(r"^c v1: suspended, faulted in 4 of 4 games \(4 crash", out.stderr, re.M), \
        out.stderr
    db = tmp_path / "susp.sqlite"
    # arena serve's standings: a reader kept open, reading on as the store grows, reads each
    # time what a reading of the whole store reads (through a new version too, below)
    reader = LeagueReader(Store(db, readonly=True))
    assert site_facts(reader.read()) == site_facts(whole(db))
    with sqlite3.connect(db) as conn:
        suspended = conn.execute("SELECT bot, version, reason FROM suspended").fetchall()
        played = conn.execute("SELECT count(*) FROM games WHERE seat0 = 'c' OR seat1 = 'c'"
                              ).fetchone()[0]
    assert [(bot, version) for bot, version, _ in suspended] == [("c", 1)]
    assert played <= 5        # the 4th may be a pair's first game: its partner is played
    assert count(db) == 40    # the others play on
    # a run again: still suspended, and said
    config.write_text(config.read_text().replace("games: 40", "games: 50"))
    again = arena("run", str(config), "--standings", "0")
    assert again.returncode == 0 and "c v1: suspended" in again.stderr
    assert site_facts(reader.read()) == site_facts(whole(db))
    # mended: version 2 plays
    (tmp_path / "bots" / "crash" / "crash.py").write_text(MENDED)
    config.write_text(config.read_text().replace("games: 50", "games: 70"))
    mended = arena("run", str(config), "--standings", "0")
    assert mended.returncode == 0, mended.stderr
    with sqlite3.connect(db) as conn:
        v2 = conn.execute("SELECT count(*) FROM games WHERE (seat0 = 'c' AND v0 = 2)"
                          " OR (seat1 = 'c' AND v1 = 2)").fetchone()[0]
        suspended = conn.execute("SELECT bot, version FROM suspended").fetchall()
    assert v2 >= 10 and suspended == [("c", 1)]   # a newcomer: seated first
    facts = site_facts(reader.read())
    assert facts == site_facts(whole(db)) and len(facts[5]) == 70 - played


def whole(db: Path):
    with Store(db, readonly=True) as store:
        return load_league(store)


def site_facts(data) -> tuple:
    """What the site shows of a LeagueData: the standings, each bot's rating path, results
    by opponent and faults, the games and their versions, each version's games."""
    return (render(data.board, "json"), data.history,
            {bot: {other: vars(vs) for other, vs in versus.items()} for bot, versus in data.versus.items()},
            {bot: [fault.to_json() for fault in faults] for bot, faults in data.faults.items()},
            [bot.slug for bot in data.bots], [game.key for game in data.games], data.played, data.of_bot,
            sorted((v.bot, v.version, v.games) for versions in data.versions.values() for v in versions))


def test_a_stricter_suspend_takes_effect_when_the_ladder_starts(tmp_path):
    crasher = bot_file(tmp_path, "crash", CRASHER)
    config = write_ladder(tmp_path / "strict.yaml", RANDOMS[:2] + [("c", crasher)],
                          "{games: 12, min_games: 20, suspend: {share: 1}}", workers=1)
    assert arena("run", str(config), "--standings", "0").returncode == 0
    db = tmp_path / "strict.sqlite"
    crashed = games_of(db, "c")
    assert crashed >= 4
    config.write_text(config.read_text().replace("{share: 1}", "{share: 0.5, after: 4}")
                      .replace("games: 12", "games: 24"))
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 0, out.stderr
    assert out.stderr.count(f"c v1: suspended, faulted in {crashed} of {crashed} games") == 1
    assert games_of(db, "c") == crashed and count(db) == 24


PLUGIN = """\
from arena.hooks import hookimpl
from arena.league.matchmakers import Pairing


class FirstTwo:
    \"\"\"Always the two playable bots first by name.\"\"\"

    def pairings(self, standings, count, rng):
        names = sorted(bot.name for bot in standings.playable())
        return [Pairing(names[1], names[0])] * count if len(names) > 1 and count > 0 else []


@hookimpl
def arena_register_matchmakers(registry):
    registry.add("first-two", FirstTwo)
"""


def plugin_env(tmp_path: Path, module: str, text: str) -> dict[str, str]:
    """The environment of a run with a plugin package installed: module (its source
    text) declared as an entry point of a distribution on PYTHONPATH."""
    root = tmp_path / "plugin"
    root.mkdir(exist_ok=True)
    (root / f"{module}.py").write_text(text)
    dist = root / f"{module}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\n"
                                   "Version: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[arena]\n{module} = {module}\n")
    paths = [str(root), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path for path in paths if path)}


def test_a_matchmaker_from_a_plugin_package_plays_a_ladder(tmp_path):
    env = plugin_env(tmp_path, "arena_first_two", PLUGIN)
    config = write_ladder(tmp_path / "plug.yaml", RANDOMS[:3],
                          "{matchmaker: first-two, games: 6}", workers=1)
    out = arena("run", str(config), "--standings", "0", env=env)
    assert out.returncode == 0, out.stderr
    assert "matchmaker first-two" in out.stderr
    assert keys(tmp_path / "plug.sqlite") == [f"r1|r2|{k}|{swap}" for k in range(3)
                                              for swap in (1, 0)]   # r2 first, as asked
    without = arena("run", str(config))    # without the package: one line, nothing run
    assert without.returncode == 2
    assert "unknown matchmaker 'first-two'" in without.stderr
    assert len(without.stderr.strip().splitlines()) == 1


BROKEN = """\
from arena.hooks import hookimpl


class Boom:
    def pairings(self, standings, count, rng):
        return 1 / 0


class Junk:
    def pairings(self, standings, count, rng):
        return [("r1", "r1"), ("r1", "nobody"), "r1r2", (["r1"], ["r2"])]


@hookimpl
def arena_register_matchmakers(registry):
    registry.add("boom", Boom)
    registry.add("junk", Junk)
"""


def test_a_plugin_matchmaker_that_fails_or_answers_junk_is_one_line(tmp_path):
    env = plugin_env(tmp_path, "arena_broken", BROKEN)
    config = write_ladder(tmp_path / "boom.yaml", RANDOMS[:3], "{matchmaker: boom, games: 6}")
    out = arena("run", str(config), env=env)
    assert out.returncode == 1, out.stderr
    assert "arena run: error: matchmaker 'boom' failed: ZeroDivisionError: division by zero" \
        in out.stderr and "Traceback" not in out.stderr
    config = write_ladder(tmp_path / "junk.yaml", RANDOMS[:3], "{matchmaker: junk, games: 6}")
    out = arena("run", str(config), env=env)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert ("finished (matchmaker 'junk' chose no pairing of two bots that can play, among 3)"
            in out.stderr)
    assert count(tmp_path / "junk.sqlite") == 0


def test_los_and_separation_read_the_posteriors():
    assert los(30, 1, 25, 1) == pytest.approx(NormalDist().cdf(5 / math.sqrt(2)))   # no beta
    assert los(25, 1, 30, 1) == pytest.approx(1 - los(30, 1, 25, 1))
    bots = [BotStanding("a", 40, 1), BotStanding("b", 30, 1), BotStanding("c", 29.9, 1)]
    assert separated(bots, 2, 0.95) and not separated(bots, 3, 0.95)
    assert not separated(bots[:1], None, 0.95)


def test_a_bot_in_play_counts_its_games_in_play_for_the_matchmaker(tmp_path):
    # the newcomer with fewest games is seated first: a bot whose only game is still in
    # play (slow, or waiting) must not look like one with none, or every free worker is
    # handed a game of it while the first has not ended
    from arena.games.registry import default_registry
    from arena.league import Store, config_from_dict
    from arena.league.ladder import LadderSource
    from arena.league.matchmakers.active import Active
    from arena.openings import NONE
    from arena.referee import BotSpec
    config = config_from_dict({"name": "busy", "game": "ultimate", "schedule": "ladder",
                               "bots": [{"name": n, "bot": "random"} for n in "abcde"],
                               "store": str(tmp_path / "busy.sqlite")})
    with Store(config.store) as store:
        source = LadderSource(config, store, Active(), dict.fromkeys("abcde", 1),
                              {n: BotSpec(name=n, argv=("x",)) for n in "abcde"},
                              default_registry().create("ultimate"), NONE)
        piece = source.take(2, 1)
        assert piece and len(piece) == 2 and source.in_flight == 2
        games = {bot.name: bot.games for bot in source.standings().bots}
        assert sorted(games.values()) == [0, 0, 0, 2, 2]
        assert games[piece[0].seat0] == games[piece[0].seat1] == 2


def games_of(db: Path, bot: str, version: int | None = None) -> int:
    """Stored games of a bot (of one version)."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT count(*) FROM games WHERE (seat0 = ?1 AND (?2 IS NULL OR v0 = ?2))"
            " OR (seat1 = ?1 AND (?2 IS NULL OR v1 = ?2))", (bot, version)).fetchone()[0]


def saved_a_while_ago(path: Path) -> Path:
    """path, its mtime a minute back, as a file is some seconds after its save: a running
    ladder takes a change once its files have been still for RACY_SECONDS (2 s, waited out
    once per change here otherwise; tests/test_league_membership.py checks that wait)."""
    past = time.time() - 60
    os.utime(path, (past, past))
    return path


def said(tmp_path: Path, text: str) -> bool:
    return text in (tmp_path / "stderr").read_text()


#: games a worker may have in play when a change is taken (a pair each, 2 workers)
IN_PLAY = 4


def test_bots_join_change_and_leave_a_running_ladder(tmp_path):
    from test_league_failures import wait_until
    mine = bot_file(tmp_path, "mine", MENDED)
    dead = bot_file(tmp_path, "dead", "import sys\nsys.exit(1)\n")
    bots = [("r1", "uttt-random"), ("r2", "random"), ("m", mine)]
    config = write_ladder(tmp_path / "live.yaml", bots, "{min_games: 4}")
    db = tmp_path / "live.sqlite"
    proc = start_run(config, tmp_path, "--standings", "0")
    # the ladder looks at its config, files and store every WATCH_EVERY_S (2 s): the changes
    # come in two batches, each taken at one look (or the next), not one look each
    try:
        wait_for_games(db, 4)
        # added: joins at once, said; changed: the new version plays, the old one stops
        (tmp_path / "bots" / "mine" / "mine.py").write_text(MENDED + "# mended again\n")
        saved_a_while_ago(tmp_path / "bots" / "mine" / "mine.py")
        config = saved_a_while_ago(write_ladder(config, bots + [("n", "random")], "{min_games: 4}"))
        assert wait_until(lambda: games_of(db, "n") >= 2), (tmp_path / "stderr").read_text()
        assert said(tmp_path, "n: joins the ladder")
        assert wait_until(lambda: games_of(db, "m", 2) >= 2), (tmp_path / "stderr").read_text()
        assert said(tmp_path, "m: ") and said(tmp_path, "(now v2, ")
        old = games_of(db, "m", 1)
        # retired with arena retire while it runs: stops; removed: stops; a bot that cannot
        # start is said and does not join
        retire = arena("retire", str(db), "r1")
        assert retire.returncode == 0, retire.stderr
        saved_a_while_ago(write_ladder(config, [bots[0], bots[2], ("n", "random"), ("d", dead)],
                                       "{min_games: 4}"))
        assert wait_until(lambda: said(tmp_path, "r2: removed from the config, plays no more"))
        gone = games_of(db, "r2")
        assert wait_until(lambda: said(tmp_path, "r1: retired, plays no more"))
        retired = games_of(db, "r1")
        assert wait_until(lambda: said(tmp_path, "bot 'd' cannot start"))
        assert not said(tmp_path, "d: joins")
        played = count(db)
        wait_for_games(db, played + 20)
        os.kill(proc.pid, signal.SIGTERM)
        err = finish(proc, tmp_path)
    finally:
        proc.kill()
        kill_ours(tmp_path)
    assert proc.returncode == 130, err
    assert games_of(db, "m", 1) <= old + IN_PLAY
    assert games_of(db, "r2") <= gone + IN_PLAY
    assert games_of(db, "r1") <= retired + IN_PLAY
    assert games_of(db, "d") == 0
    assert "Traceback" not in err
    # the tables read the bots as they are now: the one that joined has its row, the one
    # removed has none (the store kept the config the run started with)
    board = arena("leaderboard", str(db), "--format", "json")
    assert board.returncode == 0, board.stderr
    rows = {row["bot"]: row for row in json.loads(board.stdout)["rows"]}
    assert "n" in rows and rows["n"]["games"] > 0
    assert "r2" not in rows


def test_a_version_suspended_while_it_runs_is_lifted_by_its_new_version(tmp_path):
    # the crasher is suspended mid-run; mended while the ladder still runs, its version 2
    # plays as a newcomer, and the suspension of version 1 stays in the store as history
    from test_league_failures import wait_until
    crasher = bot_file(tmp_path, "crash", CRASHER)
    config = write_ladder(tmp_path / "lift.yaml", RANDOMS[:2] + [("c", crasher)],
                          "{min_games: 6, suspend: {share: 0.5, after: 4}}", workers=1)
    db = tmp_path / "lift.sqlite"
    proc = start_run(config, tmp_path, "--standings", "0")
    try:
        assert wait_until(lambda: said(tmp_path, "c v1: suspended, faulted in")), \
            (tmp_path / "stderr").read_text()
        crashed = games_of(db, "c", 1)
        (tmp_path / "bots" / "crash" / "crash.py").write_text(MENDED)
        saved_a_while_ago(tmp_path / "bots" / "crash" / "crash.py")
        assert wait_until(lambda: games_of(db, "c", 2) >= 6), (tmp_path / "stderr").read_text()
        os.kill(proc.pid, signal.SIGTERM)
        err = finish(proc, tmp_path)
    finally:
        proc.kill()
        kill_ours(tmp_path)
    assert proc.returncode == 130, err
    assert "(now v2, " in err and "Traceback" not in err
    assert 4 <= crashed <= 5 and games_of(db, "c", 1) == crashed   # v1 played no more
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT bot, version FROM suspended").fetchall() == [("c", 1)]
        faults = conn.execute("SELECT count(*) FROM games WHERE termination != 'normal' AND "
                              "((seat0 = 'c' AND v0 = 2) OR (seat1 = 'c' AND v1 = 2))").fetchone()[0]
    assert faults == 0
    board = json.loads(arena("leaderboard", str(db), "--format", "json").stdout)
    row = next(row for row in board["rows"] if row["bot"] == "c")
    assert row["version"] == 2 and "suspended" not in row["marks"]


def test_a_ladder_left_with_one_bot_that_can_play_stops_and_says_why(tmp_path):
    # the fourth way a ladder ends: its crasher suspended, one bot is left to play
    crasher = bot_file(tmp_path, "crash", CRASHER)
    config = write_ladder(tmp_path / "alone.yaml", [("r1", "uttt-random"), ("c", crasher)],
                          "{suspend: {share: 0.5, after: 4}}", workers=1)
    out = arena("run", str(config), "--standings", "0")
    assert out.returncode == 0, out.stderr
    assert "c v1: suspended, faulted in 4 of 4 games (4 crash)" in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("finished (fewer than 2 bots can play): 4 games played"), last
    assert count(tmp_path / "alone.sqlite") == 4
