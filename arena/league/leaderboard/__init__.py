"""The leaderboard: built from stored records (board.py: the table, the crosstable, each
bot's rating history; LiveBoard keeps one up to date game by game), and shown as text
(formats.py: table, md, csv, json and the live table's top lines). The names were
arena.league.leaderboard's before it had two modules, and import from here as they did."""

from .board import (
    FAULT_KINDS,
    MARKS,
    SIGNIFICANT_LOS,
    Cell,
    Leaderboard,
    LiveBoard,
    Row,
    build_leaderboard,
    with_marks,
    with_versions,
)
from .formats import (
    OutputFormat,
    format_cell,
    rating_headers,
    rating_texts,
    referee_note,
    render,
    render_csv,
    render_json,
    render_md,
    render_table,
    render_top,
)

__all__ = ["FAULT_KINDS", "MARKS", "SIGNIFICANT_LOS", "Cell", "Leaderboard", "LiveBoard", "OutputFormat", "Row",
           "build_leaderboard", "format_cell", "rating_headers", "rating_texts", "referee_note", "render",
           "render_csv", "render_json", "render_md", "render_table", "render_top", "with_marks",
           "with_versions"]
