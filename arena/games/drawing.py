"""Positions drawn for a person playing in a terminal: board and square numbers on the
grid, the last move in brackets, won and full boards named in the grid's borders.

State.render() stays the compact form records and tests use; this is the friendlier one
`arena play` shows.
"""

from __future__ import annotations

from .base import State
from .bigboard import BigBoardState

SQUARE_KEY = ("squares in a board:", "  0 1 2", "  3 4 5", "  6 7 8")


def draw(state: State, last: int | None = None) -> str:
    """The position for a person; last (a cell) is marked when given."""
    if not isinstance(state, BigBoardState):
        return state.render()
    return _draw_big(state, last)


def _draw_big(state: BigBoardState, last: int | None) -> str:
    """A 9x9 position: nine blocks labelled with their board number and status."""
    open_target = -1 if state.is_terminal() else state.target
    lines = []
    for band in range(3):
        labels = []
        for b in range(3 * band, 3 * band + 3):
            if state.xwon >> b & 1:
                label = f" {b} x won "
            elif state.owon >> b & 1:
                label = f" {b} o won "
            elif state.closed >> b & 1:
                label = f" {b} full "
            elif b == open_target:
                label = f" {b} play "
            else:
                label = f" {b} "
            labels.append(label.center(11, "-"))
        lines.append("+" + "+".join(labels) + "+")
        for row in range(3):
            blocks = []
            for b in range(3 * band, 3 * band + 3):
                cells = []
                for col in range(3):
                    cell = 9 * b + 3 * row + col
                    mark = ".xo"[state.cell(cell) + 1]
                    cells.append(f"[{mark}]" if cell == last else f" {mark} ")
                blocks.append(" " + "".join(cells) + " ")
            key = SQUARE_KEY[row + 1] if band == 0 else ""
            lines.append("|" + "|".join(blocks) + "|" + (f"   {key}" if key else ""))
    lines.append("+" + "+".join("-" * 11 for _ in range(3)) + "+")
    lines[0] += f"   {SQUARE_KEY[0]}"
    # the status lines of the compact form: boards won, who moves where, or the result
    lines += state.render().splitlines()[-2:]
    return "\n".join(lines)
