"""arena serve under load: the latency of its pages while the ladder plays, and the
ladder's games/s beside the same ladder run alone.

Each round runs, on a fresh store each, the demo ladder (tournaments/ladder-demo.yaml: 7
ultimate bots, 2 workers; no stop, and the uniform matchmaker for a steady mix of pairs)
twice, one after the other, each for WARMUP seconds of play and then three phases of
SECONDS:

  run      `arena run CONFIG --standings 0` alone, no server (arena serve runs its ladder
           so): its games/s in each phase;
  serve    `arena serve` of the same config:
           idle      nobody asking;
           rate      CLIENTS clients on loopback asking RATE requests a second in all, open
                     loop (each request is due at its time, however long the others take;
                     its latency counts from that time, so a server that falls behind
                     shows it);
           flat out  the same clients asking back to back, as fast as the server answers;
           each request a leaderboard page, its JSON or a bot's page or JSON, in turn.

In every served phase the benchmark also measures how fresh the standings are: it counts
the store's games every 50 ms and asks /api/leaderboard every 100 ms and the leaderboard
page every 200 ms for the games they show; a game's lag runs from the first count that has
it to the first answer that shows it (the goal of issue 34: at most 5 s at p99, with the
ladder at full load on its 2 workers). --store FILE starts both ladders from a copy of a
store of the demo ladder (say one of thousands of games, made by a long `arena run`), to
measure a long-running server.

A served phase's games/s is set beside the ladder alone's in the phase at the same time of
its life (a ladder's pace changes as it goes: newcomers first, then the pairs its
matchmaker picks). Rounds alternate the order (run then serve, serve then run, and the
phases reversed), so a load that drifts over the run weighs on both sides alike. The goal of
issue 27: p99 at most 100 ms at 100 requests/s with games running, and games/s within 10%
of the ladder alone. The load generator shares the machine with the server and the ladder;
the machine's load average is printed before and after. Run from the repo:

    .venv/bin/python benchmarks/server.py                          # 2 rounds of 30 s phases, 8 min
    .venv/bin/python benchmarks/server.py --rounds 1 --seconds 5   # a short check that it works
    .venv/bin/python benchmarks/server.py --store big.sqlite       # from a store of many games
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import yaml

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "tournaments" / "ladder-demo.yaml"
PAGES = ("/", "/api/leaderboard", "/bots/random", "/bots/mcts", "/api/bots/minimax-1")
#: the most requests one flat-out phase sends, whatever its length
MAX_FLAT_REQUESTS = 200_000
#: how often the freshness of the standings is looked at: the store's count, the JSON, the page
COUNT_S, JSON_S, PAGE_S = 0.05, 0.1, 0.2
#: after a phase, how long its last games are waited for to show
SETTLE_S = 30.0
GOAL_P99_S = 5.0


@dataclass
class Phase:
    """What one phase measured."""

    name: str
    games_per_s: float
    latencies: list[float] = field(default_factory=list)   # ms of the answered requests
    errors: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0         # of the phase
    asking: float = 0.0          # of the load's requests (its clients made and connected before)
    alone: float = float("nan")  # games/s of the ladder alone at the same time of its life
    #: seconds from a game's storing to its showing, on /api/leaderboard and on the page
    fresh_json: list[float] = field(default_factory=list)
    fresh_page: list[float] = field(default_factory=list)

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Freshness:
    """How long a stored game takes to show: the store's count taken every COUNT_S, the
    server's /api/leaderboard and its page asked every JSON_S and PAGE_S, each in a thread
    of its own; a game's lag runs from the first count that has it to the first answer that
    shows it (the standings' count of games, which leaves out those of the bots' earlier
    versions: the phase's offset)."""

    def __init__(self, process: Process) -> None:
        self.process = process
        #: games stored that the standings do not read (of bots' earlier versions: a copied
        #: store played by older code): the standings show the count less these
        self.offset = 0
        self.counts: list[tuple[float, int]] = []
        self.json: list[tuple[float, int]] = []
        self.page: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._count, daemon=True),
                         threading.Thread(target=self._ask, args=("/api/leaderboard", JSON_S, self.json), daemon=True),
                         threading.Thread(target=self._ask, args=("/", PAGE_S, self.page), daemon=True)]

    def __enter__(self) -> Freshness:
        from arena.league import Store, StoreError
        try:
            with Store(self.process.store, readonly=True) as store:
                self.offset = store.count() - len(store.done_keys())
        except StoreError:
            pass
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        """Once the games counted by now show (or SETTLE_S passed), stop."""
        last = (self.counts[-1][1] if self.counts else 0) - self.offset
        deadline = time.monotonic() + SETTLE_S
        while time.monotonic() < deadline and not (self._shown(self.json) >= last and self._shown(self.page) >= last):
            time.sleep(0.1)
        self._stop.set()
        for thread in self._threads:
            thread.join()

    @staticmethod
    def _shown(seen: list[tuple[float, int]]) -> int:
        return seen[-1][1] if seen else 0

    def _count(self) -> None:
        from arena.league import Store, StoreError
        store = None
        while not self._stop.is_set():
            try:
                store = store or Store(self.process.store, readonly=True)
                self.counts.append((time.monotonic(), store.count()))
            except StoreError:
                pass
            time.sleep(COUNT_S)
        if store is not None:
            store.close()

    def _ask(self, path: str, every: float, seen: list[tuple[float, int]]) -> None:
        with httpx.Client(base_url=self.process.url, timeout=30) as c:
            while not self._stop.is_set():
                asked = time.monotonic()
                try:
                    answer = c.get(path)
                    if path.startswith("/api/"):
                        shown = int(answer.json()["games"])
                    else:
                        found = re.search(r'<span id="games-count">(\d+)</span>', answer.text)
                        shown = int(found[1]) if found else 0
                    seen.append((time.monotonic(), shown))
                except (httpx.HTTPError, ValueError, KeyError):
                    pass
                time.sleep(max(0.0, every - (time.monotonic() - asked)))

    def lags(self, seen: list[tuple[float, int]], since: int, until: int) -> list[float]:
        """Each game's lag, of the games the store counted after since up to until."""
        lags = []
        counted = iter(self.counts)
        shown = iter(seen)
        at_count, at_shown = (-1.0, since), (-1.0, -(1 << 62))
        for n in range(since + 1, until + 1):
            while at_count[1] < n:
                at_count = next(counted, (float("inf"), 1 << 62))
            while at_shown[1] + self.offset < n:
                at_shown = next(shown, (float("inf"), 1 << 62))
            lags.append(max(0.0, at_shown[0] - at_count[0]))
        return lags


def config_in(folder: Path) -> Path:
    """The demo ladder with its store in folder, no stop, pairs drawn uniformly, and rate
    limits that let the load through (every client comes from one address)."""
    data = yaml.safe_load(DEMO.read_text())
    for stop in ("games", "hours", "until"):
        data["ladder"].pop(stop, None)
    # pairs drawn uniformly, so that every 30 s plays the same mix of them: under active, which
    # follows the standings and plays one bot's pairs for a while, the ladder alone played 7 to
    # 35 games/s from one 30 s window to the next (a game of mcts takes many of random)
    data["ladder"]["matchmaker"] = "uniform"
    data["store"] = str(folder / "bench.sqlite")
    data.setdefault("server", {})["rates"] = {"requests_per_second": 100_000, "burst": 100_000}
    path = folder / "bench.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def games(store: Path) -> int:
    """Games stored so far (0 before the ladder made its store)."""
    from arena.league import Store, StoreError
    if not store.is_file():
        return 0
    try:
        with Store(store, readonly=True) as s:
            return s.count()
    except StoreError:   # the schema not written yet
        return 0


class Process:
    """`arena run CONFIG` or `arena serve CONFIG --port P` on a fresh store in its own folder."""

    def __init__(self, command: str, folder: Path, store: Path | None = None) -> None:
        folder.mkdir()
        self.config = config_in(folder)
        self.store = folder / "bench.sqlite"
        if store is not None:   # a long-running ladder: its store copied, as SQLite's backup does
            from arena.league import Store
            with Store(store, readonly=True):
                pass
            shutil.copyfile(store, self.store)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.serving = command == "serve"
        self.log = (folder / f"{command}.log").open("wb")
        args = [sys.executable, "-m", "arena", command, str(self.config)]
        # the ladder as arena serve runs it: no standings printed as it goes
        args += ["--port", str(self.port)] if command == "serve" else ["--standings", "0"]
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        if command == "serve":
            self._wait(lambda: httpx.get(self.url + "/api/health", timeout=2).status_code == 200,
                       "arena serve to answer")

    def _wait(self, ready, what: str, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"{what}: it exited {self.proc.returncode}; see {self.log.name}")
            try:
                if ready():
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise SystemExit(f"waited {seconds} s for {what}; see {self.log.name}")

    def warm_up(self, seconds: float) -> None:
        """Play seconds, then (a server) until it shows standings."""
        time.sleep(seconds)
        if self.proc.poll() is not None:
            raise SystemExit(f"it exited {self.proc.returncode}; see {self.log.name}")
        if self.serving:
            self._wait(lambda: httpx.get(self.url + "/api/leaderboard", timeout=30).json()["rows"],
                       "the first standings")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(120)
        self.log.close()


def measure(name: str, process: Process, seconds: float, load=None) -> Phase:
    """A phase of seconds: the ladder's games/s, the load's latencies if one is given, and
    (a server) how fresh its standings are."""
    before, start = games(process.store), time.monotonic()
    phase = Phase(name, 0.0)
    fresh = Freshness(process) if process.serving else None
    with fresh or contextlib.nullcontext():
        if load is None:
            time.sleep(seconds)
        else:
            phase.latencies, phase.errors, phase.asking = asyncio.run(load(process.url, seconds))
        phase.seconds = time.monotonic() - start
        after = games(process.store)
    phase.games_per_s = (after - before) / phase.seconds
    if fresh is not None:
        phase.fresh_json = fresh.lags(fresh.json, before, after)
        phase.fresh_page = fresh.lags(fresh.page, before, after)
    return phase


async def _ask(c: httpx.AsyncClient, path: str, latencies: list[float], errors: Counter[str], since: float) -> None:
    try:
        answer = await c.get(path)
    except httpx.HTTPError as exc:
        errors[type(exc).__name__] += 1
        return
    if answer.status_code != 200:
        errors[f"{path} {answer.status_code}"] += 1
    else:
        latencies.append((time.monotonic() - since) * 1000)


async def connected(url: str, clients: int) -> list[httpx.AsyncClient]:
    """clients clients of one connection each, connected (each has asked /api/health once):
    making them is not the server's time, so it is done before a phase's clock starts."""
    made = [httpx.AsyncClient(base_url=url, timeout=30, limits=httpx.Limits(max_connections=1))
            for _ in range(clients)]
    await asyncio.gather(*(c.get("/api/health") for c in made))
    return made


def open_loop(clients: int, rate: float):
    """The load of rate requests a second in all, sent by clients connections at their times."""
    async def load(url: str, seconds: float) -> tuple[list[float], Counter[str], float]:
        latencies: list[float] = []
        errors: Counter[str] = Counter()
        made = await connected(url, clients)
        start = time.monotonic()
        due = [start + i / rate for i in range(int(rate * seconds))]

        async def client(k: int) -> None:
            for i in range(k, len(due), clients):   # this client's share, in order
                await asyncio.sleep(max(0.0, due[i] - time.monotonic()))
                await _ask(made[k], PAGES[i % len(PAGES)], latencies, errors, due[i])

        await asyncio.gather(*(client(k) for k in range(clients)))
        asking = time.monotonic() - start
        await asyncio.gather(*(c.aclose() for c in made))
        return latencies, errors, asking
    return load


def flat_out(clients: int):
    """The load of clients connections each asking again as soon as it is answered."""
    async def load(url: str, seconds: float) -> tuple[list[float], Counter[str], float]:
        latencies: list[float] = []
        errors: Counter[str] = Counter()
        made = await connected(url, clients)
        start = time.monotonic()
        end = start + seconds
        sent = 0

        async def client(k: int) -> None:
            nonlocal sent
            while time.monotonic() < end and sent < MAX_FLAT_REQUESTS:
                sent += 1
                await _ask(made[k], PAGES[(sent + k) % len(PAGES)], latencies, errors, time.monotonic())

        await asyncio.gather(*(client(k) for k in range(clients)))
        asking = time.monotonic() - start
        await asyncio.gather(*(c.aclose() for c in made))
        return latencies, errors, asking
    return load


def phases_of(command: str, folder: Path, args: argparse.Namespace, reverse: bool) -> list[Phase]:
    """The three phases of a server (idle, the rate, flat out), or as many of the ladder
    run alone, in order or reversed."""
    process = Process(command, folder, args.store)
    plan = [("serve, idle", None), (f"serve, {args.rate:g} req/s", open_loop(args.clients, args.rate)),
            ("serve, flat out", flat_out(args.clients))]
    if command == "run":
        plan = [("run alone", None)] * len(plan)
    try:
        process.warm_up(args.warmup)
        return [measure(name, process, args.seconds, load) for name, load in (plan[::-1] if reverse else plan)]
    finally:
        process.stop()


HEADER = (f"{'phase':<22} {'games/s':>7} {'alone':>7} {'share':>6} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'max ms':>7} {'errors':>6}")


def row(phase: Phase) -> str:
    """A line of the table: games/s beside the ladder alone's, and the load's figures."""
    line = f"{phase.name:<22} {phase.games_per_s:7.2f}"
    if phase.name == "run alone":
        return line
    line += f" {phase.alone:7.2f} {100 * phase.games_per_s / phase.alone if phase.alone else float('nan'):5.0f}%"
    if not phase.latencies and not phase.errors:
        return line
    return (f"{line} {len(phase.latencies) / phase.asking:8.1f} {phase.percentile(0.5):7.1f} "
            f"{phase.percentile(0.99):7.1f} {max(phase.latencies, default=float('nan')):7.1f} "
            f"{sum(phase.errors.values()):6d}")


def fresh_row(phase: Phase) -> str:
    """A line of the freshness table: the lags of a served phase's games, JSON and page."""
    figures = [f"{quantile(lags, q):7.2f}" for lags in (phase.fresh_json, phase.fresh_page) for q in (0.5, 0.99)]
    worst = max([*phase.fresh_json, *phase.fresh_page], default=float("nan"))
    return f"{phase.name:<22} {len(phase.fresh_json):6d} {' '.join(figures)} {worst:7.2f}"


FRESH_HEADER = (f"{'phase':<22} {'games':>6} {'json p50':>7} {'json p99':>7} {'page p50':>7} {'page p99':>7} "
                f"{'max s':>7}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="of each phase")
    parser.add_argument("--warmup", type=float, default=10.0, help="of play before a process's first phase")
    parser.add_argument("--rounds", type=int, default=2, help="each round: run and serve, the order alternated")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--rate", type=float, default=100.0, help="requests a second, all clients together")
    parser.add_argument("--store", type=Path, help="start both ladders from a copy of this store of the demo "
                                                   "ladder (a long-running one)")
    args = parser.parse_args()
    if args.store is not None and not args.store.is_file():
        raise SystemExit(f"--store {args.store}: no such file")
    if not (1 <= args.clients <= 200 and 0 < args.rate <= 2000 and 0 < args.seconds <= 600
            and 1 <= args.rounds <= 10 and 0 <= args.warmup <= 600):
        raise SystemExit("bounded: 1-200 clients, up to 2000 requests/s, phases up to 600 s, 1-10 rounds")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.clients} clients on loopback, "
          f"phases of {args.seconds:g} s after {args.warmup:g} s of play", flush=True)
    phases: list[Phase] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-server-") as tmp:
        for r in range(args.rounds):
            reverse = r % 2 == 1
            order = ("serve", "run") if reverse else ("run", "serve")
            done = {command: phases_of(command, Path(tmp) / f"{command}-{r}", args, reverse) for command in order}
            for served, alone in zip(done["serve"], done["run"], strict=True):
                served.alone = alone.games_per_s    # the same seconds of each ladder's life
            print(f"\nround {r + 1}: {' then '.join(order)} (load average {os.getloadavg()[0]:.1f})\n{HEADER}")
            for command in order:
                for phase in done[command]:
                    print(row(phase), flush=True)
            print(f"\nround {r + 1}: seconds from a game's storing to its showing (goal: p99 at most "
                  f"{GOAL_P99_S:g} s)\n{FRESH_HEADER}")
            for phase in done["serve"]:
                print(fresh_row(phase), flush=True)
            phases += done["run"] + done["serve"]
    if args.rounds > 1:
        print(f"\nall rounds: games/s the mean of the rounds' (alone: at the same times), latencies pooled\n{HEADER}")
        for name in dict.fromkeys(p.name for p in phases):
            same = [p for p in phases if p.name == name]
            pooled = Phase(name, statistics.mean(p.games_per_s for p in same),
                           [ms for p in same for ms in p.latencies], sum((p.errors for p in same), Counter()),
                           sum(p.seconds for p in same), sum(p.asking for p in same),
                           statistics.mean(p.alone for p in same))
            print(row(pooled))
        print(f"\nall rounds: seconds from a game's storing to its showing, pooled\n{FRESH_HEADER}")
        for name in dict.fromkeys(p.name for p in phases if p.fresh_json):
            same = [p for p in phases if p.name == name]
            print(fresh_row(Phase(name, 0.0, fresh_json=[x for p in same for x in p.fresh_json],
                                  fresh_page=[x for p in same for x in p.fresh_page])))
    served = [p for p in phases if p.fresh_json]
    lags = [x for p in served for x in (*p.fresh_json, *p.fresh_page)]
    print(f"\nfreshness: of {sum(len(p.fresh_json) for p in served)} games stored while served, p99 "
          f"{quantile(lags, 0.99):.2f} s from storing to showing on /api/leaderboard and / (goal: at most "
          f"{GOAL_P99_S:g} s), max {max(lags, default=float('nan')):.2f} s")
    errors = Counter[str]()
    for phase in phases:
        errors += phase.errors
    print(f"\nerrors: {dict(errors) or 'none'}; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
