"""arena serve over real HTTP on loopback: a real `arena serve` subprocess (its ladder and
worker processes, the sandbox, the store), the real CLI, httpx as the client."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import httpx
import pytest
import yaml

import arena as arena_package
from arena.server.app import make_app
from arena.server.config import load_server
from tests.server import LADDER, ROOT, add_user, add_users, arena, write_ladder
from tests.server.bots import CRASHES_ON_CUE, ORDERED, TRACEBACK
from tests.server.hostile import HOSTILE
from tests.server.serving import LOOPBACK_SSL, Serving, poll

CONFIG = LADDER + "  rates: {requests_per_second: 2, burst: 200, submissions_per_hour: 4}\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One server for the module, with an admin, two participants and a throwaway user."""
    folder = tmp_path_factory.mktemp("serve")
    config = write_ladder(folder, CONFIG)
    tokens = {"root": add_user(config, "root", admin=True),     # by the CLI, the others at once
              **add_users(config, ["alice", "bob", "victim", "spammer", "hasty", "mallory", "carol"])}
    serving = Serving(config)
    yield config, serving, tokens
    code = serving.stop()
    assert code == 130, serving.stderr()


def client(serving: Serving, token: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=serving.url, headers=headers, follow_redirects=False, timeout=60,
                        verify=LOOPBACK_SSL)


def board(serving: Serving, token: str) -> dict:
    with client(serving, token) as c:
        return c.get("/api/leaderboard").json()


def games_of(serving: Serving, token: str, bot: str) -> int:
    return next((row["games"] for row in board(serving, token)["rows"] if row["bot"] == bot), 0)


@pytest.fixture(scope="module")
def accepted(site):
    """alice's Python file, submitted with `arena submit --wait`: accepted, playing in the ladder."""
    config, serving, tokens = site
    bot = config.parent / "mine.py"
    bot.write_text(ORDERED)
    done = arena("submit", serving.url, str(bot), "--token", tokens["alice"], "--name", "mine",
                 "--command", "python3 mine.py", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.match(r"submission (\d+): mine #1, received", done.stdout), done.stdout
    assert "accepted" in done.stdout and "validation games against blind without a fault" in done.stdout
    number = int(done.stdout.split()[1].rstrip(":"))
    with client(serving) as c:   # there from its acceptance, before the ladder has taken it
        page, data = c.get("/bots/mine"), c.get("/api/bots/mine")
        assert page.status_code == 200 and "<h1>mine</h1>" in page.text, page.text
        assert data.status_code == 200 and data.json()["owner"] == "alice", data.text
    poll(lambda: games_of(serving, tokens["alice"], "mine") > 0, "mine to play in the ladder")
    return number


def test_a_python_file_submitted_is_accepted_and_plays(site, accepted):
    config, serving, tokens = site
    with client(serving, tokens["alice"]) as c:
        mine = c.get(f"/api/submissions/{accepted}").json()
        assert mine["status"] == "accepted" and mine["bot"] == "mine"
        # its page is made of the reader's last reading (the standings have its games)
        page = poll(lambda: (p := c.get("/api/bots/mine").json())["history"] and p, "mine's page with its games")
        assert page["owner"] == "alice"
        # the row says which version it rates, as the leaderboard's JSON does (it said null)
        [first] = page["versions"]
        assert (page["row"]["version"], page["row"]["fingerprint"]) == (1, first["fingerprint"])
        [row] = [r for r in c.get("/api/leaderboard").json()["rows"] if r["bot"] == "mine"]
        assert (row["version"], row["fingerprint"]) == (1, first["fingerprint"])
        # mine joined the running ladder: its rating chart starts where it joined, not at game 0
        first = page["history"][0]["game"]
        assert first > 1, page["history"][:3]
        chart = c.get("/bots/mine").text.split('<svg class="chart', 1)[1].split("</svg>")[0]
        ticks = [int(x) for x in re.findall(r'<text class="x"[^>]*>(\d+)</text>', chart)]
        assert ticks and first - 1 <= ticks[0] <= first + ticks[1] - ticks[0], (first, ticks)
        page = c.get("/")
    assert page.status_code == 200 and 'href="bots/mine.html">mine</a>' in page.text   # the site's table
    roster = (config.parent / ".ladder.serve.yaml").read_text()
    assert "name: mine" in roster and "games: 6" not in roster   # a server plays on


def test_a_crashing_bot_is_rejected_with_its_stderr_for_its_owner_only(site, accepted):
    config, serving, tokens = site
    bot = config.parent / "crash.py"
    bot.write_text(TRACEBACK.replace("ARENA_PACKAGE", str(Path(arena_package.__file__).parent)))
    done = arena("submit", serving.url, str(bot), "--token", tokens["alice"], "--name", "crasher",
                 "--command", "python3 crash.py", "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "rejected" in done.stdout and "validation against blind: crash" in done.stdout
    assert "SECRET-STDERR" in done.stdout
    # its owner sees the paths as they are to them, not where the server keeps them
    assert 'File "crash.py", line 8' in done.stdout and 'File "arena/sdk.py", line 1' in done.stdout
    assert str(config.parent) not in done.stdout and str(ROOT) not in done.stdout
    number = int(done.stdout.split()[1].rstrip(":"))
    with client(serving, tokens["alice"]) as c:
        own = c.get(f"/api/submissions/{number}").json()
        assert "SECRET-STDERR" in own["stderr_tail"] and 'File "crash.py", line 8' in own["stderr_tail"]
        assert own["command"] == "python3 crash.py"
        for text in (c.get("/api/me").text, c.get(f"/api/submissions/{number}").text):
            assert str(config.parent) not in text and str(ROOT) not in text
        # a bot never accepted has no page: not listed as alice's bot, nor among the participants'
        assert c.get("/api/me").json()["bots"] == ["mine"]
        assert "crasher" not in c.get("/api/leaderboard").json()["owners"]
        assert "/bots/crasher" not in c.get("/").text
        page = c.get("/me").text
        assert 'href="/bots/crasher"' not in page
        assert "File &#34;crash.py&#34;, line 8" in page or "File &quot;crash.py&quot;, line 8" in page
        assert "SECRET-STDERR &lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page
    with client(serving, tokens["bob"]) as c:
        assert c.get(f"/api/submissions/{number}").status_code == 404
        assert "SECRET-STDERR" not in c.get("/api/me").text
        assert "SECRET-STDERR" not in c.get("/me").text
    with client(serving) as c:
        for url in ("/", "/api/leaderboard", "/site/index.html", "/site/data/league.js", "/api/games/1",
                    "/site/data/moves/0.js"):
            assert "SECRET-STDERR" not in c.get(url).text, url
    assert games_of(serving, tokens["alice"], "crasher") == 0



def test_a_second_version_replaces_the_first_in_the_ladder(site, accepted):
    config, serving, tokens = site
    done = arena("submit", serving.url, str(config.parent / "mine.py"), "--token", tokens["alice"],
                 "--name", "mine", "--command", "python3 mine.py last", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    second = int(done.stdout.split()[1].rstrip(":"))
    with client(serving, tokens["alice"]) as c:
        assert c.get(f"/api/submissions/{accepted}").json()["status"] == "replaced"
        assert c.get(f"/api/submissions/{second}").json()["status"] == "accepted"
        versions = poll(lambda: len(c.get("/api/bots/mine").json()["versions"]) == 2 and
                        c.get("/api/bots/mine").json()["versions"], "mine v2 in the store")
    assert [v["version"] for v in versions] == [1, 2] and versions[1]["current"]
    # and the standings rate v2's games from then on (a reader kept open rated v1's on)
    with client(serving, tokens["alice"]) as c:
        row = poll(lambda: (r := c.get("/api/bots/mine").json()["row"])["version"] == 2 and r, "mine v2's row")
    assert row["fingerprint"] == versions[1]["fingerprint"]
    # a bot that played mine v1 has games its standings no longer read: its page says how many
    # they do read, the same count as its header
    notes = 0
    with client(serving) as c:
        for bot in ("blind", "sleepy"):
            page = c.get(f"/bots/{bot}").text
            games, unrated = re.search(r"of ([\d,]+) games(?: \(([\d,]+) more not rated\))?", page).groups()
            header = int(games.replace(",", "")) + int((unrated or "0").replace(",", ""))
            cell = re.search(r'<td class="num">([\d,]+)(?: <small>\(([\d,]+) in the standings\)</small>)?</td>'
                             r'<td class="text">[^<]*</td><td class="text">[^<]*</td><td class="text">current',
                             page).groups()
            notes += cell[1] is not None
            assert int((cell[1] or cell[0]).replace(",", "")) == header, (bot, header, cell)
    assert notes, "neither of mine v1's opponents has games of it out of its standings"
    cli = json.loads(arena("leaderboard", str(config.parent / "store.sqlite"), "--format", "json").stdout)
    assert [(r["version"], r["fingerprint"]) for r in cli["rows"] if r["bot"] == "mine"] == [
        (2, versions[1]["fingerprint"])]
    roster = yaml.safe_load((config.parent / ".ladder.serve.yaml").read_text())
    [entry] = [bot for bot in roster["bots"] if bot["name"] == "mine"]
    assert entry["command"].endswith("/mine/2/mine.py last")


def test_a_command_naming_no_file_of_the_upload_is_said_in_the_participants_terms(site):
    config, serving, tokens = site
    archive = config.parent / "nobot.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("other.py", "print(1)\n")
    done = arena("submit", serving.url, str(archive), "--token", tokens["carol"], "--name", "nobot",
                 "--command", "python3 bot.py", "--wait")
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("command 'python3 bot.py': python3 would run 'bot.py', which is not in your upload "
            "(its files: other.py)") in done.stdout
    # nothing of the server's: no path, no organiser's config or its line
    assert str(config.parent) not in done.stdout and "ladder.yaml" not in done.stdout and "bots[" not in done.stdout


def test_submissions_an_hour_are_capped(site):
    config, serving, tokens = site
    bot = config.parent / "fails.py"
    bot.write_text(ORDERED)
    with client(serving, tokens["hasty"]) as c:
        for _ in range(4):   # a build that fails at once: registered, rejected without a game
            answer = c.post("/api/submissions", data={"name": "hasty", "command": "python3 fails.py",
                                                      "build": "false"}, files={"file": ("fails.py", ORDERED.encode())})
            assert answer.status_code == 201, answer.text
    refused = arena("submit", serving.url, str(bot), "--token", tokens["hasty"], "--name", "hasty",
                    "--command", "python3 fails.py")
    assert refused.returncode == 2 and "refused (429): 4 submissions an hour at most" in refused.stderr


def test_the_stderr_of_a_bot_faulting_in_the_ladder_is_its_owners_only(site, accepted):
    config, serving, tokens = site
    bot = config.parent / "cue.py"
    bot.write_text(CRASHES_ON_CUE)
    done = arena("submit", serving.url, str(bot), "--token", tokens["bob"], "--name", "cued",
                 "--command", "python3 cue.py", "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    (config.parent / "store.server" / "submissions" / "cued" / "1" / "crash-now").write_text("")
    with client(serving, tokens["bob"]) as c:
        faults = poll(lambda: c.get("/api/me").json()["faults"], "cued's first fault in the ladder")
        assert "SECRET-LADDER-STDERR <b>cued</b> in cue.py\n" in faults[0]["stderr"] and faults[0]["bot"] == "cued"
        assert str(config.parent) not in c.get("/api/me").text
        page = c.get("/me").text
        assert "SECRET-LADDER-STDERR &lt;b&gt;cued&lt;/b&gt;" in page
    game = faults[0]["no"]
    with client(serving, tokens["alice"]) as c:
        assert "SECRET-LADDER" not in c.get("/api/me").text and "SECRET-LADDER" not in c.get("/me").text
    with client(serving) as c:
        for url in ("/api/bots/cued", "/bots/cued", f"/api/games/{game}", "/site/data/moves/0.js",
                    "/site/bots/cued.html", "/site/data/league.js"):
            answer = c.get(url)
            assert answer.status_code == 200 and "SECRET-LADDER" not in answer.text, url
        listed = c.get(f"/site/data/faults/{c.get('/api/bots/cued').json()['id']}/1.js")
        assert listed.status_code == 200 and f"[{game}," in listed.text   # the fault, public
        assert "SECRET-LADDER" not in listed.text                        # its stderr, not


def test_names_of_others_and_of_the_organiser_are_refused(site, accepted):
    config, serving, tokens = site
    for name, status, words in (("mine", 409, "belongs to another participant"),
                                ("blind", 409, "one of the organiser's"),
                                ("../x", 400, "not allowed as a name")):
        with client(serving, tokens["bob"]) as c:
            answer = c.post("/api/submissions", data={"name": name, "command": "python3 b.py"},
                            files={"file": ("b.py", ORDERED.encode())})
        assert answer.status_code == status and words in answer.json()["error"], answer.text


def test_login_sets_a_strict_httponly_cookie_and_csrf_guards_every_form(site):
    config, serving, tokens = site
    with client(serving) as c:
        bad = c.post("/login", data={"token": tokens["bob"] + "x"})
        assert bad.status_code == 401 and "not valid" in bad.text
        ok = c.post("/login", data={"token": tokens["bob"], "next": "//evil.example/"})
        assert ok.status_code == 303 and ok.headers["location"] == "/me"
        cookie = ok.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert "Secure" not in cookie
        me = c.get("/me")
        assert me.status_code == 200 and "<h1>bob</h1>" in me.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', me.text)[1]
        assert c.post("/logout").status_code == 403                       # no token
        assert c.post("/logout", data={"csrf": ("y" if csrf[0] == "x" else "x") + csrf[1:]}).status_code == 403
        refused = c.post("/submit", data={"name": "bobbot", "command": "python3 b.py"},
                         files={"file": ("b.py", ORDERED.encode())})
        assert refused.status_code == 403 and "CSRF" in refused.text
        assert c.get("/me").status_code == 200                            # still logged in
        out = c.post("/logout", data={"csrf": csrf})
        assert out.status_code == 303
        assert c.get("/me").status_code == 303                            # to /login
    with client(serving) as c:   # no --behind-proxy: a client's X-Forwarded-Proto is not taken
        behind = c.post("/login", data={"token": tokens["bob"]}, headers={"X-Forwarded-Proto": "https"})
        assert "Secure" not in behind.headers["set-cookie"]


def test_security_headers_and_rate_limits(site):
    config, serving, tokens = site
    with client(serving) as c:
        page = c.get("/")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("style-src")[0]
    assert "<script>" not in page.text and "onclick" not in page.text
    assert page.headers["x-frame-options"] == "DENY"
    statuses = []
    with client(serving, tokens["spammer"]) as c:
        for _ in range(400):
            answer = c.get("/api/me")
            statuses.append(answer.status_code)
            if answer.status_code == 429:
                assert int(answer.headers["retry-after"]) >= 1
                break
    assert statuses[-1] == 429 and set(statuses[:-1]) == {200}
    with client(serving, tokens["spammer"]) as c:
        # a page's scripts and styles still load: not counted (at 2 requests a second, ten
        # of each would meet a 429 unless they took 10 s)
        for _ in range(10):
            assert c.get("/static/live.js").status_code == 200
            assert c.get("/site/assets/style.css").status_code == 200
        # and the spammer is still limited: its bucket holds only what refilled meanwhile
        # (a request's wait under load may let a token or two in: no timing asserted)
        again = [c.get("/api/me").status_code for _ in range(20)]
        assert 429 in again, again
    with client(serving, tokens["bob"]) as c:   # another user is not slowed by it
        assert c.get("/api/me").status_code == 200


def test_request_size_caps(site):
    config, serving, tokens = site
    with client(serving) as c:
        big = c.post("/login", data={"token": "x" * 200_000})
    assert big.status_code == 413
    with client(serving, tokens["bob"]) as c:
        huge_field = c.post("/api/submissions", data={"name": "big", "command": "x" * 100_000},
                            files={"file": ("b.py", b"print(1)")})
        assert huge_field.status_code == 413 and "form fields over" in huge_field.json()["error"]
        wrong_type = c.post("/api/submissions", content=b"{}", headers={"Content-Type": "application/json"})
        assert wrong_type.status_code == 415


def test_a_malformed_form_is_refused_and_leaves_nothing(site):
    config, serving, tokens = site
    body = multipart({"name": "cut", "command": "python3 bot.py"}, "bot.py", ORDERED.encode())
    submissions = config.parent / "store.server" / "submissions"
    before = sorted(submissions.rglob("*"))
    with client(serving, tokens["mallory"]) as c:
        headers = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
        cut = c.post("/api/submissions", content=body[:-40], headers=headers)        # no closing boundary
        assert cut.status_code == 400 and "malformed form" in cut.json()["error"]
        part = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="b.py"\r\n\r\nx\r\n'
        twice = c.post("/api/submissions", content=(part + part + f"--{BOUNDARY}--\r\n").encode(),
                       headers=headers)                                             # two files
        assert twice.status_code == 400 and "one file per submission" in twice.json()["error"]
        unbounded = c.post("/api/submissions", content=body, headers={"Content-Type": "multipart/form-data"})
        assert unbounded.status_code == 400 and "boundary" in unbounded.json()["error"]
    assert sorted(submissions.rglob("*")) == before


def test_numbers_too_large_name_nothing_and_an_error_page_keeps_the_users_menu(site):
    config, serving, tokens = site
    huge = "9" * 23
    with client(serving, tokens["alice"]) as c:
        for url in (f"/api/submissions/{huge}", f"/api/games/{huge}", f"/api/submissions/{2**63}"):
            answer = c.get(url)
            assert answer.status_code == 404 and "error" in answer.json(), (url, answer.text)
    with client(serving) as c:
        assert c.post("/login", data={"token": tokens["alice"]}).status_code == 303
        for url in (f"/games/{huge}", "/bots/nobody", "/no-such-page", "/site-x/deep/path.html"):
            page = c.get(url)
            assert page.status_code == 404 and 'id="error"' in page.text, url
            # the menu of who is logged in: their page and Log out, not Log in
            assert "Log out" in page.text and 'href="/me"' in page.text and ">Log in<" not in page.text, url
        assert c.get("/api/no-such-thing").json() == {"error": "no such page"}   # JSON under /api/


#: (path, method) of every route -> the URL to try and the status for
#: (nobody, another participant, the owner, an admin); alice owns the submission asked for
def matrix(submission: int) -> dict[tuple[str, str], tuple[str, tuple[int, int, int, int]]]:
    page, api = (303, 200, 200, 200), (401, 200, 200, 200)
    public = (200, 200, 200, 200)
    admin_page, admin_api = (303, 403, 403, 200), (401, 403, 403, 200)
    admin_post, admin_post_api = (401, 403, 403, 303), (401, 403, 403, 200)
    return {
        ("/", "GET"): ("/", public),
        ("/api/leaderboard", "GET"): ("/api/leaderboard", public),
        ("/leaderboard/table", "GET"): ("/leaderboard/table", public),
        ("/api/health", "GET"): ("/api/health", public),
        ("/bots/{name}", "GET"): ("/bots/blind", public),
        ("/api/bots/{name}", "GET"): ("/api/bots/blind", public),
        ("/games/{no:int}", "GET"): ("/games/1", (303, 303, 303, 303)),
        ("/api/games/{no:int}", "GET"): ("/api/games/1", public),
        ("/site/{path:path}", "GET"): ("/site/index.html", public),
        ("/static/{name}", "GET"): ("/static/live.js", public),
        ("/favicon.ico", "GET"): ("/favicon.ico", public),   # a browser asks for it by itself
        ("/login", "GET"): ("/login", public),
        ("/login", "POST"): ("/login", (401, 401, 401, 401)),          # a wrong token
        ("/logout", "POST"): ("/logout", (401, 303, 303, 303)),
        ("/me", "GET"): ("/me", page),
        ("/api/me", "GET"): ("/api/me", api),
        ("/submit", "GET"): ("/submit", page),
        ("/submit", "POST"): ("/submit", (401, 400, 400, 400)),        # a form without its file
        ("/api/submissions", "POST"): ("/api/submissions", (401, 400, 400, 400)),
        ("/api/submissions/{id:int}", "GET"): (f"/api/submissions/{submission}", (401, 404, 200, 200)),
        ("/admin", "GET"): ("/admin", admin_page),
        ("/api/admin", "GET"): ("/api/admin", admin_api),
        ("/admin/bots/{name}/{action}", "POST"): ("/admin/bots/blind/unretire", admin_post),
        ("/api/admin/bots/{name}/{action}", "POST"): ("/api/admin/bots/blind/unretire", admin_post_api),
        ("/admin/users/{name}/revoke", "POST"): ("/admin/users/victim/revoke", admin_post),
        ("/api/admin/users/{name}/revoke", "POST"): ("/api/admin/users/victim/revoke", admin_post_api),
        ("/{unknown:path}", "GET"): ("/no-such-page", (404, 404, 404, 404)),   # every other page
    }


def test_the_authorization_matrix_covers_every_route(site, accepted):
    config, serving, tokens = site
    table = matrix(accepted)
    app = make_app(load_server(config))
    routes = {(route.path, method) for route in app.routes for method in route.methods if method != "HEAD"}
    assert routes == set(table), "a route without an entry in the matrix (or an entry without a route)"
    failures = []
    for (_path, method), (url, expected) in sorted(table.items()):
        for who, status in zip((None, "bob", "alice", "root"), expected):
            with client(serving, tokens[who] if who else None) as c:
                if method == "GET":
                    answer = c.get(url)
                else:
                    answer = c.post(url, data={"token": "wrong.token", "name": "x", "command": "python3 x.py"})
            if answer.status_code != status:
                failures.append(f"{method} {url} as {who or 'nobody'}: {answer.status_code}, expected {status}")
    assert not failures, "\n".join(failures)


def test_a_wheel_of_a_bot_plugin_is_accepted_and_plays(site, example_plugin_wheel):
    config, serving, tokens = site
    wheel = example_plugin_wheel     # examples/arena-example-plugin (tests/conftest.py)
    done = arena("submit", serving.url, "--wheel", str(wheel), "--token", tokens["root"], "--name", "corner",
                 "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    roster = yaml.safe_load((config.parent / ".ladder.serve.yaml").read_text())
    [entry] = [bot for bot in roster["bots"] if bot["name"] == "corner"]
    assert "arena_example_plugin:CornerFirst" in entry["command"]
    poll(lambda: games_of(serving, tokens["root"], "corner") > 0, "the wheel's bot to play")


def test_an_admin_suspends_a_participants_bot_and_it_leaves_the_ladder(site, accepted):
    config, serving, tokens = site
    with client(serving, tokens["root"]) as c:
        menu = c.get("/").text.split("</nav>")[0]   # the admin's page and the admin page, told apart
        assert '<a href="/me">root</a>' in menu and ">Manage</a>" in menu and ">Admin<" not in menu
        answer = c.post("/api/admin/bots/mine/suspend")
        assert answer.status_code == 200 and "suspended" in answer.json()["message"]
        assert c.post("/api/admin/bots/blind/suspend").status_code == 409     # the organiser's: retire it
    roster = config.parent / ".ladder.serve.yaml"
    poll(lambda: "name: mine" not in roster.read_text(), "mine to leave the roster")
    with client(serving, tokens["alice"]) as c:
        statuses = {s["bot"]: s["status"] for s in reversed(c.get("/api/me").json()["submissions"])}
        assert statuses["mine"] == "rejected"


BOUNDARY = "hostile-boundary-7d1f"


def multipart(fields: dict[str, str], filename: str, data: bytes) -> bytes:
    """A multipart/form-data body: the fields, then the file under filename as given."""
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
             for key, value in fields.items()]
    quoted = filename.replace('"', "%22")
    head = (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{quoted}"'
            '\r\nContent-Type: application/octet-stream\r\n\r\n')
    return b"".join(parts) + head.encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()


@pytest.mark.parametrize("case", HOSTILE, ids=[case.name for case in HOSTILE])
def test_a_hostile_upload_is_refused_over_http_and_leaves_nothing(site, tmp_path, case):
    config, serving, tokens = site
    where = tmp_path / "case"
    where.mkdir()
    path, filename = case.build(where)
    submissions = config.parent / "store.server" / "submissions"
    before = sorted(p.relative_to(submissions) for p in submissions.rglob("*")) if submissions.exists() else []
    fields = {"name": "mallory", "command": "python3 bot.py",
              "kind": "wheel" if filename.endswith(".whl") else "source"}
    with client(serving, tokens["mallory"]) as c:
        # the form written out: httpx would percent-encode a file name's control characters,
        # which a hostile client need not do
        answer = c.post("/api/submissions", content=multipart(fields, filename, path.read_bytes()),
                        headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
    assert answer.status_code == case.status, answer.text
    assert case.message in answer.json()["error"]
    after = sorted(p.relative_to(submissions) for p in submissions.rglob("*"))
    assert after == before                                     # nothing kept, not even a temp file
    assert not (where / "escaped.txt").exists() and not (tmp_path / "abs-escaped.txt").exists()
    with client(serving, tokens["mallory"]) as c:
        assert c.get("/api/me").json()["submissions"] == []


def test_wrong_tokens_from_an_address_are_slowed(site):
    """Checking a token costs a scrypt hash: an address that keeps sending wrong ones waits,
    whatever X-Forwarded-For it claims (no --behind-proxy). Last in the module: the address
    stays slowed for a while."""
    config, serving, tokens = site
    lookup = tokens["bob"].split(".")[0]
    statuses = []
    with client(serving, f"{lookup}.wrong-secret") as c:
        for n in range(12):
            answer = c.get("/api/me", headers={"X-Forwarded-For": f"10.0.0.{n}"})
            statuses.append(answer.status_code)
            if answer.status_code == 429:
                assert "too many wrong tokens" in answer.json()["error"]
                assert int(answer.headers["retry-after"]) >= 1
                break
    assert statuses[-1] == 429 and set(statuses[:-1]) == {401}


def test_text_shown_to_a_participant_names_no_server_path(tmp_path):
    from arena.server.shown import without_server_paths
    real = tmp_path / "data" / "submissions"
    (real / "bot-1" / "12").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "data")
    linked = tmp_path / "link" / "submissions"
    package = Path(arena_package.__file__).resolve().parent
    text = (f'File "{real}/bot-1/12/src/bot.py", line 3\n'
            f"cd {linked}/bot-1/12 && make: done in {real}/bot-1/12.\n"
            f'File "{package}/sdk.py", line 9\n'
            f"{real}/notes.txt {tmp_path}/data/server.sqlite {package.parent}/README.md")
    assert without_server_paths(text, linked).splitlines() == [
        'File "src/bot.py", line 3', "cd . && make: done in ..", 'File "arena/sdk.py", line 9',
        # outside any submission's directory or arena's package: as it was
        f"{real}/notes.txt {tmp_path}/data/server.sqlite {package.parent}/README.md"]
