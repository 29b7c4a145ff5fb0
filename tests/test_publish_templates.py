"""The site's templates (arena/publish/templates.py): the escaping every page relies on, and
the parts another app renders with them (leaderboard table, bot body, games list, replay
viewer) coming out of plain data exactly as the published site has them.

The site staying byte for byte what it was is test_league_output's golden digests."""

import json

import jinja2
import pytest
from markupsafe import Markup
from test_league_output import make_store

from arena.league import Store
from arena.publish import load_league, pages, publish_site
from arena.publish.templates import environment, render

HOSTILE = "<script>alert('x')</script> & \"q\""


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """The stored tic-tac-toe league (faults, a second version) and its published site."""
    base = tmp_path_factory.mktemp("templates")
    store = make_store(base / "league.sqlite")
    publish_site(store, base / "site")
    with Store(store, readonly=True) as opened:
        return load_league(opened), base / "site"


def test_values_are_escaped_as_html_escape_does_and_markup_is_kept():
    text = environment().from_string('<p title="{{ v }}">{{ v }}{{ m }}</p>').render(
        v=HOSTILE, m=Markup("<b>ours</b>"))
    assert text == ('<p title="&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;q&quot;">'
                    '&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;q&quot;<b>ours</b></p>')


def test_a_missing_value_fails_the_render_instead_of_printing_nothing():
    with pytest.raises(jinja2.UndefinedError, match="rows"):
        render("leaderboard_table.html", columns=[], caption="", los_source="", anchor="mean 0",
               min_games=None, places=False)


def test_a_page_of_hostile_names_shows_them_as_text():
    text = render("base.html", title=HOSTILE, site_title=HOSTILE, root="", page="x", footer=HOSTILE,
                  nav=[{"href": "index.html", "label": HOSTILE, "current": True}], scripts=[])
    assert "<script>alert" not in text and text.count("&lt;script&gt;alert(&#x27;x&#x27;)") == 5


@pytest.mark.parametrize("part, page", [
    ("leaderboard_table", "index.html"), ("games_list", "games.html"), ("replay_viewer", "replay.html")])
def test_a_part_renders_from_plain_data_as_the_site_has_it(league, part, page):
    data, site = league
    context = getattr(pages, part)(data)
    json.dumps(context)       # plain data: dicts, lists, strings (Markup among them), numbers
    assert render(f"{part}.html", **context) in (site / page).read_text()


def test_the_bot_body_renders_from_its_context_as_the_site_has_it(league):
    data, site = league
    for bot in data.bots:
        context = pages.bot_body(data, bot)
        json.dumps(context)
        body = render("bot_body.html", **context)
        assert body in (site / "bots" / f"{bot.slug}.html").read_text()
        assert body.startswith('<dl class="stats">')
