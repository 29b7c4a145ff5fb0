"""arena serve, users and submit: the competition server, its participants, a submission."""

from __future__ import annotations

import argparse

from .command import Command
from .common import loaded, path_argument


def cmd_users(args: argparse.Namespace) -> int:
    from arena.server.accounts import Accounts
    from arena.server.config import load_server
    from arena.server.db import ServerDB
    server = load_server(args.config, loaded(), limits=False)
    with ServerDB(server.database) as db:
        accounts = Accounts(db)
        if args.action == "list":
            users = db.users()
            owned: dict[int, list[str]] = {}
            for bot, owner in db.bots().items():
                owned.setdefault(owner, []).append(bot)
            print(f"{'user':<32} {'role':<11} {'created':<25} {'state':<8} bots")
            for user in users:
                role = "admin" if user.admin else "participant"
                state = "active" if user.active else "revoked"
                print(f"{user.name:<32} {role:<11} {user.created:<25} {state:<8} "
                      f"{', '.join(owned.get(user.id, [])) or '-'}")
            return 0
        if args.name is None:
            from .common import UserError
            raise UserError(f"arena users CONFIG {args.action} NAME: give the user's name")
        if args.action == "add":
            user, token = accounts.add(args.name, admin=args.admin)
            print(f"added {'admin' if user.admin else 'participant'} {user.name}; their token "
                  "(shown this once, only its hash is kept):")
            print(token)
        elif args.action == "token":
            user, token = accounts.new_token(args.name)
            print(f"new token for {user.name} (the old one no longer works; shown this once):")
            print(token)
        else:
            if not accounts.revoke(args.name):
                from .common import UserError
                raise UserError(f"no user {args.name!r} (arena users {args.config} list)")
            print(f"{args.name}: token revoked, sessions ended; their bots stay "
                  f"(arena users {args.config} token {args.name} gives a new token)")
    return 0


def _users_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", type=path_argument, help="the ladder config the server runs")
    p.add_argument("action", choices=("add", "list", "revoke", "token"),
                   help="add a user (prints their token once), list them, revoke one's token, "
                        "or give one a new token")
    p.add_argument("name", nargs="?", help="the user (add, revoke, token)")
    p.add_argument("--admin", action="store_true", help="add: the user may administer the server")




def cmd_serve(args: argparse.Namespace) -> int:
    from arena.server.serve import serve
    return serve(args.config, host=args.host, port=args.port, secure_cookies=args.secure_cookies,
                 plugins=loaded(), behind_proxy=args.behind_proxy)


def _serve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", type=path_argument, help="the ladder config, e.g. tournaments/ladder-demo.yaml")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only; put a TLS "
                        "reverse proxy in front to serve others, docs/server.md)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--secure-cookies", action="store_true",
                   help="mark the session cookie Secure (behind an https proxy that does not send "
                        "X-Forwarded-Proto)")
    p.add_argument("--behind-proxy", action="store_true",
                   help="a reverse proxy on this machine is in front: take each client's address "
                        "and scheme from its X-Forwarded-For and X-Forwarded-Proto (sent from 127.0.0.1 "
                        "only); without it those headers are ignored, so no client can choose the "
                        "address its rate limits count")


def cmd_submit(args: argparse.Namespace) -> int:
    from arena.server.submit import submit
    return submit(args)


def _submit_arguments(p: argparse.ArgumentParser) -> None:
    import os
    p.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    p.add_argument("path", nargs="?", metavar="PATH", type=path_argument,
                   help="the bot: one source file, or a .zip / .tar.gz of its directory")
    p.add_argument("--token", default=os.environ.get("ARENA_TOKEN"),
                   help="your token (default: $ARENA_TOKEN)")
    p.add_argument("--name", required=True, help="the bot's name (yours, or a new one)")
    p.add_argument("--command", help="how to run it, from its directory: e.g. 'python3 bot.py'")
    p.add_argument("--dialect", help="the protocol it speaks (default: arena)")
    p.add_argument("--build", help="a build command, run in the sandbox in its directory: e.g. 'make'")
    p.add_argument("--wheel", metavar="FILE.whl", type=path_argument, help="a wheel of a bot plugin instead of PATH")
    p.add_argument("--wait", action="store_true",
                   help="wait until it is accepted or rejected and print the message")
    p.add_argument("--timeout", type=float, default=600.0, help="--wait at most this long (s)")


COMMANDS = (
    Command("serve", "run a ladder with a web server: participants submit bots, everyone watches",
            cmd_serve, _serve_arguments),
    Command("submit", "submit a bot to a server: a source file, an archive or a wheel", cmd_submit,
            _submit_arguments),
    Command("users", "the participants of a server: add (prints a token), list, revoke", cmd_users,
            _users_arguments),
)
