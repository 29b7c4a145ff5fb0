"""Which games exist: a registry that the built-in games (and, later, plugins) fill."""

from __future__ import annotations

from typing import Any

from arena.errors import did_you_mean

from .base import Game, GameError, GameInfo
from .bigboard import Meta, NineBoard, Ultimate
from .tictactoe import TicTacToe
from .tron import Tron

BUILTIN_GAMES: tuple[type[Game], ...] = (TicTacToe, Ultimate, Meta, NineBoard, Tron)


class UnknownGameError(GameError):
    """A game name nobody registered."""


class GameRegistry:
    """Game classes by name."""

    def __init__(self, games: tuple[type[Game], ...] = ()) -> None:
        self._games: dict[str, type[Game]] = {}
        self._plugins: dict[str, str] = {}
        self.current_plugin = ""    #: set by the plugin loader while a plugin registers
        for game in games:
            self.add(game)

    def add(self, game: type[Game]) -> None:
        """Register a game class; its info.name must be new."""
        info = getattr(game, "info", None)
        if not (isinstance(game, type) and issubclass(game, Game) and isinstance(info, GameInfo)):
            raise GameError(f"{game!r} is not a Game class with a GameInfo `info`")
        name = info.name
        if name in self._games and self._games[name] is not game:
            by = self._plugins.get(name)
            raise GameError(f"a game named {name!r} is already registered"
                            + (f" by {by!r}" if by else ""))
        self._games[name] = game
        self._plugins[name] = self.current_plugin

    def plugin(self, name: str) -> str:
        """The plugin that registered a game ("" when none did)."""
        return self._plugins.get(name, "")

    def names(self) -> list[str]:
        """Registered game names, in registration order."""
        return list(self._games)

    def get(self, name: str) -> type[Game]:
        """The game class called name; raises UnknownGameError with a suggestion."""
        try:
            return self._games[name]
        except KeyError:
            raise UnknownGameError(f"unknown game {name!r}{did_you_mean(name, self._games)}; "
                                   f"known games: {', '.join(self._games)}") from None

    def create(self, name: str, **options: Any) -> Game:
        """A game called name with its rule options set."""
        return self.get(name)(**options)


def default_registry() -> GameRegistry:
    """A registry holding the built-in games."""
    return GameRegistry(BUILTIN_GAMES)
