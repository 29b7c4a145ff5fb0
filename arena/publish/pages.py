"""The site's HTML pages, rendered from LeagueData.

Everything a bot or a record supplies (names, reasons, stderr) passes through
html.escape on its way into a page; nothing is ever inserted as markup. Pages
that need a script to show anything (games list, replay) are shells that the
script fills from data files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from html import escape
from importlib import resources
from itertools import combinations
from string import Template

from arena.league import Row, StoredGame
from arena.league.pairs import between
from arena.record import GameRecord
from arena.stats import summarize

from .chart import Series, colour, rating_chart
from .data import PAGE_FAULTS, TERMINATION_LABELS, BotInfo, Fault, LeagueData, Versus, fixture_text

OPEN_FAULTS = 3     #: faults whose stderr a bot page shows unfolded
NAV = (("index.html", "leaderboard", "Leaderboard"), ("history.html", "history", "Rating history"),
       ("crosstable.html", "crosstable", "Crosstable"), ("games.html", "games", "Games"))


def _template() -> Template:
    text = resources.files("arena.publish").joinpath("assets/page.html").read_text("utf-8")
    return Template(text)


def e(value: object) -> str:
    """Text made safe for HTML content and attribute values."""
    return escape(str(value), quote=True)


def page(data: LeagueData, *, name: str, title: str, content: str, root: str = "",
         scripts: Sequence[str] = ()) -> str:
    """A complete page in the site's layout."""
    nav = "".join(
        f'<a href="{root}{href}"{" aria-current=page" if key == name else ""}>{label}</a>'
        for href, key, label in NAV)
    footer = (f'{e(data.title)} · {e(_game_line(data))} · {len(data.games):,} games · '
              f'store updated {e(data.updated or "-")} · published by bot-arena')
    tags = "".join(f'<script src="{root}assets/{script}"></script>' for script in scripts)
    return _template().substitute(page_title=e(title), site_title=e(data.title), root=root,
                                  page=name, nav=nav, content=content, footer=footer, scripts=tags)


def _game_line(data: LeagueData) -> str:
    rules = ", ".join(f"{k}: {v}" for k, v in data.rules.items())
    return f"{data.game} ({rules})" if rules else data.game


def _num(value: float, digits: int = 2) -> str:
    return f"{value:.{digits}f}"


def _swatch(bot: BotInfo) -> str:
    """The bot's chart colour: filled, or hollow for the bots whose chart line is dashed."""
    stroke, dash = colour(bot.id)
    style = f"border:2px solid {stroke}" if dash else f"background:{stroke}"
    return f'<span class="swatch" style="{style}"></span>'


def _bot_link(bot: BotInfo, root: str = "") -> str:
    return f'{_swatch(bot)}<a href="{root}bots/{e(bot.slug)}.html">{e(bot.name)}</a>'



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
        *LEADERBOARD_COLUMNS)


LEADERBOARD_COLUMNS = (    #: the columns after the rating system's
    ("elo", "Elo", "num", "Elo from a fit of all games at once, a model of its own"),
    ("elo_error", "±95%", "num", "half-width of the Elo's 95% interval"),
    ("games", "Games", "num", "rated games"),
    ("wins", "W", "num", "wins"),
    ("draws", "D", "num", "draws"),
    ("losses", "L", "num", "losses"),
    ("faults", "Faults", "num", "games this bot ended by a fault"),
    ("move", "Move ms", "num", "mean wall time of its moves"),
)


def leaderboard_page(data: LeagueData) -> str:
    """index.html: the standings, sortable by any column."""
    head = "".join(
        f'<th data-key="{key}" data-type="{kind}" class="{kind}"'
        f'{" aria-sort=ascending data-first=ascending" if key == "rank" else ""}>'
        f'<button type="button" title="{e(help_)}">{label}</button></th>'
        for key, label, kind, help_ in leaderboard_columns(data))
    body = []
    for bot in data.bots:
        r = bot.row
        faults = ", ".join(f"{TERMINATION_LABELS.get(k, k)} {n}" for k, n in r.faults.items())
        fault_cell = (f'<td class="num faulty" data-v="{r.fault_count}" title="{e(faults)}">'
                      f'{r.fault_count} <small>{e(faults)}</small></td>'
                      if r.fault_count else '<td class="num" data-v="0">0</td>')
        move = "" if r.mean_move_ms is None else f"{r.mean_move_ms:.1f}"
        body.append(
            f'<tr data-bot="{bot.id}"><td class="num" data-v="{r.rank}">{r.rank}</td>'
            f'<td class="text bot" data-v="{e(r.bot)}">{_bot_link(bot)}{_marks(data, r)}</td>'
            f'<td class="num" data-v="{r.score}">{r.score:g}</td>'
            f'{_rating_cells(data, r)}{_los_cell(r)}{_elo_cells(r)}'
            f'<td class="num" data-v="{r.games}">{r.games}</td>'
            f'<td class="num" data-v="{r.wins}">{r.wins}</td>'
            f'<td class="num" data-v="{r.draws}">{r.draws}</td>'
            f'<td class="num" data-v="{r.losses}">{r.losses}</td>'
            f'{fault_cell}<td class="num" data-v="{move or -1}">{move or "–"}</td></tr>')
    played = len(data.games)
    fault_total = sum(len(f) for f in data.faults.values())
    content = f"""
<h1>{e(data.title)}</h1>
<p class="lead">{e(_game_line(data))} · {len(data.bots)} bots · {played:,} games played ·
{fault_total:,} faults · <a href="games.html">all games</a></p>
<table class="data sortable" id="leaderboard">
<caption>{data.board.system.words.caption}
{_los_words(data)} Elo: a fit of all games at once ({e(_anchor_text(data))}), a model of its
own that may order two bots otherwise, with the half-width of its 95% interval.{_marks_words(data)} Click a
column heading to sort; click again to reverse.</caption>
<thead><tr>{head}</tr></thead>
<tbody>{"".join(body)}</tbody>
</table>"""
    return page(data, name="leaderboard", title="Leaderboard", content=content)


def _rating_cells(data: LeagueData, r: Row) -> str:
    """The rating system's figures of a row, its ranking figure strong."""
    return "".join(f'<td class="num{" strong" if column.ranks else ""}" data-v="{x}">{_num(x)}</td>'
                   for column, x in zip(data.board.system.columns, r.rating.figures))


def _anchor_text(data: LeagueData) -> str:
    anchor = data.board.elo_anchor
    return f"{anchor} at 0" if anchor else "mean 0"


def _percent(p: float) -> str:
    """A probability as 93.5%; never 100.0% or 0.0% for what is only nearly sure."""
    return ">99.9%" if p >= 0.9995 else "<0.1%" if p < 0.0005 else f"{100 * p:.1f}%"


#: what a ladder's marks say, on the leaderboard and a bot's page
MARK_HELP = {"new": "fewer than {min_games} games: rated on few games",
             "suspended": "suspended, {why}: it plays no more until a new version",
             "old": "a version no longer current: history"}


def _mark_help(data: LeagueData, r: Row, mark: str) -> str:
    """What a mark of a row means (a suspension with its fault causes)."""
    return MARK_HELP[mark].format(min_games=data.board.min_games, why=r.suspended)


def _marks(data: LeagueData, r: Row) -> str:
    """A ladder row's marks after the bot's name, each with what it means on hover."""
    return "".join(f' <abbr class="flag {mark}" title="{e(_mark_help(data, r, mark))}">{mark}</abbr>'
                   for mark in r.marks)


def _marks_words(data: LeagueData) -> str:
    """The caption's sentence on a ladder's marks (nothing for a league)."""
    if data.board.min_games is None:
        return ""
    return (f" A ladder: <i>new</i> marks a bot with fewer than {data.board.min_games} games, "
            "<i>suspended</i> one that faulted too often and plays no more until a new version "
            "(hover for its fault causes).")


def _los_words(data: LeagueData) -> str:
    """The caption's sentence on LOS > next: which model it comes from."""
    source = data.board.system.words.los
    if not source:
        return "LOS &gt; next: none, the rating system gives no likelihood of superiority."
    return (f"LOS &gt; next: the chance, {e(source)}, that a bot is stronger than the next one "
            "down, marked ~ below 95% (their order is not significant).")


def _los_cell(r: Row) -> str:
    """The leaderboard's LOS > next cell (empty for the last row)."""
    los = "" if r.los_next is None else _percent(r.los_next)
    mark = (' <abbr class="nonsig" title="below 95%: this bot and the next may well be in '
            'the other order">~</abbr>' if r.significant is False else "")
    return f'<td class="num" data-v="{-1 if r.los_next is None else r.los_next}">{los}{mark}</td>'


def _elo_cells(r: Row) -> str:
    """The leaderboard's Elo and ±95% cells (a dash for a bot outside the fit)."""
    if r.elo is None or r.elo_error is None:
        return '<td class="num" data-v="-1e9">–</td><td class="num" data-v="-1">–</td>'
    return (f'<td class="num" data-v="{r.elo}">{r.elo:+.0f}</td>'
            f'<td class="num" data-v="{r.elo_error}">{r.elo_error:.0f}</td>')


# --- rating history -------------------------------------------------------------------------

def _series(data: LeagueData, bot: BotInfo) -> Series:
    start = data.board.prior or data.board.system.prior(data.settings)
    prior = (0, start.value, start.value if start.band is None else start.band)
    return Series(bot.id, bot.name, [prior, *data.history.get(bot.id, [])])


def history_page(data: LeagueData) -> str:
    """history.html: every bot's mu - 3 sigma after each of its games; a bot's band on demand."""
    chart = rating_chart([_series(data, b) for b in reversed(data.bots)], bands="focus",
                         label="Rating history of every bot", axis=data.board.system.words.chart_axis)
    legend = "".join(
        f'<li><button type="button" data-bot="{b.id}" aria-pressed="false" title="{e(b.name)}">'
        f'<span class="key" style="border-color:{colour(b.id)[0]};'
        f'border-top-style:{"dashed" if colour(b.id)[1] else "solid"}"></span>'
        f'<span class="rank">{b.row.rank}</span> <span class="name">{e(b.name)}</span> '
        f'<span class="muted">{_num(b.row.rating.value, 1)}</span></button></li>'
        for b in data.bots)
    content = f"""
<h1>Rating history</h1>
<p class="lead">Each line is a bot's μ − 3σ after each of its games, in league order (the
order ratings are computed in): the value the leaderboard ranks by, shown beside each name.
Click bots in the list to pick them out with their band, which reaches up to μ (the skill
estimate; the band narrows as σ, the uncertainty, shrinks); click again to let go. Each
bot has its own chart on its page.</p>
<div class="chart-wrap" id="history">
<div class="chart-box">{chart}</div>
<ol class="legend">{legend}</ol>
</div>
<p><button type="button" id="all-bands">Show every band</button>
<button type="button" id="clear-focus">Clear selection</button></p>"""
    return page(data, name="history", title="Rating history", content=content)


# --- crosstable -----------------------------------------------------------------------------

def crosstable_page(data: LeagueData) -> str:
    """crosstable.html: row bot's score rate against each column bot as a heat map."""
    head = "".join(f'<th class="col" scope="col" title="{e(b.name)}"><span>{b.row.rank}. '
                   f'{e(b.name)}</span></th>' for b in data.bots)

    def score_cell(bot: BotInfo, other: BotInfo) -> str:
        cell = data.board.cell(bot.name, other.name)
        rate = _score_rate(cell.wins, cell.draws, cell.losses)
        if rate is None:
            return f'<td class="none" title="{e(bot.name)} never met {e(other.name)}">·</td>'
        bg, fg = heat(rate)
        tip = (f"{bot.name} vs {other.name}: {cell.wins} W, {cell.draws} D, {cell.losses} L "
               f"in {cell.games} games; score {rate:.0%}")
        return (f'<td style="background:{bg};color:{fg}" title="{e(tip)}" '
                f'data-rate="{rate:.4f}"><a href="{match_href(bot, other)}" '
                f'style="color:{fg}">{round(rate * 100)}</a></td>')

    scale = "".join(f'<span style="background:{heat(i / 10)[0]};color:{heat(i / 10)[1]}">'
                    f'{i * 10}</span>' for i in range(11))
    content = f"""
<h1>Crosstable</h1>
<p class="lead">Score rate of the row bot against the column bot, in percent (a win counts 1,
a draw ½). Blue: the row bot scores more; red: less. Hover a cell for wins, draws, losses
and games. Bots in rank order.</p>
<div class="scale" aria-label="colour scale">row bot's score % {scale}</div>
<div class="matrices">
<section><h2>Score %</h2>
<div class="scroll"><table class="heat" id="crosstable">
<thead><tr><th class="corner">row vs column</th>{head}</tr></thead>
<tbody>{_matrix_rows(data, score_cell)}</tbody>
</table></div></section>
<section><h2>Likelihood of superiority %</h2>
{_los_matrix(data, head)}</section>
</div>
<p class="lead">LOS: the chance that the row bot is stronger than the column bot, from the Elo fit
of all games ({e(_anchor_text(data))}; docs/statistics.md). Bots that never met still get one,
through the opponents they share. Between 5% and 95% (in italics) their order is not settled.
Click a cell for the two bots' match: its game pairs, score, Elo and games.</p>"""
    return page(data, name="crosstable", title="Crosstable", content=content)


def _los_matrix(data: LeagueData, head: str) -> str:
    """The LOS of every row bot over every column bot, coloured like the crosstable."""
    fit = data.board.elo_fit

    def los_cell(bot: BotInfo, other: BotInfo) -> str:
        if fit is None or bot.name not in fit.ratings or other.name not in fit.ratings:
            return (f'<td class="none" title="{e(bot.name)} and {e(other.name)} are '
                    f'not rated together">·</td>')
        los = fit.los(bot.name, other.name)
        bg, fg = heat(los)
        tip = f"P({bot.name} stronger than {other.name}) = {_percent(los)}"
        text = f"{los * 100:.0f}"
        body = (f'<a href="{match_href(bot, other)}" style="color:{fg}">{text}</a>'
                if other.id in data.versus[bot.id] else text)
        sure = " sure" if los >= 0.95 or los <= 0.05 else ""
        return (f'<td class="los{sure}" style="background:{bg};color:{fg}" '
                f'title="{e(tip)}" data-los="{los:.4f}">{body}</td>')

    return (f'<div class="scroll"><table class="heat" id="los">'
            f'<thead><tr><th class="corner">P(row stronger)</th>{head}</tr></thead>'
            f'<tbody>{_matrix_rows(data, los_cell)}</tbody></table></div>')


def _matrix_rows(data: LeagueData, cell: Callable[[BotInfo, BotInfo], str]) -> str:
    """The rows of a bot-by-bot matrix in rank order; cell(row bot, column bot) gives each
    off-diagonal <td>."""
    rows = []
    for bot in data.bots:
        cells = "".join('<td class="self"></td>' if other.id == bot.id else cell(bot, other)
                        for other in data.bots)
        rows.append(f'<tr><th scope="row">{bot.row.rank}. {_bot_link(bot)}</th>{cells}</tr>')
    return "".join(rows)


def match_href(a: BotInfo, b: BotInfo, root: str = "") -> str:
    """The page of two bots' match (the same page from either side)."""
    first, second = (a, b) if a.id < b.id else (b, a)
    return f"{root}matches/{e(first.slug)}~{e(second.slug)}.html"


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
    pent = "".join(f'<tr><td class="text">{label}</td><td class="num">{n}</td></tr>'
                   for label, n in zip(PENTANOMIAL_LABELS, results.pairs.counts))
    u = results.unpaired
    unpaired = (f'<p id="unpaired">{u.games} game{"s" * (u.games != 1)} without its pair partner '
                f'(not played yet, or not counted) count one by one: {u.wins} W, {u.draws} D, '
                f'{u.losses} L of {e(a.name)}.</p>' if u.games else "")
    numbers = "<p>These two have no counted games.</p>"
    if (stats.score is not None and stats.score_low is not None and stats.score_high is not None
            and stats.elo is not None and stats.elo_low is not None and stats.elo_high is not None):
        error = stats.elo_error
        plus = "" if error is None or not math.isfinite(error) else f" ± {error:.0f}"   # the ends say it
        score = (f"{100 * stats.score:.1f}% "
                 f"<small>{100 * stats.score_low:.1f}–{100 * stats.score_high:.1f}%</small>")
        elo = (f"{_elo_text(stats.elo)}{plus} "
               f"<small>{_elo_text(stats.elo_low)} to {_elo_text(stats.elo_high)}</small>")
        numbers = f"""<dl class="stats" id="match-stats">
<div><dt>Games</dt><dd>{stats.games}</dd></div>
<div><dt>W / D / L <small>of {e(a.name)}</small></dt><dd>{stats.wins} / {stats.draws} / {stats.losses}</dd></div>
<div><dt>Pairs</dt><dd>{stats.pairs}</dd></div>
<div><dt>Score <small>95% interval</small></dt><dd>{score}</dd></div>
<div><dt>Elo difference <small>95% interval</small></dt><dd>{elo}</dd></div>
<div><dt>LOS <small>{e(a.name)} stronger</small></dt><dd>{_percent(stats.los or 0.0)}</dd></div>
<div><dt>Draw rate</dt><dd>{100 * (stats.draw_rate or 0):.1f}%</dd></div>
</dl>"""
    fit = data.board.elo_fit
    league_line = ""
    if fit is not None and a.name in fit.ratings and b.name in fit.ratings:
        league_line = (f'<p id="league-fit">In the league\'s Elo fit (all games, '
                       f'{e(_anchor_text(data))}): {e(a.name)} {fit.ratings[a.name]:+.0f} ± '
                       f'{fit.error(a.name):.0f}, {e(b.name)} {fit.ratings[b.name]:+.0f} ± '
                       f'{fit.error(b.name):.0f}; {e(a.name)} is the stronger with probability '
                       f'{_percent(fit.los(a.name, b.name))}.</p>')
    content = f"""
<p class="crumbs"><a href="../index.html">Leaderboard</a> › <a href="../crosstable.html">Crosstable</a> › match</p>
<h1>{_bot_link(a, "../")} <span class="muted">vs</span> {_bot_link(b, "../")}</h1>
<p class="lead">Every game these two played, counted from {e(a.name)}'s side. Games come in pairs
that share a seed (and an opening) with the seats swapped; the pair is the unit of the statistics
(the pentanomial model, docs/statistics.md), as a seed that favours one seat favours it in both
games.</p>
{numbers}
{league_line}
<h2>Pairs by {e(a.name)}'s points</h2>
<table class="data" id="pentanomial">
<thead><tr><th class="text">points of the pair</th><th class="num">pairs</th></tr></thead>
<tbody>{pent}</tbody></table>
{unpaired}
<h2>Games</h2>
<table class="data" id="match-games">
<thead><tr><th class="num">Game</th><th class="text">Fixture</th><th class="text">Result</th>
<th class="text">Ended by</th><th class="num">Moves</th><th class="text">Replay</th></tr></thead>
<tbody>{_match_games(games)}</tbody></table>"""
    return page(data, name="match", title=f"{a.name} vs {b.name}", content=content, root="../")


def _result_text(record: GameRecord, names: list[str]) -> str:
    """Who won ("a wins"), or of more than two seats each bot's place ("b 1, a 2, c 2")."""
    ranking = record.rank_of()
    if len(names) == 2 or ranking is None:
        return record.outcome.text(names)
    return ", ".join(f"{names[seat]} {ranking[seat] + 1}"
                     for seat in sorted(range(len(names)), key=lambda seat: ranking[seat]))


def _match_games(games: Sequence[tuple[int, StoredGame]]) -> str:
    rows = []
    for no, stored in games:
        record = stored.record
        names = [bot.name for bot in record.bots]
        label = TERMINATION_LABELS.get(record.termination.value, record.termination.value)
        rows.append(
            f'<tr><td class="num">{no}</td><td class="text">{e(fixture_text(stored.key, names))}</td>'
            f'<td class="text">{e(_result_text(record, names))}</td>'
            f'<td class="text">{e(label)}</td><td class="num">{len(record.moves)}</td>'
            f'<td class="text"><a href="../replay.html#g={no}">replay</a></td></tr>')
    return "".join(rows)


# --- one bot --------------------------------------------------------------------------------

def fault_items(faults: Sequence[Fault], data: LeagueData, root: str) -> str:
    """Faults as list items (the same markup the bot page's script builds for later pages)."""
    out = []
    for i, f in enumerate(faults):
        label = TERMINATION_LABELS.get(f.termination, f.termination)
        versus = e(data.bots[f.opponent].name)
        tail = (f'<details{" open" if i < OPEN_FAULTS else ""}><summary>stderr, last part'
                f'</summary><pre class="stderr">{e(f.stderr)}'
                f'</pre></details>' if f.stderr.strip()
                else '<p class="muted">stderr was empty</p>')
        out.append(
            f'<li class="fault"><div class="fault-head"><span class="badge bad">{e(label)}</span> '
            f'<a href="{root}replay.html#g={f.no}&amp;m={f.moves}">game {f.no}</a> '
            f'vs {versus} as {"xo"[f.seat] if f.seat < 2 else f"seat {f.seat}"}, after {f.moves} moves</div>'
            f'<p class="reason">{e(f.reason)}</p>{tail}</li>')
    return "".join(out)


def _versus_rows(data: LeagueData, bot: BotInfo) -> str:
    rows = []
    for other in data.bots:
        vs = data.versus[bot.id].get(other.id)
        if vs is None:
            continue
        rate = _score_rate(vs.wins, vs.draws, vs.losses)
        rate_cell = ('<td class="num" data-v="-1">–</td>' if rate is None else
                     '<td class="num" data-v="{}" style="background:{};color:{}">{}%</td>'
                     .format(rate, *heat(rate), round(rate * 100)))
        rows.append(
            f'<tr><td class="num" data-v="{other.row.rank}">{other.row.rank}</td>'
            f'<td class="text" data-v="{e(other.name)}">{_bot_link(other, "../")}</td>'
            f'<td class="num" data-v="{vs.as_x + vs.as_o}"><a href="{match_href(bot, other, "../")}" '
            f'title="the match: pairs, score, Elo, games">{vs.as_x + vs.as_o}</a></td>'
            f'<td class="num" data-v="{vs.wins}">{vs.wins}</td>'
            f'<td class="num" data-v="{vs.draws}">{vs.draws}</td>'
            f'<td class="num" data-v="{vs.losses}">{vs.losses}</td>{rate_cell}'
            f'<td class="num{" faulty" if vs.faults else ""}" data-v="{vs.faults}">{vs.faults}'
            f'</td></tr>')
    return "".join(rows)


def _rating_figures(data: LeagueData, r: Row) -> str:
    """The bot page's rating entries, as the rating system words them."""
    return "\n".join(f"<div><dt>{label}</dt><dd>{template.format(*r.rating.figures)}</dd></div>"
                     for label, template in data.board.system.words.bot_page)


def bot_page(data: LeagueData, bot: BotInfo) -> str:
    """bots/SLUG.html: a bot's numbers, rating path, results by opponent and every fault."""
    r = bot.row
    total = sum(data.versus[bot.id].values(), Versus())
    faults = data.faults[bot.id]
    kinds = ", ".join(f"{TERMINATION_LABELS.get(k, k)} {n}" for k, n in r.faults.items())
    chart = rating_chart([_series(data, bot)], height=300, label=f"Rating history of {bot.name}",
                         axis=data.board.system.words.chart_axis)
    cost = ("each counts as a loss" if data.settings.faults_count_as_losses
            else "they are left out of the standings")
    pages = data.pages(len(faults), PAGE_FAULTS)
    pager = (f'<nav class="pager" id="fault-pager" data-bot="{bot.id}" data-pages="{pages}">'
             f'<button type="button" data-go="prev" disabled>← newer</button>'
             f' <span class="where">page 1 of {pages}</span> '
             f'<button type="button" data-go="next">older →</button></nav>' if pages > 1 else "")
    fault_section = (
        f'<p>{len(faults):,} games ended by a fault of {e(bot.name)} ({e(kinds)}); {cost}. '
        f'Newest first. Stderr is shown as the bot wrote it (the last part only).</p>'
        f'{pager}<ol class="faults" id="faults">'
        f'{fault_items(faults[::-1][:PAGE_FAULTS], data, "../")}</ol>'
        if faults else f'<p>{e(bot.name)} never faulted.</p>')
    move = "–" if r.mean_move_ms is None else f"{r.mean_move_ms:.1f} ms"
    unrated = f" ({total.unrated} more not rated)" if total.unrated else ""
    flags = "".join(f'\n<p class="flag {m}">{e(_mark_help(data, r, m).capitalize())}.</p>'
                    for m in r.marks)     # a ladder's marks, said in full
    content = f"""
<p class="crumbs"><a href="../index.html">Leaderboard</a> › bot</p>
<h1>{_swatch(bot)}{e(bot.name)}{_marks(data, r)}</h1>{flags}
<dl class="stats">
<div><dt>Rank</dt><dd>{r.rank} <small>of {len(data.bots)}</small></dd></div>
<div><dt>Score</dt><dd>{r.score:g} <small>of {r.games} games{e(unrated)}</small></dd></div>
{_rating_figures(data, r)}
<div><dt>W / D / L</dt><dd>{r.wins} / {r.draws} / {r.losses}</dd></div>
<div><dt>Faults</dt><dd class="{"faulty" if faults else ""}">{r.fault_count}</dd></div>
<div><dt>Mean move</dt><dd>{move}</dd></div>
</dl>
<p><a href="../games.html#bot={e(bot.slug)}">All {total.as_x + total.as_o:,} games of
{e(bot.name)} →</a></p>
{_versions_section(data, bot)}
<h2>Rating after each game: μ − 3σ (the line, what ranks) and the band up to μ</h2>
<div class="chart-box single">{chart}</div>
<h2>Results by opponent</h2>
<table class="data sortable" id="versus">
<thead><tr><th data-type="num" class="num" aria-sort="ascending" data-first="ascending">
<button type="button">Rank</button></th>
<th data-type="text" class="text"><button type="button">Opponent</button></th>
<th data-type="num" class="num"><button type="button">Games</button></th>
<th data-type="num" class="num"><button type="button">W</button></th>
<th data-type="num" class="num"><button type="button">D</button></th>
<th data-type="num" class="num"><button type="button">L</button></th>
<th data-type="num" class="num"><button type="button" title="win 1, draw ½">Score</button></th>
<th data-type="num" class="num">
<button type="button" title="games {e(bot.name)} ended by a fault">Faults</button></th>
</tr></thead>
<tbody>{_versus_rows(data, bot)}</tbody>
</table>
<h2>Faults</h2>
{fault_section}"""
    return page(data, name="bot", title=bot.name, content=content, root="../",
                scripts=["bot.js"] if pages > 1 else [])


def _versions_section(data: LeagueData, bot: BotInfo) -> str:
    """A bot's versions in the store: the table counts only the current one's games."""
    versions = data.versions.get(bot.name, [])
    if not versions:
        return ""
    rows = "".join(
        f'<tr><td class="num">v{v.version}</td><td class="text"><code>{e(v.fingerprint or "–")}</code></td>'
        f'<td class="num">{v.games:,}</td><td class="text">{e(v.first_seen.replace("T", " "))}</td>'
        f'<td class="text">{e((v.last_played or "–").replace("T", " "))}</td>'
        f'<td class="text">{"current" if v.current else "history"}{", retired" if v.retired else ""}</td></tr>'
        for v in versions)
    return (f'<h2 id="versions">Versions</h2><p>Every version of {e(bot.name)} in the store; the '
            f'standings count the current one\'s games only (a changed bot is a new version).</p>'
            f'<table class="data" id="version-table"><thead><tr><th class="num">Version</th>'
            f'<th class="text">Fingerprint</th><th class="num">Games</th><th class="text">First seen</th>'
            f'<th class="text">Last played</th><th class="text">State</th></tr></thead>'
            f'<tbody>{rows}</tbody></table>')


# --- shells filled by scripts ---------------------------------------------------------------

def _pager(id_: str) -> str:
    return (f'<nav class="pager" id="{id_}">'
            '<button type="button" data-go="first" title="first page">« First</button>'
            '<button type="button" data-go="prev" title="previous page">‹ Previous</button>'
            '<span class="where">…</span>'
            '<button type="button" data-go="next" title="next page">Next ›</button>'
            '<button type="button" data-go="last" title="last page">Last »</button></nav>')


def games_page(data: LeagueData) -> str:
    """games.html: the paginated games list (rows come from data/games/...)."""
    options = "".join(f'<option value="{e(b.slug)}">{b.row.rank}. {e(b.name)}</option>'
                      for b in data.bots)
    content = f"""
<h1>Games</h1>
<p class="lead">Every game in league order; open one to replay it move by move. Pick a bot to see
only its games.</p>
<div class="toolbar">
<label>Bot <select id="bot-filter"><option value="">all bots</option>{options}</select></label>
{_pager("games-pager")}</div>
<p class="status" id="games-status" role="status">Loading…</p>
<table class="data" id="games">
<thead><tr><th class="num">Game</th><th class="num">Round</th><th class="text">x (moves first)</th>
<th class="text">o</th><th class="text">Result</th><th class="text">Ended by</th>
<th class="num">Moves</th><th class="text">Replay</th></tr></thead>
<tbody></tbody>
</table>
{_pager("games-pager-bottom")}
<noscript><p>The games list needs JavaScript.</p></noscript>"""
    return page(data, name="games", title="Games", content=content, scripts=["games.js"])


def replay_page(data: LeagueData) -> str:
    """replay.html: the replay viewer (the game comes from data/moves/...); a game whose
    seats move at once steps turn by turn, every seat's move of the turn together
    (assets/turns.js draws it), any other move by move (assets/replay.js)."""
    if data.simultaneous:
        return _replay_page(
            data, step="turn", board="board small many", script="turns.js",
            hint="Keys: ← → step a turn, Home / End jump. Every seat moves at once each turn.",
            listing="Turns", columns='<th class="num">Turn</th><th class="text">Moves</th>')
    return _replay_page(
        data, step="move", board="board", script="replay.js",
        hint="Keys: ← → step, Home / End jump.", listing="Moves",
        columns='<th class="num">#</th><th class="text">Player</th><th class="text">Move</th>')


def _replay_page(data: LeagueData, step: str, board: str, script: str, hint: str,
                 listing: str, columns: str) -> str:
    """The replay viewer's page: stepping by `step`, its list of them headed `listing`."""
    content = f"""
<h1 id="replay-title">Replay</h1>
<p class="lead" id="replay-sub"></p>
<p class="status" id="replay-status" role="status">Loading…</p>
<div class="replay" id="replay" hidden>
<div class="board-side">
<div class="players" id="players"></div>
<div class="{board}" id="board" aria-label="board"></div>
<div class="controls" id="controls">
<button type="button" data-go="first" title="start (Home)">« Start</button>
<button type="button" data-go="prev" title="back one {step} (←)">‹ Back</button>
<span class="ply" id="ply">0 / 0</span>
<button type="button" data-go="next" title="forward one {step} (→)">Next ›</button>
<button type="button" data-go="last" title="end (End)">End »</button>
</div>
<input type="range" id="scrub" min="0" max="0" value="0" aria-label="{step}">
<p class="hint">{hint}</p>
</div>
<div class="info-side">
<div class="now" id="now"></div>
<div class="result" id="result"></div>
<h2>{listing}</h2>
<div class="movelist-wrap"><table class="data movelist" id="movelist">
<thead><tr>{columns}
<th class="num">Wall ms</th><th class="num">CPU ms</th></tr></thead><tbody></tbody></table></div>
</div>
</div>
<div id="fault-detail"></div>
<nav class="gamenav" id="gamenav"></nav>
<noscript><p>The replay viewer needs JavaScript.</p></noscript>"""
    return page(data, name="replay", title="Replay", content=content, scripts=[script])


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
