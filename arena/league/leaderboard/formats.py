"""A leaderboard as text: the output formats registered by name (arena.league.plugin
registers table, md, csv and json, so a plugin adds its own), and the live table's top
lines (render_top)."""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Sequence
from typing import Any, Protocol

from arena.plugins import Plugins, plugins_or_loaded

from .board import FAULT_KINDS, MARKS, SIGNIFICANT_LOS, Cell, Leaderboard, Row


class OutputFormat(Protocol):
    """A leaderboard as text: the board, and whether the crosstable may be wide."""

    def __call__(self, board: Leaderboard, wide: bool = False) -> str: ...


def render(board: Leaderboard, fmt: str = "table", wide: bool = False,
           plugins: Plugins | None = None) -> str:
    """The leaderboard in an output format of the plugins (by default the loaded ones): table
    (terminal), md, csv (standings only), json, or a plugin's; the table's crosstable is
    compact (fits 100 columns) unless wide. UnknownNameError names the formats there are."""
    renderer = plugins_or_loaded(plugins).output_formats.require(fmt)
    return renderer(board, wide=wide)


def rating_headers(board: Leaderboard) -> list[str]:
    """The rating system's column headings: "mu", "sigma", "exposed"."""
    return [column.key for column in board.system.columns]


def rating_texts(row: Row) -> list[str]:
    """A row's rating figures as the text formats show them."""
    return [f"{x:.2f}" for x in row.rating.figures]


def _headers(board: Leaderboard) -> list[str]:
    return ["rank", "bot", "score", *rating_headers(board), "LOS>next", "Elo", "+-95%", "games",
            *(["mean rank", "firsts"] if board.ffa else []),
            "W", "D", "L", "faults", "move ms", *(["marks"] if board.min_games is not None else [])]


_LEFT = {"bot", "faults", "LOS>next", "marks"}
#: after a LOS below SIGNIFICANT_LOS: this bot and the next may well be in the other order
NOT_SIGNIFICANT = "~"


def _row_cells(board: Leaderboard, row: Row) -> list[str]:
    detail = ", ".join(f"{kind} {n}" for kind, n in row.faults.items())
    marks = [", ".join(row.marks)] if board.min_games is not None else []
    return [str(row.rank), row.bot, f"{row.score:g}", *rating_texts(row), _los_cell(row),
            *_elo_cells(row), str(row.games), *_place_cells(board, row), str(row.wins),
            str(row.draws), str(row.losses), f"{row.fault_count} ({detail})" if detail else "0",
            "-" if row.mean_move_ms is None else f"{row.mean_move_ms:.1f}", *marks]


def _place_cells(board: Leaderboard, row: Row) -> list[str]:
    """A free-for-all row's mean rank and first places (none for a board of two seats)."""
    if not board.ffa:
        return []
    return ["-" if row.mean_rank is None else f"{row.mean_rank:.2f}", str(row.firsts or 0)]


def _marks_note(board: Leaderboard) -> list[str]:
    """A ladder's lines on its marks: what each means, then why each suspended bot is."""
    if board.min_games is None:
        return []
    # new and suspended always (what the ladder's own standings mark); the marks of
    # history only on a table that shows them (--all-versions)
    shown = {"new", "suspended"} | {mark for row in board.rows for mark in row.marks}
    words = "marks: " + "; ".join(f"{mark}: {text.format(min_games=board.min_games)}"
                                  for mark, text in MARKS.items() if mark in shown) + "."
    why = [f"{row.bot}: suspended, {row.suspended}" for row in board.rows if row.suspended]
    return [*textwrap.wrap(words, LEGEND_WIDTH), *why]


def _los_cell(row: Row) -> str:
    """The LOS over the next row, marked when not significant; empty without one."""
    if row.los_next is None:
        return ""
    return _percent(row.los_next) + ("" if row.significant else " " + NOT_SIGNIFICANT)


def _elo_cells(row: Row) -> list[str]:
    """The fit's Elo and its 95% half-width ("-" for a bot outside the fit)."""
    if row.elo is None or row.elo_error is None:
        return ["-", "-"]
    return [f"{row.elo:+.0f}", f"{row.elo_error:.0f}"]


def _percent(p: float) -> str:
    """A probability as 53.1%; never 100.0% or 0.0% for what is only nearly sure."""
    return ">99.9%" if p >= 0.9995 else "<0.1%" if p < 0.0005 else f"{100 * p:.1f}%"


def _elo_note(board: Leaderboard) -> list[str]:
    """The lines under the standings that say which model LOS>next and Elo come from."""
    anchor = f"{board.elo_anchor} at 0" if board.elo_anchor else "mean 0"
    source = board.system.words.los
    los = (f"LOS>next: the chance, {source}, that a bot is stronger than the next one down, "
           f"{NOT_SIGNIFICANT} below {100 * SIGNIFICANT_LOS:.0f}% (order not significant)."
           if source else "LOS>next: none (the rating system gives no chance of superiority).")
    elo = (f"Elo: fit over all games ({anchor}), a model of its own (it may order two bots "
           "otherwise), +-95% its interval.")
    return [*textwrap.wrap(los, LEGEND_WIDTH), *textwrap.wrap(elo, LEGEND_WIDTH)]


def referee_note(board: Leaderboard) -> str | None:
    """Under the standings of games played by a referee process: whether a seat-swapped pair
    (a rotation) played one map, and the games void by the referee's fault; None for a game
    of rules in arena."""
    if board.referee is None:
        return None
    name, seeded, void = board.referee
    pairs = ("the games of a seat-swapped pair (of a rotation) played the same seed, told to it"
             if seeded else "it takes no seed, so the two games of a seat-swapped pair are independent "
             "games, not one map played from both seats")
    voided = (f"; {void} game{'s were' if void != 1 else ' was'} void (the referee failed them), "
              "counted for no one" if void else "")
    return f"Games played by the referee process {name} (docs/referees.md): {pairs}{voided}."


def _referee_note(board: Leaderboard) -> list[str]:
    note = referee_note(board)
    return [] if note is None else textwrap.wrap(note, LEGEND_WIDTH)


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


def render_table(board: Leaderboard, wide: bool = False) -> str:
    """The terminal table: standings, what they mean, and the crosstable."""
    lines = [board.title, ""] if board.title else []
    headers = _headers(board)
    left = {i for i, h in enumerate(headers) if h in _LEFT}
    lines += _aligned(headers, [_row_cells(board, row) for row in board.rows], left)
    lines += _legend(board)
    lines += _elo_note(board)
    lines += _referee_note(board)
    lines += _marks_note(board)
    if wide:
        header, body = _cross_rows(board)
        lines += ["", "row vs column: win, draw, loss rates (games)", ""]
        lines += _aligned(header, body, {0})
    else:
        lines += _compact_cross(board)
    return "\n".join(lines) + "\n"


def render_top(board: Leaderboard, rows: int = 10) -> list[str]:
    """The first rows of the table, as lines: the live standings of a run (arena run), its
    ranking figure and LOS>next first, then the fit's Elo and interval, marked as the full
    table marks them."""
    shown = board.rows[:rows]
    ranking = [c.key for c in board.system.columns if c.ranks][:1] or ["rating"]
    headers = ["rank", "bot", *ranking, "LOS>next", "score", "games", "W", "D", "L", "Elo", "+-95%"]
    body = [[str(r.rank), r.bot, f"{r.rating.value:.2f}", _los_cell(r), f"{r.score:g}",
             str(r.games), str(r.wins), str(r.draws), str(r.losses), *_elo_cells(r)]
            for r in shown]
    left = {i for i, h in enumerate(headers) if h in _LEFT}
    more = len(board.rows) - len(shown)
    tail = [f"... and {more} more"] if more > 0 else []
    return _aligned(headers, body, left) + tail


def _legend(board: Leaderboard) -> list[str]:
    """What the table's columns mean, under it: the rating system's words, then the rest."""
    more = f" {FFA_LEGEND}" if board.ffa else ""
    return ["", *textwrap.wrap(f"{board.system.words.legend} {LEGEND}{more}", LEGEND_WIDTH)]


LEGEND = ("score: win 1, draw 1/2; faults: games the bot lost by misbehaving (timeout, crash, "
          "...); move ms: mean time per move.")
LEGEND_WIDTH = 94
FFA_LEGEND = ("Games of more than two seats: mean rank: mean place (1 first, ties share the "
              "best); firsts: games finished first; W D L, score, Elo and the crosstable count "
              "each game as its pairwise results (ahead of a bot: a win, tied: a draw).")


COMPACT_COLUMNS = 100   #: the compact crosstable fits this many columns up to ~20 bots


def _compact_cross(board: Leaderboard) -> list[str]:
    """The crosstable in 100 columns: rows numbered by rank, columns by those numbers, each
    cell the row bot's score against the column bot in percent (win 1, draw 1/2)."""
    names = [row.bot for row in board.rows]
    number = len(str(len(names)))
    # 4 characters a column ("100" and a space), then " games"; names get what is left
    room = COMPACT_COLUMNS - 4 * len(names) - 6 - number - 1
    width = max(8, min(max((len(n) for n in names), default=2), room))
    lines = ["", "row vs column: score of the row bot in % (win 1, draw 1/2); columns by rank; --wide for",
             "win, draw, loss rates", "",
             " " * (number + 1 + width) + "".join(f"{i:>4}" for i in range(1, len(names) + 1))
             + " games"]
    for i, name in enumerate(names, 1):
        cells, games = [], 0
        for other in names:
            cell = board.crosstable[name].get(other) if name != other else None
            games += cell.games if cell else 0
            cells.append("" if name == other else "-" if not cell or not cell.games
                         else f"{100 * (cell.wins + 0.5 * cell.draws) / cell.games:.0f}")
        lines.append(f"{i:>{number}} {_cut(name, width):<{width}}"
                     + "".join(f"{c:>4}" for c in cells) + f" {games:>5}")
    return lines


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "~"


def _md_table(header: Sequence[str], body: Sequence[Sequence[str]], left: set[int]) -> list[str]:
    rule = ["---" if i in left else "---:" for i in range(len(header))]
    return ["| " + " | ".join(line) + " |" for line in [header, rule, *body]]


def render_md(board: Leaderboard, wide: bool = False) -> str:
    """Markdown: the standings and the wide crosstable."""
    lines = [f"## {board.title}", ""] if board.title else []
    headers = _headers(board)
    left = {i for i, h in enumerate(headers) if h in _LEFT}
    lines += _md_table(headers, [_row_cells(board, row) for row in board.rows], left)
    lines += ["", *_elo_note(board), *_referee_note(board), *_marks_note(board)]
    header, body = _cross_rows(board)
    lines += ["", "Row vs column: win, draw, loss rates of the row bot (games).", ""]
    lines += _md_table(header, body, {0})
    return "\n".join(lines) + "\n"


def render_csv(board: Leaderboard, wide: bool = False) -> str:
    """CSV: one line a bot, every figure of the standings."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    places = ["mean_rank", "firsts"] if board.ffa else []
    writer.writerow(["rank", "bot", "score", *rating_headers(board), "games", *places, "wins", "draws",
                     "losses", "faults", *(f"faults_{kind}" for kind in FAULT_KINDS),
                     "mean_move_ms", *_ELO_FIELDS, "version", "fingerprint",
                     *(["marks", "suspended"] if board.min_games is not None else [])])
    for row in board.rows:
        writer.writerow([row.rank, row.bot, row.score, *(round(x, 4) for x in row.rating.figures),
                         row.games, *([_csv_value(row.mean_rank), row.firsts] if places else []),
                         row.wins, row.draws, row.losses,
                         row.fault_count, *(row.faults.get(kind, 0) for kind in FAULT_KINDS),
                         "" if row.mean_move_ms is None else round(row.mean_move_ms, 3),
                         *(_csv_value(v) for v in _elo_values(row).values()),
                         "" if row.version is None else row.version, row.fingerprint or "",
                         *([" ".join(row.marks), row.suspended or ""]
                           if board.min_games is not None else [])])
    return out.getvalue()


def _csv_value(value: Any) -> Any:
    """A figure as csv writes it: empty for none, true/false as json writes them."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def render_json(board: Leaderboard, wide: bool = False) -> str:
    """JSON: the standings and the crosstable, every figure."""
    return json.dumps(_as_dict(board), indent=2) + "\n"


def _as_dict(board: Leaderboard) -> dict[str, Any]:
    keys = rating_headers(board)
    rows = [{"rank": r.rank, "bot": r.bot, "score": r.score, **dict(zip(keys, r.rating.figures)),
             "games": r.games,
             **({"mean_rank": r.mean_rank, "firsts": r.firsts} if board.ffa else {}),
             "wins": r.wins, "draws": r.draws,
             "losses": r.losses, "faults": dict(r.faults), "mean_move_ms": r.mean_move_ms,
             **_elo_values(r), "version": r.version, "fingerprint": r.fingerprint,
             **({"marks": list(r.marks), "suspended": r.suspended}
                if board.min_games is not None else {})}
            for r in board.rows]
    cross = {name: {other: {"wins": c.wins, "draws": c.draws, "losses": c.losses,
                            "games": c.games, "text": format_cell(c)}
                    for other, c in cells.items()}
             for name, cells in board.crosstable.items()}
    ladder = {"min_games": board.min_games} if board.min_games is not None else {}
    return {"title": board.title, "elo_anchor": board.elo_anchor,
            "los_next_from": board.system.words.los or None, **ladder, "rows": rows,
            "crosstable": cross}


_ELO_FIELDS = ("elo", "elo_error", "elo_low", "elo_high", "los_next", "significant")


def _elo_values(row: Row) -> dict[str, Any]:
    """The Elo columns of csv and json, rounded; None where there is no value."""
    def rounded(x: float | None, digits: int) -> float | None:
        return None if x is None else round(x, digits)
    low = high = None
    if row.elo is not None and row.elo_error is not None:
        low, high = row.elo - row.elo_error, row.elo + row.elo_error
    values = {"elo": rounded(row.elo, 2), "elo_error": rounded(row.elo_error, 2),
              "elo_low": rounded(low, 2), "elo_high": rounded(high, 2),
              "los_next": rounded(row.los_next, 4), "significant": row.significant}
    return values
