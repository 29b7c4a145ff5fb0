"""The league's built-in rating system and leaderboard formats, declared as an arena plugin
exactly like a third-party one."""

from __future__ import annotations

from arena.hooks import hookimpl
from arena.registry import Registry

from .leaderboard.formats import render_csv, render_json, render_md, render_table
from .rating_systems import DEFAULT_RATING_SYSTEM, TRUESKILL_EP, TrueSkill, TrueSkillEP


@hookimpl
def arena_register_rating_systems(registry: Registry) -> None:
    """TrueSkill, the default, and TrueSkill fitted to all games at once."""
    registry.add(DEFAULT_RATING_SYSTEM, TrueSkill())
    registry.add(TRUESKILL_EP, TrueSkillEP())


@hookimpl
def arena_register_output_formats(registry: Registry) -> None:
    """The terminal table, Markdown, CSV and JSON, in the order --format lists them."""
    for name, renderer in (("table", render_table), ("md", render_md), ("csv", render_csv),
                           ("json", render_json)):
        registry.add(name, renderer)
