"""Reference game-playing agents of bot-arena: the seeds' agents and a Monte Carlo tree search.

Every agent is a bots.base.Agent subclass with a registry name, the game it plays
("*" for any), a one-line description naming its seed and section, and documented
options. all_agents() lists them; agent_class(name) finds one. docs/agents.md
describes each agent and the choices made where a paper is vague.
"""

from __future__ import annotations

from .base import Agent, AgentOptionError
from .generic_agents import RandomAgent
from .mcts import MCTS
from .meta_agents import MetaMinimax
from .nineboard_agents import NineBoardNegamax
from .tictactoe_agents import Blind, Master, Negamax, Novice
from .ultimate_agents import (AdvancedPerceptron, Expectimax, Minimax, MinimaxPruning, Perceptron, Reflex,
                              UltimateRandom)


def all_agents() -> list[type[Agent]]:
    """Every reference agent class, grouped by game."""
    return [Blind, Novice, Master, Negamax,
            UltimateRandom, Perceptron, Reflex, Minimax, MinimaxPruning, AdvancedPerceptron, Expectimax,
            MetaMinimax, NineBoardNegamax, MCTS, RandomAgent]


def agent_class(name: str) -> type[Agent]:
    """The agent class registered as `name`; KeyError listing the names otherwise."""
    for cls in all_agents():
        if cls.name == name:
            return cls
    raise KeyError(f"no agent named {name!r}; agents: {', '.join(c.name for c in all_agents())}")


__all__ = ["Agent", "AgentOptionError", "agent_class", "all_agents"]
