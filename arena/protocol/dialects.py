"""Dialects: how a turn is told to a bot and how its answer is read.

`arena` is our own protocol (docs/protocol.md). `codingame` and `theaigames` /
`riddles` translate for bots written for those platforms' ultimate tic-tac-toe,
so they play unchanged; plugins add more (docs/plugins.md). Each dialect is a small
set of pure functions from game facts to lines and from a line to a move; the
referee does all the I/O.
"""

from __future__ import annotations

import abc
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.games import SIMULTANEOUS, Game, InvalidMoveError, State

PROTOCOL_VERSION = 1


class ProtocolError(ArenaError, ValueError):
    """A line from a bot that does not follow its dialect."""


@dataclass(frozen=True)
class TurnInfo:
    """What a bot is told at its turn."""

    state: State
    last_move: int | None
    legal: tuple[int, ...]
    move_ms: int        #: time for this move
    bank_ms: int        #: extra time in the bank, usable on any move
    ply: int            #: moves played so far (turns, where seats move at once)
    seat: int
    #: where seats move at once: the last turn's move of every seat, None for a seat that
    #: did not move (out, or not moving then); None before the first turn and in games of turns
    last_turn: tuple[int | None, ...] | None = None

    @property
    def simultaneous(self) -> bool:
        """True when the seats move at once in this game (a bot must not see the others' move)."""
        return self.state.to_move == SIMULTANEOUS


class Dialect(abc.ABC):
    """One wire format, as seen from the referee."""

    name: str
    #: the bot answers the start lines with a "ready" line
    expects_ready: bool = False
    #: a bot may play several games in one process (the dialect can say "new game")
    reusable: bool = False
    #: games it can express; None means every game
    games: tuple[str, ...] | None = None
    #: its bots can start from an opening (each turn tells them the whole position)
    plays_openings: bool = True

    def supports(self, game: Game) -> str | None:
        """None if this dialect can play game, else why not."""
        if self.games is not None and game.name not in self.games:
            return f"the {self.name} dialect plays {', '.join(self.games)}, not {game.name}"
        return None

    def start_lines(self, game: Game, seat: int, seed: int, move_ms: int, bank_ms: int) -> list[str]:
        """Lines sent when the bot joins a game."""
        return []

    def check_ready(self, line: str) -> None:
        """Raises ProtocolError unless line is a valid answer to the start lines."""

    @abc.abstractmethod
    def turn_lines(self, game: Game, turn: TurnInfo) -> list[str]:
        """Lines that ask the bot for a move."""

    @abc.abstractmethod
    def parse_move(self, game: Game, turn: TurnInfo, line: str) -> int:
        """The move a reply names; InvalidMoveError if it names none."""

    def over_lines(self, result: str, termination: str) -> list[str]:
        """Lines sent at the end of a game (result: win, loss or draw)."""
        return []

    def quit_lines(self) -> list[str]:
        """Lines that ask the bot to exit."""
        return []

    def runtime(self, argv: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The command a bot of this dialect is started by, from its own, and the files that
        adds for it to read: a dialect may give its bots the runtime their platform gives
        them. The default: the command as it is, nothing more."""
        return tuple(argv), ()


class ArenaDialect(Dialect):
    """bot-arena's own line protocol, version 1 (docs/protocol.md)."""

    name = "arena"
    expects_ready = True
    reusable = True

    def start_lines(self, game: Game, seat: int, seed: int, move_ms: int, bank_ms: int) -> list[str]:
        rules = "".join(f" {k}={v}" for k, v in sorted(game.options.items()))
        return [f"arena {PROTOCOL_VERSION} {game.name} {seat} {seed}{rules}"]

    def check_ready(self, line: str) -> None:
        if line.split(" ", 1)[0] != "ready":
            raise ProtocolError(f"expected 'ready' after the handshake, got {line[:80]!r}")

    def turn_lines(self, game: Game, turn: TurnInfo) -> list[str]:
        return [format_turn(game, turn)]

    def parse_move(self, game: Game, turn: TurnInfo, line: str) -> int:
        text = line.strip()
        move = game.parse_move(text)   # a text the game refuses: the game says what it expects
        if len(text.split()) != 1:     # a game may read spaces; the protocol's move is one word
            raise InvalidMoveError.expected(text, "one move, a single word")
        return move

    def over_lines(self, result: str, termination: str) -> list[str]:
        return [f"over {result} {termination}"]

    def quit_lines(self) -> list[str]:
        return ["quit"]


def format_turn(game: Game, turn: TurnInfo) -> str:
    """The arena protocol's turn line. Where seats move at once LAST is the last turn's
    moves of every seat in seat order joined by '+', '-' for a seat that did not move
    ("u+-+l"), and LEGAL this seat's own moves."""
    if turn.last_turn is not None:
        last = "+".join("-" if m is None else game.move_text(m) for m in turn.last_turn)
    else:
        last = "-" if turn.last_move is None else game.move_text(turn.last_move)
    # the canonical move text is the decimal cell number: str() it without a call a move
    text = str if type(game).move_text is Game.move_text else game.move_text
    legal = ",".join(map(text, turn.legal))
    return f"turn {turn.move_ms} {turn.bank_ms} {last} {legal} {turn.state.encode()}"


def _grid_width(game: Game) -> int:
    return 3 if game.info.move_count == 9 else 9


def cell_to_row_col(game: Game, cell: int) -> tuple[int, int]:
    """Row and column on the whole grid (3x3, or 9x9 for the nine-board games)."""
    if _grid_width(game) == 3:
        return divmod(cell, 3)
    board, square = divmod(cell, 9)
    return 3 * (board // 3) + square // 3, 3 * (board % 3) + square % 3


def row_col_to_cell(game: Game, row: int, col: int) -> int | None:
    """Inverse of cell_to_row_col; None for a row or column off the grid."""
    width = _grid_width(game)
    if not (0 <= row < width and 0 <= col < width):
        return None
    if width == 3:
        return 3 * row + col
    return 9 * (3 * (row // 3) + col // 3) + 3 * (row % 3) + col % 3


_INT_PAIR = re.compile(r"\s*(-?\d+)\s+(-?\d+)(?:\s.*)?$")

#: node's name as a command's program: node, nodejs, node20
NODE = re.compile(r"node(js)?[0-9.]*")
#: CodinGame's JavaScript globals (readline, print, printErr) for node, loaded before the bot
CODINGAME_NODE_RUNTIME = str(Path(__file__).resolve().with_name("codingame_node.js"))


class CodinGameDialect(Dialect):
    """CodinGame's "Tic-Tac-Toe" / "Ultimate Tic-Tac-Toe" puzzle protocol.

    Each turn: "opponentRow opponentCol" (-1 -1 before the first move), the number
    of valid actions, then one "row col" line per valid action. The bot answers
    "row col", optionally followed by a message. Rows and columns span the whole
    grid (0..8 for the 9x9 games). No handshake; the start-up time is added to
    the bot's first turn, as CodinGame does.
    """

    name = "codingame"
    games = ("tictactoe", "ultimate", "meta", "nineboard", "tron")
    #: a turn names only the opponent's last move: a bot keeping its own board could
    #: not know the opening's other moves, so games with an opening are refused
    plays_openings = False

    def turn_lines(self, game: Game, turn: TurnInfo) -> list[str]:
        if game.name == "tron":
            return _tron_battle_lines(turn)
        row, col = (-1, -1) if turn.last_move is None else cell_to_row_col(game, turn.last_move)
        lines = [f"{row} {col}", str(len(turn.legal))]
        lines.extend("{} {}".format(*cell_to_row_col(game, m)) for m in turn.legal)
        return lines

    def parse_move(self, game: Game, turn: TurnInfo, line: str) -> int:
        if game.name == "tron":
            word = line.split(None, 1)[0] if line.strip() else ""   # a message may follow, as on CodinGame
            if word.lower() not in ("up", "down", "left", "right"):
                raise InvalidMoveError.expected(line, "UP, DOWN, LEFT or RIGHT")
            return game.parse_move(word)
        match = _INT_PAIR.match(line)
        cell = row_col_to_cell(game, int(match[1]), int(match[2])) if match else None
        if cell is None:
            top = _grid_width(game) - 1
            raise InvalidMoveError.expected(line, f"'row col', each 0..{top}")
        return cell

    def runtime(self, argv: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """A bot run by node gets CodinGame's JavaScript runtime: node loads
        codingame_node.js (its globals readline, print and printErr) before the bot."""
        if argv and NODE.fullmatch(os.path.basename(argv[0])):
            return (argv[0], "--require", CODINGAME_NODE_RUNTIME, *argv[1:]), (CODINGAME_NODE_RUNTIME,)
        return tuple(argv), ()


def _tron_battle_lines(turn: TurnInfo) -> list[str]:
    """A turn of CodinGame's Tron Battle: "N P" (players, your number), then per player
    "X0 Y0 X1 Y1", its first cell and its head (x the column, y the row), all -1 for a
    player that is out. By tron's codingame rule set exactly CodinGame's turn (a player
    moving later in the turn sees the moves made before it; on the first turn a player that
    has not moved yet has its head on its first cell); by the 2010 rules, where the cycles
    move at once, every player sees the heads as the last turn left them and an out
    player's trail stays on the board."""
    state: Any = turn.state      # a tron state: its board, first cells, heads and who is still in
    stride = state.board.stride
    lines = [f"{state.board.players} {turn.seat}"]
    for seat in range(state.board.players):
        if state.out[seat] != -1:
            lines.append("-1 -1 -1 -1")
            continue
        (y0, x0), (y1, x1) = divmod(state.starts[seat], stride), divmod(state.heads[seat], stride)
        lines.append(f"{x0 - 1} {y0 - 1} {x1 - 1} {y1 - 1}")
    return lines


class TheAIGamesDialect(Dialect):
    """theaigames.com's ultimate tic-tac-toe engine protocol (2016), and its
    riddles.io successor (flavour "riddles": ids 0/1, "." for empty).

    Settings lines at the start; each turn "update game ..." lines with the
    81-cell field (row-major over the 9x9 grid) and the 3x3 macroboard (-1 where
    the bot may play, the winner's id on won boards), then "action move BANK_MS".
    The bot answers "place_move X Y" (X column, Y row; "place_disc" is accepted);
    like those engines, which split the reply on spaces and read its first three
    words, the referee ignores whatever follows ("place_move 4 4 gl-hf").
    """

    games = ("ultimate", "meta", "nineboard")
    _REPLY = re.compile(r"\s*(?:place_move|place_disc)\s+(\d+)\s+(\d+)(?:\s.*)?$")

    def __init__(self, flavour: str = "theaigames") -> None:
        self.name = flavour
        self.riddles = flavour == "riddles"

    def _id(self, seat: int) -> str:
        return str(seat if self.riddles else seat + 1)

    def start_lines(self, game: Game, seat: int, seed: int, move_ms: int, bank_ms: int) -> list[str]:
        first = 0 if self.riddles else 1
        return [
            f"settings timebank {bank_ms + move_ms}",
            f"settings time_per_move {move_ms}",
            f"settings player_names player{first},player{first + 1}",
            f"settings your_bot player{self._id(seat)}",
            f"settings your_botid {self._id(seat)}",
        ]

    def turn_lines(self, game: Game, turn: TurnInfo) -> list[str]:
        grid = turn.state.grid()
        if grid is None or not grid.regions:
            raise ProtocolError(f"the {self.name} dialect needs a board of 3x3 sub-boards")
        empty, none = (".", ".") if self.riddles else ("0", "0")
        ids = {".": empty, "x": self._id(0), "o": self._id(1)}
        field = [ids[mark] for mark in grid.marks]
        playable = {m // 9 for m in turn.legal}
        macro = [self._id(0) if status == "x" else self._id(1) if status == "o"
                 else "-1" if board in playable else none
                 for board, status in enumerate(grid.regions)]
        lines = [f"update game round {turn.ply // 2 + 1}"]
        if not self.riddles:
            lines.append(f"update game move {turn.ply + 1}")
        lines += [f"update game field {','.join(field)}",
                  f"update game macroboard {','.join(macro)}",
                  f"action move {turn.move_ms + turn.bank_ms}"]
        return lines

    def parse_move(self, game: Game, turn: TurnInfo, line: str) -> int:
        match = self._REPLY.match(line)
        cell = row_col_to_cell(game, int(match[2]), int(match[1])) if match else None
        if cell is None:
            top = _grid_width(game) - 1
            raise InvalidMoveError.expected(line, f"'place_move X Y', X the column and Y the row, each 0..{top}")
        return cell


class AIChallenge2010Dialect(Dialect):
    """The 2010 Google AI Challenge's Tron protocol, as its engine and starter packages speak
    it. Each turn the whole map: "WIDTH HEIGHT", then HEIGHT rows of WIDTH characters, '#' a
    wall or a trail, ' ' free, '1' the bot's own head and '2' the other's (each bot sees
    itself as 1). The bot answers a direction as a number: 1 north (up), 2 east (right), 3
    south (down), 4 west (left). No handshake (the start-up time is added to the first
    turn); at the end the process is killed, as the engine's was. Two players, by the 2010
    rules (tron's default rule set), on any map."""

    name = "aichallenge2010"
    games = ("tron",)
    plays_openings = False
    #: the challenge's directions, 1-4, as tron's moves (up, right, down, left)
    MOVES = {"1": 0, "2": 3, "3": 1, "4": 2}

    def supports(self, game: Game) -> str | None:
        why = super().supports(game)
        if why is None and (game.options.get("players") != 2 or game.info.rounds):
            why = ("the aichallenge2010 dialect plays tron by the 2010 rules with 2 players "
                   f"(this game: {', '.join(f'{k}={v}' for k, v in game.options.items() if k != 'map')})")
        return why

    def turn_lines(self, game: Game, turn: TurnInfo) -> list[str]:
        state: Any = turn.state     # a tron state: its rows, and each seat's head
        rows = state.rows()
        me, them = "ABCD"[turn.seat], "ABCD"[1 - turn.seat]
        table = {ord(me): "1", ord(them): "2", ord("."): " "}
        table.update({ord(ch): "#" for ch in "abcd#"})
        return [f"{len(rows[0])} {len(rows)}", *(row.translate(table) for row in rows)]

    def parse_move(self, game: Game, turn: TurnInfo, line: str) -> int:
        move = self.MOVES.get(line.strip())
        if move is None:
            raise InvalidMoveError.expected(line, "1 (north), 2 (east), 3 (south) or 4 (west)")
        return move


#: the dialects that ship with arena, registered by the default plugin arena.protocol.plugin;
#: look a dialect up by name in arena.plugins.loaded_plugins().dialects, which holds plugins' too
BUILTIN_DIALECTS: tuple[Dialect, ...] = (ArenaDialect(), CodinGameDialect(),
                                         TheAIGamesDialect("theaigames"), TheAIGamesDialect("riddles"),
                                         AIChallenge2010Dialect())
