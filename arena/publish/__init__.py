"""Publish a league as a static website: leaderboard, rating history, crosstable, bot pages,
a paginated games list and a replay viewer, openable from disk with no network.

data (store -> plain data) <- chart, templates (Jinja2) <- pages (each page's context,
rendered) <- site (files on disk).
"""

from .data import LeagueData, load_league
from .site import PublishError, publish_site, write_site

__all__ = ["LeagueData", "PublishError", "load_league", "publish_site", "write_site"]
