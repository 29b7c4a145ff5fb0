"""The submission worker: takes received submissions in order through their sandboxed build,
(for a wheel) the finding of its bots, and a validation match, then accepts one (its bot's
earlier version replaced, the roster the ladder watches rewritten) or rejects it with the
reason, the build log and the stderr of the validation for its owner.

It runs as its own process beside the web server (`python -m arena.server.worker CONFIG`,
started by `arena serve`), so a build or a validation never slows a page. Nothing of a
submission runs in this process: its build, its plugin and its games run in the sandbox.

A stop (SIGTERM from `arena serve`, or Ctrl-C) never decides a submission: one being built
or validated goes back to received, and the next start takes it again. A validation cut
short by the stop, its bots killed with it, is no verdict on the bot.
"""

from __future__ import annotations

import shutil
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.plugins import loaded_plugins

from .build import build
from .config import ServerConfig, load_server
from .db import ServerDB, Submission
from .intake import absolute_command, command_problem
from .process import SubmissionError
from .roster import RosterEntry, write_roster
from .validation import validate
from .wheels import wheel_bots, wheel_entry

POLL_SECONDS = 0.3
#: set by the first stop signal: from then on no submission is accepted or rejected
STOPPING = threading.Event()


class Worker:
    """Works through a server's received submissions; keeps the roster to the accepted ones.
    Once `stopping` is set it decides none: the submission in hand is left unfinished."""

    def __init__(self, server: ServerConfig, db: ServerDB | None = None,
                 stopping: threading.Event | None = None) -> None:
        self.server = server
        self.db = db or ServerDB(server.database)
        self.stopping = stopping or threading.Event()
        self._written: list[RosterEntry] | None = None

    def entries(self) -> list[RosterEntry]:
        """The roster's extra bots: each bot's accepted submission's entry, by bot name."""
        return [RosterEntry.from_json(s.entry) for s in self.db.accepted() if s.entry]

    def sync_roster(self) -> Path | None:
        """Write the roster if the accepted bots changed since it was last written (always the
        first time); its path when written."""
        entries = self.entries()
        if entries == self._written:
            return None
        path = write_roster(self.server.path, entries, plugins=self.server.plugins)
        self._written = entries
        return path

    def step(self) -> Submission | None:
        """Take the oldest received submission through to accepted or rejected; None if none waits."""
        self.sync_roster()   # an admin's suspension, say
        submission = self.db.next_received()
        if submission is None:
            return None
        self.process(submission)
        return self.db.submission(submission.id)

    def process(self, submission: Submission) -> None:
        """Build, find, validate: accept or reject the submission."""
        folder = Path(submission.dir)
        log = ""
        try:
            self.db.set_status(submission.id, "building")
            if submission.build:
                result = build(folder, submission.build, self.server.build)
                log = result.log
                if not result.ok:
                    self._reject(submission, f"the build failed: {result.reason}", build_log=log)
                    return
            entry = self._entry(submission, folder)
            # the command as its owner gave it (./bot stays ./bot); a wheel's, as its plugin declares it
            self.db.set_status(submission.id, "validating", build_log=log,
                               command=submission.command or entry.command,
                               dialect=entry.dialect or "")
            workdir = self.server.data / "validations" / str(submission.id)
            shutil.rmtree(workdir, ignore_errors=True)
            try:
                verdict = validate(self.server.path, entry, self.server.validate_against,
                                   self.server.validate_games, workdir, plugins=self.server.plugins)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
            self._go_on()
            if not verdict.ok:
                self._reject(submission, f"validation against {self.server.validate_against}: {verdict.fault}",
                             build_log=log, stderr_tail=verdict.stderr_tail)
                return
            # the roster first: a roster the ladder would not take leaves the earlier version in play
            self._go_on()
            entries = [e for e in self.entries() if e.name != submission.bot] + [entry]
            entries.sort(key=lambda e: e.name)
            write_roster(self.server.path, entries, plugins=self.server.plugins)
            self._written = entries
            self.db.accept(submission.id, entry.to_json(), build_log=log,
                           message=f"{verdict.games} validation games against "
                                   f"{self.server.validate_against} without a fault; it plays in the ladder")
            self.sync_roster()
        except (SubmissionError, ArenaError) as exc:
            self._reject(submission, str(exc), build_log=log)
        except Exception as exc:   # a bug: the owner is told, the organiser gets the traceback
            self._reject(submission, f"the server failed on this submission ({type(exc).__name__}); "
                                     "the organiser has the details", build_log=log)
            raise

    def _entry(self, submission: Submission, folder: Path) -> RosterEntry:
        """The bot's entry in the roster: the wheel's bot for the game, or the command given."""
        if submission.kind == "wheel":
            game = self.server.league.game
            return RosterEntry.from_config(wheel_entry(wheel_bots(folder, game), submission.bot, game))
        problem = command_problem(submission.command, folder)
        if problem is not None:
            raise SubmissionError(problem)
        return RosterEntry(name=submission.bot, command=absolute_command(submission.command, folder),
                           dir=folder.resolve(), dialect=submission.dialect or None)

    def _go_on(self) -> None:
        """KeyboardInterrupt once the worker is stopping: what a stop cut short (a build
        killed, a validation whose games ended with it) decides nothing."""
        if self.stopping.is_set():
            raise KeyboardInterrupt

    def _reject(self, submission: Submission, message: str, **fields: str) -> None:
        self._go_on()
        self.db.set_status(submission.id, "rejected", message=message, **fields)


def run_worker(server: ServerConfig, out: Any = None, stopping: threading.Event = STOPPING) -> None:
    """Work until stopped (KeyboardInterrupt, with stopping set): a submission left half-way
    goes back to received, now and (after a kill) at the next start."""
    out = out or sys.stderr
    db = ServerDB(server.database)
    worker = Worker(server, db, stopping)
    again = db.requeue_unfinished()
    if again:
        print(f"arena serve: {again} submission(s) left half-way by the last run: taken again", file=out)
    try:
        while not stopping.is_set():
            try:
                done = worker.step()
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception:   # a bug: said, and the worker goes on with the next one
                print(f"arena serve: the worker failed:\n{traceback.format_exc()}", file=out)
                time.sleep(POLL_SECONDS)
                continue
            if done is not None:
                print(f"arena serve: submission {done.id} ({done.bot} #{done.number}): {done.status}"
                      f"{': ' + done.message if done.message else ''}", file=out, flush=True)
            else:
                time.sleep(POLL_SECONDS)
    finally:
        db.requeue_unfinished()


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM or SIGINT: no more decisions, and out of whatever the worker waits on (the
    first one only: a second, while it unwinds, would cut short its putting back)."""
    if not STOPPING.is_set():
        STOPPING.set()
        raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """`python -m arena.server.worker CONFIG`: the worker of `arena serve CONFIG`."""
    args = sys.argv[1:] if argv is None else argv
    for stop in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop, _stop)
    try:
        # this process's plugins, loaded once as it starts and passed down from here
        run_worker(load_server(args[0], loaded_plugins()))
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
