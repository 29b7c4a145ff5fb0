"""The site's HTML pages: each page's data, from LeagueData, rendered by its template
(arena/publish/templates, through templates.render).

What a page shows is built here as plain dicts, lists and strings: numbers formatted, links
made. The templates escape every value they print (names, reasons, stderr: whatever a bot
or a record supplies); the only markup handed to them is Markup made here from the
publisher's own (a chart, a rating system's headings). Pages that need a script to show
anything (games list, replay) are shells that the script fills from data files.

The parts another app renders with the same templates (a live server) have functions of
their own here: leaderboard_table, bot_body, games_list and replay_viewer give their
templates' context, layout the base layout's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import combinations
from typing import Any

from markupsafe import Markup

from arena.league import Row, StoredGame
from arena.league.pairs import between
from arena.record import GameRecord
from arena.stats import summarize

from .chart import Series, colour, rating_chart
from .data import PAGE_FAULTS, TERMINATION_LABELS, BotInfo, Fault, LeagueData, Versus, fixture_text, games_of
from .templates import render

OPEN_FAULTS = 3     #: faults whose stderr a bot page shows unfolded
NAV = (("index.html", "leaderboard", "Leaderboard"), ("history.html", "history", "Rating history"),
       ("crosstable.html", "crosstable", "Crosstable"), ("games.html", "games", "Games"))


def layout(data: LeagueData, *, name: str, title: str, root: str = "",
           scripts: Sequence[str] = ()) -> dict[str, Any]:
    """The base layout's context (templates/base.html) of the page `name`, `root` the way
    from it to the site's root ("" or "../")."""
    footer = (f'{data.title} · {_game_line(data)} · {len(data.games):,} games · '
              f'store updated {data.updated or "-"} · published by bot-arena')
    return {"title": title, "site_title": data.title, "root": root, "page": name,
            "nav": [{"href": href, "label": label, "current": key == name} for href, key, label in NAV],
            "footer": footer, "scripts": list(scripts)}


def _game_line(data: LeagueData) -> str:
    rules = ", ".join(f"{k}: {v}" for k, v in data.rules.items())
    return f"{data.game} ({rules})" if rules else data.game


def _num(value: float, digits: int = 2) -> str:
    return f"{value:.{digits}f}"


def _bot(bot: BotInfo) -> dict[str, Any]:
    """A bot as the macros show it (macros.html): name, slug, rank, and its chart colour,
    filled, or hollow for the bots whose chart line is dashed."""
    stroke, dash = colour(bot.id)
    return {"id": bot.id, "name": bot.name, "slug": bot.slug, "rank": bot.row.rank,
            "swatch": f"border:2px solid {stroke}" if dash else f"background:{stroke}"}


def heat(rate: float) -> tuple[str, str]:
    """Background and text colour of a score rate 0..1 (red loses, blue wins)."""
    stops = ((0.0, (178, 24, 43)), (0.25, (239, 138, 98)), (0.5, (247, 247, 247)),
             (0.75, (103, 169, 207)), (1.0, (33, 102, 172)))
    rate = min(1.0, max(0.0, rate))
    for (a, ca), (b, cb) in zip(stops, stops[1:]):
        if rate <= b:
            t = (rate - a) / (b - a)
            rgb = [round(x + (y - x) * t) for x, y in zip(ca, cb)]
            break
    luminance = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    return "#{:02x}{:02x}{:02x}".format(*rgb), "#fff" if luminance < 140 else "#111"


def _score_rate(wins: int, draws: int, losses: int) -> float | None:
    games = wins + draws + losses
    return (wins + 0.5 * draws) / games if games else None


# --- leaderboard ----------------------------------------------------------------------------

def leaderboard_columns(data: LeagueData) -> tuple[tuple[str, str, str, str], ...]:
    """(key, heading, kind, help) of the leaderboard's columns, the rating system's among them."""
    system = data.board.system
    return (
        ("rank", "Rank", "num", f"rank order: by {system.words.ranked_by}"),
        ("bot", "Bot", "text", "bot name"),
        ("score", "Score", "num", "points: win 1, draw ½"),
        *((c.key, c.label, "num", c.help) for c in system.columns),
        ("los", "LOS > next", "num", (f"likelihood of superiority over the next bot down, "
                                      f"{system.words.los}; ~ below 95%: their order is not "
                                      "significant" if system.words.los else
                                      "none: the rating system gives no likelihood of superiority")),
        *LEADERBOARD_COLUMNS[:3], *(PLACE_COLUMNS if data.board.ffa else ()), *LEADERBOARD_COLUMNS[3:])


LEADERBOARD_COLUMNS = (    #: the columns after the rating system's
    ("elo", "Elo", "num", "Elo from a fit of all games at once, a model of its own"),
    ("elo_error", "±95%", "num", "half-width of the Elo's 95% interval"),
    ("games", "Games", "num", "rated games"),
    # here a league of games of more than two seats has PLACE_COLUMNS, as arena leaderboard
    ("wins", "W", "num", "wins"),
    ("draws", "D", "num", "draws"),
    ("losses", "L", "num", "losses"),
    ("faults", "Faults", "num", "games this bot ended by a fault"),
    ("move", "Move ms", "num", "mean wall time of its moves"),
)
PLACE_COLUMNS = (    #: a league of games of more than two seats: where each bot finished
    ("mean_rank", "Mean rank", "num", "mean place: 1 first, tied bots sharing the best place"),
    ("firsts", "Firsts", "num", "games finished first, ties too"),
)


def leaderboard_table(data: LeagueData) -> dict[str, Any]:
    """The standings table's context (templates/leaderboard_table.html)."""
    words = data.board.system.words
    return {"columns": [{"key": key, "label": Markup(label), "kind": kind, "help": help_}
                        for key, label, kind, help_ in leaderboard_columns(data)],
            "rows": [_leaderboard_row(data, bot) for bot in data.bots],
            "caption": Markup(words.caption), "los_source": words.los,
            "anchor": _anchor_text(data), "min_games": data.board.min_games, "places": data.board.ffa}


def _leaderboard_row(data: LeagueData, bot: BotInfo) -> dict[str, Any]:
    """A bot's row of the standings, each figure as a sort value and a text."""
    r = bot.row
    return {**_bot(bot), "marks": _marks(data, r), "score": r.score, "score_text": f"{r.score:g}",
            "ratings": [{"v": x, "text": _num(x), "strong": column.ranks}
                        for column, x in zip(data.board.system.columns, r.rating.figures)],
            "los": {"v": -1 if r.los_next is None else r.los_next,
                    "text": "" if r.los_next is None else _percent_text(r.los_next),
                    "nonsig": r.significant is False},
            **_elo_cells(r), "games": r.games, "firsts": r.firsts or 0,
            "mean_rank": {"v": -1, "text": "–"} if r.mean_rank is None else
            {"v": r.mean_rank, "text": f"{r.mean_rank:.2f}"}, "wins": r.wins, "draws": r.draws, "losses": r.losses,
            "faults": r.fault_count, "fault_kinds": _fault_kinds(r),
            "move": "" if r.mean_move_ms is None else f"{r.mean_move_ms:.1f}"}


def _fault_kinds(r: Row) -> str:
    """A row's faults by kind: "crash 2, timeout 1"."""
    return ", ".join(f"{TERMINATION_LABELS.get(k, k)} {n}" for k, n in r.faults.items())


def leaderboard_page(data: LeagueData) -> str:
    """index.html: the standings, sortable by any column."""
    return render("leaderboard.html", **layout(data, name="leaderboard", title="Leaderboard"),
                  **leaderboard_table(data), game_line=_game_line(data), bot_count=len(data.bots),
                  played=f"{len(data.games):,}",
                  fault_total=f"{sum(len(f) for f in data.faults.values()):,}")


def _anchor_text(data: LeagueData) -> str:
    anchor = data.board.elo_anchor
    return f"{anchor} at 0" if anchor else "mean 0"


def _percent(p: float) -> str:
    """A probability as 93.5%; never 100.0% or 0.0% for what is only nearly sure."""
    return ">99.9%" if p >= 0.9995 else "<0.1%" if p < 0.0005 else f"{100 * p:.1f}%"


def _percent_text(p: float) -> Markup:
    """_percent as the page text has always had it: a bare > or < (HTML reads either as
    text before a digit or a %), where an attribute has &gt; and &lt;."""
    return Markup(_percent(p))


#: what a ladder's marks say, on the leaderboard and a bot's page
MARK_HELP = {"new": "fewer than {min_games} games: rated on few games",
             "suspended": "suspended, {why}: it plays no more until a new version",
             "old": "a version no longer current: history"}


def _marks(data: LeagueData, r: Row) -> list[dict[str, str]]:
    """A ladder row's marks: each with what it means (a suspension with its fault causes),
    on hover and, said in full, on the bot's page."""
    helps = [(mark, MARK_HELP[mark].format(min_games=data.board.min_games, why=r.suspended))
             for mark in r.marks]
    return [{"mark": mark, "help": help_, "said": help_.capitalize()} for mark, help_ in helps]


def _elo_cells(r: Row) -> dict[str, dict[str, Any]]:
    """The leaderboard's Elo and ±95% cells (a dash for a bot outside the fit)."""
    if r.elo is None or r.elo_error is None:
        return {"elo": {"v": "-1e9", "text": "–"}, "elo_error": {"v": -1, "text": "–"}}
    return {"elo": {"v": r.elo, "text": f"{r.elo:+.0f}"},
            "elo_error": {"v": r.elo_error, "text": f"{r.elo_error:.0f}"}}


# --- rating history -------------------------------------------------------------------------

def _series(data: LeagueData, bot: BotInfo) -> Series:
    """A bot's rating path: its prior just before its first game (a bot that joined a ladder
    late starts where it joined, not at game 0), then its rating after each game."""
    start = data.board.prior or data.board.system.prior(data.settings)
    history = data.history.get(bot.id, [])
    prior = (history[0][0] - 1 if history else 0, start.value, start.value if start.band is None else start.band)
    return Series(bot.id, bot.name, [prior, *history])


def history_page(data: LeagueData) -> str:
    """history.html: every bot's mu - 3 sigma after each of its games; a bot's band on demand."""
    chart = rating_chart([_series(data, b) for b in reversed(data.bots)], bands="focus",
                         label="Rating history of every bot", axis=data.board.system.words.chart_axis)
    legend = [{"id": b.id, "name": b.name, "rank": b.row.rank, "colour": colour(b.id)[0],
               "dashed": bool(colour(b.id)[1]), "value": _num(b.row.rating.value, 1)}
              for b in data.bots]
    return render("history.html", **layout(data, name="history", title="Rating history"),
                  chart=Markup(chart), legend=legend)


# --- crosstable -----------------------------------------------------------------------------

def crosstable_page(data: LeagueData) -> str:
    """crosstable.html: row bot's score rate against each column bot as a heat map, and the
    LOS of the league's Elo fit beside it."""
    def score_cell(bot: BotInfo, other: BotInfo) -> dict[str, Any]:
        cell = data.board.cell(bot.name, other.name)
        rate = _score_rate(cell.wins, cell.draws, cell.losses)
        if rate is None:
            return {"kind": "none", "title": f"{bot.name} never met {other.name}"}
        bg, fg = heat(rate)
        return {"kind": "score", "bg": bg, "fg": fg, "value": f"{rate:.4f}",
                "title": (f"{bot.name} vs {other.name}: {cell.wins} W, {cell.draws} D, "
                          f"{cell.losses} L in {cell.games} games; score {rate:.0%}"),
                "href": match_href(bot, other), "text": round(rate * 100)}

    fit = data.board.elo_fit

    def los_cell(bot: BotInfo, other: BotInfo) -> dict[str, Any]:
        if fit is None or bot.name not in fit.ratings or other.name not in fit.ratings:
            return {"kind": "none", "title": f"{bot.name} and {other.name} are not rated together"}
        los = fit.los(bot.name, other.name)
        bg, fg = heat(los)
        return {"kind": "los sure" if los >= 0.95 or los <= 0.05 else "los", "bg": bg, "fg": fg,
                "title": f"P({bot.name} stronger than {other.name}) = {_percent(los)}",
                "value": f"{los:.4f}", "text": f"{los * 100:.0f}",
                "href": match_href(bot, other) if other.id in data.versus[bot.id] else None}

    scale = [{"bg": heat(i / 10)[0], "fg": heat(i / 10)[1], "label": i * 10} for i in range(11)]
    return render("crosstable.html", **layout(data, name="crosstable", title="Crosstable"),
                  bots=[_bot(b) for b in data.bots], scale=scale, anchor=_anchor_text(data),
                  score_rows=_matrix_rows(data, score_cell), los_rows=_matrix_rows(data, los_cell))


def _matrix_rows(data: LeagueData, cell: Callable[[BotInfo, BotInfo], dict[str, Any]]
                 ) -> list[dict[str, Any]]:
    """The rows of a bot-by-bot matrix in rank order; cell(row bot, column bot) gives each
    off-diagonal cell."""
    return [{"bot": _bot(bot), "cells": [{"kind": "self"} if other.id == bot.id else cell(bot, other)
                                         for other in data.bots]}
            for bot in data.bots]


def match_href(a: BotInfo, b: BotInfo, root: str = "") -> str:
    """The page of two bots' match (the same page from either side)."""
    first, second = (a, b) if a.id < b.id else (b, a)
    return f"{root}matches/{first.slug}~{second.slug}.html"


# --- one match ------------------------------------------------------------------------------

PENTANOMIAL_LABELS = ("0 (LL)", "½ (LD)", "1 (WL or DD)", "1½ (WD)", "2 (WW)")


def _elo_text(value: float) -> str:
    return "+∞" if value == float("inf") else "−∞" if value == float("-inf") else f"{value:+.0f}"


def match_page(data: LeagueData, a: BotInfo, b: BotInfo,
               games: Sequence[tuple[int, StoredGame]]) -> str:
    """matches/A~B.html (no slug holds ~): two bots' results as pairs (pentanomial), score,
    Elo, LOS, and their games (game number, stored game), each a link to its replay.
    Counts are from a's side (a ranks higher)."""
    results = between(data.board.matches, a.name, b.name)
    stats = summarize(results)
    u = results.unpaired
    numbers = None
    if (stats.score is not None and stats.score_low is not None and stats.score_high is not None
            and stats.elo is not None and stats.elo_low is not None and stats.elo_high is not None):
        numbers = {"games": stats.games, "wins": stats.wins, "draws": stats.draws,
                   "losses": stats.losses, "pairs": stats.pairs,
                   "score": f"{100 * stats.score:.1f}%",
                   "score_interval": f"{100 * stats.score_low:.1f}–{100 * stats.score_high:.1f}%",
                   # the interval by its ends only: it is lopsided ("+301 ± 416" read as
                   # taking in 0 where the ends are +63 and +895)
                   "elo": _elo_text(stats.elo),
                   "elo_interval": f"{_elo_text(stats.elo_low)} to {_elo_text(stats.elo_high)}",
                   "los": _percent_text(stats.los or 0.0), "draw_rate": f"{100 * (stats.draw_rate or 0):.1f}%"}
    fit = data.board.elo_fit
    fit_line = None
    if fit is not None and a.name in fit.ratings and b.name in fit.ratings:
        fit_line = {"a": f"{fit.ratings[a.name]:+.0f} ± {fit.error(a.name):.0f}",
                    "b": f"{fit.ratings[b.name]:+.0f} ± {fit.error(b.name):.0f}",
                    "los": _percent_text(fit.los(a.name, b.name))}
    return render("match.html", **layout(data, name="match", title=f"{a.name} vs {b.name}", root="../"),
                  a=_bot(a), b=_bot(b), stats=numbers, fit=fit_line, anchor=_anchor_text(data),
                  pentanomial=[{"label": label, "pairs": n}
                               for label, n in zip(PENTANOMIAL_LABELS, results.pairs.counts)],
                  unpaired=({"games": u.games, "wins": u.wins, "draws": u.draws, "losses": u.losses}
                            if u.games else None),
                  games=[_match_game(data, no, stored, a, b) for no, stored in games], seats=data.seats)


def _match_game(data: LeagueData, no: int, stored: StoredGame, a: BotInfo, b: BotInfo) -> dict[str, Any]:
    """A game's row on a match page: of two seats its fixture and who won, of more every
    seat, the ranking and which of a and b finished ahead."""
    record = stored.record
    names = [bot.name for bot in record.bots]
    row = {"no": no, "fixture": fixture_text(stored.key, names), "result": record.outcome.text(names),
           "ended": TERMINATION_LABELS.get(record.termination.value, record.termination.value),
           "moves": len(record.moves)}
    if len(names) == 2:
        return row
    ranking = record.rank_of()
    ahead = "no ranking"
    if ranking is not None:
        mine, theirs = ranking[names.index(a.name)], ranking[names.index(b.name)]
        ahead = "tied" if mine == theirs else f"{a.name if mine < theirs else b.name} ahead"
    return {**row, "seats": game_seats(data, stored), "ranking": ranking_text(record), "ahead": ahead}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def ranking_text(record: GameRecord) -> str:
    """A game's seats in their order of finish: "1st b, 2nd a, 2nd c" (a and c tied)."""
    ranking = record.rank_of()
    if ranking is None:
        return "no ranking"
    return ", ".join(f"{ordinal(ranking[seat] + 1)} {record.bots[seat].name}"
                     for seat in sorted(range(len(ranking)), key=lambda seat: (ranking[seat], seat)))


def game_seats(data: LeagueData, stored: StoredGame) -> list[dict[str, Any]]:
    """Every seat of a game as macros.html's seat shows it: its bot (None for one no longer
    in the league, shown by name), version, place, and the fault that put it out."""
    record = stored.record
    ranking = record.rank_of()
    versions = data.played.get(stored.key)
    out = {gone.seat: gone.termination.value for gone in record.out}
    if record.termination.is_fault and record.faulted is not None:
        out[record.faulted] = record.termination.value
    league = {bot.name: bot for bot in data.bots}
    return [{"name": entry.name, "bot": _bot(league[entry.name]) if entry.name in league else None,
             "version": None if versions is None else versions[seat],
             "place": None if ranking is None else ordinal(ranking[seat] + 1),
             "first": ranking is not None and ranking[seat] == 0,
             "out": TERMINATION_LABELS.get(out[seat], out[seat]) if seat in out else None}
            for seat, entry in enumerate(record.bots)]


# --- one bot --------------------------------------------------------------------------------

def fault_items(faults: Sequence[Fault], data: LeagueData) -> list[dict[str, Any]]:
    """Faults as templates/fault_items.html lists them (assets/bot.js the later pages)."""
    return [{"no": f.no, "label": TERMINATION_LABELS.get(f.termination, f.termination),
             "versus": data.bots[f.opponent].name, "seat": data.seat_names[f.seat] if f.seat < 2 else f"seat {f.seat}",
             "moves": f.moves, "reason": f.reason, "stderr": f.stderr, "open": i < OPEN_FAULTS}
            for i, f in enumerate(faults)]


def _versus_rows(data: LeagueData, bot: BotInfo) -> list[dict[str, Any]]:
    rows = []
    for other in data.bots:
        vs = data.versus[bot.id].get(other.id)
        if vs is None:
            continue
        rate = _score_rate(vs.wins, vs.draws, vs.losses)
        bg, fg = (None, None) if rate is None else heat(rate)
        rows.append({**_bot(other), "games": vs.as_x + vs.as_o, "href": match_href(bot, other, "../"),
                     "wins": vs.wins, "draws": vs.draws, "losses": vs.losses, "rate": rate, "bg": bg,
                     "fg": fg, "percent": None if rate is None else round(rate * 100), "faults": vs.faults})
    return rows


def bot_body(data: LeagueData, bot: BotInfo) -> dict[str, Any]:
    """A bot page's body's context (templates/bot_body.html): its numbers, versions, rating
    path, results by opponent and its newest faults."""
    r = bot.row
    total = sum(data.versus[bot.id].values(), Versus())
    faults = data.faults[bot.id]
    chart = rating_chart([_series(data, bot)], height=300, label=f"Rating history of {bot.name}",
                         axis=data.board.system.words.chart_axis)
    standing = games_of(data, bot.id)   # the current version's games the standings read
    versions = [{"version": v.version, "fingerprint": v.fingerprint or "–", "games": f"{v.games:,}",
                 "standing": f"{standing:,}" if v.current and v.games != standing else None,
                 "first_seen": v.first_seen.replace("T", " "),
                 "last_played": (v.last_played or "–").replace("T", " "),
                 "state": ", ".join(["current" if v.current else "history"]
                                    + ["retired"] * v.retired
                                    + ["suspended"] * ((bot.name, v.version) in data.suspended))}
                for v in data.versions.get(bot.name, [])]
    return {
        "bot": {**_bot(bot), "marks": _marks(data, r), "of": len(data.bots), "score": f"{r.score:g}",
                "games": r.games, "unrated": f" ({total.unrated} more not rated)" if total.unrated else "",
                "wins": r.wins, "draws": r.draws, "losses": r.losses, "faults": r.fault_count,
                "move": "–" if r.mean_move_ms is None else f"{r.mean_move_ms:.1f} ms",
                "all_games": f"{games_of(data, bot.id):,}"},     # of more than two seats, once each
        "ratings": [{"label": label, "text": Markup(template.format(*r.rating.figures))}
                    for label, template in data.board.system.words.bot_page],
        "places": None if not data.board.ffa else {
            "mean_rank": "–" if r.mean_rank is None else f"{r.mean_rank:.2f}", "firsts": r.firsts or 0},
        "versions": versions, "chart": Markup(chart), "versus": _versus_rows(data, bot),
        "faults": fault_items(faults[::-1][:PAGE_FAULTS], data), "fault_count": len(faults),
        "fault_count_text": f"{len(faults):,}",
        "fault_kinds": _fault_kinds(r), "pages": data.pages(len(faults), PAGE_FAULTS),
        "fault_cost": ("each counts as a loss" if data.settings.faults_count_as_losses
                       else "they are left out of the standings")}


def bot_page(data: LeagueData, bot: BotInfo) -> str:
    """bots/SLUG.html: a bot's numbers, rating path, results by opponent and every fault."""
    body = bot_body(data, bot)
    return render("bot.html", **layout(data, name="bot", title=bot.name, root="../",
                                       scripts=["bot.js"] if body["pages"] > 1 else []), **body)


# --- shells filled by scripts ---------------------------------------------------------------

def games_list(data: LeagueData) -> dict[str, Any]:
    """The games list's context (templates/games_list.html) and the scripts that fill it, in
    their order: the paging (assets/gamelist.js), then the rows: of more than two seats, a
    column for each seat (assets/seats.js), else x and o (assets/games.js)."""
    return {"bots": [_bot(b) for b in data.bots], "seats": data.seats,
            "scripts": ["gamelist.js", "seats.js" if data.seats > 2 else "games.js"]}


def games_page(data: LeagueData) -> str:
    """games.html: the paginated games list (rows come from data/games/...)."""
    games = games_list(data)
    return render("games.html", **layout(data, name="games", title="Games", scripts=games.pop("scripts")),
                  **games)


def replay_viewer(data: LeagueData) -> dict[str, Any]:
    """The replay viewer's context (templates/replay_viewer.html) and the scripts that fill it,
    in their order: the frame (assets/viewer.js), then the steps: a game whose seats move at
    once turn by turn, every seat's move of the turn together (assets/turns.js), any other
    move by move (assets/replay.js)."""
    return {"by_turn": data.simultaneous,
            "scripts": ["viewer.js", "turns.js" if data.simultaneous else "replay.js"]}


def replay_page(data: LeagueData) -> str:
    """replay.html: the replay viewer (the game comes from data/moves/...)."""
    viewer = replay_viewer(data)
    return render("replay.html", **layout(data, name="replay", title="Replay", scripts=viewer.pop("scripts")),
                  **viewer)


def all_pages(data: LeagueData) -> Iterator[tuple[str, str]]:
    """Every HTML page as (path relative to the site root, text)."""
    yield "index.html", leaderboard_page(data)
    yield "history.html", history_page(data)
    yield "crosstable.html", crosstable_page(data)
    yield "games.html", games_page(data)
    yield "replay.html", replay_page(data)
    for bot in data.bots:
        yield f"bots/{bot.slug}.html", bot_page(data, bot)
    by_pairing: dict[frozenset[str], list[tuple[int, StoredGame]]] = {}
    for no, stored in enumerate(data.games, 1):
        for pair in combinations(sorted({b.name for b in stored.record.bots}), 2):   # every two seats
            by_pairing.setdefault(frozenset(pair), []).append((no, stored))
    for bot in data.bots:
        for other in data.bots[bot.id + 1:]:
            games = by_pairing.get(frozenset((bot.name, other.name)))
            if games:     # they played (counted or not)
                yield (f"matches/{bot.slug}~{other.slug}.html",
                       match_page(data, bot, other, games))
