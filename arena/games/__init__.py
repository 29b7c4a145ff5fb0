"""Pure game rules: no I/O, no clocks, no processes."""

from .analysis import perft, random_game, random_playout, random_positions
from .base import (
    DRAW,
    LOSS,
    WIN,
    Game,
    GameError,
    GameInfo,
    GameOptionError,
    Grid,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    RuleOption,
    State,
)
from .registry import BUILTIN_GAMES, GameRegistry, UnknownGameError, default_registry

__all__ = [
    "BUILTIN_GAMES", "DRAW", "LOSS", "WIN", "Game", "GameError", "GameInfo", "GameOptionError",
    "GameRegistry", "Grid", "IllegalMoveError", "InvalidMoveError", "InvalidStateError", "RuleOption", "State",
    "UnknownGameError", "default_registry", "perft", "random_game", "random_playout", "random_positions",
]
