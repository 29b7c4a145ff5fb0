"""Leagues: YAML config, fixtures, the results store, ratings and the leaderboard.

config <- schedule <- store; ratings, pairs and leaderboard read game records only
(pairs and the leaderboard compute with arena.stats).
"""

from .config import (
    BotCheck,
    BotConfig,
    BotProblem,
    ConfigError,
    LeagueConfig,
    RatingConfig,
    RayConfig,
    config_from_dict,
    load_config,
)
from .leaderboard import Cell, Leaderboard, Row, build_leaderboard, render
from .pairs import Tally
from .rating_systems import DEFAULT_RATING_SYSTEM, Rating, RatingColumn, RatingSystem, RatingWords, TrueSkill
from .ratings import HistoryPoint, Ratings, compute_ratings, make_env
from .schedule import Fixture, make_fixtures, schedule
from .store import Store, StoredGame, StoreError

__all__ = [
    "DEFAULT_RATING_SYSTEM", "BotCheck", "BotConfig", "BotProblem", "Cell",
    "ConfigError", "Fixture", "HistoryPoint", "Leaderboard", "LeagueConfig", "Rating",
    "RatingColumn", "RatingConfig", "RatingSystem", "RatingWords", "Ratings", "RayConfig", "Row",
    "Store", "StoreError", "StoredGame", "Tally", "TrueSkill", "build_leaderboard",
    "compute_ratings", "config_from_dict", "load_config", "make_env", "make_fixtures", "render",
    "schedule",
]
