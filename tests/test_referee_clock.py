"""The clock: a bot that computes past its limit is late, on a quiet machine and on a
busy one; waiting for a CPU is forgiven, running never is. Real sandboxed processes;
no test asserts how fast anything runs (one asserts a causal bound: a move cannot
measure less than the CPU time the bot spent on it)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import arena.referee.referee as referee_module
from arena.games import default_registry
from arena.record import Termination
from arena.referee import BotSpec, MatchSettings, TimeControl, play_game
from arena.referee.botspec import ARENA_PACKAGE_DIR
from arena.referee.timecontrol import QUICK_S, MoveMeter
from arena.sandbox import Limits, Sandbox
from arena.sandbox.procfs import CpuMark, TreeUsage, process_cpu_ns

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "fixture_bots"
GOOD = BotSpec(name="good", argv=(sys.executable, str(ROOT / "examples" / "first_move_bot.py")),
               readable=(str(ROOT / "examples"), ARENA_PACKAGE_DIR))
ULTIMATE = default_registry().create("ultimate")
#: the issue's repro: 40 ms a move and the default 50 ms overhead; a load grace so large
#: that only the bot's running, never the cap on waiting, can make it late
FAST = MatchSettings(time=TimeControl(move_ms=40, startup_ms=5000, load_grace=100))


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(limits=Limits(memory_mb=256, cpu_seconds=30, processes=64))


def spinner(ms, procs=0):
    return BotSpec(name="spinner", argv=(sys.executable, str(BOTS / "spin_bot.py"), str(ms), str(procs)),
                   readable=(str(BOTS),))


@pytest.fixture
def hogs():
    """Two processes that keep a CPU busy each, as long as the test runs."""
    started = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    time.sleep(0.2)  # let them get going
    yield started
    for hog in started:
        hog.kill()
        hog.wait()


def test_a_bot_spinning_ten_times_its_limit_is_late(sandbox):
    record = play_game(ULTIMATE, (spinner(400), GOOD), 3, sandbox, FAST)
    assert record.termination is Termination.TIMEOUT and record.faulted == 0, record.reason
    assert "no reply to move 1" in record.reason


def test_a_bot_spinning_ten_times_its_limit_is_late_on_a_busy_machine(sandbox, hogs):
    for seat in (0, 1):
        bots = (spinner(400), GOOD) if seat == 0 else (GOOD, spinner(400))
        record = play_game(ULTIMATE, bots, 3, sandbox, FAST)
        assert all(hog.poll() is None for hog in hogs)
        assert record.termination is Termination.TIMEOUT and record.faulted == seat, record.reason


def test_cpu_of_every_process_of_the_bot_counts(sandbox, hogs):
    # the bot itself sleeps in waitpid while three children spin 10x the limit each
    record = play_game(ULTIMATE, (spinner(400, procs=3), GOOD), 3, sandbox, FAST)
    assert record.termination is Termination.TIMEOUT and record.faulted == 0, record.reason


def test_a_bot_well_within_its_limit_is_on_time_and_its_cpu_is_recorded(sandbox):
    settings = MatchSettings(time=TimeControl(move_ms=2000, startup_ms=5000))
    record = play_game(ULTIMATE, (spinner(30), GOOD), 3, sandbox, settings)
    assert record.termination is Termination.NORMAL, record.reason
    mine = [m for m in record.moves if m.seat == 0]
    # CPU from the request to the reply: the 30 ms of spinning show
    assert all(m.cpu_ms >= 20 for m in mine), [m.cpu_ms for m in mine]


@pytest.mark.parametrize("marked", [False, True], ids=["read first", "marked"])
def test_a_moves_cpu_time_is_what_the_bot_itself_measured_to_the_millisecond(sandbox, monkeypatch, marked):
    # The bot spins 5, 15 or 25 ms a move, measured by itself (time.process_time), and
    # reports each on stderr. Read in clock ticks (10 ms) each move was 5 ms off; in
    # nanoseconds only what the bot does outside its own measure (reading the request,
    # writing the reply: tens of microseconds) separates the two. Both ways of starting
    # the clock (MoveMeter): the tree read before the request, or its clocks marked.
    monkeypatch.setattr(referee_module, "_kept_to_my_cpu", lambda pid, mine: not marked)
    bot = BotSpec(name="reporter", argv=(sys.executable, str(BOTS / "cpu_report_bot.py")), readable=(str(BOTS),))
    settings = MatchSettings(time=TimeControl(move_ms=5000, startup_ms=5000))
    record = play_game(ULTIMATE, (bot, GOOD), 3, sandbox, settings)
    assert record.termination is Termination.NORMAL, record.reason
    measured = [m.cpu_ms for m in record.moves if m.seat == 0]
    spent = [float(line.split()[1]) for line in record.stderr_tails[0].splitlines() if line.startswith("spent ")]
    assert len(spent) == len(measured) >= 5, (spent, measured)
    for own, referee in zip(spent, measured):
        assert referee is not None and abs(referee - own) <= 1.0, list(zip(spent, measured))


def test_only_a_reply_too_quick_to_cost_anything_goes_unmeasured(sandbox):
    record = play_game(ULTIMATE, (GOOD, GOOD), 4, sandbox, MatchSettings(time=TimeControl(move_ms=2000)))
    assert record.termination is Termination.NORMAL, record.reason
    for move in record.moves:
        measured = move.cpu_ms is not None and move.wait_ms is not None
        assert measured or move.wall_ms <= QUICK_S * 1000, move


@pytest.fixture
def one_cpu():
    """This process, and the bots it starts, kept to one CPU (as a pinned league worker)."""
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    yield
    os.sched_setaffinity(0, allowed)


@pytest.mark.parametrize("marked", [False, True], ids=["read first", "marked"])
def test_a_bot_sharing_the_referees_cpu_is_timed_from_before_it_can_read_its_request(
        sandbox, one_cpu, monkeypatch, marked):
    # On one CPU the bot may run the moment its request is written, before the referee
    # runs again: the clock must already be going. The bot spins 5 ms of its own CPU time
    # after reading each request, so no move of its can measure less (a causal bound).
    # A bot kept to the referee's one CPU has its tree read before the request; others
    # have only their CPU clocks marked then (MoveMeter): here both ways, on one CPU.
    monkeypatch.setattr(referee_module, "_kept_to_my_cpu", lambda pid, mine: not marked)
    settings = MatchSettings(time=TimeControl(move_ms=2000, startup_ms=5000))
    for seed in (5, 6, 7):
        record = play_game(ULTIMATE, (spinner(5), GOOD), seed, sandbox, settings)
        assert record.termination is Termination.NORMAL, record.reason
        walls = [m.wall_ms for m in record.moves if m.seat == 0]
        assert min(walls) >= 5, walls


def test_a_bot_is_kept_to_the_referees_cpu_only_if_both_have_that_one_cpu_alone():
    kept = referee_module._kept_to_my_cpu
    allowed = os.sched_getaffinity(0)
    one = {min(allowed)}
    child = subprocess.Popen(["sleep", "60"])
    try:
        assert kept(child.pid, one) == (allowed == one)   # it may run on every CPU this test may
        os.sched_setaffinity(child.pid, one)
        assert kept(child.pid, one)
        if allowed != one:
            assert not kept(child.pid, allowed)   # a referee on several CPUs keeps no bot
    finally:
        child.kill()
        child.wait()
    assert not kept(child.pid, one)               # gone (reaped): not kept


def test_the_bots_a_one_cpu_referee_starts_are_kept_to_its_cpu(sandbox, one_cpu):
    # what play_game checks: a bot started by a worker pinned to one CPU inherits it
    proc = sandbox.start([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        mine = os.sched_getaffinity(0)
        assert len(mine) == 1 and referee_module._kept_to_my_cpu(proc.pid, mine)
    finally:
        proc.close()


# --- the rule itself, with the bot's tree readings given -------------------------------------

class FakeTree:
    """Readings of a bot's tree that the test moves forward by hand."""

    def __init__(self):
        self.cpu, self.wait, self.runnable = 0.0, 0.0, False

    def sample(self, states):
        return TreeUsage(self.cpu, {7: self.wait}, self.runnable and states)


def meter_after(tree, wall, grace=10.0):
    meter = MoveMeter(0.09, grace, tree.sample, lambda: 0.0)
    meter.start()
    meter.started -= wall
    return meter


def test_running_is_never_waiting():
    tree = FakeTree()
    meter = meter_after(tree, 0.1)
    tree.cpu, tree.runnable = 0.095, True  # state R all along: it was running
    assert "ms of CPU" in meter.judge()


def test_waiting_for_a_cpu_moves_the_deadline_and_sleeping_does_not():
    tree = FakeTree()
    meter = meter_after(tree, 0.3)
    tree.cpu, tree.wait = 0.03, 0.25  # 30 ms of thinking, 250 ms waiting for a CPU
    assert isinstance(meter.judge(), float)
    tree = FakeTree()
    meter = meter_after(tree, 0.3)
    tree.cpu, tree.wait = 0.03, 0.05  # the same wall time with little waiting: it slept
    assert "waiting for a CPU" in meter.judge()


def test_a_runnable_bot_is_given_time_only_up_to_the_load_grace():
    tree = FakeTree()
    meter = MoveMeter(0.09, 2.0, tree.sample, lambda: 0.0)
    meter.start()
    tree.runnable = True
    meter.started -= 0.2  # runnable, no CPU: waiting for one; not late yet
    assert isinstance(meter.judge(), float)
    meter.started -= 0.1  # 0.3 s >= 0.09 * (1 + 2)
    assert "load_grace" in meter.judge()


def test_the_referees_own_wait_is_forgiven_but_capped():
    tree = FakeTree()
    own = [0.0]
    meter = MoveMeter(0.09, 1.0, tree.sample, lambda: own[0])
    meter.start()
    meter.started -= 0.15
    own[0] = 0.08  # the referee waited 80 ms to read the reply
    meter.look()
    assert meter.used_s(0.15) == pytest.approx(0.07)
    own[0] = 0.5
    meter.look()
    assert meter.used_s(0.15) == pytest.approx(0.06)  # grace at most 1.0 x 0.09 s


def test_a_reply_is_free_only_if_no_reading_could_make_it_cost_anything():
    meter = MoveMeter(0.09, 10.0, FakeTree().sample, lambda: 0.0)
    meter.start()
    meter._cpus = 4
    soon = meter.started + QUICK_S / 2
    assert meter.free(soon, 0.05)                       # within QUICK_S, all within the slack
    assert not meter.free(meter.started + 2 * QUICK_S, 0.05)   # later than QUICK_S
    assert not meter.free(soon, 0.0)                    # overhead_ms 0: every reply measured
    assert not meter.free(soon, QUICK_S)    # 4 CPUs could have used 2 x QUICK_S: past the slack


def cpu_between_start_and_sent(mark):
    """What a meter counts for 20 ms of this process's CPU time spent between start() and
    sent(), the tree's own readings moving by nothing."""
    meter = MoveMeter(1.0, 10.0, FakeTree().sample, lambda: 0.0, mark)
    meter.start()
    spun = time.process_time()
    while time.process_time() - spun < 0.02:
        pass
    meter.sent()
    meter.look()
    return meter.cpu_s


def test_cpu_used_between_the_clocks_start_and_its_first_reading_counts():
    # start() only marks the tree's CPU clocks; the first reading comes after the request
    # is written (sent()). What the marked processes ran in between is the move's: here
    # this test's own process stands for a bot that ran before the referee could read.
    me = os.getpid()
    assert cpu_between_start_and_sent(lambda: CpuMark([(me, process_cpu_ns(me))])) >= 0.02


def test_where_the_cpu_since_the_mark_is_not_known_the_wall_time_since_stands_for_it():
    # a marked process gone by the first reading: its time since the mark is folded into
    # its parent's, which the reading takes as the base; the move is charged all the CPU
    # time the wall time since start() allows instead, never less
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert cpu_between_start_and_sent(lambda: CpuMark([(gone.pid, 0)])) >= 0.02
