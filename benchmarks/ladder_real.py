"""A ladder of real bots against a long round robin of the same bots, and a ladder that
takes bots added and edited while it runs, is stopped by SIGTERM and resumed.

  (a) the league: BOTS ultimate bots of graded strength (mcts with time_ms 0 and a cap of
      1, 2, 3, 4, ... iterations, and the reference agents at several depths), a fast
      time control, WORKERS workers;
  (b) the truth: a round robin of them, TRUTH_GAMES games a pairing, ranked by the Elo
      fit of all its games. It is stored once in results/ladder_real/ and reused by the
      next run with the same bots, games, time control and seed (delete it to play it
      again; an interrupted one is resumed);
  (c) LADDERS ladders of the same bots (matchmaker `active`, seeds SEED, SEED+1, ...,
      rated by RATING), stored beside the truth and reused as it is; at each checkpoint
      (CHECKPOINTS times the bot count, in games) Kendall's tau against the truth of each
      ladder's first n games beside that of the round robin stopped at n games (its first
      n in schedule order, and in LADDERS - 1 other orders: shuffled within each round),
      each ranked three ways: by TrueSkill mu rated in that order (the ladder's own
      ranking with the default rating), by the Elo fit of those n games and by TrueSkill
      fitted to all n at once (arena.stats.trueskill_ep: trueskill-ep's ranking);
  (d) live membership and resume: a second ladder (its own store, the same bots and a
      script bot of its own) is started; once it has played, 4 bots are added to its
      config, one bot's options and the script bot's file are edited; once the new bots
      and versions have played it is sent SIGTERM, then resumed to a game count. Checked
      and printed: games lost (seat-swapped pairs left with one game: at most one, cut by
      the resume's own games limit, since the resume finishes first the pairs the stop cut),
      fixtures stored twice for the same versions (0), games per
      version, and old-version games handed out after the new version's first (0).

Every run is `arena run` in a subprocess on a generated config; figures depend on the
machine's load (printed first). Run from the repo:

    .venv/bin/python benchmarks/ladder_real.py      # 32 bots: a truth of 9,920 games
    .venv/bin/python benchmarks/ladder_real.py --bots 12 --truth-games 40 --checkpoints 1,2,4,8,16,32 --ladders 5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matchmaking import kendall_tau  # noqa: E402  (the simulation's tau, one definition)

from arena.league import Store  # noqa: E402
from arena.league.config import RatingConfig  # noqa: E402
from arena.league.pairs import match_results  # noqa: E402
from arena.league.rating_systems import TrueSkill, rated_game  # noqa: E402
from arena.league.schedule import parse_fixture_key  # noqa: E402
from arena.league.store import StoredGame  # noqa: E402
from arena.stats import fit_elo  # noqa: E402
from arena.stats.trueskill_ep import fit_skills  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results" / "ladder_real"


def _mcts(iterations: int) -> dict[str, Any]:
    return {"name": f"mcts-{iterations}", "bot": "mcts",
            "options": {"time_ms": 0, "iterations": iterations}}


def _ref(name: str, bot: str, **options: Any) -> dict[str, Any]:
    return {"name": name, "bot": bot, **({"options": options} if options else {})}


#: the bots in the order --bots takes them: the first few already span the strengths
ROSTER: list[dict[str, Any]] = [
    _mcts(1), _ref("random", "uttt-random"), _mcts(16), _ref("minimax-2", "uttt-minimax-pruning", depth=2),
    _mcts(4), _ref("reflex", "uttt-reflex"), _mcts(64), _ref("expectimax-1", "uttt-expectimax", depth=1),
    _mcts(2), _ref("perceptron", "uttt-perceptron"), _mcts(8),
    _ref("advanced-perceptron", "uttt-advanced-perceptron"), _mcts(32),
    _ref("minimax-1", "uttt-minimax-pruning", depth=1), _mcts(128),
    _ref("expectimax-2", "uttt-expectimax", depth=2), _ref("minimax-3", "uttt-minimax-pruning", depth=3),
    _mcts(3), _mcts(6), _mcts(12), _mcts(24), _mcts(48), _mcts(96), _mcts(256),
    _ref("perceptron-published", "uttt-perceptron", emulate="published-code"),
    _ref("reflex-published", "uttt-reflex", emulate="published-code"),
    _ref("advanced-perceptron-published", "uttt-advanced-perceptron", emulate="published-code"),
    _ref("minimax-2-all", "uttt-minimax-pruning", depth=2, top=0),
    _ref("expectimax-1-all", "uttt-expectimax", depth=1, top=0),
    _ref("minimax-2-published", "uttt-minimax-pruning", depth=2, emulate="published-code"),
    _mcts(192), _mcts(384),
]

#: what the live ladder gains while it runs (names the roster does not use)
ADDED = [_mcts(5), _mcts(10), _mcts(20), _mcts(40)]

#: the live ladder's script bot, a uniformly random mover through the SDK
SCRIPT_BOT = '''\
from arena.sdk import run


class RandomMove:
    """A uniformly random legal move."""

    def __init__(self, game, rng, **options):
        self.rng = rng

    def choose(self, state, time_left_ms):
        return self.rng.choice(list(state.legal_moves()))


if __name__ == "__main__":
    raise SystemExit(run(RandomMove))
'''


def config(name: str, bots: Sequence[dict[str, Any]], store: Path, args: argparse.Namespace,
           **extra: Any) -> dict[str, Any]:
    """A league config of these bots at the benchmark's game, clock, workers and seed."""
    return {"name": name, "game": "ultimate", "bots": list(bots),
            "time_control": {"move_ms": args.move_ms, "startup_ms": 10000},
            "workers": args.workers, "store": str(store), "seed": args.seed, **extra}


def write(path: Path, data: dict[str, Any]) -> Path:
    """Write a config as YAML."""
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def arena_run(path: Path, log: Path, wait: bool = True) -> subprocess.Popen[bytes]:
    """`arena run` of a config in a subprocess, its output in log."""
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "arena", "run", "--standings", "0", str(path)],
                                stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
    if wait:
        proc.wait()
    return proc


def last_line(log: Path) -> str:
    """A run's closing line ('finished ...: N games played in S s; M stored in STORE'), the
    last in its output."""
    lines = [line.strip() for line in log.read_text(errors="replace").replace("\r", "\n").splitlines()
             if re.match(r"\s*(stopped|finished)\b.* stored in ", line)]
    return lines[-1] if lines else "(no closing line)"


def stored_games(path: Path) -> list[StoredGame]:
    """A store's games in the order its ratings read them (a league's in schedule order,
    a ladder's in the order played)."""
    with Store(path, readonly=True) as store:
        return list(store.records())


def reordered(games: Sequence[StoredGame], rng: random.Random) -> list[StoredGame]:
    """The round robin's games as another schedule seed would have ordered them: round by
    round (a round is one game of every pairing, round = 2 pair + swap), shuffled within."""
    rounds: dict[int, list[StoredGame]] = {}
    for game in games:
        parts = parse_fixture_key(game.key)
        assert parts is not None, game.key
        rounds.setdefault(2 * parts.pair + parts.swap, []).append(game)
    order: list[StoredGame] = []
    for number in sorted(rounds):
        rng.shuffle(rounds[number])
        order += rounds[number]
    return order


def ranking_trueskill(games: Sequence[StoredGame], bots: Sequence[str]) -> list[float]:
    """Each bot's TrueSkill mu after these games, rated in the order given (prior if none)."""
    settings = RatingConfig()
    rated = [g for g in (rated_game(s.key, s.record, settings.faults_count_as_losses) for s in games)
             if g is not None]
    paths = TrueSkill().rate(rated, settings)
    return [paths[bot][-1].figures[0] if paths.get(bot) else settings.mu for bot in bots]


def ranking_ep(games: Sequence[StoredGame], bots: Sequence[str]) -> list[float]:
    """Each bot's TrueSkill mu fitted to all these games at once (expectation propagation:
    the same whatever their order; prior mu for a bot without games)."""
    settings = RatingConfig()
    rated = [g for g in (rated_game(s.key, s.record, settings.faults_count_as_losses) for s in games)
             if g is not None]
    fit = fit_skills(((g.bots[0], g.bots[1], g.points[0]) for g in rated), settings.mu, settings.sigma,
                     settings.beta, settings.draw_probability)
    return [fit[bot][0] if bot in fit else settings.mu for bot in bots]


def ranking_elo(games: Sequence[StoredGame], bots: Sequence[str]) -> list[float]:
    """Each bot's Elo from the fit of these games (0, the mean, for a bot outside it)."""
    fit = fit_elo(match_results(games).values(), bots)
    return [fit.ratings.get(bot, 0.0) for bot in bots]


def _stem(args: argparse.Namespace, bots: list[dict[str, Any]]) -> str:
    """What names a stored run's bots: another roster is another run."""
    roster = hashlib.sha256(json.dumps(bots, sort_keys=True).encode()).hexdigest()[:8]
    return f"{len(bots)}bots-{roster}"


def truth(args: argparse.Namespace, bots: list[dict[str, Any]], names: list[str]
          ) -> tuple[list[StoredGame], list[float]]:
    """The round robin's games in schedule order and the truth: its Elo fit of them all."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    stem = f"truth-{_stem(args, bots)}-{args.truth_games}g-{args.move_ms}ms-seed{args.seed}"
    store = RESULTS / f"{stem}.sqlite"
    path = write(RESULTS / f"{stem}.yaml",
                 config(f"ladder-real-truth-{len(bots)}", bots, store, args,
                        games_per_pairing=args.truth_games))
    expected = args.truth_games * len(bots) * (len(bots) - 1) // 2
    reused = store.exists() and len(stored_games(store)) >= expected
    started = time.monotonic()
    if not reused:
        log = RESULTS / f"{stem}.log"
        print(f"(b) truth: playing a round robin of {expected} games into {store.relative_to(ROOT)} "
              "(kept: the next run reuses it) ...", flush=True)
        proc = arena_run(path, log)
        print(f"    {last_line(log)} (exit {proc.returncode})", flush=True)
        if proc.returncode != 0:
            raise SystemExit(f"the round robin did not finish: see {log}")
    games = stored_games(store)
    took = "reused" if reused else f"{time.monotonic() - started:.0f} s"
    elo = ranking_elo(games, names)
    print(f"(b) truth: {len(games)} round-robin games in {store.relative_to(ROOT)} ({took}), ranked by "
          "their Elo fit:", flush=True)
    order = sorted(range(len(names)), key=lambda i: -elo[i])
    print("    " + ", ".join(f"{names[i]} {elo[i]:+.0f}" for i in order), flush=True)
    return games, elo


def compare(args: argparse.Namespace, bots: list[dict[str, Any]], names: list[str],
            round_robin: list[StoredGame], elo: list[float], tmp: Path) -> None:
    """(c): the ladders' tau against the truth beside the round robin's at equal games."""
    checkpoints = [m * len(bots) for m in args.checkpoints]
    ladders = []
    for run in range(args.ladders):     # seeds differ: the ladders' spread shows
        # kept beside the truth (another ranking read is measured without playing again);
        # named by what it plays, so a changed roster, matchmaker or seed is another ladder
        rated = "" if args.rating == "trueskill" else f"-{args.rating}"
        stem = (f"ladder-{_stem(args, bots)}-{args.matchmaker}{rated}-{max(checkpoints)}g-{args.move_ms}ms-"
                f"seed{args.seed + run}")
        store = RESULTS / f"{stem}.sqlite"
        if store.exists() and len(stored_games(store)) >= max(checkpoints):
            print(f"(c) ladder {run + 1} ({args.matchmaker}, seed {args.seed + run}): reused "
                  f"{store.relative_to(ROOT)}", flush=True)
            ladders.append(stored_games(store))
            continue
        store.unlink(missing_ok=True)   # a ladder cut short: played again from the start
        path = write(RESULTS / f"{stem}.yaml", config(
            f"ladder-real-{len(bots)}", bots, store, args, schedule="ladder",
            ladder={"matchmaker": args.matchmaker, "games": max(checkpoints)}, seed=args.seed + run,
            rating={"system": args.rating}))
        log = tmp / f"ladder{run}.log"
        started = time.monotonic()
        proc = arena_run(path, log)
        print(f"(c) ladder {run + 1} ({args.matchmaker}, seed {args.seed + run}): {last_line(log)} "
              f"(exit {proc.returncode}, {time.monotonic() - started:.0f} s)", flush=True)
        ladders.append(stored_games(store))
    # the round robin as stored, and as other schedule seeds would have ordered its games
    schedules = [round_robin] + [reordered(round_robin, random.Random(args.seed + run))
                                 for run in range(1, args.ladders)]
    print("    Kendall tau against the truth at equal games n (the round robin stopped at n: its "
          f"first n games in schedule order, of {len(round_robin)}); ranked by TrueSkill mu "
          "rated in that order, by the Elo fit of the n games and by TrueSkill fitted to all n at once "
          "(EP)" +
          (f"; mean of {args.ladders} ladders and of the round robin in {args.ladders} orders "
           "(as stored, then shuffled within each round), lowest-highest" if args.ladders > 1 else ""))
    print("    games  per bot | ladder mu          round robin mu     | ladder Elo         round robin Elo"
          "    | ladder EP          round robin EP")
    for n in checkpoints:
        if any(n > len(ladder) for ladder in ladders) or n > len(round_robin):
            print(f"    {n:5d}  (fewer games stored: skipped)")
            continue
        cells = []
        for rank in (ranking_trueskill, ranking_elo, ranking_ep):
            for runs in (ladders, schedules):
                taus = [kendall_tau(elo, rank(games[:n], names)) for games in runs]
                spread = f" ({min(taus):.2f}-{max(taus):.2f})" if len(taus) > 1 else ""
                cells.append(f"{sum(taus) / len(taus):.3f}{spread:13s}")
        print(f"    {n:5d}  {2 * n / len(bots):7.1f} | {cells[0]}  {cells[1]}  | {cells[2]}  {cells[3]}  "
              f"| {cells[4]}  {cells[5]}", flush=True)


def _query(store: Path, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute(sql, params).fetchall()
    finally:
        db.close()


def _wait(what: str, check: Any, timeout: float, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if proc.poll() is not None:
            raise SystemExit(f"the live ladder ended (exit {proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            proc.send_signal(signal.SIGTERM)
            proc.wait()
            raise SystemExit(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(0.5)


def live(args: argparse.Namespace, bots: list[dict[str, Any]], tmp: Path) -> bool:
    """(d): bots added and edited while a ladder runs, SIGTERM, resume; True if every check holds."""
    home = tmp / "live"
    (home / "scripted").mkdir(parents=True)
    script = home / "scripted" / "bot.py"
    script.write_text(SCRIPT_BOT)
    store = home / "live.sqlite"
    members = [*bots, {"name": "scripted", "command": "python3 scripted/bot.py"}]
    edited_entry = bots[0]["name"]
    data = config("ladder-real-live", members, store, args, schedule="ladder",
                  ladder={"matchmaker": args.matchmaker})
    path = write(home / "live.yaml", data)
    log = home / "live.log"
    started = time.monotonic()
    proc = arena_run(path, log, wait=False)

    def count() -> int:
        return int(_query(store, "SELECT count(*) FROM games")[0][0]) if store.exists() else 0
    _wait(f"{len(members)} games", lambda: count() >= len(members), args.live_timeout, proc)
    before = count()
    # 4 bots added, one entry's options edited, the script bot's file edited: new versions
    entry = dict(data["bots"][0])
    entry["options"] = {**entry.get("options", {}), "c": 1.4}
    data["bots"] = [entry, *data["bots"][1:], *ADDED]
    write(path, data)
    with open(script, "a") as fh:
        fh.write("# edited: a new version\n")
    changed_at = time.monotonic()
    edited = [edited_entry, "scripted"]
    added = [bot["name"] for bot in ADDED]

    def played(name: str, version: int) -> int:
        return int(_query(store, "SELECT count(*) FROM games WHERE (seat0 = ? AND v0 = ?) OR "
                          "(seat1 = ? AND v1 = ?)", (name, version, name, version))[0][0])
    _wait("the new bots and versions to play",
          lambda: all(played(n, 1) >= 2 for n in added) and all(played(n, 2) >= 2 for n in edited),
          args.live_timeout, proc)
    taken = time.monotonic() - changed_at
    proc.send_signal(signal.SIGTERM)
    proc.wait()
    closing = last_line(log)
    at_stop = count()
    print(f"(d) live ladder: {before} games stored when 4 bots were added and {', '.join(edited)} "
          f"edited; the new ones had played twice each {taken:.0f} s later; SIGTERM: exit "
          f"{proc.returncode}, '{closing}'", flush=True)
    data["ladder"]["games"] = at_stop + args.resume_games
    write(path, data)
    resumed = arena_run(path, log)
    print(f"    resumed to {at_stop + args.resume_games} games: exit {resumed.returncode}, "
          f"'{last_line(log)}' ({time.monotonic() - started:.0f} s in all)", flush=True)
    return checks(store, edited, added, proc.returncode, resumed.returncode, closing, at_stop, args)


def checks(store: Path, edited: list[str], added: list[str], stopped: int, resumed: int,
           closing: str, at_stop: int, args: argparse.Namespace) -> bool:
    """Print the live ladder's checks; True if all hold."""
    total = _query(store, "SELECT count(*) FROM games")[0][0]
    twice = _query(store, "SELECT count(*) FROM (SELECT 1 FROM games GROUP BY fixture_key, v0, v1,"
                   " season HAVING count(*) > 1)")[0][0]
    # a seat-swapped pair shares its key but for the swap digit: pairs stored with one game
    halves: dict[tuple[Any, ...], int] = {}
    for key, v0, v1, seat0 in _query(store, "SELECT fixture_key, v0, v1, seat0 FROM games"):
        parts = parse_fixture_key(key)
        assert parts is not None, key
        versions = (v0, v1) if seat0 == parts.first else (v1, v0)
        pair = (f"{parts.first}|{parts.second}|{parts.pair}", *versions)
        halves[pair] = halves.get(pair, 0) + 1
    lone = sum(1 for n in halves.values() if n == 1)
    said = closing.split(";")[-1].split()
    stored_said = int(said[0]) if said and said[0].isdigit() else -1
    ok = stopped == 130 and resumed == 0 and twice == 0 and lone <= 1 \
        and stored_said == at_stop and total >= at_stop + args.resume_games
    print(f"    {total} games stored ({at_stop} at the stop, as its closing line says: "
          f"{stored_said == at_stop}); fixtures stored twice for the same versions: {twice}; games "
          f"lost: {lone} (pairs left with one game: the resume plays first the other game of a pair the "
          f"stop cut; at most one, cut by the resume's own limit)")
    print("    games per version (and old-version games handed out after the new version's first):")
    for name in [*edited, *added]:
        counts = dict(_query(store, "SELECT v, count(*) FROM (SELECT v0 AS v FROM games WHERE seat0 = ?"
                             " UNION ALL SELECT v1 FROM games WHERE seat1 = ?) GROUP BY v", (name, name)))
        late = 0
        if name in edited:
            first_new = _query(store, "SELECT min(fixture_index) FROM games WHERE (seat0 = ? AND v0 = 2)"
                               " OR (seat1 = ? AND v1 = 2)", (name, name))[0][0]
            late = _query(store, "SELECT count(*) FROM games WHERE fixture_index > ? AND ((seat0 = ?"
                          " AND v0 = 1) OR (seat1 = ? AND v1 = 1))", (first_new, name, name))[0][0]
            ok = ok and counts.get(2, 0) > 0 and late == 0
        else:
            ok = ok and counts.get(1, 0) > 0
        shown = ", ".join(f"v{v}: {n}" for v, n in sorted(counts.items()))
        print(f"      {name}: {shown}" + (f" (old after new: {late})" if name in edited else ""))
    print(f"    checks: {'all hold' if ok else 'FAILED'}", flush=True)
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=32, help=f"bots in the league (at most {len(ROSTER)})")
    parser.add_argument("--truth-games", type=int, default=20, help="games a pairing of the round robin")
    parser.add_argument("--checkpoints", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1, 2, 4, 8, 16, 32], help="games, as multiples of the bot count")
    parser.add_argument("--matchmaker", default="active")
    parser.add_argument("--ladders", type=int, default=1, help="ladders run (seeds SEED, SEED+1, ...)")
    parser.add_argument("--rating", default="trueskill",
                        help="the ladders' rating system, which their matchmaker's standings read "
                             "(trueskill-ep: TrueSkill fitted to all games)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--move-ms", type=int, default=500, help="the time control's move_ms")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--resume-games", type=int, default=20, help="games the live ladder's resume plays")
    parser.add_argument("--live-timeout", type=float, default=600, help="seconds to wait for each step")
    parser.add_argument("--skip", choices=["compare", "live"], action="append", default=[])
    args = parser.parse_args()
    if not 2 <= args.bots <= len(ROSTER):
        parser.error(f"--bots: 2 to {len(ROSTER)}, not {args.bots}")
    bots = ROSTER[:args.bots]
    names = [bot["name"] for bot in bots]
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"{len(bots)} bots, {args.workers} workers, move_ms {args.move_ms}", flush=True)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        if "compare" not in args.skip:
            round_robin, elo = truth(args, bots, names)
            compare(args, bots, names, round_robin, elo, Path(tmp))
        if "live" not in args.skip:
            ok = live(args, bots, Path(tmp))
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
