"""kill -9 of arena serve: an upload cut off leaves no submission and no files once the
server is back; a restart resumes the ladder, the submissions and the sessions. A stop
(SIGTERM, Ctrl-C) decides no submission: one held at validating is taken again."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import threading

import httpx
from ctrl_c import sigint_default

from arena.league import Store, StoreError
from arena.server.db import ServerDB
from tests.server import ARENA, LADDER, ROOT, add_user, arena, write_ladder
from tests.server.bots import GATED, ORDERED
from tests.server.serving import Serving, bwrap_or_skip, free_port, poll, wait_for_store_release

BOUNDARY = "arena-test-boundary"


def games(store) -> int:
    """Games stored (0 while the ladder is still making the store)."""
    try:
        with Store(store, readonly=True) as s:
            return s.count()
    except StoreError:
        return 0


#: a start long enough for a gated bot's validation to wait at its gate until the test opens it
GATE_WAIT = LADDER.replace("startup_ms: 5000", "startup_ms: 120000")


def test_kill_9_during_an_upload_then_a_restart_resumes_everything(tmp_path):
    config = write_ladder(tmp_path, GATE_WAIT)
    token = add_user(config, "alice")
    data = tmp_path / "store.server"
    store = tmp_path / "store.sqlite"
    serving = Serving(config)
    with httpx.Client(base_url=serving.url, follow_redirects=False) as browser:
        assert browser.post("/login", data={"token": token}).status_code == 303
        cookies = dict(browser.cookies)
    poll(lambda: games(store) > 0, "the ladder's first games")
    second = arena("serve", str(config), "--port", str(serving.port + 1))   # the same data: refused
    assert second.returncode == 2, second.stderr
    assert f"another arena serve (pid {serving.proc.pid}) is running on this data" in second.stderr

    gate = threading.Event()   # never set: the upload stops half-way until the server dies

    def body():
        yield (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nhalf\r\n"
               f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"command\"\r\n\r\npython3 bot.py\r\n"
               f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"bot.py\"\r\n"
               "Content-Type: text/x-python\r\n\r\n").encode()
        yield b"#" * 100_000 + b"\n"
        gate.wait(60)

    outcome: list[object] = []

    def upload():
        try:
            outcome.append(httpx.post(f"{serving.url}/api/submissions", content=body(), timeout=60,
                                      headers={"Authorization": f"Bearer {token}",
                                               "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}))
        except httpx.HTTPError as exc:
            outcome.append(exc)

    sender = threading.Thread(target=upload)
    sender.start()
    partial = poll(lambda: [p for p in (data / "submissions").glob(".incoming-*.upload") if p.stat().st_size > 0],
                   "the upload to be half-way in")
    serving.kill()
    gate.set()
    sender.join(60)
    assert isinstance(outcome[0], httpx.HTTPError), outcome
    assert partial[0].exists()   # what the kill left: nothing registered it
    with sqlite3.connect(data / "server.sqlite") as db:
        assert db.execute("SELECT count(*) FROM submissions").fetchone()[0] == 0
    wait_for_store_release(store)
    before = games(store)

    # a submission the worker had taken when the server died: it goes back to received
    with ServerDB(data / "server.sqlite") as db:
        alice = db.user("alice")
        source = tmp_path / "prepared"
        source.mkdir()
        (source / "bot.py").write_text(ORDERED)

        def place(number):
            target = data / "submissions" / "left" / str(number)
            target.parent.mkdir(parents=True, exist_ok=True)
            source.rename(target)
            return target
        left = db.register(alice.id, "left", "file", place, command="python3 bot.py")
        db.set_status(left.id, "validating")

    again = Serving(config)
    try:
        # its first reading of the store is not made yet: the count is there at once, and said
        board = httpx.get(again.url + "/api/leaderboard").json()
        assert board["games"] >= before and (board["rows"] or board["reading"]), board
        assert f'<span id="games-count">{before}' in httpx.get(again.url + "/").text or board["rows"]
        assert not list((data / "submissions").glob(".incoming-*"))
        assert sorted(p.name for p in (data / "submissions").iterdir()) == ["left"]
        with httpx.Client(base_url=again.url, cookies=cookies, follow_redirects=False) as browser:
            me = browser.get("/me")
            assert me.status_code == 200 and "<h1>alice</h1>" in me.text   # the session lives on
        poll(lambda: games(store) > before, "the ladder to play on after the restart")
        with ServerDB(data / "server.sqlite") as db:
            done = poll(lambda: db.submission(left.id).status in ("accepted", "rejected") and db.submission(left.id),
                        "the submission left half-way to be taken again")
        assert done.status == "accepted", done.message
        assert "taken again" in again.stderr() and "an upload a stopped server left unfinished" in again.stderr()
        # SIGTERM while a submission is validating (its bot waits at its gate): no verdict
        (tmp_path / "gated.py").write_text(GATED)
        sent = arena("submit", again.url, str(tmp_path / "gated.py"), "--token", token, "--name", "gated",
                     "--command", "python3 gated.py")
        assert sent.returncode == 0, sent.stdout + sent.stderr
        gated = int(sent.stdout.split()[1].rstrip(":"))
        with ServerDB(data / "server.sqlite") as db:
            poll(lambda: db.submission(gated).status == "validating", "the gated bot's validation")
    finally:
        assert again.stop() == 130
    assert "was still running" not in again.stderr(), again.stderr()   # every child stopped when told
    with ServerDB(data / "server.sqlite") as db:
        held = db.submission(gated)
    assert (held.status, held.message) == ("received", ""), held
    # taken again at the next start, and (its gate open) accepted
    (data / "submissions" / "gated" / "1" / "go").write_text("")
    third = Serving(config)
    try:
        with ServerDB(data / "server.sqlite") as db:
            done = poll(lambda: db.submission(gated).status in ("accepted", "rejected") and db.submission(gated),
                        "the gated submission to be taken again")
        assert done.status == "accepted", done.message
    finally:
        assert third.stop() == 130


def test_ctrl_c_stops_every_process_of_the_server(tmp_path):
    bwrap_or_skip()
    config = write_ladder(tmp_path)
    port = free_port()
    err = tmp_path / "serve.err"
    with err.open("wb") as out:
        proc = subprocess.Popen([*ARENA, "serve", str(config), "--port", str(port)], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=out, start_new_session=True,
                                preexec_fn=sigint_default)
    url = f"http://127.0.0.1:{port}"
    poll(lambda: _answers(url + "/api/health"), "the server to answer")
    poll(lambda: games(tmp_path / "store.sqlite") > 0, "the ladder's first games")
    poll(lambda: httpx.get(url + "/api/leaderboard").json()["rows"], "a reading of the store")
    os.killpg(proc.pid, signal.SIGINT)      # what Ctrl-C in a terminal does: the whole group
    assert proc.wait(60) == 130
    try:
        poll(lambda: not _group(proc.pid), "every process of the server to end", seconds=60)
    except AssertionError:   # say which, for whoever reads a failure
        raise AssertionError(f"left after 60 s: {_commands(_group(proc.pid))}") from None
    assert "Traceback" not in err.read_text()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def _group(pgid: int) -> list[int]:
    """The processes left running in a process group. A zombie has ended: one whose parent
    died is reparented to the nearest subreaper, which is this pytest process once an
    earlier test ran a Sandbox(mode="none") in it, and pytest never reaps it."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == pgid and not _zombie(int(entry)):
                    found.append(int(entry))
            except (ProcessLookupError, OSError):
                pass
    return found


def _zombie(pid: int) -> bool:
    """Whether the process has exited and waits to be reaped (state Z in /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"


def _commands(pids: list[int]) -> list[str]:
    """Each process's command line, as ps shows it."""
    found = []
    for pid in pids:
        try:
            found.append(f"{pid}: " + open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode())
        except OSError:
            pass
    return found
