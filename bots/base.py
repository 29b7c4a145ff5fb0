"""The agent interface the bot SDK drives: options, a move chooser, optional reset and stats."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

from arena.errors import ArenaError
from arena.games import SIMULTANEOUS, Game, State

from .catalog import BY_TARGET

#: Part of the referee's per-move allowance an agent plans to use (the rest is margin for transport).
TIME_SHARE = 0.5
#: Milliseconds always kept back from the referee's allowance.
TIME_MARGIN_MS = 5.0


class AgentOptionError(ArenaError, ValueError):
    """An option the agent does not have, or a value it cannot take."""


def _parse_bool(text: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a boolean (use true or false)")


class Agent(ABC):
    """A game-playing agent: chooses a legal move for a state; all randomness comes from its rng.

    A reference agent (one bots.catalog declares by its 'module:Class') takes its name,
    game, description and options from that declaration; another sets them itself."""

    name: ClassVar[str] = ""
    game: ClassVar[str] = "*"
    description: ClassVar[str] = ""
    #: option name -> (default, one-line help)
    options: ClassVar[dict[str, tuple[Any, str]]] = {}
    #: how to read an option given as text when its default (None) does not say
    option_types: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        bot = BY_TARGET.get(f"{cls.__module__}:{cls.__qualname__}")
        if bot is not None:
            cls.name, cls.game, cls.description = bot.name, bot.game, bot.description
            cls.options = {key: (option.default, option.help) for key, option in bot.options.items()}

    def __init__(self, game: Game, rng: random.Random, **options: Any) -> None:
        if self.game != "*" and game.name != self.game:
            raise AgentOptionError(f"agent {self.name!r} plays {self.game!r}, not {game.name!r}")
        unknown = [key for key in options if key not in self.options]
        if unknown:
            allowed = ", ".join(sorted(self.options)) or "none"
            raise AgentOptionError(f"agent {self.name!r} has no option {unknown[0]!r} (options: {allowed})")
        self.game_obj = game
        self.config: dict[str, Any] = {
            key: self._coerce(key, options[key]) if key in options else default
            for key, (default, _help) in self.options.items()}
        seed = self.config.get("seed")
        self.rng = random.Random(seed) if seed is not None else rng
        self.last_stats: dict[str, Any] = {}

    @classmethod
    def _coerce(cls, key: str, value: Any) -> Any:
        default = cls.options[key][0]
        if value is None:
            return None
        try:
            if isinstance(default, bool):
                return value if isinstance(value, bool) else _parse_bool(str(value))
            if isinstance(default, int):
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError(f"{value!r} is not a whole number")
                return int(value)
            if isinstance(default, float):
                return float(value)
            if isinstance(default, str):
                return str(value)
            conv = cls.option_types.get(key)
            return conv(value) if conv is not None else value
        except (TypeError, ValueError) as err:
            raise AgentOptionError(f"agent {cls.name!r}: option {key!r} cannot be {value!r}: {err}") from None

    @abstractmethod
    def choose(self, state: State, time_left_ms: float | None) -> int:
        """A legal move for state; time_left_ms is the referee's allowance for this move (None: no limit)."""

    def choose_for(self, state: State, seat: int, time_left_ms: float | None) -> int:
        """A legal move for seat, one of state.moves_of(seat). In a game of turns seat is the
        one to move and this is choose(); an agent for games whose seats move at once
        (state.to_move == SIMULTANEOUS) overrides it."""
        if state.to_move == SIMULTANEOUS or seat != state.to_move:
            raise AgentOptionError(f"agent {self.name!r} plays games of turns: it cannot choose a move for "
                                   f"seat {seat} where seats {list(state.movers())} move")
        return self.choose(state, time_left_ms)

    def new_game(self) -> None:
        """Forget anything kept from the previous game."""

    # helpers for subclasses

    @staticmethod
    def budget_ms(wanted_ms: float | None, time_left_ms: float | None) -> float | None:
        """Milliseconds to think: wanted_ms (None: unlimited), capped to a share of the allowance."""
        if time_left_ms is None:
            return wanted_ms
        cap = max(0.0, time_left_ms * TIME_SHARE - TIME_MARGIN_MS)
        return cap if wanted_ms is None else min(wanted_ms, cap)

    @staticmethod
    def legal(state: State) -> tuple[int, ...]:
        """Legal moves; raises ValueError when the game is over."""
        moves = state.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no move to choose")
        return moves

    def pick(self, moves) -> Any:
        """A uniformly random element of a non-empty sequence, drawn from the agent's rng."""
        return moves[int(self.rng.random() * len(moves))]


Agent.option_types = {"seed": int}

__all__ = ["Agent", "AgentOptionError", "TIME_MARGIN_MS", "TIME_SHARE"]
