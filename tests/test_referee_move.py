"""A move as its own object: any lines sent to a seat and any number of lines read back, timed
by the seat's clock, its fault the seat's. The shape a turn relayed between a referee process
and a seat takes (the seat's ###Input lines written, its M lines of ###Output read back):
here over a real sandboxed process, with no game at all."""

import sys

import pytest

from arena.record import Termination
from arena.referee import BotSpec, MatchSettings, TimeControl, dialect_of
from arena.referee.channel import BotChannel, BotFault, Multiplexer, OutputLimits
from arena.referee.move import Move, Seat
from arena.sandbox import Limits, Sandbox

# for a line that starts with a count, prints that many lines (for '2/3': 2), else nothing
ECHO_LINES = ("import sys\n"
              "for line in sys.stdin:\n"
              "    count = line.split('/')[0].strip()\n"
              "    for i in range(int(count) if count.isdigit() else 0):\n"
              "        print('line', i, flush=True)\n")
SETTINGS = MatchSettings(time=TimeControl(move_ms=200, startup_ms=10000))


@pytest.fixture
def seat():
    # a dialect without a handshake: start-up happens on the first move, which may take it
    seat = Seat(0, BotSpec(name="relayed", argv=(sys.executable, "-c", ECHO_LINES)), SETTINGS.time,
                dialect_of("codingame"))
    proc = Sandbox(limits=Limits(memory_mb=256, cpu_seconds=30)).start(list(seat.spec.argv))
    seat.channel = BotChannel(proc, OutputLimits(), seat.spec.name)
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
