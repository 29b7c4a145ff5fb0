"""Large leagues stay usable: no page of a 20-bot, 2,000-game site loads more than one
page or chunk of games, and none grows with the league. How long publishing takes is
measured by benchmarks/publish.py (no test holds a timing)."""

import re

from browser.league import shared_site
from made_once import session_dir

from arena.publish.data import CHUNK_GAMES, PAGE_GAMES


def test_a_2000_game_site_loads_only_what_each_page_shows(tmp_path_factory):
    # publish_site's site of the store, published once a session (the browser test reads it too)
    _store, out = shared_site(session_dir(tmp_path_factory), bots=20, games=2000)

    # pages stay small and load only what they show
    index = (out / "index.html").read_text()
    assert len(index) < 60_000 and "data/" not in index
    for page in ("history.html", "crosstable.html", "games.html", "replay.html"):
        assert (out / page).stat().st_size < 400_000, page
    for page in (out / "bots").iterdir():
        assert page.stat().st_size < 400_000, page
    chunks = sorted((out / "data" / "moves").iterdir())
    assert len(chunks) == 2000 // CHUNK_GAMES
    assert max(c.stat().st_size for c in chunks) < 400_000
    lists = list((out / "data" / "games" / "all").iterdir())
    assert len(lists) == 2000 // PAGE_GAMES
    first = (out / "data" / "games" / "all" / "1.js").read_text()
    assert len(re.findall(r"\[\d+,", first)) == PAGE_GAMES
