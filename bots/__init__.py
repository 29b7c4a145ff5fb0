"""Reference game-playing agents of bot-arena: the seeds' agents and a Monte Carlo tree search.

Every agent is a bots.base.Agent subclass; bots.catalog declares each one once (its
registry name, the game it plays, "*" for any, a one-line description naming its seed
and section, and its documented options). all_agents() lists them; agent_class(name)
finds one. docs/agents.md describes each agent and the choices made where a paper is vague.
"""

from __future__ import annotations

import importlib

from .base import Agent, AgentOptionError
from .catalog import BOTS, BY_TARGET


def all_agents() -> list[type[Agent]]:
    """Every reference agent class, in the catalog's order (grouped by game)."""
    # modules load on demand: a bot process imports only its own agent's module (the
    # tables some searchers build at import would otherwise slow every bot's start)
    return [_load(target) for target in BY_TARGET]


def agent_class(name: str) -> type[Agent]:
    """The agent class registered as `name`; KeyError listing the names otherwise."""
    for target, bot in BY_TARGET.items():
        if bot.name == name:
            return _load(target)
    raise KeyError(f"no agent named {name!r}; agents: {', '.join(bot.name for bot in BOTS)}")


def _load(target: str) -> type[Agent]:
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)


__all__ = ["Agent", "AgentOptionError", "agent_class", "all_agents"]
