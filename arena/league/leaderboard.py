"""The league table and crosstable, derived from stored records, and their text formats."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.record import Termination

from .config import RatingConfig
from .ratings import GameRow, HistoryPoint, compute_ratings, exposed, points

FORMATS = ("table", "md", "csv", "json")
#: every kind of fault, in the order columns show them
FAULT_KINDS = tuple(t.value for t in Termination if t.is_fault)


@dataclass(frozen=True)
class Row:
    """One bot's line in the league table."""

    rank: int
    bot: str
    score: float            #: points: win 1, draw 0.5
    mu: float
    sigma: float
    exposed: float          #: mu - 3 sigma, what the table is sorted by
    games: int
    wins: int
    draws: int
    losses: int
    faults: Mapping[str, int]     #: termination value -> games this bot ended by that fault
    mean_move_ms: float | None    #: mean wall time of its moves; None without moves

    @property
    def fault_count(self) -> int:
        """Games this bot ended by a fault of any kind."""
        return sum(self.faults.values())


@dataclass(frozen=True)
class Cell:
    """Results of a row bot against a column bot, from the row bot's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Games the two played (that count in the standings)."""
        return self.wins + self.draws + self.losses

    @property
    def rates(self) -> tuple[float, float, float]:
        """Win, draw and loss rates of the row bot (zeros without games)."""
        n = self.games or 1
        return (self.wins / n, self.draws / n, self.losses / n)


@dataclass(frozen=True)
class Leaderboard:
    """Standings (rank order), crosstable (row bot -> column bot -> Cell) and rating history."""

    rows: tuple[Row, ...]
    crosstable: Mapping[str, Mapping[str, Cell]]
    history: Mapping[str, tuple[HistoryPoint, ...]] = field(default_factory=dict)
    title: str = ""

    def cell(self, bot: str, opponent: str) -> Cell:
        """Results of bot against opponent (an empty Cell if they never met)."""
        return self.crosstable.get(bot, {}).get(opponent, Cell())


def build_leaderboard(games: Iterable[GameRow], settings: RatingConfig,
                      bots: Sequence[str] | None = None, title: str = "") -> Leaderboard:
    """The leaderboard of the games given in fixture order (see compute_ratings for bots)."""
    games = list(games)
    if bots is not None:
        wanted = set(bots)
        games = [g for g in games if {b.name for b in g[2].bots} <= wanted]
    rating = compute_ratings(games, settings, bots)
    names = list(rating.ratings)
    for _key, _index, record in games:
        names += [b.name for b in record.bots if b.name not in names]
    faults: dict[str, dict[str, int]] = {name: {} for name in names}
    move_ms: dict[str, list[float]] = {name: [] for name in names}
    cross: dict[str, dict[str, list[int]]] = {name: {} for name in names}   # [wins, draws, losses]
    for _key, _index, record in games:
        seats = [b.name for b in record.bots]
        for move in record.moves[record.opening:]:   # the opening's moves took no time
            move_ms[seats[move.seat]].append(move.wall_ms)
        if record.termination.is_fault and record.faulted is not None:
            kinds = faults[seats[record.faulted]]
            kinds[record.termination.value] = kinds.get(record.termination.value, 0) + 1
        result = points(record, settings.faults_count_as_losses)
        if result is None:
            continue
        for seat, name in enumerate(seats):
            mine, theirs = result[seat], result[1 - seat]
            column = 0 if mine > theirs else 2 if mine < theirs else 1
            cross[name].setdefault(seats[1 - seat], [0, 0, 0])[column] += 1

    final = {name: rating.ratings.get(name, rating.env.create_rating()) for name in names}
    exposure = {name: exposed(r) for name, r in final.items()}
    order = sorted(names, key=lambda name: (-exposure[name], name))
    rows: list[Row] = []
    for position, name in enumerate(order, 1):
        rank = rows[-1].rank if rows and rows[-1].exposed == exposure[name] else position
        r = final[name]
        wins, draws, losses = (sum(cell[i] for cell in cross[name].values()) for i in range(3))
        times = move_ms[name]
        rows.append(Row(
            rank=rank, bot=name, score=wins + 0.5 * draws, mu=r.mu, sigma=r.sigma,
            exposed=exposure[name], games=wins + draws + losses,
            wins=wins, draws=draws, losses=losses,
            faults={kind: faults[name][kind] for kind in FAULT_KINDS if kind in faults[name]},
            mean_move_ms=sum(times) / len(times) if times else None))
    crosstable = {name: {other: Cell(*cross[name][other]) for other in order if other in cross[name]}
                  for name in order}
    return Leaderboard(rows=tuple(rows), crosstable=crosstable, history=rating.history,
                       title=title)


# --- formats --------------------------------------------------------------------------------

def render(board: Leaderboard, fmt: str = "table") -> str:
    """The leaderboard as text: table (terminal), md, csv (standings only) or json."""
    if fmt == "table":
        return _render_table(board)
    if fmt == "md":
        return _render_md(board)
    if fmt == "csv":
        return _render_csv(board)
    if fmt == "json":
        return json.dumps(_as_dict(board), indent=2) + "\n"
    raise ValueError(f"unknown leaderboard format {fmt!r}; formats: {', '.join(FORMATS)}")


_HEADERS = ("rank", "bot", "score", "mu", "sigma", "exposed", "games", "W", "D", "L", "faults",
            "move ms")
_LEFT = {"bot", "faults"}


def _row_cells(row: Row) -> list[str]:
    detail = ", ".join(f"{kind} {n}" for kind, n in row.faults.items())
    return [str(row.rank), row.bot, f"{row.score:g}", f"{row.mu:.2f}", f"{row.sigma:.2f}",
            f"{row.exposed:.2f}", str(row.games), str(row.wins), str(row.draws), str(row.losses),
            f"{row.fault_count} ({detail})" if detail else "0",
            "-" if row.mean_move_ms is None else f"{row.mean_move_ms:.1f}"]


def format_cell(cell: Cell | None) -> str:
    """A crosstable cell as in seed 001's Table 1: '.55, .20, .26 (1000)'; '-' if never met."""
    if cell is None or not cell.games:
        return "-"
    return ", ".join(_rate(x) for x in cell.rates) + f" ({cell.games})"


def _rate(x: float) -> str:
    text = f"{x:.2f}"
    return text[1:] if text.startswith("0") else text


def _cross_rows(board: Leaderboard) -> tuple[list[str], list[list[str]]]:
    names = [row.bot for row in board.rows]
    header = ["vs"] + names
    body = [[name] + ["" if name == other else format_cell(board.crosstable[name].get(other))
                      for other in names] for name in names]
    return header, body


def _aligned(header: Sequence[str], body: Sequence[Sequence[str]], left: set[int]) -> list[str]:
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    def fmt(line: Sequence[str]) -> str:
        return "  ".join(text.ljust(w) if i in left else text.rjust(w)
                         for i, (text, w) in enumerate(zip(line, widths))).rstrip()
    return [fmt(header), "  ".join("-" * w for w in widths), *map(fmt, body)]


def _render_table(board: Leaderboard) -> str:
    lines = [board.title, ""] if board.title else []
    left = {i for i, h in enumerate(_HEADERS) if h in _LEFT}
    lines += _aligned(_HEADERS, [_row_cells(row) for row in board.rows], left)
    header, body = _cross_rows(board)
    lines += ["", "row vs column: win, draw, loss rates (games)", ""]
    lines += _aligned(header, body, {0})
    return "\n".join(lines) + "\n"


def _md_table(header: Sequence[str], body: Sequence[Sequence[str]], left: set[int]) -> list[str]:
    rule = ["---" if i in left else "---:" for i in range(len(header))]
    return ["| " + " | ".join(line) + " |" for line in [header, rule, *body]]


def _render_md(board: Leaderboard) -> str:
    lines = [f"## {board.title}", ""] if board.title else []
    left = {i for i, h in enumerate(_HEADERS) if h in _LEFT}
    lines += _md_table(_HEADERS, [_row_cells(row) for row in board.rows], left)
    header, body = _cross_rows(board)
    lines += ["", "Row vs column: win, draw, loss rates of the row bot (games).", ""]
    lines += _md_table(header, body, {0})
    return "\n".join(lines) + "\n"


def _render_csv(board: Leaderboard) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rank", "bot", "score", "mu", "sigma", "exposed", "games", "wins", "draws",
                     "losses", "faults", *(f"faults_{kind}" for kind in FAULT_KINDS),
                     "mean_move_ms"])
    for row in board.rows:
        writer.writerow([row.rank, row.bot, row.score, round(row.mu, 4), round(row.sigma, 4),
                         round(row.exposed, 4), row.games, row.wins, row.draws, row.losses,
                         row.fault_count, *(row.faults.get(kind, 0) for kind in FAULT_KINDS),
                         "" if row.mean_move_ms is None else round(row.mean_move_ms, 3)])
    return out.getvalue()


def _as_dict(board: Leaderboard) -> dict[str, Any]:
    rows = [{"rank": r.rank, "bot": r.bot, "score": r.score, "mu": r.mu, "sigma": r.sigma,
             "exposed": r.exposed, "games": r.games, "wins": r.wins, "draws": r.draws,
             "losses": r.losses, "faults": dict(r.faults), "mean_move_ms": r.mean_move_ms}
            for r in board.rows]
    cross = {name: {other: {"wins": c.wins, "draws": c.draws, "losses": c.losses,
                            "games": c.games, "text": format_cell(c)}
                    for other, c in cells.items()}
             for name, cells in board.crosstable.items()}
    return {"title": board.title, "rows": rows, "crosstable": cross}
