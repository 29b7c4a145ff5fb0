"""What this package adds to bot-arena: the game and its two bots. Only declarations:
bot code runs in the bot's sandboxed process, started through the arena SDK."""

from arena.games import GameRegistry
from arena.plugins import BotDeclaration, BotOption, BotRegistry, hookimpl

from .game import ConnectFour


@hookimpl
def arena_register_games(registry: GameRegistry) -> None:
    registry.add(ConnectFour)


@hookimpl
def arena_register_bots(registry: BotRegistry) -> None:
    registry.add(BotDeclaration(
        name="c4-random", game="connect-four",
        description="drops into a random open column",
        target="arena_connect_four.bots:RandomBot"))
    registry.add(BotDeclaration(
        name="c4-search", game="connect-four",
        description="alpha-beta search to a fixed depth, scoring open lines of two and three",
        target="arena_connect_four.bots:SearchBot",
        options={"depth": BotOption(4, "plies searched (1 or more)")}))
