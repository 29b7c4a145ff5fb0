"""Referee overhead, measured side by side in one run.

  (a) raw round trip: one line to a trivial bot over pipes and its one-line
      answer, blocking pipes with a selector deadline (no referee); then the same
      with the bot sandboxed, which says what the sandbox adds to a wake-up;
  (a2) the floor of a whole game: the turn lines of a real game sent to two
      sandboxed echo bots in turn, as a game alternates its seats (no referee);
  (b) the referee's cost per move in whole ultimate games between two trivial
      sandboxed bots (request to reply, the clock's readings, parsing, rules, records);
      also the referee's own CPU time a move, and its turnaround: from reading a reply
      to writing the next request, the part of its work no bot's thinking hides;
  (d) the Python SDK: the same turn lines as (a2) to two sandboxed first-legal-move
      SDK bots (sdk_bot.py) in turn; its ratio to (a2) is what the SDK's turn costs;
  (c) start-to-ready of a sandboxed SDK bot, next to a bare `python -c pass`.

Where the processes run moves the floor more than anything else: on a virtual machine
a write that wakes a process sleeping on another CPU costs the writer 10-15 us and the
sleeper tens of microseconds to wake, and the floor measures from about 8 us a move (all three processes on one
CPU) to 60 us and more (each wake-up across CPUs), as the scheduler places them. The
rounds below are placed by the scheduler; one more round of (a2) and (b) is then played
with everything kept to one CPU (as in a league's pinned worker), where the floor is
lowest, and one with the bots kept to another CPU than this process, where it is highest.

(a2), (b) and (d) are measured in --rounds rounds, one after the other in each, and
the medians are printed with the median of each round's ratio: on a machine shared
with other work the floor moves with the load (a busy CPU wakes faster than an idle
one), so the ratios, measured seconds apart, say more than any one figure.

Targets: (b) <= 2x (a2); (c) <= 2x. Run: python benchmarks/referee.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import selectors
import statistics
import subprocess
import sys
import time
from pathlib import Path

from arena.games import default_registry
from arena.plugins import loaded_plugins
from arena.protocol import TurnInfo
from arena.protocol.dialects import format_turn
from arena.referee import BotPool, BotSpec, MatchSettings, TimeControl, play_game
from arena.referee.botspec import ARENA_PACKAGE_DIR, byte_compile
from arena.referee.channel import BotChannel, Multiplexer, OutputLimits
from arena.sandbox import Sandbox
from arena.sandbox.process import SandboxedProcess
from arena.sandbox.procfs import TreeUsage


def dialect_named(name):
    """A dialect of the loaded registry, as the referee finds it."""
    return loaded_plugins().dialects.require(name)


HERE = Path(__file__).resolve().parent
BOTS = HERE / "fixture_bots"


def raw_round_trip_us(n: int = 5000, sandbox: Sandbox | None = None) -> float:
    """Microseconds for one line to an echo bot and its answer, the bot started plainly
    or, given a sandbox, in it (the cost of the sandbox's wake-up, if any)."""
    argv = [sys.executable, str(BOTS / "echo_bot.py")]
    if sandbox is None:
        plain = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert plain.stdin is not None and plain.stdout is not None
        fd_in, fd_out = plain.stdin.fileno(), plain.stdout.fileno()
    else:
        boxed = sandbox.start(argv, readable=(str(BOTS),))
        fd_in, fd_out = boxed.stdin_fd, boxed.stdout_fd
    sel = selectors.DefaultSelector()
    sel.register(fd_out, selectors.EVENT_READ)
    line = b"turn 1000 0 40 36,37,38,39,41,42,43,44 " + b"." * 81 + b" o 4\n"
    try:
        for _ in range(200):  # warm up
            os.write(fd_in, line)
            sel.select(5.0)
            os.read(fd_out, 4096)
        start = time.perf_counter()
        for _ in range(n):
            os.write(fd_in, line)
            if not sel.select(5.0):
                raise RuntimeError("echo bot did not answer")
            os.read(fd_out, 4096)
        return (time.perf_counter() - start) / n * 1e6
    finally:
        if sandbox is None:
            assert plain.stdin is not None
            plain.stdin.close()
            plain.wait()
        else:
            boxed.close()


def turn_lines(plies: int = 60) -> list[bytes]:
    """The arena turn lines of one ultimate game (first legal moves), as the referee sends them."""
    game = default_registry().create("ultimate")
    state, last = game.initial_state(), None
    lines: list[bytes] = []
    while not state.is_terminal() and len(lines) < plies:
        legal = state.legal_moves()
        turn = TurnInfo(state=state, last_move=last, legal=legal, move_ms=1000, bank_ms=0,
                        ply=len(lines), seat=state.to_move)
        lines.append(format_turn(game, turn).encode() + b"\n")
        last = legal[0]
        state = state.play(last)
    return lines


def two_bot_us(sandbox: Sandbox, script: str, n: int = 3000) -> float:
    """Microseconds a move: a game's turn lines to two sandboxed bots in turn, each answer
    awaited with a selector deadline, as a game alternates its seats. The floor of a
    whole game with echo_bot.py; with sdk_bot.py, what the SDK adds to it."""
    readable = (str(BOTS), ARENA_PACKAGE_DIR)
    env = {"PYTHONPATH": str(Path(ARENA_PACKAGE_DIR).parent)}   # the arena package it may read
    procs = [sandbox.start([sys.executable, str(BOTS / script)], readable=readable, env=env)
             for _ in range(2)]
    try:
        sel = selectors.DefaultSelector()
        for proc in procs:
            sel.register(proc.stdout_fd, selectors.EVENT_READ)
        lines = turn_lines()

        def ask(proc, line: bytes) -> None:
            os.write(proc.stdin_fd, line)
            while True:
                ready = sel.select(10.0)
                if not ready:
                    raise RuntimeError(f"a sandboxed {script} did not answer")
                if any(key.fd == proc.stdout_fd for key, _ in ready):
                    os.read(proc.stdout_fd, 4096)
                    return

        for seat, proc in enumerate(procs):   # the handshake (the echo bot answers it too)
            ask(proc, f"arena 1 ultimate {seat} 1\n".encode())
        for i in range(200):  # warm up
            ask(procs[i % 2], lines[i % len(lines)])
        start = time.perf_counter()
        for i in range(n):
            ask(procs[i % 2], lines[i % len(lines)])
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


def referee_cpu_per_move_us(sandbox: Sandbox, games: int = 20) -> tuple[float, float]:
    """The referee's own CPU time a move (its thread's, system time included), in whole
    games between two bots kept in a pool (started once, so their start does not count):
    the work (b) does per move, and a figure the machine's load moves much less than (b).
    Also the part of it spent reading the bots' process trees (SandboxedProcess.usage(),
    wrapped and timed for this measurement only; the cheap CPU-clock marks are not in it)."""
    game = default_registry().create("ultimate")
    argv = (sys.executable, str(BOTS / "first_legal_bot.py"))
    bots = (BotSpec(name="first0", argv=argv, readable=(str(BOTS),)),
            BotSpec(name="first1", argv=argv, readable=(str(BOTS),)))
    settings = MatchSettings(time=TimeControl(move_ms=1000))
    pool = BotPool()
    reading = [0]
    usage = SandboxedProcess.usage

    def timed_usage(self: SandboxedProcess, states: bool = False) -> TreeUsage:
        started = time.perf_counter_ns()
        try:
            return usage(self, states)
        finally:
            reading[0] += time.perf_counter_ns() - started

    try:
        play_game(game, bots, 0, sandbox, settings, pool=pool)   # both started, kept
        moves, cpu = 0, 0.0
        SandboxedProcess.usage = timed_usage  # type: ignore[method-assign]
        for seed in range(1, games + 1):
            started = time.thread_time()
            record = play_game(game, bots, seed, sandbox, settings, pool=pool)
            cpu += time.thread_time() - started
            assert record.termination.value == "normal", record.reason
            moves += len(record.moves)
    finally:
        SandboxedProcess.usage = usage  # type: ignore[method-assign]
        pool.close()
    return cpu / moves * 1e6, reading[0] / moves / 1e3


def referee_turnaround_us(sandbox: Sandbox, games: int = 10) -> float:
    """Median microseconds from reading a bot's reply to writing the next bot's request
    in whole games (the referee's part of a move that no bot's thinking hides), timed by
    wrapping the channel's read and request for the measurement only."""
    marks: dict[str, float] = {}
    spans: list[float] = []
    read, request = BotChannel.read_stdout, BotChannel.request

    def timed_read(self: BotChannel) -> None:
        marks["reply"] = time.perf_counter()
        read(self)

    def timed_request(self: BotChannel, lines: list[str], expects_reply: bool = True, **more: int) -> None:
        if expects_reply and "reply" in marks:
            spans.append(time.perf_counter() - marks.pop("reply"))
        request(self, lines, expects_reply, **more)

    BotChannel.read_stdout, BotChannel.request = timed_read, timed_request  # type: ignore[method-assign]
    try:
        referee_per_move_us(sandbox, games)
    finally:
        BotChannel.read_stdout, BotChannel.request = read, request  # type: ignore[method-assign]
    return statistics.median(spans) * 1e6


def on_one_cpu(measure):
    """measure() with this process, and the bots it starts, kept to one CPU."""
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        return measure()
    finally:
        os.sched_setaffinity(0, allowed)


class BotsElsewhere:
    """A sandbox whose bots start kept to one CPU, other than the caller's."""

    def __init__(self, sandbox: Sandbox, cpu: int) -> None:
        self.sandbox, self.cpu = sandbox, cpu

    def start(self, *args, **kwargs):
        mine = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {self.cpu})   # the bot's processes inherit it
        try:
            return self.sandbox.start(*args, **kwargs)
        finally:
            os.sched_setaffinity(0, mine)


def on_two_cpus(sandbox: Sandbox, measure):
    """measure(sandbox) with this process kept to one CPU and the bots to another."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None
    os.sched_setaffinity(0, {allowed[0]})
    try:
        return measure(BotsElsewhere(sandbox, allowed[1]))
    finally:
        os.sched_setaffinity(0, set(allowed))


def start_to_ready_ms(sandbox: Sandbox, n: int = 20) -> tuple[float, float]:
    argv = [sys.executable, str(BOTS / "sdk_bot.py")]
    byte_compile(ARENA_PACKAGE_DIR)   # as the referee does before it starts a Python bot
    game = default_registry().create("ultimate")
    dialect = dialect_named("arena")
    sandboxed = []
    for i in range(n):
        t0 = time.perf_counter()
        proc = sandbox.start(argv, readable=(ARENA_PACKAGE_DIR, str(BOTS)),
                             env={"PYTHONPATH": str(Path(ARENA_PACKAGE_DIR).parent)})
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds of (a2), (b) and (d)")
    args = parser.parse_args()
    sandbox = Sandbox()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"# sandbox mode: {sandbox.mode}, {os.cpu_count()} CPUs, load average {load}")
    for warning in sandbox.warnings:
        print(f"# WARNING: {warning}")
    a = raw_round_trip_us()
    a1 = raw_round_trip_us(sandbox=sandbox)
    print(f"(a) raw round trip over pipes: {a:.1f} us; the echo bot sandboxed: {a1:.1f} us "
          f"({a1 / a:.2f}x)")
    floors, referees, sdks = [], [], []
    moves = 0
    for _ in range(args.rounds):
        floors.append(two_bot_us(sandbox, "echo_bot.py"))
        b, moves = referee_per_move_us(sandbox, games=10)
        referees.append(b)
        sdks.append(two_bot_us(sandbox, "sdk_bot.py"))
    a2, b, d = (statistics.median(x) for x in (floors, referees, sdks))
    ratio = statistics.median(r / f for r, f in zip(referees, floors, strict=True))
    sdk_ratio = statistics.median(x / f for x, f in zip(sdks, floors, strict=True))
    cpu, reading = referee_cpu_per_move_us(sandbox)
    one_cpu, one_reading = on_one_cpu(lambda: referee_cpu_per_move_us(sandbox))
    turnaround = referee_turnaround_us(sandbox)
    one_floor, one_referee = on_one_cpu(lambda: (two_bot_us(sandbox, "echo_bot.py"),
                                                 referee_per_move_us(sandbox, games=10)[0]))
    apart = on_two_cpus(sandbox, lambda box: (two_bot_us(box, "echo_bot.py"),
                                              referee_per_move_us(box, games=10)[0]))
    print(f"(a2) two sandboxed echo bots in turn (a game's floor): {a2:.1f} us a move "
          f"(rounds: {', '.join(f'{x:.0f}' for x in floors)})")
    print(f"(b) referee per move, whole games: {b:.1f} us ({moves} moves a round; rounds: "
          f"{', '.join(f'{x:.0f}' for x in referees)})")
    print(f"referee per move / floor: {ratio:.2f} x  (target <= 2x; median of the rounds' ratios)")
    print(f"(b) the referee's own CPU time a move (bots kept between games): {cpu:.1f} us, reading the "
          f"bots' process trees for the clock {reading:.1f} us of it; from a reply read to the next "
          f"request written: {turnaround:.1f} us (median)")
    print(f"(a2), (b) with this process and the bots on one CPU: floor {one_floor:.1f} us, referee "
          f"{one_referee:.1f} us a move ({one_referee / one_floor:.2f} x): no wake-up crosses CPUs there, "
          f"and the referee's own work is most of a move: {one_cpu:.1f} us of CPU, {one_reading:.1f} us of "
          f"it reading the trees")
    if apart is not None:
        print(f"(a2), (b) with this process on one CPU and the bots on another: floor {apart[0]:.1f} us, "
              f"referee {apart[1]:.1f} us a move ({apart[1] / apart[0]:.2f} x): every wake-up crosses CPUs")
    print(f"(d) two sandboxed first-legal-move SDK bots in turn: {d:.1f} us a move (rounds: "
          f"{', '.join(f'{x:.0f}' for x in sdks)})")
    print(f"SDK bot per move / echo bot: {sdk_ratio:.2f} x  (median of the rounds' ratios)")
    sdk_ms, bare_ms = start_to_ready_ms(sandbox)
    print(f"(c) sandboxed SDK bot start-to-ready: {sdk_ms:.1f} ms; bare python -c pass: {bare_ms:.1f} ms "
          f"({sdk_ms / bare_ms:.2f}x, target <= 2x)")
    print(f"# load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
