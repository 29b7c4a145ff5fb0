"""arena users: participants and their tokens, through the real CLI and the real server.sqlite."""

from __future__ import annotations

import socket
import sqlite3

from arena.server.accounts import Accounts
from arena.server.db import ServerDB
from tests.server import LADDER, add_user, arena, write_ladder


def test_add_prints_the_token_once_and_keeps_only_its_salted_hash(tmp_path):
    config = write_ladder(tmp_path)
    token = add_user(config, "alice", admin=True)
    other = add_user(config, "bob")
    assert token != other and "." in token and " " not in token
    database = tmp_path / "store.server" / "server.sqlite"
    raw = database.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("store.server/*-wal"))
    assert token.split(".")[1].encode() not in raw     # the secret is nowhere in the files
    with sqlite3.connect(database) as db:
        salts = [row[0] for row in db.execute("SELECT salt FROM users")]
    assert len(set(salts)) == 2
    with ServerDB(database) as db:
        accounts = Accounts(db)
        alice = accounts.authenticate(token)
        assert alice is not None and alice.name == "alice" and alice.admin
        assert accounts.authenticate(other).name == "bob"
        assert accounts.authenticate(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
        assert accounts.authenticate(other.split(".")[0] + "." + token.split(".")[1]) is None
        assert accounts.authenticate("") is None and accounts.authenticate("nodot") is None


def test_list_revoke_and_a_new_token(tmp_path):
    config = write_ladder(tmp_path)
    token = add_user(config, "alice")
    add_user(config, "root", admin=True)
    listed = arena("users", str(config), "list")
    assert listed.returncode == 0
    rows = {line.split()[0]: line.split() for line in listed.stdout.splitlines()[1:]}
    assert rows["alice"][1:2] == ["participant"] and rows["root"][1:2] == ["admin"]
    assert "active" in rows["alice"]
    assert token not in listed.stdout

    revoked = arena("users", str(config), "revoke", "alice")
    assert revoked.returncode == 0, revoked.stderr
    assert "revoked" in arena("users", str(config), "list").stdout.splitlines()[1]
    with ServerDB(tmp_path / "store.server" / "server.sqlite") as db:
        assert Accounts(db).authenticate(token) is None

    again = arena("users", str(config), "token", "alice")
    assert again.returncode == 0, again.stderr
    fresh = again.stdout.strip().splitlines()[-1]
    with ServerDB(tmp_path / "store.server" / "server.sqlite") as db:
        assert Accounts(db).authenticate(fresh).name == "alice"
        assert Accounts(db).authenticate(token) is None


def test_bad_names_and_actions_are_one_line_each(tmp_path):
    config = write_ladder(tmp_path)
    add_user(config, "alice")
    for args, words in ((("add", "alice"), "user 'alice' exists"),
                        (("add", "../evil"), "'../evil' is not allowed"),
                        (("add", "Alice"), "'Alice' is not allowed"),
                        (("add", "x" * 40), "is not allowed as a name: 1 to 32 of lowercase letters"),
                        (("revoke", "nobody"), "no user 'nobody'"),
                        (("add",), "give the user's name")):
        done = arena("users", str(config), *args)
        assert done.returncode == 2, (args, done.stdout)
        assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, done.stderr


def test_the_server_section_is_checked_and_ignored_by_arena_run(tmp_path):
    config = write_ladder(tmp_path)
    bad = config.read_text().replace("against: blind", "against: nobody")
    (tmp_path / "bad.yaml").write_text(bad)
    done = arena("users", str(tmp_path / "bad.yaml"), "list")
    assert done.returncode == 2
    assert "server.validate.against: unknown bot 'nobody'; the config's bots: blind, sleepy" in done.stderr
    (tmp_path / "typo.yaml").write_text(config.read_text().replace("  validate:", "  validat:"))
    assert "server.validat: unknown key (did you mean 'validate'?)" in arena(
        "users", str(tmp_path / "typo.yaml"), "list").stderr
    run = arena("run", str(config), "--standings", "0")
    assert run.returncode == 0, run.stderr


def test_data_dir_from_the_config(tmp_path):
    config = write_ladder(tmp_path, LADDER + "  data: elsewhere\n")
    add_user(config, "alice")
    assert (tmp_path / "elsewhere" / "server.sqlite").is_file()
    assert not (tmp_path / "store.server").exists()


def test_arena_serve_refuses_a_sandbox_other_than_bwrap(tmp_path):
    config = write_ladder(tmp_path, LADDER.replace("workers: 1", "workers: 1\nsandbox: {mode: none}"))
    done = arena("serve", str(config), "--port", "1")
    assert done.returncode == 2
    assert "sandbox.mode is 'none'; arena serve runs participants' code only in the bwrap sandbox" in done.stderr
    assert not (tmp_path / "store.sqlite").exists()      # nothing started


def test_arena_serve_on_a_port_in_use_says_so_in_one_line_and_starts_nothing(tmp_path):
    from tests.server.serving import bwrap_or_skip
    bwrap_or_skip()
    config = write_ladder(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = arena("serve", str(config), "--port", str(port))
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [f"arena serve: error: cannot listen on 127.0.0.1:{port}: the port is in "
                                        "use (another server?); give another with --port"]
    assert not (tmp_path / "store.sqlite").exists() and not (tmp_path / "store.server").exists()


def test_a_data_dir_holding_a_nul_or_a_newline_is_one_line_and_creates_nothing(tmp_path):
    for given, said in (('"srv\\0x"', "holds a NUL character"), ('"srv\\nx"', "holds the control character")):
        config = write_ladder(tmp_path, LADDER + f"  data: {given}\n")
        done = arena("users", str(config), "list")
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert f"server.data: {said}" in done.stderr, done.stderr
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith("srv")] == []
