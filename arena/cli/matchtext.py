"""What a user reads of `arena match`: the status line's numbers, the summary lines, the
--json summary record, and what a resumed match says of its bots' versions."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

from arena.league.store import Store, VersionNote
from arena.match import MatchOutcome
from arena.stats import Decision, MatchResults, SprtSpec, SprtState, Summary, summarize


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
        lines.append(f"SPRT {spec.text()}: LLR {st.llr:.2f} [{st.lower:.2f}, {st.upper:.2f}] "
                     f"after {st.samples} pairs")
    lines.append(f"result: {verdict(outcome, spec, cap)}")
    g = r.games
    for name, (w, d, l) in ((r.first, (g.wins, g.draws, g.losses)),
                            (r.second, (g.losses, g.draws, g.wins))):
        lines.append(f"{name}: {_counted(w, 'win', 'wins')}, {_counted(d, 'draw', 'draws')}, "
                     f"{_counted(l, 'loss', 'losses')}")
    return lines


def closing_line(outcome: MatchOutcome, spec: SprtSpec | None, cap: int) -> str:
    """The status line's last word: 'finished: 12 games played; result: H1 accepted: ...'."""
    return (f"{'stopped' if outcome.interrupted else 'finished'}: {outcome.played} "
            f"game{'s' * (outcome.played != 1)} played; result: {verdict(outcome, spec, cap)}")


def _counted(n: int, one: str, many: str) -> str:
    """'1 win', '0 wins', '2 wins'."""
    return f"{n} {one if n == 1 else many}"


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
