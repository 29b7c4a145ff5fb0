"""A move as its own object: any lines sent to a seat and any number of lines read back, timed
by the seat's clock, its fault the seat's. The shape a turn relayed between a referee process
and a seat takes (the seat's ###Input lines written, its M lines of ###Output read back):
here over a real sandboxed process, with no game at all."""

import os
import sys

import pytest

from arena.record import Termination
from arena.referee import BotSpec, MatchSettings, TimeControl, TimeoutPolicy, dialect_of
from arena.referee.channel import BotChannel, BotFault, Multiplexer, OutputLimits
from arena.referee.move import Move, Seat
from arena.sandbox import Limits, Sandbox

# for a line that starts with a count, prints that many lines (for '2/3': 2), else nothing
ECHO_LINES = ("import sys\n"
              "for line in sys.stdin:\n"
              "    count = line.split('/')[0].strip()\n"
              "    for i in range(int(count) if count.isdigit() else 0):\n"
              "        print('line', i, flush=True)\n")
# for 'K GO M SENT': prints K lines, waits at the FIFO GO, prints the rest of M lines, late,
# then writes 'sent' to the FIFO SENT (sandboxed bots write no files, but a FIFO carries a gate)
GATED_LINES = ("import sys\n"
               "for line in sys.stdin:\n"
               "    count, go, lines, sent = line.split()\n"
               "    for i in range(int(count)):\n"
               "        print('line', i, flush=True)\n"
               "    if go != '-':\n"
               "        open(go).readline()\n"
               "        for i in range(int(count), int(lines)):\n"
               "            print('late', i, flush=True)\n"
               "        open(sent, 'w').write('sent\\n')\n")
SETTINGS = MatchSettings(time=TimeControl(move_ms=200, startup_ms=10000))


def start_seat(program: str, readable: tuple[str, ...] = ()):
    # a dialect without a handshake: start-up happens on the first move, which may take it
    seat = Seat(0, BotSpec(name="relayed", argv=(sys.executable, "-c", program)), SETTINGS.time,
                dialect_of("codingame"))
    proc = Sandbox(limits=Limits(memory_mb=256, cpu_seconds=30)).start(list(seat.spec.argv), readable=list(readable))
    seat.channel = BotChannel(proc, OutputLimits(), seat.spec.name)
    return seat, proc


@pytest.fixture
def seat():
    seat, proc = start_seat(ECHO_LINES)
    yield seat
    proc.close()


def test_a_move_of_given_lines_reads_its_reply_lines_back_and_a_short_reply_is_the_seats_timeout(seat):
    assert seat.channel is not None
    mux = Multiplexer([seat.channel])
    try:
        first = Move(seat, SETTINGS, ["3", "and a line it reads without a word"], "move 1", replies=3)
        wait = first.send()
        assert wait.when == "to move 1 within 10200 ms"     # the first move may take the start-up
        assert first.judge(mux.wait_reply(wait)).splitlines() == ["line 0", "line 1", "line 2"]
        assert first.record("relayed").move == "relayed"

        second = Move(seat, SETTINGS, ["2/3"], "move 2", replies=3)
        wait = second.send()
        assert wait.when == "to move 2 within 200 ms"
        with pytest.raises(BotFault) as raised:
            second.judge(mux.wait_reply(wait))
        fault = second.seat_fault(raised.value)
        assert second.struck(fault) is None     # no strikes: the timeout is the seat's fault
        assert fault.termination is Termination.TIMEOUT
        assert fault.reason.startswith("no reply to move 2 within 200 ms")
        assert "it had printed 2 of its 3 lines" in fault.reason
    finally:
        mux.close()


def test_a_reply_of_several_lines_given_up_on_is_dropped_whole_and_the_next_reply_is_the_next_lines(tmp_path):
    # the bot prints 1 of 3 lines, then waits at a gate the test opens only after the strike;
    # the 2 late lines are read before the next request, whose reply is the 3 lines after them
    go, sent = tmp_path / "go", tmp_path / "sent"
    for fifo in (go, sent):
        os.mkfifo(fifo, 0o666)
        fifo.chmod(0o666)     # a bot runs as a uid of its own
    tmp_path.chmod(0o755)
    settings = MatchSettings(time=SETTINGS.time, timeout_policy=TimeoutPolicy(mode="strikes", strikes=1))
    seat, proc = start_seat(GATED_LINES, (str(tmp_path),))
    assert seat.channel is not None
    mux = Multiplexer([seat.channel])
    try:
        first = Move(seat, settings, ["1 - 1 -"], "move 1")     # the start-up's move
        assert first.judge(mux.wait_reply(first.send())) == "line 0"

        late = Move(seat, settings, [f"1 {go} 3 {sent}"], "move 2", replies=3)
        with pytest.raises(BotFault) as raised:
            late.judge(mux.wait_reply(late.send()))
        assert "it had printed 1 of its 3 lines" in raised.value.reason
        assert late.struck(raised.value) == "timeout strike 1 of 1"
        with open(go, "w") as gate:
            gate.write("go\n")
        with open(sent) as done:
            assert done.readline() == "sent\n"    # its 2 late lines are in the pipe
        mux.poll_others()

        after = Move(seat, settings, ["3 - 3 -"], "move 3", replies=3)
        assert after.judge(mux.wait_reply(after.send())).splitlines() == ["line 0", "line 1", "line 2"]
        assert seat.channel.healthy
    finally:
        mux.close()
        proc.close()
