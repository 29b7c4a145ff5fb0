"""Rating-history charts as inline SVG: each bot's rating after every game (the value the
leaderboard ranks by, e.g. TrueSkill's mu - 3 sigma), with a band reaching up to the top
its rating system gives (TrueSkill's mu).

Drawn here rather than in the browser: the page shows the chart before (and
without) any script, and a long league costs no client-side work. A series is
thinned to at most MAX_POINTS points; a chart a thousand pixels wide cannot show
more.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

MAX_POINTS = 500
#: line colours, in rank order; past the tenth bot the colours repeat with a dash pattern
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#7f7f7f", "#bcbd22")
DASHES = ("", "6 3", "2 3", "8 3 2 3")


@dataclass(frozen=True)
class Series:
    """One bot's rating path: (game number, value, band top) points, starting at its prior."""

    id: int
    name: str
    points: Sequence[tuple[int, float, float]]


def colour(index: int) -> tuple[str, str]:
    """Stroke colour and dash pattern of the series at index (rank order)."""
    return PALETTE[index % len(PALETTE)], DASHES[index // len(PALETTE) % len(DASHES)]


def thin(points: Sequence[tuple[int, float, float]],
         limit: int = MAX_POINTS) -> list[tuple[int, float, float]]:
    """At most limit points, evenly spread, always keeping the first and last."""
    n = len(points)
    if n <= limit:
        return list(points)
    picks = sorted({round(i * (n - 1) / (limit - 1)) for i in range(limit)})
    return [points[i] for i in picks]


def ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round tick values covering lo..hi, about count of them."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def rating_chart(series: Sequence[Series], *, width: int = 960, height: int = 420,
                 bands: str = "all", label: str = "Rating history",
                 axis: str = "rating (line, ranks) · band up to its top") -> str:
    """An SVG chart of the series; bands "all" draws every band (the value up to the band's
    top), "focus" only on demand; axis names what line and band are."""
    left, right, top, bottom = 52, 26, 12, 40
    inner_w, inner_h = width - left - right, height - top - bottom
    shown = [(s, thin(s.points)) for s in series]
    all_points = [p for _s, pts in shown for p in pts]
    # the game numbers the series cover: from the first game of any of them (0 when a bot
    # played from the start; a chart of a late joiner alone starts where it joined)
    x_lo = min((p[0] for p in all_points), default=0)
    x_hi = max((p[0] for p in all_points), default=1)
    x_hi = x_hi if x_hi > x_lo else x_lo + 1
    y_lo = min((p[1] for p in all_points), default=0.0)
    y_hi = max((p[2] for p in all_points), default=1.0)
    pad = (y_hi - y_lo) * 0.04 or 1.0
    y_lo, y_hi = y_lo - pad, y_hi + pad

    def sx(x: float) -> float:
        return left + inner_w * (x - x_lo) / (x_hi - x_lo)

    def sy(y: float) -> float:
        return top + inner_h * (1 - (y - y_lo) / (y_hi - y_lo))

    out = [f'<svg class="chart bands-{escape(bands)}" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">']
    out.append('<g class="grid">')
    for y in ticks(y_lo, y_hi):
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{sy(y):.1f}" y2="{sy(y):.1f}"/>'
                   f'<text class="y" x="{left - 6}" y="{sy(y) + 4:.1f}">{y:g}</text>')
    for x in ticks(x_lo, x_hi, 8):
        if x == int(x):
            out.append(f'<line x1="{sx(x):.1f}" x2="{sx(x):.1f}" y1="{top}" y2="{top + inner_h}"/>'
                       f'<text class="x" x="{sx(x):.1f}" y="{top + inner_h + 16}">{int(x)}</text>')
    out.append(f'<text class="axis" x="{left + inner_w / 2:.0f}" y="{height - 4}">'
               f'game number (league order)</text>')
    out.append(f'<text class="axis" transform="translate(13 {top + inner_h / 2:.0f}) rotate(-90)">'
               f'{escape(axis)}</text>')
    out.append('</g>')
    for s, pts in shown:
        if not pts:
            continue
        stroke, dash = colour(s.id)
        line = "M" + " L".join(f"{sx(x):.1f},{sy(value):.1f}" for x, value, _top in pts)
        upper = [f"{sx(x):.1f},{sy(top):.1f}" for x, _value, top in pts]
        lower = [f"{sx(x):.1f},{sy(value):.1f}" for x, value, _top in reversed(pts)]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<g class="series" data-bot="{s.id}"><title>{escape(s.name)}</title>'
                   f'<path class="band" fill="{stroke}" d="M{" L".join(upper + lower)} Z"/>'
                   f'<path class="line" stroke="{stroke}"{dash_attr} d="{line}"/></g>')
    out.append("</svg>")
    return "".join(out)
