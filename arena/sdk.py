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

import gc
import importlib
import json
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TextIO

from arena.errors import ArenaError
from arena.games import Game, State, default_registry

PROTOCOL_VERSION = 1


class Agent(Protocol):
    """What the SDK needs from a bot: a move for a state. Where seats move at once
    (the game's info.simultaneous) it asks choose_for(state, seat, time_left_ms) instead,
    when the agent has it: the move of the bot's own seat, one of state.moves_of(seat)."""

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
    Run on the process's own stdin (a bot's process), at the first handshake, before the
    agent is made, what start-up left is collected and frozen (freeze_start_up), so no
    collection during a move goes through it again; a caller passing its own stdin keeps
    its collector as it is.
    """
    frozen = stdin is not None   # a caller's stdin: not a bot's process, its collector is left alone
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    make_game = games or create_game
    options = options or {}
    game: Game | None = None
    agent: Any = None
    seat = 0
    for raw in stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "arena":
            if len(words) < 5 or words[1] != str(PROTOCOL_VERSION):
                raise SDKError(f"unsupported handshake {raw.strip()!r}: this SDK speaks "
                               f"protocol {PROTOCOL_VERSION}")
            name, seat, seed = words[2], int(words[3]), int(words[4])
            rules = dict(word.split("=", 1) for word in words[5:])
            game = make_game(name, rules)
            if not frozen:
                freeze_start_up()
                frozen = True
            agent = factory(game, random.Random(seed), **options)
            _send(stdout, "ready")
        elif command == "turn":
            if game is None:
                raise SDKError("'turn' before the handshake")
            if len(words) < 6:
                raise SDKError(f"a turn needs 'turn MOVE_MS BANK_MS LAST LEGAL STATE', got {raw.strip()[:80]!r}")
            move_ms, bank_ms = int(words[1]), int(words[2])
            state = lazy_state(game, words[4], " ".join(words[5:]))
            # the game's facts, not the state's: reading state.to_move would build the state
            if game.info.simultaneous and hasattr(agent, "choose_for"):
                move = agent.choose_for(state, seat, float(move_ms + bank_ms))   # LEGAL: this seat's moves
            else:
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


def freeze_start_up() -> None:
    """Collect garbage, then move every object left to the collector's permanent generation.

    A full collection goes through every object the collector tracks: a bot's modules and
    the game's tables (about 12,000 objects, 1.7-3.5 ms here, for the mcts bot at ultimate) would
    be gone through again at each one that falls inside a move. Done here, in the start-up
    allowance, before any agent exists: nothing frozen is an agent's, so nothing a game
    drops is kept for good (frozen objects are freed only by reference counting)."""
    gc.collect()
    gc.freeze()


def lazy_state(game: Game, legal: str, text: str) -> State:
    """The state a turn describes, read from its text only when the bot first looks at it.

    It is an instance of the game's own state class (isinstance holds) whose fields are
    filled from game.parse_state(text) on first use; until then legal_moves() answers from
    the turn's list of legal moves, so a bot that only needs those builds no state."""
    lazy: Any = _lazy_class(type(game), game)
    if lazy is None:
        return game.parse_state(text)
    state = lazy.__new__(lazy)
    object.__setattr__(state, "_sdk_turn", [game, legal, text])
    return state


_LAZY_CLASSES: dict[type, type | None] = {}


def _lazy_class(game_class: type, game: Game) -> type | None:
    """The game's state class, made to fill itself from a turn's text on first use; None
    when its states are not made of slots alone. A field of a class with a __dict__ may
    have a class-level default (a dataclass's `stones: int = 21`), which normal lookup
    would find before the state is filled: such a game's states are read at once."""
    if game_class in _LAZY_CLASSES:
        return _LAZY_CLASSES[game_class]
    real = type(game.initial_state())
    if hasattr(game.initial_state(), "__dict__"):
        _LAZY_CLASSES[game_class] = None
        return None
    decimal = type(game).parse_move is Game.parse_move   # moves are cell numbers: int() reads them

    def fill(state: Any) -> None:
        turn = object.__getattribute__(state, "_sdk_turn")
        object.__setattr__(state, "_sdk_turn", None)
        for name, value in _fields(turn[0].parse_state(turn[2])).items():
            object.__setattr__(state, name, value)

    own_getattr = getattr(real, "__getattr__", None)   # a state class may have its own

    def __getattr__(state: Any, name: str) -> Any:
        # only for what normal lookup did not find: a field not filled yet, or none at all
        if name != "_sdk_turn" and object.__getattribute__(state, "_sdk_turn") is not None:
            fill(state)
            try:
                return object.__getattribute__(state, name)
            except AttributeError:
                pass
        if own_getattr is not None and name != "_sdk_turn":
            return own_getattr(state, name)
        raise AttributeError(f"{real.__name__!r} object has no attribute {name!r}")

    def legal_moves(state: Any) -> tuple[int, ...]:
        turn = object.__getattribute__(state, "_sdk_turn")
        if turn is None:
            return real.legal_moves(state)
        if isinstance(turn[1], str):   # read once, then kept
            texts = turn[1].split(",") if turn[1] not in ("", "-") else []
            turn[1] = tuple(map(int, texts)) if decimal else tuple(turn[0].parse_move(t) for t in texts)
        return turn[1]

    def __reduce_ex__(state: Any, protocol: Any) -> Any:
        # copied or pickled as a plain state of the game's class (which pickle can name)
        if object.__getattribute__(state, "_sdk_turn") is not None:
            fill(state)
        return _plain_state, (real, _fields(state))

    lazy = type(real.__name__, (real,), {
        "__slots__": ("_sdk_turn",), "__getattr__": __getattr__, "legal_moves": legal_moves,
        "__reduce_ex__": __reduce_ex__,
        "__module__": real.__module__, "__qualname__": real.__qualname__,
        "__doc__": real.__doc__})
    _LAZY_CLASSES[game_class] = lazy
    return lazy


def _fields(source: Any) -> dict[str, Any]:
    """Every field (slot or attribute) a state has set, by name."""
    found: dict[str, Any] = {}
    for klass in type(source).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{klass.__name__.lstrip('_')}{name}"     # a private slot's real name
            if name not in ("__dict__", "__weakref__", "_sdk_turn") and hasattr(source, name):
                found[name] = getattr(source, name)
    found.update(getattr(source, "__dict__", {}))
    return found


def _plain_state(cls: Any, fields: dict[str, Any]) -> Any:
    """A state of class cls with the given fields (how a turn's state is copied or pickled)."""
    state = cls.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(state, name, value)
    return state


def create_game(name: str, rules: dict[str, str]) -> Game:
    """The game a handshake names. A built-in game is made without loading the plugins (a
    bot starts for every game, and loading them costs it pluggy and an entry-point scan);
    a plugin game loads the games there are, as the bot's process starts."""
    registry = default_registry()
    if name not in registry:
        from arena.plugins import games_only_registry
        registry = games_only_registry()
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
