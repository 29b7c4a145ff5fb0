"""Pure game rules: no I/O, no clocks, no processes."""

from .analysis import joint_moves, perft, random_game, random_playout, random_positions, random_turns
from .base import (
    DRAW,
    LOSS,
    SIMULTANEOUS,
    WIN,
    FromFile,
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
    ranking_from_scores,
    scores_from_ranking,
)
from .registry import BUILTIN_GAMES, GAMES, GameRegistry, UnknownGameError, default_registry

__all__ = [
    "BUILTIN_GAMES", "DRAW", "GAMES", "LOSS", "SIMULTANEOUS", "WIN", "FromFile", "Game", "GameError", "GameInfo",
    "GameOptionError", "GameRegistry", "Grid", "IllegalMoveError", "InvalidMoveError", "InvalidStateError",
    "RuleOption", "State", "UnknownGameError", "default_registry", "joint_moves", "perft", "random_game",
    "random_playout", "random_positions", "random_turns", "ranking_from_scores", "scores_from_ranking",
]
