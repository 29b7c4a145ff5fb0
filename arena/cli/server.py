"""arena serve, users and submit: the competition server, its participants, a submission."""

from __future__ import annotations

import argparse

from .command import Command
from .common import loaded


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
    p.add_argument("config", help="the ladder config the server runs")
    p.add_argument("action", choices=("add", "list", "revoke", "token"),
                   help="add a user (prints their token once), list them, revoke one's token, "
                        "or give one a new token")
    p.add_argument("name", nargs="?", help="the user (add, revoke, token)")
    p.add_argument("--admin", action="store_true", help="add: the user may administer the server")


COMMANDS = (
    Command("users", "the participants of a server: add (prints a token), list, revoke", cmd_users,
            _users_arguments),
)
