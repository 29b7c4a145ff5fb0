"""Hostile uploads sent to a real `arena serve` over loopback: one through the web form of
a logged-in session with its CSRF token, and requests hostile in themselves (a huge form
field, too many fields, a body that is no form, a body over the cap sent chunked). Each is
refused with its 4xx and one line, and leaves no submission row and nothing on disk.
(Every case of tests/server/hostile.py is sent through the JSON API by
tests/test_server_http.py.)"""

from __future__ import annotations

import html
import re
import socket
import sqlite3
import threading
import time

import httpx
import pytest

from tests.server import LADDER, add_users, write_ladder
from tests.server.hostile import HOSTILE, MiB
from tests.server.serving import Serving

#: the default caps (the messages name them), rates that let every request through, and
#: scrypt checks of tokens: 10 at once, then one every 10 s
CONFIG = LADDER + ("  rates: {requests_per_second: 1000, burst: 1000, token_checks_burst: 10,"
                   " token_checks_per_second: 0.1}\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One server for the module (no submission is ever accepted), behind a proxy (as this
    machine's own clients pretend to be), and two participants."""
    folder = tmp_path_factory.mktemp("hostile-serve")
    config = write_ladder(folder, CONFIG)
    tokens = add_users(config, ["mallory", "trudy"])
    serving = Serving(config, "--behind-proxy")
    yield config, serving, tokens
    assert serving.stop() == 130, serving.stderr()


def left_behind(config) -> tuple[int, int, list[str]]:
    """(submission rows, bot rows, what is in submissions/) on the server's side."""
    data = config.parent / "store.server"
    with sqlite3.connect(f"file:{data / 'server.sqlite'}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT count(*) FROM submissions").fetchone()[0]
        bots = db.execute("SELECT count(*) FROM bots").fetchone()[0]
    files = sorted(p.name for p in (data / "submissions").iterdir()) if (data / "submissions").exists() else []
    return rows, bots, files


def assert_nothing_kept(config, case_dir=None) -> None:
    assert left_behind(config) == (0, 0, [])
    escaped = list(config.parent.rglob("escaped.txt")) + list(config.parent.rglob("abs-escaped.txt"))
    if case_dir is not None:
        escaped += [p for p in (case_dir.parent / "abs-escaped.txt", case_dir / "escaped.txt") if p.exists()]
    assert escaped == []


def raw_multipart(fields: dict[str, str], filename: bytes, data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body with the file's name as the bytes given, unescaped."""
    boundary = "hostile-boundary-7d1f"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="'.encode()
                 + filename + b'"\r\nContent-Type: application/octet-stream\r\n\r\n' + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def test_a_hostile_upload_through_the_form_of_a_session_is_refused(site, tmp_path):
    config, serving, tokens = site
    [slip] = [case for case in HOSTILE if case.name == "zip-slip"]
    path, filename = slip.build(tmp_path)
    with httpx.Client(base_url=serving.url, timeout=60) as c:
        assert c.post("/login", data={"token": tokens["trudy"]}).status_code == 303
        csrf = re.search(r'name="csrf" value="([^"]+)"', c.get("/submit").text)[1]
        fields = {"csrf": csrf, "name": "slipper", "kind": "source", "command": "python3 bot.py"}
        answer = c.post("/submit", data=fields, files={"file": (filename, path.read_bytes())})
        assert answer.status_code == 400
        shown = html.unescape(re.search(r'<p class="status error" id="error">(.*?)</p>', answer.text, re.S)[1])
        assert slip.message in shown and "escaped.txt" in shown and "\n" not in shown
        assert "text/html" in answer.headers["content-type"]
        # the same upload without the form's CSRF token is refused before it is read
        forged = c.post("/submit", data={k: v for k, v in fields.items() if k != "csrf"},
                        files={"file": (filename, path.read_bytes())})
        assert forged.status_code == 403 and "CSRF" in forged.text
    assert_nothing_kept(config, tmp_path)


def test_hostile_requests_are_refused_in_one_line(site, tmp_path):
    config, serving, tokens = site
    upload = {"file": ("bot.py", b"print(1)\n")}
    with httpx.Client(base_url=serving.url, headers={"Authorization": f"Bearer {tokens['mallory']}"},
                      timeout=60) as c:
        def refused(answer: httpx.Response) -> tuple[int, str]:
            return answer.status_code, answer.json()["error"]

        # a field of 1 MiB: within the upload cap, refused at the fields' cap (64 KiB)
        status, error = refused(c.post("/api/submissions", files=upload,
                                       data={"name": "big", "command": "python3 bot.py", "build": "x" * MiB}))
        assert status == 413 and "form fields over 65536 bytes" in error
        # one of 20 MiB: refused by its Content-Length before a byte is read
        status, error = refused(c.post("/api/submissions", files=upload,
                                       data={"name": "big", "command": "python3 bot.py", "build": "x" * 20 * MiB}))
        assert status == 413 and "larger than 8388608 bytes" in error
        status, error = refused(c.post("/api/submissions", files=upload,
                                       data={f"f{i}": "x" for i in range(100)}))
        assert status == 413 and "more than 20 form fields" in error
        for kind, status_due, words in (("application/json", 415, "expected a form"),
                                        ("text/plain", 415, "expected a form"),
                                        ("multipart/form-data", 400, "without a boundary"),
                                        ("application/x-www-form-urlencoded", 400, "no file in the form")):
            status, error = refused(c.post("/api/submissions", content=b"name=x&command=y",
                                           headers={"Content-Type": kind}))
            assert (status, words in error) == (status_due, True), (kind, error)
        body, kind = raw_multipart({"name": "two", "command": "python3 a.py"}, b"a.py", b"x")
        second = b'Content-Disposition: form-data; name="more"; filename="b.py"\r\n\r\ny\r\n--'
        body = body.replace(b"--hostile-boundary-7d1f--", b"--hostile-boundary-7d1f\r\n" + second
                            + b"hostile-boundary-7d1f--")
        status, error = refused(c.post("/api/submissions", content=body, headers={"Content-Type": kind}))
        assert status == 400 and "one file per submission" in error
        # a file name with a byte that is not UTF-8: refused, not stored as another name
        body, kind = raw_multipart({"name": "ff", "command": "python3 bot.py"}, b"bot\xff.py", b"print(1)\n")
        status, error = refused(c.post("/api/submissions", content=body, headers={"Content-Type": kind}))
        assert (status, error) == (400, "the upload's file name 'bot\\udcff.py' is not UTF-8 (it has the "
                                        "byte 0xff)"), error
        # a file name of 10 KB, past the cap on a part's header (4 KiB)
        status, error = refused(c.post("/api/submissions", data={"name": "long", "command": "python3 bot.py"},
                                       files={"file": ("b" * 10_000 + ".py", b"print(1)\n")}))
        assert (status, error) == (400, "malformed form: Maximum header size exceeded")
        # an upload without its name, and a Bearer token that is wrong
        status, error = refused(c.post("/api/submissions", data={"command": "python3 bot.py"}, files=upload))
        assert status == 400 and "name:" in error
    with httpx.Client(base_url=serving.url, headers={"Authorization": "Bearer not.valid"}, timeout=60) as c:
        assert c.post("/api/submissions", data={"name": "x"}, files=upload).status_code == 401
    assert_nothing_kept(config)


def test_a_body_over_the_cap_sent_chunked_is_refused_before_it_ends(site):
    """No Content-Length to refuse it by: the cap applies as the body streams in, and the
    server answers 413 while the client still holds the body's end back."""
    config, serving, tokens = site
    boundary = "chunked-boundary-1"
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nchunky\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="command"\r\n\r\npython3 bot.py\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="bot.py"\r\n\r\n').encode()
    request = (f"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1:{serving.port}\r\n"
               f"Authorization: Bearer {tokens['mallory']}\r\nTransfer-Encoding: chunked\r\n"
               f"Content-Type: multipart/form-data; boundary={boundary}\r\n\r\n").encode()
    answered = threading.Event()
    sent = {"bytes": 0, "error": None}

    def send_body(sock: socket.socket) -> None:
        """The head of the form, then 64 KiB chunks of the file, up to 4 times the cap;
        never the last chunk that would end the body."""
        try:
            sock.sendall(b"%x\r\n%s\r\n" % (len(head), head))
            chunk = b"#" * 65536
            while not answered.is_set() and sent["bytes"] < 32 * MiB:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent["bytes"] += len(chunk)
        except OSError as exc:   # the server closed the connection after its answer
            sent["error"] = exc

    with socket.create_connection(("127.0.0.1", serving.port), timeout=60) as sock:
        sock.sendall(request)
        sender = threading.Thread(target=send_body, args=(sock,), daemon=True)
        sender.start()
        reply = b""
        while b"\r\n\r\n" not in reply:
            data = sock.recv(65536)
            assert data, f"the server closed the connection without an answer: {reply!r}"
            reply += data
        answered.set()
        head_part, _, body = reply.partition(b"\r\n\r\n")
        assert head_part.startswith(b"HTTP/1.1 413"), reply[:500]
        length = int(re.search(rb"(?i)\r\ncontent-length: (\d+)", head_part)[1])
        while len(body) < length:
            data = sock.recv(65536)
            assert data, body
            body += data
        error = httpx.Response(413, content=body).json()["error"]
        assert error == "the upload is larger than 8 MiB, the cap on an upload"
        sock.shutdown(socket.SHUT_RDWR)
        sender.join(60)
    # the body's last chunk was never sent: the answer came before the body ended
    assert sent["bytes"] >= 8 * MiB or sent["error"] is not None
    assert_nothing_kept(config)


def test_an_upload_over_the_cap_is_refused_in_the_uploads_words_however_it_is_chunked(tmp_path):
    """The body of a request crosses the upload's cap (8 MiB) and the request's (the cap and
    the fields' 64 KiB) in one piece, as a fast client's bytes may come off the socket: the
    refusal is still the upload's, which names its cap."""
    import asyncio

    from starlette.requests import Request

    from arena.server.app import _capped
    from arena.server.forms import read_form
    from arena.server.intake import Incoming
    from arena.server.uploads import UploadCaps, UploadRefused

    caps = UploadCaps()
    most = caps.upload_bytes + 65536
    body, kind = raw_multipart({"name": "big", "command": "python3 bot.py"}, b"bot.py", b"#" * (9 * MiB))
    pieces = [body[: 8 * MiB - 100], body[8 * MiB - 100:]]   # the second crosses both caps

    async def receive():
        return {"type": "http.request", "body": pieces.pop(0), "more_body": bool(pieces)}

    async def read() -> str:
        request = Request({"type": "http", "method": "POST", "path": "/api/submissions", "headers": []}, receive)
        incoming = Incoming(tmp_path / "submissions", caps)
        try:
            await read_form(kind, _capped(request, most), 65536, incoming.open_sink)
        except UploadRefused as exc:
            return f"{exc.status} {exc}"
        finally:
            incoming.discard()
        return "read"

    assert asyncio.run(read()) == "413 the upload is larger than 8 MiB, the cap on an upload"
    assert list((tmp_path / "submissions").iterdir()) == []


def test_behind_a_proxy_its_headers_count_and_token_checks_are_bounded_whatever_the_address(site):
    """With --behind-proxy the proxy's X-Forwarded-Proto makes the cookie Secure and its
    X-Forwarded-For is the address limits count; however many addresses send wrong tokens,
    the server makes at most rates.token_checks_burst scrypt checks at once and
    rates.token_checks_per_second after (429 for the rest). Last in the module: the server's
    checks stay spent for a while."""
    from concurrent.futures import ThreadPoolExecutor
    config, serving, tokens = site
    with httpx.Client(base_url=serving.url, timeout=60) as c:
        behind = c.post("/login", data={"token": tokens["trudy"]}, headers={"X-Forwarded-Proto": "https"})
        assert behind.status_code == 303 and "Secure" in behind.headers["set-cookie"]
    wrong = tokens["mallory"].split(".")[0] + ".wrong-secret"   # a user's lookup: each costs a scrypt

    def attempt(n: int) -> int:
        with httpx.Client(base_url=serving.url, timeout=60) as c:
            return c.get("/api/me", headers={"Authorization": f"Bearer {wrong}",
                                             "X-Forwarded-For": f"10.0.{n}.1"}).status_code
    started = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        statuses = list(pool.map(attempt, range(24)))   # 24 addresses, each under its own limit
    checked = statuses.count(401)
    assert set(statuses) == {401, 429}, statuses
    assert checked <= 10 + 0.1 * (time.monotonic() - started) + 1, statuses
