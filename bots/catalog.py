"""The reference bots, declared once: name, game, description, the agent class each runs,
and its options, as the BotDeclarations bots.plugin registers.

Each agent class takes its name, game, description and option defaults from here
(bots.base.Agent); bots.all_agents() lists the classes. A bot's sandboxed process imports
this module and its own agent's, so it takes the declarations from arena.declarations,
never arena.plugins (pluggy and importlib.metadata would slow every bot's start), and
imports none of the other agents' modules.
"""

from __future__ import annotations

from arena.declarations import BotDeclaration, BotOption

_SEED = BotOption(
    None,
    "integer seed for this agent's own random generator (default: the seed the referee hands it)",
    kind="integer", low=0, high=2**63 - 1,
)

_WEIGHTS = BotOption(
    None,
    "learned weights (`arena train ultimate`): a mapping, JSON text or a JSON file's path "
    "(default: the paper's weights, section 2.3.2)",
    file=True, kind="json",
)

_EMULATE = BotOption(
    "none",
    "'published-code' reproduces the defects of the authors' agent.py behind Table 1 "
    "(or name them: min-node, seat0, reflex-wins, depth, adjacent-pairs; docs/agents.md)",
    kind="text",
)

_MAX_DEPTH = 81     # a game of 81 cells has no deeper line
_MAX_MS = 86_400_000   # a day: no move needs longer

#: the options of paper 001's Minimax and Minimax Pruning agents
_MINIMAX_001 = {
    "depth": BotOption(
        2,
        "search depth d of section 2.2.4: d drops after the opponent's move (d=1 is 2 plies)",
        kind="integer", low=1, high=_MAX_DEPTH,
    ),
    "top": BotOption(
        3,
        "successors kept at each inner node, best by Eval (section 2.2.4); 0 keeps them all",
        kind="integer", low=0, high=81,
    ),
    "weights": _WEIGHTS,
    "emulate": _EMULATE,
    "seed": _SEED,
}

#: every reference bot, in the order `arena bots` lists them
BOTS: tuple[BotDeclaration, ...] = (
    BotDeclaration(
        name="ttt-blind",
        game="tictactoe",
        description="paper 002 (Tic-Tac-Toe AI), 'A Blind Move': plays a uniformly random empty cell",
        target="bots.tictactoe_agents:Blind",
        options={"seed": _SEED},
    ),
    BotDeclaration(
        name="ttt-novice",
        game="tictactoe",
        description=("paper 002 (Tic-Tac-Toe AI), 'A Novice Move': the best-ranked move 40% of the time, "
                     "else the second-ranked"),
        target="bots.tictactoe_agents:Novice",
        options={
            "optimal_percent": BotOption(
                40.0, "percent of decisions that take the best-ranked move (paper: 40)",
                kind="number", low=0, high=100,
            ),
            "seed": _SEED,
        },
    ),
    BotDeclaration(
        name="ttt-master",
        game="tictactoe",
        description="paper 002 (Tic-Tac-Toe AI), 'A Master Move': perfect minimax with the paper's 10 - o-moves score",
        target="bots.tictactoe_agents:Master",
        options={},
    ),
    BotDeclaration(
        name="ttt-negamax",
        game="tictactoe",
        description="paper 004 (9-board Tic-Tac-Toe), section 1.2: negamax with alpha-beta, counting states explored",
        target="bots.tictactoe_agents:Negamax",
        options={
            "pruning": BotOption(
                True, "alpha-beta pruning (false reproduces the paper's plain minimax count)",
                kind="boolean",
            )
        },
    ),
    BotDeclaration(
        name="uttt-random",
        game="ultimate",
        description="paper 001 (Ultimate TTT with TD learning), 2.2.1 Random Agent: a uniformly random move",
        target="bots.ultimate_agents:UltimateRandom",
        options={"seed": _SEED},
    ),
    BotDeclaration(
        name="uttt-perceptron",
        game="ultimate",
        description="paper 001, 2.2.2 Perceptron Agent: simple features (2.3.1) with the paper's weights",
        target="bots.ultimate_agents:Perceptron",
        options={"emulate": _EMULATE, "seed": _SEED},
    ),
    BotDeclaration(
        name="uttt-reflex",
        game="ultimate",
        description="paper 001, 2.2.3 Reflex Agent: random among moves that let the opponent win no small board",
        target="bots.ultimate_agents:Reflex",
        options={"emulate": _EMULATE, "seed": _SEED},
    ),
    BotDeclaration(
        name="uttt-minimax",
        game="ultimate",
        description="paper 001, 2.2.4 Minimax Agent: depth-limited minimax, top-3 successor filter, learned weights",
        target="bots.ultimate_agents:Minimax",
        options=_MINIMAX_001,
    ),
    BotDeclaration(
        name="uttt-minimax-pruning",
        game="ultimate",
        description="paper 001, 2.2.5 Minimax Pruning Agent: the Minimax Agent with alpha-beta pruning",
        target="bots.ultimate_agents:MinimaxPruning",
        options=_MINIMAX_001,
    ),
    BotDeclaration(
        name="uttt-advanced-perceptron",
        game="ultimate",
        description="paper 001, 2.2.6 Advanced Perceptron Agent: best successor by the learned evaluation",
        target="bots.ultimate_agents:AdvancedPerceptron",
        options={"weights": _WEIGHTS, "emulate": _EMULATE, "seed": _SEED},
    ),
    BotDeclaration(
        name="uttt-expectimax",
        game="ultimate",
        description=("paper 001, 2.2.7 Expectimax Agent: opponent nodes average all successors, "
                     "agent nodes max of top 3"),
        target="bots.ultimate_agents:Expectimax",
        options={
            "depth": BotOption(1, "search depth d (section 2.2.4 semantics; Table 1 uses 1 and 2)",
                               kind="integer", low=1, high=_MAX_DEPTH),
            "top": BotOption(3, "successors kept at agent nodes, best by Eval; 0 keeps them all",
                             kind="integer", low=0, high=81),
            "weights": _WEIGHTS,
            "emulate": _EMULATE,
            "seed": _SEED,
        },
    ),
    BotDeclaration(
        name="meta-minimax",
        game="meta",
        description="paper 000 (meta-tic-tac-toe, TD-learned minimax): alpha-beta, six basis functions, 3 ply",
        target="bots.meta_agents:MetaMinimax",
        options={
            "depth": BotOption(3, "plies searched (the paper's experiments use 3)",
                               kind="integer", low=1, high=_MAX_DEPTH),
            "constants": BotOption(
                None, "c1..c6 as 'c1=3,c2=2,...' or JSON (default: the paper's 3, 2, .5, .5, .5, .5)"
            ),
            "weights": BotOption(
                None,
                "path of a file holding the constants as JSON or a Python dict (the paper's td.txt)",
                file=True, kind="text",
            ),
            "time_ms": BotOption(
                None,
                "own time limit per move in ms (default: none; the referee's limit always applies)",
                kind="number", low=0, high=_MAX_MS,
            ),
            "seed": _SEED,
        },
    ),
    BotDeclaration(
        name="nineboard-negamax",
        game="nineboard",
        description=("paper 004 (9-board Tic-Tac-Toe), section 2: iterative-deepening negamax alpha-beta, "
                     "two-in-a-row heuristic"),
        target="bots.nineboard_agents:NineBoardNegamax",
        options={
            "time_ms": BotOption(
                500.0, "thinking time per move in ms (capped at half the referee's allowance)",
                kind="number", low=0, high=_MAX_MS,
            ),
            "max_depth": BotOption(0, "deepest iteration in plies; 0 = until the time runs out",
                                   kind="integer", low=0, high=81),
        },
    ),
    BotDeclaration(
        name="tron-random",
        game="tron",
        description="beyond the papers: a uniformly random move into a free cell (any move when none is free)",
        target="bots.tron_agents:TronRandom",
        options={"seed": _SEED},
    ),
    BotDeclaration(
        name="tron-territory",
        game="tron",
        description=("beyond the papers: the Voronoi territory of the 2010 Google AI Challenge's Tron bots "
                     "(cells a cycle reaches first), under a paranoid search of joint moves"),
        target="bots.tron_agents:TronTerritory",
        options={
            "depth": BotOption(1, "turns searched, each one joint move (the others' replies the worst "
                                  "for this cycle)", kind="integer", low=1, high=4),
            "seed": _SEED,
        },
    ),
    BotDeclaration(
        name="mcts",
        game="*",
        description=("beyond the papers: UCT Monte Carlo tree search with random playouts "
                     "(the game's fast playout when it has one), any game; decoupled UCT where "
                     "seats move at once"),
        target="bots.mcts:MCTS",
        options={
            "time_ms": BotOption(
                1000.0,
                ("thinking time per move in ms; 0 = no own limit (then set iterations); "
                 "always capped at half the referee's allowance"),
                kind="number", low=0, high=_MAX_MS,
            ),
            "iterations": BotOption(
                0,
                "most simulations per move; 0 = no cap (use it with time_ms=0 for reproducible play)",
                kind="integer", low=0, high=10**9,
            ),
            "c": BotOption(0.9, "UCB1 exploration constant", kind="number", low=0, high=100),
            "reuse": BotOption(True, "keep the subtree of the position reached for the next move",
                               kind="boolean"),
            "seed": _SEED,
        },
    ),
    BotDeclaration(
        name="random",
        game="*",
        description="beyond the papers: a uniformly random legal move, any game",
        target="bots.generic_agents:RandomAgent",
        options={"seed": _SEED},
    ),
)


#: the declaration of each agent class, by its target 'bots.module:Class'
BY_TARGET: dict[str, BotDeclaration] = {bot.target: bot for bot in BOTS if bot.target is not None}
