"""`arena submit URL ...`: a bot sent to a server's API (the file streamed), then, with
--wait, its status followed until it is accepted or rejected.

Exit codes: 0 accepted (or received, without --wait), 1 rejected, 2 a usage mistake or an
upload the server refused (its one line printed), or no server at URL.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from arena.errors import ArenaError

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_REFUSED = 0, 1, 2
POLL_SECONDS = 1.0
DONE = ("accepted", "rejected", "replaced")


class SubmitError(ArenaError):
    """A submission that could not be made: one line (exit code 2)."""


def submit(args: argparse.Namespace) -> int:
    """Send the bot args name; print the submission's id and status (and, with --wait, how it ended)."""
    if not args.token:
        raise SubmitError("give your token: --token TOKEN, or set ARENA_TOKEN")
    if (args.path is None) == (args.wheel is None):
        raise SubmitError("give the bot's PATH (with --command) or --wheel FILE.whl, one of them")
    if args.path is not None and not args.command:
        raise SubmitError("--command: how the server runs your bot from its directory, e.g. 'python3 bot.py'")
    if args.wheel is not None and (args.command or args.build or args.dialect):
        raise SubmitError("a wheel's plugin says how its bot runs: leave out --command, --build and --dialect")
    path = Path(args.wheel or args.path)
    if not path.is_file():
        raise SubmitError(f"{path}: no such file")
    fields = {"name": args.name, "kind": "wheel" if args.wheel else "source"}
    for key in ("command", "dialect", "build"):
        if getattr(args, key):
            fields[key] = getattr(args, key)
    base = args.url.rstrip("/")
    headers = {"Authorization": f"Bearer {args.token}"}
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=httpx.Timeout(60.0, connect=10.0)) as client, \
                path.open("rb") as fh:
            response = client.post("/api/submissions", data=fields, files={"file": (path.name, fh)})
            answer = _json(response)
            if response.status_code != 201:
                print(f"arena submit: refused ({response.status_code}): {answer.get('error', response.text[:200])}",
                      file=sys.stderr)
                return EXIT_REFUSED
            print(f"submission {answer['id']}: {answer['bot']} #{answer['number']}, {answer['status']}")
            if not args.wait:
                return EXIT_ACCEPTED
            return _follow(client, answer, args.timeout)
    except httpx.HTTPError as exc:
        raise SubmitError(f"{base}: {exc}") from None


def _follow(client: httpx.Client, answer: dict[str, Any], timeout: float) -> int:
    """Poll the submission until it is done; print each status it reaches."""
    deadline = time.monotonic() + timeout
    status = answer["status"]
    while answer["status"] not in DONE:
        if time.monotonic() > deadline:
            print(f"submission {answer['id']}: still {answer['status']} after {timeout:g} s", file=sys.stderr)
            return EXIT_REJECTED
        time.sleep(POLL_SECONDS)
        response = client.get(f"/api/submissions/{answer['id']}")
        if response.status_code == 429:
            time.sleep(float(response.headers.get("retry-after", "1")))
            continue
        answer = _json(response)
        if response.status_code != 200:
            raise SubmitError(f"submission {answer.get('id', '?')}: {answer.get('error', response.text[:200])}")
        if answer["status"] != status:
            status = answer["status"]
            print(f"submission {answer['id']}: {status}")
    print(answer["message"])
    if answer["status"] == "rejected":
        if answer.get("stderr_tail"):
            print("stderr of the validation (last lines):")
            for line in answer["stderr_tail"].splitlines()[-20:]:
                print("  " + line)
        return EXIT_REJECTED
    return EXIT_ACCEPTED


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        value = response.json()
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
