"""The site's Jinja2 templates (arena/publish/templates/): one environment for `arena publish`
and for any app that serves the same pages live, so the two cannot drift apart.

Every value a template prints is escaped (autoescape, for .html templates) unless it is
markupsafe.Markup, which only the publisher's own markup is (a chart, a rating system's
column heading). The escaping is html.escape's (quotes as &quot; and &#x27;), as the site
has always written them, so a page comes out byte for byte as before.

The templates and what each expects:

    base.html              the layout: title, site_title, root ("" or "../"), page (its
                           name, for data-page), nav [{href, label, current}], footer,
                           scripts (file names under assets/); block content
    leaderboard_table.html the standings table: columns, rows, caption, los_source,
                           anchor, min_games (see pages.leaderboard_table)
    bot_body.html          a bot page's body below its heading (see pages.bot_body)
    fault_items.html       a bot's faults as <li> items (faults, root)
    games_list.html        the games list's filter, pagers and table shell (bots, columns)
    replay_viewer.html     the replay viewer, by move or by turn (see pages.replay_viewer)
    macros.html            bot_link(bot, root), marks(marks), used by the parts above

An app adding pages of its own puts its templates first in a loader of its own:

    env = environment().overlay(loader=jinja2.ChoiceLoader(
        [jinja2.PackageLoader("myapp", "templates"), environment().loader]))
"""

from __future__ import annotations

import functools
from html import escape
from typing import Any

import jinja2
from jinja2.nodes import EvalContext
from markupsafe import Markup


@jinja2.pass_eval_context
def _escaped(context: EvalContext, value: Any) -> Any:
    """A printed value escaped as html.escape does: markupsafe would write quotes as &#34;
    and &#39;, and the published pages' bytes (kept in git, compared in tests) would change."""
    if not context.autoescape or isinstance(value, Markup):
        return value
    return Markup(escape(str(value), quote=True))


@functools.cache
def environment() -> jinja2.Environment:
    """The site's template environment: autoescaping .html, strict about undefined names."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("arena.publish", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,     # a misspelt name fails the publish, never a blank
        finalize=_escaped,
        trim_blocks=True, lstrip_blocks=True,  # a line holding only a tag leaves no trace
        keep_trailing_newline=True)


def render(name: str, **context: Any) -> str:
    """The template `name` rendered with context."""
    return environment().get_template(name).render(**context)
