"""Waiting for a reply: the multiplexer polls for a while before it sleeps, where the
referee has a CPU to spare, and a reply is read whether it comes while it polls or
after it sleeps. Real sandboxed processes; no test asserts a duration."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.referee.channel import SPIN_S, BotChannel, BotFault, Multiplexer, OutputLimits, spin_seconds
from arena.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
# answers each line at once, but a line "wait" only once the next line has come
GATED_ECHO = ("import sys\n"
              "for line in sys.stdin:\n"
              "    if line.strip() == 'wait':\n"
              "        sys.stdin.readline()\n"
              "    print('got', line.strip(), flush=True)\n")


def test_spin_only_with_a_cpu_to_spare():
    code = ("import os\n"
            "from arena.referee.channel import spin_seconds\n"
            "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
            "print(spin_seconds())\n")
    one = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert float(one.stdout) == 0.0
    if len(os.sched_getaffinity(0)) > 1:
        assert spin_seconds() == SPIN_S > 0


@pytest.mark.parametrize("spin_s", [0.0, SPIN_S, 10.0])
def test_a_reply_is_read_while_polling_and_after_sleeping(spin_s):
    proc = Sandbox().start([sys.executable, "-c", GATED_ECHO])
    channel = BotChannel(proc, OutputLimits(), "echo")
    mux = Multiplexer([channel], spin_s)
    try:
        channel.request(["now"])       # answered at once: most likely read while polling
        assert mux.wait_line(channel, time.monotonic() + 30, "quick") == "got now"
        channel.request(["wait"])      # answered only once the next line comes
        # with a 10 s poll the wait still ends at its deadline; without a reply it is late
        with pytest.raises(BotFault, match="no reply"):
            mux.wait_line(channel, time.monotonic() + 0.05, "waiting", kill_on_timeout=False)
        channel.request(["go"], expects_reply=False)
        assert mux.wait_line(channel, time.monotonic() + 30, "waiting") == "got wait"
    finally:
        mux.close()
        proc.close()
