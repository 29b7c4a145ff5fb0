"""The one loop of a run (a league, a match, a ladder): pull each record from an executor,
store it, tell the fixture source and the caller of it, and stop on the caller's word, a
cancellation token, or Ctrl-C/SIGTERM, closing the executor (which stops the games in
flight: they are played again next time)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from arena.record import GameRecord, Termination

from .schedule import Fixture
from .sources import FixtureSource
from .store import Store

#: told of each game played (not of aborted ones); True stops the run (a decision)
OnRecord = Callable[[Fixture, GameRecord], "bool | None"]


class CancelToken:
    """Stops a run from anywhere (another thread: a server, a test): the run stops before
    it reads its next record, as Ctrl-C stops it."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the run to stop."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once cancel() was called."""
        return self._event.is_set()


@dataclass
class Driven:
    """What drive did."""

    played: int = 0             #: games stored (or counted, without a store)
    interrupted: bool = False   #: stopped by Ctrl-C (or SIGTERM, which arena's CLI turns into it)
    cancelled: bool = False     #: stopped by the token
    decided: bool = False       #: stopped because on_record said so


def drive(games: Iterator[tuple[Fixture, GameRecord]], store: Store | None = None,
          source: FixtureSource | None = None, on_record: OnRecord | None = None,
          token: CancelToken | None = None) -> Driven:
    """Read every record of games (an executor's play): store each finished game at once,
    then tell the source (which may have new games once it knows) and on_record. An
    aborted game is neither stored nor counted (it is played again next time). Stops when
    games ends, on_record returns True, the token is cancelled or Ctrl-C comes; games is
    closed in every case. A StoreError propagates (what is stored stays stored)."""
    done = Driven()
    try:
        if token is not None and token.cancelled:
            done.cancelled = True
            return done
        for fixture, record in games:
            aborted = record.termination is Termination.ABORTED
            if store is not None and not aborted:
                store.games.add(fixture, record)
            if source is not None:
                source.done(fixture, record)     # stored first: a source may read the store
            if not aborted:
                done.played += 1
                if on_record is not None and on_record(fixture, record):
                    done.decided = True
                    break
            if token is not None and token.cancelled:
                done.cancelled = True
                break
    except KeyboardInterrupt:
        done.interrupted = True
    finally:
        close = getattr(games, "close", None)    # a generator's: it stops the workers
        if close is not None:
            close()
    return done
