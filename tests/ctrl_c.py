"""Ctrl-C for a process a test starts: tests that send SIGINT start it with
`preexec_fn=sigint_default`.

A test suite started in the background by a shell without job control (`nohup pytest &`,
some CI runners) runs with SIGINT ignored, every process it starts inherits that, and
Python leaves an ignored SIGINT ignored: the Ctrl-C the test sends would do nothing and the
test would wait out its hang guard and fail. The child gets SIGINT's default disposition
back before it runs, so Python installs its KeyboardInterrupt handler as it does under a
terminal."""

import signal


def sigint_default() -> None:
    """A preexec_fn for subprocess.Popen: SIGINT's default disposition in the child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
