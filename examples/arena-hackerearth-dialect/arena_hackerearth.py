"""HackerEarth's tic-tac-toe bot format as an arena dialect: bots written for that
contest play in arena leagues unchanged, apart from reading turns in a loop.

Each turn the bot reads the board, three lines of three numbers (0 empty, 1 and 2 the
players' marks, player 1 moving first), then a line with its own id, 1 or 2; it answers
"x y", the column (0-2, left to right) and the row (0-2, top to bottom) of its move.
"""

from arena.games import Game, InvalidMoveError
from arena.plugins import hookimpl
from arena.protocol import Dialect, ProtocolError, TurnInfo


class HackerEarthDialect(Dialect):
    """HackerEarth's multiplayer Tic Tac Toe: board as numbers, reply 'x y'."""

    name = "hackerearth"
    games = ("tictactoe",)         # the games it can express (None: every game)

    def turn_lines(self, game: Game, turn: TurnInfo) -> list[str]:
        grid = turn.state.grid()   # tic-tac-toe offers its board as marks x / o / .
        if grid is None:
            raise ProtocolError("the hackerearth dialect needs a board")
        ids = {".": "0", "x": "1", "o": "2"}
        rows = [" ".join(ids[grid.mark(row, column)] for column in range(3)) for row in range(3)]
        return rows + [str(turn.seat + 1)]

    def parse_move(self, game: Game, turn: TurnInfo, line: str) -> int:
        words = line.split()
        if len(words) != 2 or not all(word.isdigit() and int(word) <= 2 for word in words):
            # arena's one wording for a reply that is not a move, whatever is wrong with it
            raise InvalidMoveError.expected(line, "'x y', each 0..2")
        x, y = int(words[0]), int(words[1])
        return 3 * y + x           # tic-tac-toe's moves number the squares row by row


@hookimpl
def arena_register_dialects(registry):
    registry.add(HackerEarthDialect.name, HackerEarthDialect())
