"""Referee overhead, measured side by side in one run.

  (a) raw round trip: one line to a trivial bot over pipes and its one-line
      answer, blocking pipes with a selector deadline (no referee);
  (a2) the floor of a whole game: the same line sent to two sandboxed trivial
      bots in turn, as a game alternates its seats (no referee);
  (b) the referee's cost per move in whole ultimate games between two trivial
      sandboxed bots (request to reply, parsing, rules, records);
  (c) start-to-ready of a sandboxed SDK bot, next to a bare `python -c pass`.

Targets: (b) <= 2x (a2); (c) <= 2x. Run: python benchmarks/referee.py
"""

from __future__ import annotations

import os
import selectors
import statistics
import subprocess
import sys
import time
from pathlib import Path

from arena.games import default_registry
from arena.plugins import loaded_plugins
from arena.referee import BotSpec, MatchSettings, TimeControl, play_game
from arena.referee.botspec import ARENA_PACKAGE_DIR, byte_compile
from arena.referee.channel import BotChannel, Multiplexer, OutputLimits
from arena.sandbox import Sandbox


def dialect_named(name):
    """A dialect of the loaded registry, as the referee finds it."""
    return loaded_plugins().dialects.require(name)


HERE = Path(__file__).resolve().parent
BOTS = HERE / "fixture_bots"


def raw_round_trip_us(n: int = 5000) -> float:
    proc = subprocess.Popen([sys.executable, str(BOTS / "echo_bot.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, bufsize=0)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    fd_in, fd_out = proc.stdin.fileno(), proc.stdout.fileno()
    line = b"turn 1000 0 40 36,37,38,39,41,42,43,44 " + b"." * 81 + b" o 4\n"
    for _ in range(200):  # warm up
        os.write(fd_in, line)
        sel.select(1.0)
        os.read(fd_out, 4096)
    start = time.perf_counter()
    for _ in range(n):
        os.write(fd_in, line)
        if not sel.select(1.0):
            raise RuntimeError("echo bot did not answer")
        os.read(fd_out, 4096)
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait()
    return elapsed / n * 1e6


def two_bot_floor_us(sandbox: Sandbox, n: int = 5000) -> float:
    """Microseconds a move: one line to each of two sandboxed echo bots in turn, each
    answer awaited with a selector deadline, as a game alternates its seats."""
    procs = [sandbox.start([sys.executable, str(BOTS / "echo_bot.py")], readable=(str(BOTS),))
             for _ in range(2)]
    try:
        sel = selectors.DefaultSelector()
        for proc in procs:
            sel.register(proc.stdout_fd, selectors.EVENT_READ)
        line = b"turn 1000 0 40 36,37,38,39,41,42,43,44 " + b"." * 81 + b" o 4\n"

        def move(proc) -> None:
            os.write(proc.stdin_fd, line)
            while True:
                ready = sel.select(5.0)
                if not ready:
                    raise RuntimeError("a sandboxed echo bot did not answer")
                if any(key.fd == proc.stdout_fd for key, _ in ready):
                    os.read(proc.stdout_fd, 4096)
                    return

        for i in range(200):  # warm up
            move(procs[i % 2])
        start = time.perf_counter()
        for i in range(n):
            move(procs[i % 2])
        return (time.perf_counter() - start) / n * 1e6
    finally:
        for proc in procs:
            proc.close()


def referee_per_move_us(sandbox: Sandbox, games: int = 30) -> tuple[float, int]:
    game = default_registry().create("ultimate")
    bot = BotSpec(name="first", argv=(sys.executable, str(BOTS / "first_legal_bot.py")),
                  readable=(str(BOTS),))
    settings = MatchSettings(time=TimeControl(move_ms=1000))
    play_ms, moves = 0.0, 0
    for seed in range(games):
        record = play_game(game, (bot, bot), seed, sandbox, settings)
        assert record.termination.value == "normal", record.reason
        play_ms += record.play_ms
        moves += len(record.moves)
    return play_ms * 1000 / moves, moves


def start_to_ready_ms(sandbox: Sandbox, n: int = 20) -> tuple[float, float]:
    argv = [sys.executable, str(BOTS / "sdk_bot.py")]
    byte_compile(ARENA_PACKAGE_DIR)   # as the referee does before it starts a Python bot
    game = default_registry().create("ultimate")
    dialect = dialect_named("arena")
    sandboxed = []
    for i in range(n):
        t0 = time.perf_counter()
        proc = sandbox.start(argv, readable=(ARENA_PACKAGE_DIR, str(BOTS)))
        try:
            ch = BotChannel(proc, OutputLimits(), "sdk")
            mux = Multiplexer([ch])
            ch.request(dialect.start_lines(game, 0, i, 1000, 0))
            line = mux.wait_line(ch, time.monotonic() + 10, "handshake")
            assert line.startswith("ready"), line
            sandboxed.append((time.perf_counter() - t0) * 1000)
            mux.close()
        finally:
            proc.close()
    bare = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append((time.perf_counter() - t0) * 1000)
    return statistics.median(sandboxed), statistics.median(bare)


def main() -> None:
    sandbox = Sandbox()
    print(f"# sandbox mode: {sandbox.mode}")
    for warning in sandbox.warnings:
        print(f"# WARNING: {warning}")
    a = raw_round_trip_us()
    print(f"(a) raw round trip over pipes: {a:.1f} us")
    a2 = two_bot_floor_us(sandbox)
    print(f"(a2) two sandboxed bots in turn (a game's floor): {a2:.1f} us a move")
    b, moves = referee_per_move_us(sandbox)
    print(f"(b) referee per move, whole games: {b:.1f} us  ({moves} moves; {b / a:.2f}x (a))")
    print(f"referee per move / floor: {b / a2:.2f} x  (target <= 2x)")
    sdk_ms, bare_ms = start_to_ready_ms(sandbox)
    print(f"(c) sandboxed SDK bot start-to-ready: {sdk_ms:.1f} ms; bare python -c pass: {bare_ms:.1f} ms "
          f"({sdk_ms / bare_ms:.2f}x, target <= 2x)")


if __name__ == "__main__":
    main()
