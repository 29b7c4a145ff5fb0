"""A submission's untrusted steps, each in the bwrap sandbox, in one place to import them
from: its build (build.py), the bots a wheel's plugin declares (wheels.py), its validation
match against a bot of the ladder (validation.py); and the roster file the running ladder
watches, where an accepted bot joins (roster.py), each entry checked as a submission
(admission.py). An untrusted process is run through process.py.

Nothing of a submission runs in the calling process: a build is `sh -c` in bwrap with its
work directory the only place it may write, a wheel's plugin is imported by a loader of ours
in bwrap (arena.server.wheel_loader), and a validation game is the referee's, as in any league.
"""

from __future__ import annotations

from .admission import confine
from .build import BuildLimits, BuildResult, build
from .process import SubmissionError
from .roster import roster_path, write_roster
from .validation import Validation, validate
from .wheels import wheel_bots

__all__ = ["BuildLimits", "BuildResult", "SubmissionError", "Validation", "build", "confine", "roster_path",
           "validate", "wheel_bots", "write_roster"]
