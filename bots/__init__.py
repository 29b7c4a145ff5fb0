"""Reference game-playing agents of bot-arena: the seeds' agents and a Monte Carlo tree search.

Every agent is a bots.base.Agent subclass with a registry name, the game it plays
("*" for any), a one-line description naming its seed and section, and documented
options. all_agents() lists them; agent_class(name) finds one. docs/agents.md
describes each agent and the choices made where a paper is vague.
"""

from __future__ import annotations

import importlib

from .base import Agent, AgentOptionError

# Modules load on demand: a bot process imports only its own agent's module (the
# tables some searchers build at import would otherwise slow every bot's start).
_AGENTS = (
    ("tictactoe_agents", ("Blind", "Novice", "Master", "Negamax")),
    ("ultimate_agents", ("UltimateRandom", "Perceptron", "Reflex", "Minimax", "MinimaxPruning",
                         "AdvancedPerceptron", "Expectimax")),
    ("meta_agents", ("MetaMinimax",)),
    ("nineboard_agents", ("NineBoardNegamax",)),
    ("mcts", ("MCTS",)),
    ("generic_agents", ("RandomAgent",)),
)


def all_agents() -> list[type[Agent]]:
    """Every reference agent class, grouped by game."""
    return [getattr(importlib.import_module(f"{__name__}.{module}"), cls)
            for module, classes in _AGENTS for cls in classes]


def agent_class(name: str) -> type[Agent]:
    """The agent class registered as `name`; KeyError listing the names otherwise."""
    for cls in all_agents():
        if cls.name == name:
            return cls
    raise KeyError(f"no agent named {name!r}; agents: {', '.join(c.name for c in all_agents())}")


__all__ = ["Agent", "AgentOptionError", "agent_class", "all_agents"]
