"""Which games exist: the games' kind of arena.registry.Registry, and the built-in games."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena.registry import Kind, Registry, UnknownNameError

from .base import Game, GameError, GameInfo
from .bigboard import Meta, NineBoard, Ultimate
from .tictactoe import TicTacToe
from .tron import Tron

BUILTIN_GAMES: tuple[type[Game], ...] = (TicTacToe, Ultimate, Meta, NineBoard, Tron)


class UnknownGameError(UnknownNameError, GameError):
    """A game name nobody registered: a registry's miss that is also a GameError."""


def _game_name(game: Any, plugin: str) -> str:
    """A game class's name (its info.name); GameError for anything else."""
    info = getattr(game, "info", None)
    if not (isinstance(game, type) and issubclass(game, Game) and isinstance(info, GameInfo)):
        raise GameError(f"{game!r} is not a Game class with a GameInfo `info`")
    return info.name


#: game classes, each added as add(GameClass) under its info.name
GAMES: Kind[type[Game]] = Kind("game", name_of=_game_name, known="known games", missing=UnknownGameError)


def GameRegistry(games: Iterable[type[Game]] = ()) -> Registry[type[Game]]:  # the class it was
    """A registry of game classes holding games (a Registry of the GAMES kind)."""
    return Registry(GAMES, games)


def default_registry() -> Registry[type[Game]]:
    """A registry holding the built-in games."""
    return Registry(GAMES, BUILTIN_GAMES)
