"""`arena match` as a test runner: two bots' games played by the league's executor, counted
from the first bot's side as they finish, stopped by an SPRT, stored to resume.

The games are fixtures as in a league: pair k has seed `seed + k` and one opening, the
first bot moves first in the pair's first game. The statistics are arena.stats's.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.league.config import BotConfig
from arena.league.drive import drive
from arena.league.executors.base import GameJob
from arena.league.executors.local import play_fixtures
from arena.league.pairs import Tally
from arena.league.progress import Progress
from arena.league.schedule import Fixture, fixture_key
from arena.league.sight import own_code
from arena.league.store import Store, VersionNote
from arena.record import GameRecord
from arena.referee import BotSpec, MatchSettings
from arena.referee.botspec import parse_command
from arena.stats import (
    Decision,
    MatchResults,
    Pentanomial,
    SprtSpec,
    SprtState,
    Summary,
    check,
    summarize,
)

#: games a test with --sprt plays at most when --games is not given
DEFAULT_SPRT_CAP = 2000

OpeningOf = Callable[[int, int], tuple[int, ...]]


def match_fixtures(a: str, b: str, games: int, seed: int,
                   opening_of: OpeningOf | None = None) -> list[Fixture]:
    """Games A-B, B-A, A-B, ...: pair k has seed seed + k and opening opening_of(k, seed + k)."""
    fixtures = []
    for i in range(games):
        k, swap = divmod(i, 2)
        opening = opening_of(k, seed + k) if opening_of is not None else ()
        seats = (a, b) if swap == 0 else (b, a)
        fixtures.append(Fixture(index=i, key=fixture_key(a, b, k, swap, opening), pairing=f"{a}|{b}",
                                seat0=seats[0], seat1=seats[1], seed=seed + k, round=i,
                                opening=opening))
    return fixtures


class MatchTally:
    """The first bot's results so far: every game one by one (results()), and the
    seat-swapped pairs as the SPRT reads them: in fixture order, pair k once it and every
    pair before it are complete (read_pair), whatever order games finish in. So the test
    reads the same pairs however many games are played at once, and after a stop and resume."""

    def __init__(self, a: str, b: str) -> None:
        self.a, self.b = a, b
        self._tally = Tally()          # every game counted
        self._in_order = Tally()       # the games of the pairs read
        self._waiting: dict[int, GameRecord] = {}   # fixture index -> a game not read yet
        self.pairs_read = 0

    def add(self, record: GameRecord, index: int | None = None) -> bool:
        """Count a finished game (index: its fixture's, pair index // 2, for the pairs read
        in order); True when it completed a pair."""
        if index is not None:
            self._waiting[index] = record
        return self._tally.add(record)

    def read_pair(self) -> bool:
        """Read the next pair in order if both its games are in; False if it is not complete."""
        first, second = 2 * self.pairs_read, 2 * self.pairs_read + 1
        if first not in self._waiting or second not in self._waiting:
            return False
        self._in_order.add(self._waiting.pop(first))
        self._in_order.add(self._waiting.pop(second))
        self.pairs_read += 1
        return True

    @property
    def pentanomial(self) -> Pentanomial:
        """The pairs read in order: what the SPRT is checked on."""
        return self._in_order.between(self.a, self.b).pairs

    def results(self) -> MatchResults:
        """Everything counted, as arena.stats takes it."""
        return self._tally.between(self.a, self.b)

    def results_read(self) -> MatchResults:
        """The games of the pairs read in order only: what a decided test reports."""
        return self._in_order.between(self.a, self.b)


def _read_pairs(tally: MatchTally, sprt: SprtSpec, state: SprtState) -> SprtState:
    """Read the pairs complete in order, checking the SPRT after each, up to a decision."""
    while state.decision is Decision.CONTINUE and tally.read_pair():
        state = check(sprt, tally.pentanomial)
    return state


@dataclass
class MatchOutcome:
    """How a match run ended."""

    results: MatchResults
    sprt: SprtState | None
    already: int            #: games stored before this run
    played: int             #: games this run played and counted
    interrupted: bool

    @property
    def decided(self) -> bool:
        return self.sprt is not None and self.sprt.decision is not Decision.CONTINUE


def run_match(job: GameJob, fixtures: list[Fixture], workers: int, tally: MatchTally,
              sprt: SprtSpec | None = None, store: Store | None = None,
              on_game: Callable[[Fixture, GameRecord], None] | None = None,
              progress: Progress | None = None,
              play: Callable[[GameJob, list[Fixture], int],
                             Iterator[tuple[Fixture, GameRecord]]] = play_fixtures) -> MatchOutcome:
    """Play the fixtures not stored yet on `workers` processes, counting each game as it
    ends; with an SPRT, check it after every pair read in order (MatchTally) and stop at a
    decision.

    At a stop (decision or Ctrl-C) the games still being played are discarded: their
    processes are killed and nothing of them is counted or stored. A decided test reports
    the games of the pairs it read; games finished beyond them are stored, not counted.
    Undecided (the cap, Ctrl-C), every stored game counts, a lone one unpaired.
    """
    already = 0
    if store is not None:
        stored = list(store.games.records(current=True))    # the games of the bots as they are now
        for game in stored:
            tally.add(game.record, game.fixture_index)
        already = len(stored)
    state = _read_pairs(tally, sprt, check(sprt, tally.pentanomial)) if sprt is not None else None
    todo = store.games.missing(fixtures) if store is not None else fixtures
    if state is not None and state.decision is not Decision.CONTINUE:
        todo = []

    def counted(fixture: Fixture, record: GameRecord) -> bool:
        """Count a stored game; True at the SPRT's decision."""
        nonlocal state
        tally.add(record, fixture.index)
        if sprt is not None and state is not None:
            state = _read_pairs(tally, sprt, state)
        if progress is not None:
            progress.update(record)
        if on_game is not None:
            on_game(fixture, record)
        return state is not None and state.decision is not Decision.CONTINUE

    # at a stop, drive closes the games: the workers are killed, games in flight discarded
    driven = drive(play(job, todo, workers), store, on_record=counted)
    decided = state is not None and state.decision is not Decision.CONTINUE
    # a decided test reports the pairs it read, as an uninterrupted run would: not the
    # games that happened to finish beyond them (they stay stored)
    return MatchOutcome(tally.results_read() if decided else tally.results(), state, already,
                        driven.played, driven.interrupted)


# --- what a user reads ------------------------------------------------------------------------

def _signed(value: float, digits: int) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.{digits}f}"     # + 0.0: never "-0.0"


def elo_text(summary: Summary, digits: int = 1) -> str:
    """'Elo +301.3 [+63.0, +888.4]': the Elo and its interval's ends. Never '+- half-width':
    the interval is the score interval's ends in Elo, lopsided by nature (+301 +- 416 read
    as if it held 0, where these ends do not), and infinite at a score of 1 or 0."""
    if summary.elo is None or summary.elo_low is None or summary.elo_high is None:
        return "Elo -"
    return (f"Elo {_signed(summary.elo, digits)} [{_signed(summary.elo_low, digits)}, "
            f"{_signed(summary.elo_high, digits)}]")


def status_text(results: MatchResults, state: SprtState | None) -> str:
    """The live line's numbers, short: W/D/L, score, Elo [95% ends], LOS, the LLR in its bounds."""
    s = summarize(results)
    parts = [f"{results.first} W{s.wins} D{s.draws} L{s.losses}"]
    if s.score is not None and s.los is not None:
        parts += [f"score {s.score:.3f}", elo_text(s, 0), f"LOS {100 * s.los:.1f}%"]
    if state is not None:
        parts.append(f"LLR {state.llr:.2f} [{state.lower:.2f}, {state.upper:.2f}]")
    return ", ".join(parts)


def verdict(outcome: MatchOutcome, spec: SprtSpec | None, cap: int) -> str:
    """How the match ended, in words."""
    a, b = outcome.results.first, outcome.results.second
    if outcome.sprt is not None and outcome.sprt.decision is Decision.H1:
        return f"H1 accepted: {a} is stronger"
    if outcome.sprt is not None and outcome.sprt.decision is Decision.H0 and spec is not None:
        return f"H0 accepted: {a} is not {spec.elo1:g} Elo stronger than {b} (elo0={spec.elo0:g} holds)"
    if outcome.interrupted:
        return "interrupted" + (" before a decision" if spec is not None else "")
    if spec is not None:
        return f"game cap reached ({cap} games) without a decision"
    return f"{_counted(outcome.results.games.games, 'game', 'games')} played"


def summary_lines(outcome: MatchOutcome, spec: SprtSpec | None, cap: int) -> list[str]:
    """The final summary, in the live line's terms."""
    r = outcome.results
    s = summarize(r)
    pentanomial = " ".join(map(str, s.pentanomial))
    head = (f"{r.first} vs {r.second}: {_counted(s.games, 'game', 'games')}, "
            f"{_counted(s.pairs, 'seat-swapped pair', 'seat-swapped pairs')}")
    lines = [f"{head} (pentanomial LL..WW {pentanomial})"]
    if s.score is not None and s.score_low is not None and s.score_high is not None \
            and s.los is not None and s.draw_rate is not None:
        lines.append(f"{r.first}: score {s.score:.3f} [{s.score_low:.3f}, {s.score_high:.3f}], "
                     f"{elo_text(s)} (95%), LOS {100 * s.los:.1f}%, draws {100 * s.draw_rate:.1f}%")
    if spec is not None and outcome.sprt is not None:
        st = outcome.sprt
        lines.append(f"SPRT {spec_text(spec)}: LLR {st.llr:.2f} [{st.lower:.2f}, {st.upper:.2f}] "
                     f"after {st.samples} pairs")
    lines.append(f"result: {verdict(outcome, spec, cap)}")
    g = r.games
    for name, (w, d, l) in ((r.first, (g.wins, g.draws, g.losses)),
                            (r.second, (g.losses, g.draws, g.wins))):
        lines.append(f"{name}: {_counted(w, 'win', 'wins')}, {_counted(d, 'draw', 'draws')}, "
                     f"{_counted(l, 'loss', 'losses')}")
    return lines


def _counted(n: int, one: str, many: str) -> str:
    """'1 win', '0 wins', '2 wins'."""
    return f"{n} {one if n == 1 else many}"


def spec_text(spec: SprtSpec) -> str:
    """'elo0=0,elo1=10,alpha=0.05,beta=0.05,model=logistic': a spec as --sprt takes it."""
    return (f"elo0={spec.elo0:g},elo1={spec.elo1:g},alpha={spec.alpha:g},beta={spec.beta:g},"
            f"model={spec.model}")


def _number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def summary_record(outcome: MatchOutcome, spec: SprtSpec | None, cap: int) -> dict[str, Any]:
    """The --json summary: {"summary": {...}}; Elo values that are infinite are null."""
    s = summarize(outcome.results)
    fields = {k: (_number(v) if isinstance(v, float) else v)
              for k, v in dataclasses.asdict(s).items()}
    fields["pentanomial"] = list(s.pentanomial)
    fields["elo_error"] = _number(s.elo_error)
    sprt = None
    if spec is not None and outcome.sprt is not None:
        sprt = {**dataclasses.asdict(spec), "llr": outcome.sprt.llr, "lower": outcome.sprt.lower,
                "upper": outcome.sprt.upper, "pairs": outcome.sprt.samples,
                "decision": outcome.sprt.decision.value}
    return {"summary": {"a": outcome.results.first, "b": outcome.results.second, **fields,
                        "sprt": sprt, "cap": cap, "result": verdict(outcome, spec, cap),
                        "stored_before": outcome.already, "played": outcome.played,
                        "interrupted": outcome.interrupted}}


# --- the store's record of what was played ----------------------------------------------------

def bot_identity(spec: BotSpec) -> dict[str, Any]:
    """Which bot a seat is, on a resume: its name. What it is (how it starts, its options,
    its files, what it reads) is its version, as in a league: match_bot_config."""
    return {"name": spec.name}


def match_bot_config(spec: BotSpec, reads: Iterable[str], plugins: Any) -> BotConfig:
    """A match's bot as a league config would give it, for its fingerprint
    (arena.league.versions): a registered bot with its options, or a command with its own
    directory; reads: the --read paths, which are the bot's too."""
    readable = tuple(Path(path) for path in reads)
    if plugins.bots.get(spec.spec) is not None:
        return BotConfig(name=spec.name, bot=spec.spec, options=dict(spec.options),
                         readable=readable)
    dialect, _, command = spec.spec.partition(":")
    code = own_code(parse_command(command))
    return BotConfig(name=spec.name, command=command, argv=spec.argv, dialect=dialect,
                     dir=code.parent if code is not None else None, readable=readable)


def version_lines(notes: Iterable[VersionNote], store: Store) -> list[str]:
    """What a resumed match says of its bots' versions: a changed bot's old games are not
    counted (and its current version plays its own); games stored before arena recorded
    versions count as the version fingerprinted now, as in a league."""
    lines = []
    for note in notes:
        versions = store.bots.versions(note.bot)
        old = sum(v.games for v in versions if v.version != note.version)
        if note.why == ["new bot"]:
            stored = sum(v.games for v in versions)
            if stored:
                lines.append(f"bot {note.bot!r}: its {stored} stored games were played before "
                             f"arena recorded bot versions; they count as its version now "
                             f"({note.fingerprint})")
        else:
            lines.append(f"bot {note.bot!r} changed since the stored games ({'; '.join(note.why)}): "
                         f"its {old} old games are not counted; its version {note.version} "
                         f"({note.fingerprint}) plays its own")
    return lines


def match_identity(game: str, rules: dict[str, Any], seed: int, openings: str,
                   bots: Iterable[BotSpec], settings: MatchSettings, memory_mb: int,
                   sprt: SprtSpec | None) -> dict[str, str]:
    """The store keys a resumed match must agree on (the cap and concurrency may change)."""
    def text(value: Any) -> str:
        return json.dumps(value, sort_keys=True)
    return {"game": game, "rules": text(rules), "seed": str(seed), "openings": openings,
            "match.bots": text([bot_identity(b) for b in bots]),
            "match.settings": text({"time": dataclasses.asdict(settings.time),
                                    "timeouts": dataclasses.asdict(settings.timeout_policy),
                                    "memory_mb": memory_mb}),
            "match.sprt": spec_text(sprt) if sprt is not None else "none"}
