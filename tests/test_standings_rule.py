"""One rule decides which stored games the standings count (store.games.standings_rule()):
the commands' standings (boards.standings) read a store by it, and arena serve's reader
(publish.data.LeagueReader) counts a ladder's games by it as they are stored; a reader
kept open reads the table the commands read, through a retirement and a new version."""

from test_league_boards import crashed, ladder_run, pairs, record

from arena.league import Store, render
from arena.league.boards import standings
from arena.publish.data import LeagueReader, bots_from_meta, rating_from_meta


def commands_board(store: Store) -> str:
    meta = store.league.meta()
    return render(standings(store, rating_from_meta(meta), bots_from_meta(meta), meta["name"]).board, "json")


def test_a_reader_kept_open_counts_the_games_the_commands_standings_count(tmp_path):
    ladder_run(tmp_path)
    db = tmp_path / "ladder.sqlite"
    with Store(db, readonly=True) as seen, Store(db) as store:
        reader = LeagueReader(seen)
        assert render(reader.read().board, "json") == commands_board(seen)

        store.bots.retire("dan")                      # his games: history, not standings
        for fixture in pairs("ann", "bob", 3, 1):
            assert store.games.add(fixture, record(fixture, "bob"))
        assert render(reader.read().board, "json") == commands_board(seen)
        rule = seen.games.standings_rule()
        assert "dan" in rule.retired and not rule.counts("ann|dan|0|0", ["ann", "dan"], [1, 1], rule.season)
        assert "dan" not in (rule.rated(bots_from_meta(seen.league.meta())) or ())

        store.bots.sync({"bob": {"code": "2"}})       # bob's version 1 games leave the table
        for fixture in pairs("bob", "eve", 1, 1):
            assert store.games.add(fixture, crashed(fixture, "eve"))
        board = render(reader.read().board, "json")
        assert board == commands_board(seen)
        rule = seen.games.standings_rule()
        assert rule.versions["bob"] == 2 and not rule.counts("ann|bob|0|0", ["ann", "bob"], [1, 1], rule.season)
