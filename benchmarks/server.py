"""arena serve under load: its pages' latency while the ladder plays, and the ladder's
games/s with and without the load.

  (a) alone: `arena serve` on a ladder of 6 bots of equal cost (mcts capped at ITERATIONS
      simulations a move, no clock of its own: every game costs about the same CPU, so
      the games/s is steady and a CPU taken by the web shows in it), 2 workers, a fresh
      store, after WARMUP s of play, with nobody asking: the ladder's games/s over SECONDS
      (--demo: tournaments/ladder-demo.yaml's bots instead, whose games/s swings with the
      pairs it plays: 13 and 6 games/s in two 30 s runs a minute apart here);
  (b) loaded: the same server, CLIENTS concurrent clients on loopback asking RATE requests
      a second in all (open loop: each request is sent at its time, however long the
      others take) for SECONDS, each a leaderboard page, its JSON or a bot's page in turn:
      requests/s answered, p50 / p99 / max latency, errors, and the ladder's games/s meanwhile;
  (c) alone again, SECONDS: a ladder's games/s changes as it goes (which pairs it plays:
      two mcts bots take longer than two random ones), so (b) is compared with the mean
      of (a) and (c), and both are printed.

The goal (issue 27): p99 at most 100 ms at 100 requests/s with games running, and the
ladder's games/s within 10% of it alone. Figures depend on the machine's load (printed).
Run from the repo:

    .venv/bin/python benchmarks/server.py                   # 3 x 60 s, 50 clients, 100 requests/s
    .venv/bin/python benchmarks/server.py --seconds 10      # a short check that it works
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "tournaments" / "ladder-demo.yaml"
PAGES = ("/", "/api/leaderboard", "/bots/{0}", "/bots/{1}", "/api/bots/{2}")
EQUAL_BOTS = 6


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config_in(folder: Path, demo: bool, iterations: int) -> tuple[Path, list[str]]:
    """The ladder (the demo's bots, or bots of equal cost) with its store in folder, no stop,
    and rate limits that let the load through; and three of its bots' names."""
    text = DEMO.read_text()
    names = ["random", "mcts", "minimax-1"]
    if not demo:
        names = [f"m{i}" for i in range(EQUAL_BOTS)]
        bots = "".join(f"  - {{name: {name}, bot: mcts, options: {{time_ms: 0, iterations: {iterations}, "
                       f"seed: {i}}}}}\n" for i, name in enumerate(names))
        text = re.sub(r"(?ms)^bots:\n.*?(?=^schedule:)", "bots:\n" + bots, text)
        text = text.replace("against: random", f"against: {names[0]}")
    text = re.sub(r"(?m)^store: .*$", f"store: {folder / 'bench.sqlite'}", text)
    text = text.replace("  games: 300\n", "")
    text += "  rates: {requests_per_second: 100000, burst: 100000}\n"
    path = folder / "bench.yaml"
    path.write_text(text)
    return path, names[:3]


def games(store: Path) -> int:
    from arena.league import Store
    if not store.is_file():
        return 0
    with Store(store, readonly=True) as s:
        return s.count()


class Server:
    def __init__(self, config: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(config.parent / f"serve-{self.port}.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(config), "--port",
                                      str(self.port)], cwd=ROOT, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/api/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        raise SystemExit("arena serve did not start; see " + self.log.name)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(120)
        self.log.close()


def games_per_second(store: Path, seconds: float) -> float:
    before, start = games(store), time.monotonic()
    time.sleep(seconds)
    return (games(store) - before) / (time.monotonic() - start)


async def load(url: str, pages: list[str], clients: int, rate: float,
               seconds: float) -> tuple[list[float], Counter[str], float]:
    """(latencies in ms of the answered requests, errors by kind, seconds taken) of the open-loop load."""
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    total = int(rate * seconds)
    queue: asyncio.Queue[tuple[float, str]] = asyncio.Queue()
    start = time.monotonic()
    for i in range(total):
        queue.put_nowait((start + i / rate, pages[i % len(pages)]))

    async def client() -> None:
        limits = httpx.Limits(max_connections=1)
        async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as c:
            while not queue.empty():
                due, path = queue.get_nowait()
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                sent = time.monotonic()
                try:
                    answer = await c.get(path)
                    if answer.status_code != 200:
                        errors[f"{path} {answer.status_code}"] += 1
                        continue
                except httpx.HTTPError as exc:
                    errors[type(exc).__name__] += 1
                    continue
                latencies.append((time.monotonic() - sent) * 1000)

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, errors, time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="of each phase")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--rate", type=float, default=100.0, help="requests a second, all clients together")
    parser.add_argument("--warmup", type=float, default=30.0, help="ladder play before measuring")
    parser.add_argument("--iterations", type=int, default=200, help="simulations a move of the equal bots")
    parser.add_argument("--demo", action="store_true", help="the demo ladder's bots instead of equal ones")
    args = parser.parse_args()
    if not 1 <= args.clients <= 200 or not 0 < args.rate <= 2000 or not 0 < args.seconds <= 600:
        raise SystemExit("bounded: 1-200 clients, up to 2000 requests/s, up to 600 s")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory(prefix="arena-bench-server-") as tmp:
        config, names = config_in(Path(tmp), args.demo, args.iterations)
        pages = [page.format(*names) for page in PAGES]
        store = Path(tmp) / "bench.sqlite"
        server = Server(config)
        try:
            time.sleep(args.warmup)
            alone = games_per_second(store, args.seconds)
            print(f"ladder alone: {alone:.1f} games/s over {args.seconds:g} s", flush=True)
            ready = time.monotonic() + 60   # the standings read once, as a visitor would find them
            while not httpx.get(server.url + "/api/leaderboard", timeout=30).json()["rows"]:
                if time.monotonic() > ready:
                    raise SystemExit("the server showed no standings in 60 s")
                time.sleep(0.5)
            before, start = games(store), time.monotonic()
            latencies, errors, took = asyncio.run(load(server.url, pages, args.clients, args.rate, args.seconds))
            loaded = (games(store) - before) / (time.monotonic() - start)
            again = games_per_second(store, args.seconds)
            print(f"ladder alone again: {again:.1f} games/s over {args.seconds:g} s", flush=True)
        finally:
            server.stop()
    latencies.sort()
    p50 = statistics.median(latencies) if latencies else float("nan")
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else float("nan")
    print(f"with {args.clients} clients asking {args.rate:g} requests/s: {len(latencies) / took:.1f} answered/s, "
          f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {latencies[-1] if latencies else float('nan'):.1f} ms, "
          f"errors: {dict(errors) or 'none'}")
    mean = (alone + again) / 2
    print(f"ladder under load: {loaded:.1f} games/s ({100 * loaded / mean if mean else float('nan'):.0f}% "
          f"of its mean alone before and after); load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
