"""The static site: built from a real store of real games, self-contained, escaped, paginated."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser.league import FaultPlan, bot_names, build_store
from redrawn import Redrawn

from arena.games import Game, GameInfo, GameRegistry, State, default_registry
from arena.games.tictactoe import TicTacToe
from arena.league import RatingConfig, Store, StoredGame, build_leaderboard
from arena.publish import PublishError, load_league, publish_site
from arena.publish import data as site_data
from arena.publish.chart import thin, ticks
from arena.publish.data import Replayer, slugify
from arena.record import BotEntry, GameRecord, MoveRecord, Termination

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A 4-bot ultimate league of 36 games: the 3rd bot crashes and the 4th (named in HTML)
    times out, often."""
    names = bot_names(4, hostile=True)
    path = tmp_path_factory.mktemp("league") / "league.sqlite"
    build_store(path, names, games_per_pairing=6, faults={
        names[2]: FaultPlan(Termination.CRASH, 0.5, "exited during its turn (exit code 1)"),
        names[3]: FaultPlan(Termination.TIMEOUT, 0.4, "no reply within 1000 ms")})
    return path


@pytest.fixture(scope="module")
def site(league, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    index = publish_site(league, out)
    assert index == out / "index.html"
    return out


def read_data(site: Path, key: str):
    text = (site / "data" / f"{key}.js").read_text()
    prefix = f"arenaData({json.dumps(key)},"
    assert text.startswith(prefix) and text.endswith(");\n")
    return json.loads(text[len(prefix):-3])


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)


def stored(path):
    with Store(path) as store:
        return list(store.records()), store.meta()


def test_every_page_link_and_script_is_a_file_in_the_site(site):
    pages = sorted(site.rglob("*.html"))
    assert {p.relative_to(site).as_posix() for p in pages} >= {
        "index.html", "history.html", "crosstable.html", "games.html", "replay.html"}
    for page in pages:
        parser = Links()
        parser.feed(page.read_text())
        assert parser.links, page
        for link in parser.links:
            assert not re.match(r"[a-z]+:", link), f"{page}: {link} leaves the site"
            target = link.split("#")[0]
            if target:
                assert (page.parent / target).resolve().is_file(), f"{page}: broken link {link}"
    for asset in ("style.css", "arena.js", "games.js", "replay.js", "bot.js"):
        assert (site / "assets" / asset).stat().st_size > 500


def test_the_leaderboard_page_lists_bots_in_the_stores_rank_order(site, league):
    games, _meta = stored(league)
    board = build_leaderboard(games, RatingConfig(), bot_names(4, hostile=True))
    text = (site / "index.html").read_text()
    shown = re.findall(r'<td class="text bot" data-v="([^"]*)"', text)
    assert shown == [escape_html(row.bot) for row in board.rows]
    assert "data/" not in text                   # the leaderboard loads no game data


def escape_html(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#x27;"))


def test_hostile_text_is_never_markup_anywhere_in_the_site(site):
    evil = bot_names(4, hostile=True)[-1]
    for path in site.rglob("*"):
        if path.suffix in (".html", ".js"):
            text = path.read_text()
            assert HOSTILE not in text and evil not in text, path
            assert "<img src=x" not in text, path
    crashing = (site / "bots" / "charlie.html").read_text()
    assert escape_html(HOSTILE) in crashing                   # shown, as text
    assert escape_html(evil) in (site / "index.html").read_text()


def test_bot_pages_list_every_fault_with_reason_and_stderr(site, league):
    games, _meta = stored(league)
    data = read_data(site, "league")
    for bot in data["bots"]:
        faults = [(no, g.record) for no, g in enumerate(games, 1)
                  if g.record.faulted is not None
                  and g.record.bots[g.record.faulted].name == bot["name"]]
        page = (site / "bots" / f"{bot['slug']}.html").read_text()
        listed = [int(n) for n in re.findall(r'replay\.html#g=(\d+)&amp;m=\d+">game', page)]
        assert sorted(listed) == [no for no, _r in faults]
        if not faults:
            assert "never faulted" in page
            continue
        assert read_data(site, f"faults/{bot['id']}/1")["total"] == len(faults)
        for _no, record in faults:
            assert escape_html(record.reason) in page
            assert record.termination.value.replace("_", " ") in page


def test_games_list_pages_and_move_chunks_hold_every_game_once(league, tmp_path, monkeypatch):
    monkeypatch.setattr(site_data, "PAGE_GAMES", 10)
    monkeypatch.setattr(site_data, "CHUNK_GAMES", 7)
    out = tmp_path / "site"
    publish_site(league, out)
    games, _meta = stored(league)
    info = read_data(out, "league")
    assert (info["games"], info["pages"], info["pageGames"], info["chunkGames"]) == (36, 4, 10, 7)
    rows = [row for page in range(1, 5) for row in read_data(out, f"games/all/{page}")["rows"]]
    assert [r[0] for r in rows] == list(range(1, 37))
    for bot in info["bots"]:
        mine = [r for page in range(1, bot["pages"] + 1)
                for r in read_data(out, f"games/{bot['id']}/{page}")["rows"]]
        assert [r[0] for r in mine] == [r[0] for r in rows if bot["id"] in (r[1], r[2])]
        assert len(mine) == bot["games"] == 18
    chunks = [read_data(out, f"moves/{n}") for n in range(6)]
    assert not (out / "data" / "moves" / "6.js").exists()
    replayed = [g for chunk in chunks for g in chunk["games"]]
    assert [g["no"] for g in replayed] == list(range(1, 37))
    assert [g["key"] for g in replayed] == [g.key for g in games]


def test_replay_data_matches_the_rules_move_by_move(site, league):
    games, _meta = stored(league)
    rules = default_registry().create("ultimate")
    info = read_data(site, "league")
    names = [b["name"] for b in info["bots"]]
    chunk = read_data(site, "moves/0")["games"]
    assert len(chunk) == 36
    for shown, game in zip(chunk, games):
        record = game.record
        assert [names[i] for i in shown["bots"]] == [b.name for b in record.bots]
        assert shown["cells"] == 81 and shown["error"] is None
        assert shown["grid"] == [9, 9] and "marks" not in shown   # the moves draw the board
        assert shown["over"] == (record.termination is Termination.NORMAL)
        state = rules.initial_state()
        assert shown["start"] == -1 and shown["status"]["0"] == "." * 9
        board = "." * 9
        for ply, (move, (cell, seat, wall, cpu, target)) in enumerate(
                zip(record.moves, shown["moves"]), 1):
            state = state.play(int(move.move))
            assert (cell, seat, target) == (int(move.move), move.seat, state.target)
            assert wall == round(move.wall_ms, 1)
            assert cpu == (None if move.cpu_ms is None else round(move.cpu_ms, 1))
            board = shown["status"].get(str(ply), board)
            won = "".join("x" if state.xwon >> b & 1 else "o" if state.owon >> b & 1
                          else "-" if state.closed >> b & 1 else "." for b in range(9))
            assert board == won
        assert len(shown["moves"]) == len(record.moves)
        assert shown["subs"] == {str(i): m.substituted
                                 for i, m in enumerate(record.moves, 1) if m.substituted}
        if record.faulted is not None:
            assert shown["stderr"][record.faulted] == record.stderr_tails[record.faulted]


def test_a_3x3_game_replays_without_boards_or_targets(tmp_path):
    path = tmp_path / "ttt.sqlite"
    build_store(path, ["ann", "ben", "cid"], games_per_pairing=2, game="tictactoe", faults={})
    publish_site(path, tmp_path / "site")
    games, _meta = stored(path)
    chunk = read_data(tmp_path / "site", "moves/0")["games"]
    assert len(chunk) == 6
    for shown, game in zip(chunk, games):
        assert shown["cells"] == 9 and shown["status"] == {} and shown["start"] == -1
        assert shown["grid"] == [3, 3] and "marks" not in shown
        assert [m[0] for m in shown["moves"]] == [int(m.move) for m in game.record.moves]
        assert shown["over"] is True


def test_a_move_that_does_not_replay_is_reported_not_raised():
    def game(moves, name="ultimate"):
        record = GameRecord(game=name, rule_options={}, seed=1,
                            bots=[BotEntry("a"), BotEntry("b")],
                            moves=[MoveRecord(i % 2, m, 1.0) for i, m in enumerate(moves)])
        return Replayer().replay(1, StoredGame("a|b|0|0", 0, record), {"a": 0, "b": 1})

    shown = game(["40", "36", "40", "1"])
    assert shown["error"].startswith("move 3 ('40') cannot be replayed")
    assert [m[0] for m in shown["moves"]] == [40, 36, -1]
    assert game(["9x"])["error"].startswith("move 1 ('9x') cannot be replayed")
    unknown = game(["1", "2"], name="chess")
    assert "unknown game 'chess'" in unknown["error"] and unknown["cells"] == 0


def test_publishing_replaces_its_own_site_and_nothing_else(league, tmp_path):
    out = tmp_path / "site"
    publish_site(league, out)
    stale = out / "data" / "moves" / "999.js"     # written by a publish of a longer league
    stale.write_text("old")
    with open(out / ".arena-site", "a") as marker:
        marker.write("data/moves/999.js\n")
    publish_site(league, out, title="Second")
    assert not stale.exists() and "<title>Leaderboard · Second</title>" in (
        out / "index.html").read_text()
    mine = out / "data" / "notes.txt"              # a file no publish wrote is never deleted
    mine.write_text("mine")
    with pytest.raises(PublishError, match="holds .*notes.txt, which no publish wrote"):
        publish_site(league, out)
    assert mine.read_text() == "mine" and (out / "index.html").exists()
    mine.unlink()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no leftovers

    foreign = tmp_path / "docs"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(PublishError, match="not empty and not a site arena published"):
        publish_site(league, foreign)
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    with pytest.raises(PublishError, match="not a directory"):
        publish_site(league, foreign / "notes.txt")

    missing = tmp_path / "nothing.sqlite"
    with pytest.raises(PublishError, match="no such store"):
        publish_site(missing, tmp_path / "other")
    assert not missing.exists() and not (tmp_path / "other").exists()


def test_the_same_store_publishes_the_same_bytes(league, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    publish_site(league, first)
    publish_site(league, second)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)


def test_titles_are_escaped_and_rating_settings_come_from_the_store(league, tmp_path):
    publish_site(league, tmp_path / "site", title="Cup <2024> & more")
    assert "<title>Leaderboard · Cup &lt;2024&gt; &amp; more</title>" in (
        tmp_path / "site" / "index.html").read_text()
    with Store(league) as store:
        counted = load_league(store)
        uncounted = load_league(store, RatingConfig(faults_count_as_losses=False))
    assert counted.settings == RatingConfig() and counted.title == "publish-test"
    faults = sum(len(f) for f in counted.faults.values())
    assert faults > 0
    assert sum(b.row.games for b in counted.bots) - sum(b.row.games for b in uncounted.bots) \
        == 2 * faults


def test_slugs_are_safe_and_unique():
    assert slugify(["a b", "a_b", "A_B", "<b>evil</b>&bot", "..", "été"]) == \
        ["a_b", "a_b-2", "A_B-3", "b_evil_b_bot", "bot", "t"]


def test_charts_thin_long_paths_and_pick_round_ticks():
    points = [(i, 25.0, 8.0) for i in range(2000)]
    kept = thin(points, 500)
    assert len(kept) == 500 and kept[0] == points[0] and kept[-1] == points[-1]
    assert thin(points[:10], 500) == points[:10]
    assert ticks(13.2, 41.7) == [15, 20, 25, 30, 35, 40]
    assert ticks(0, 2000, 8) == [0, 500, 1000, 1500, 2000]


def test_a_league_without_games_yet_publishes_its_bots(tmp_path):
    path = tmp_path / "empty.sqlite"
    build_store(path, ["ann", "ben", "cid"], 0)
    site = tmp_path / "site"
    publish_site(path, site)
    info = read_data(site, "league")
    assert info["games"] == 0 and [b["name"] for b in info["bots"]] == ["ann", "ben", "cid"]
    assert read_data(site, "games/all/1")["rows"] == []
    assert not (site / "data" / "moves").exists()
    assert "never faulted" in (site / "bots" / "ann.html").read_text()


class _Pile(State):
    """A game with no grid: take 1 or 2 from a pile; taking the last one wins."""

    def __init__(self, left: int = 5, to_move: int = 0, last: int | None = None) -> None:
        self.left, self.to_move, self.last = left, to_move, last

    def legal_moves(self):
        return tuple(m for m in (1, 2) if m <= self.left)

    def play(self, move):
        return _Pile(self.left - move, 1 - self.to_move, self.to_move)

    def is_terminal(self):
        return self.left == 0

    @property
    def winner(self):
        return self.last if self.left == 0 else None

    def encode(self):
        return f"{self.left} {self.to_move}"

    def render(self):
        return f"{self.left} left"


class _PileGame(Game):
    info = GameInfo(name="pile", summary="take 1 or 2", rules="-", max_length=5, move_count=3)

    def initial_state(self):
        return _Pile()

    def parse_state(self, text):
        left, to_move = map(int, text.split())
        return _Pile(left, to_move)


class _Drop(TicTacToe):
    """Tic-tac-toe whose grid is drawn upside down: the moves no longer name its squares."""

    info = TicTacToe.info._replace(name="upside-down")

    def initial_state(self):
        return _Flipped(super().initial_state())

    def parse_state(self, text):
        return _Flipped(super().parse_state(text))


class _Flipped(Redrawn):
    def redraw(self, marks):
        return marks[6:] + marks[3:6] + marks[:3]


def _replay(games: GameRegistry, name: str, moves: list[str]) -> dict:
    record = GameRecord(game=name, rule_options={}, seed=1, bots=[BotEntry("a"), BotEntry("b")],
                        moves=[MoveRecord(i % 2, m, 1.0) for i, m in enumerate(moves)])
    return Replayer(games).replay(1, StoredGame("a|b|0|0", 0, record), {"a": 0, "b": 1})


def test_a_plugin_game_without_a_grid_gets_a_move_list_replay():
    shown = _replay(GameRegistry((_PileGame,)), "pile", ["2", "1", "2"])
    assert shown["error"] is None and shown["over"] and shown["winner"] is None
    assert [m[0] for m in shown["moves"]] == [2, 1, 2]
    assert "grid" not in shown and "marks" not in shown and shown["status"] == {}


def test_a_grid_the_moves_do_not_name_is_sent_as_marks_after_each_ply():
    shown = _replay(GameRegistry((_Drop,)), "upside-down", ["0", "4", "8"])
    assert shown["grid"] == [3, 3] and shown["error"] is None
    assert shown["marks"] == ["." * 9, "......x..", "....o.x..", "..x.o.x.."]


class _Lettered(TicTacToe):
    """Tic-tac-toe whose moves are written a1..c3 (column letter, row number)."""

    info = TicTacToe.info._replace(name="lettered")

    def move_text(self, move):
        return "abc"[move % 3] + str(move // 3 + 1)

    def parse_move(self, text):
        return "abc".index(text[0]) + 3 * (int(text[1:]) - 1)


def test_moves_are_shown_as_their_game_writes_them_when_that_is_not_their_number():
    shown = _replay(GameRegistry((_Lettered,)), "lettered", ["a1", "b2", "c3"])
    assert [m[0] for m in shown["moves"]] == [0, 4, 8] and shown["texts"] == ["a1", "b2", "c3"]
    assert "texts" not in _replay(GameRegistry((TicTacToe,)), "tictactoe", ["0", "4", "8"])
    script = (Path(__file__).resolve().parent.parent / "arena" / "publish" / "assets" / "replay.js").read_text()
    assert "game.texts[i]" in script     # the viewer shows them (tests/test_publish_browser.py draws it)
