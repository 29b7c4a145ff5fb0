"""A third-party bot-arena plugin: declares one tic-tac-toe bot, `corner-first`.

Installing this package (pip install .) is all it takes: the `arena` entry point
below makes `arena bots` list it and `arena match corner-first random --game
tictactoe` play it. The class runs only inside the bot's sandboxed process.
"""

from arena.plugins import BotDeclaration, BotOption, hookimpl

PREFERENCE = (4, 0, 2, 6, 8, 1, 3, 5, 7)  # centre, corners, then edges


class CornerFirst:
    """Wins or blocks when it can, else takes the centre, a corner, an edge."""

    def __init__(self, game, rng, block=True):
        self.block = bool(block)

    def choose(self, state, time_left_ms):
        legal = state.legal_moves()
        for move in legal:                      # a winning move
            if state.play(move).winner == state.to_move:
                return move
        if self.block:                          # a move the opponent would win with
            for move in legal:
                if _wins_for(state, move, 1 - state.to_move):
                    return move
        return next(m for m in PREFERENCE if m in legal)


def _wins_for(state, move, seat):
    x, o = state.masks
    mask = (x if seat == 0 else o) | 1 << move
    return any(mask & line == line for line in (7, 56, 448, 73, 146, 292, 273, 84))


@hookimpl
def arena_register_bots(registry):
    registry.add(BotDeclaration(
        name="corner-first", game="tictactoe",
        description="example plugin: win, block, then centre, corners, edges",
        target="arena_example_plugin:CornerFirst",
        options={"block": BotOption(True, "block the opponent's winning move")}))
