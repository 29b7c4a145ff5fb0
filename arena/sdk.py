"""The bot side of the arena protocol: write a class that picks a move, and
run() speaks the protocol on stdin/stdout for it.

    from arena.sdk import run

    class FirstMove:
        def __init__(self, game, rng, **options):
            self.rng = rng
        def choose(self, state, time_left_ms):
            return state.legal_moves()[0]

    if __name__ == "__main__":
        run(FirstMove)

or, for a registered class, `python -m arena.sdk package.module:Class [key=value ...]`.
Anything a bot wants to log goes to stderr; stdout carries only protocol lines.
"""

from __future__ import annotations

import importlib
import json
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TextIO

from arena.errors import ArenaError
from arena.games import Game, GameRegistry, State, default_registry

PROTOCOL_VERSION = 1


class Agent(Protocol):
    """What the SDK needs from a bot: a move for a state."""

    def choose(self, state: State, time_left_ms: float | None) -> int: ...


AgentFactory = Callable[..., Agent]


class SDKError(ArenaError, RuntimeError):
    """The referee sent something this SDK cannot follow."""


def run(factory: AgentFactory, options: dict[str, Any] | None = None,
        stdin: TextIO | None = None, stdout: TextIO | None = None,
        games: Callable[[str, dict[str, str]], Game] | None = None) -> int:
    """Play games on the arena protocol until 'quit' or end of input; returns an exit code.

    factory(game, rng, **options) makes the agent for each game; rng is seeded by
    the referee, so a bot that takes all its randomness from rng replays exactly.
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    make_game = games or create_game
    options = options or {}
    game: Game | None = None
    agent: Any = None
    for raw in stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "arena":
            if len(words) < 5 or words[1] != str(PROTOCOL_VERSION):
                raise SDKError(f"unsupported handshake {raw.strip()!r}: this SDK speaks "
                               f"protocol {PROTOCOL_VERSION}")
            name, _seat, seed = words[2], int(words[3]), int(words[4])
            rules = dict(word.split("=", 1) for word in words[5:])
            game = make_game(name, rules)
            agent = factory(game, random.Random(seed), **options)
            _send(stdout, "ready")
        elif command == "turn":
            if game is None:
                raise SDKError("'turn' before the handshake")
            move_ms, bank_ms = int(words[1]), int(words[2])
            state = game.parse_state(" ".join(words[5:]))
            move = agent.choose(state, float(move_ms + bank_ms))
            _send(stdout, game.move_text(move))
        elif command == "over":
            new_game = getattr(agent, "new_game", None)
            if new_game is not None:
                new_game()
        elif command == "quit":
            return 0
        else:
            print(f"arena.sdk: ignoring unknown message {raw.strip()[:80]!r}", file=sys.stderr)
    return 0


def create_game(name: str, rules: dict[str, str]) -> Game:
    """The game a handshake names, from the registry every arena consumer shares. A
    built-in game is made without loading the plugins (a bot starts for every game, and
    loading them costs it pluggy and an entry-point scan); a plugin game loads them."""
    registry: GameRegistry = default_registry()
    if name not in registry.names():
        from arena.plugins import game_registry
        registry = game_registry()
    return registry.create(name, **rules)


def _send(stdout: TextIO, line: str) -> None:
    stdout.write(line + "\n")
    stdout.flush()


def load_factory(target: str) -> AgentFactory:
    """The object a 'package.module:Name' target names."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise SDKError(f"{target!r} is not a bot target: expected 'package.module:Name'")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise SDKError(f"module {module_name!r} has no {attr!r}") from None


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """key=value words to options; values are read as JSON when they parse, else kept as text."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SDKError(f"option {item!r}: expected key=value")
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    return options


def main(argv: Sequence[str] | None = None) -> int:
    """python -m arena.sdk package.module:Class [key=value ...]"""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(main.__doc__, file=sys.stderr)
        return 2
    return run(load_factory(args[0]), parse_options(args[1:]))


if __name__ == "__main__":
    raise SystemExit(main())
