"""The helper that the tests sending SIGINT share (tests/ctrl_c.py) gives the child Ctrl-C
back when the suite runs with SIGINT ignored, as under `nohup pytest &` (issue 34, item 22)."""

import signal
import subprocess
import sys

from ctrl_c import sigint_default

SHOW = ("import signal\nnow = signal.getsignal(signal.SIGINT)\n"
        "print('ignored' if now == signal.SIG_IGN else getattr(now, '__name__', now), flush=True)")
WAIT = SHOW + "\nimport time\ntime.sleep(600)"


def test_a_child_started_with_the_helper_stops_on_ctrl_c_though_the_suite_ignores_it():
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)   # as `nohup pytest &` starts us
    try:
        plain = subprocess.run([sys.executable, "-c", SHOW], capture_output=True, text=True,
                               check=True, timeout=60)
        assert plain.stdout.strip() == "ignored"    # what a Ctrl-C test used to meet
        child = subprocess.Popen([sys.executable, "-c", WAIT], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    finally:
        signal.signal(signal.SIGINT, before)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "default_int_handler"   # its handler is in place
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)                    # a hang guard
    finally:
        child.kill()
    assert child.returncode != 0 and "KeyboardInterrupt" in err, (child.returncode, err)
