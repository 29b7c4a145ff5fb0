"""A game record checked against its game's rules, by replaying it.

GameRecord.from_dict checks a record's shape (every seat number a seat of its bots); this
checks what only the rules know: the record has the game's number of seats, every move
was legal when and by whom it was played (but the last, when the game ended because that
seat's move was illegal or malformed), and a game that ended normally ended where the
rules end it, with their winner or ranking. A record that lies (a winner changed by one
byte, a move that was never legal) is said in one line, not shown as played.
"""

from __future__ import annotations

from arena.games.base import SIMULTANEOUS, Game, GameError, State
from arena.record import GameRecord, Termination, play_turn

#: the faults whose move is kept in the record though the rules refuse it
_REFUSED_MOVE = (Termination.ILLEGAL_MOVE, Termination.MALFORMED)


def rules_problem(record: GameRecord, game: Game) -> str | None:
    """What the rules of game (the record's game, made with its rule options) say is wrong
    with record, in a few words; None for a record the rules agree with."""
    state = game.start(record.seed)
    if len(record.bots) != state.seats:
        return f"it has {len(record.bots)} seats, {game.name} has {state.seats}"
    if game.info.by_turn:
        found = _turns_problem(record, game, state)
    else:
        found = _moves_problem(record, game, state)
    if isinstance(found, str):
        return found
    return _end_problem(record, found)


def _refused_last(record: GameRecord, index: int, seat: int) -> bool:
    """Whether the move at index (0 first) is the last, and the one its seat faulted with."""
    return (index == len(record.moves) - 1 and record.termination in _REFUSED_MOVE
            and record.faulted == seat)


def _moves_problem(record: GameRecord, game: Game, state: State) -> str | State | None:
    """Replay a game of turns: the state at its end (None: it ended on a refused move), or
    what is wrong."""
    for index, move in enumerate(record.moves):
        if state.is_terminal():
            return f"move {index + 1} comes after the game was over"
        if move.seat != state.to_move:
            return f"move {index + 1} is seat {move.seat}'s, but seat {state.to_move} was to move"
        try:
            state = state.play(game.parse_move(move.move))
        except GameError as exc:
            if _refused_last(record, index, move.seat):
                return None
            return f"move {index + 1} ({move.move[:20]!r}) is not legal there: {exc}"
    return state


def _turns_problem(record: GameRecord, game: Game, state: State) -> str | State | None:
    """Replay a game whose moves go by turns (seats moving at once, or in rounds), turn by
    turn as the referee played it (arena.record.play_turn: a seat put out for a fault goes
    out where the record says)."""
    gone_on: dict[int, list[int]] = {}
    for seat_out in record.out:
        gone_on.setdefault(seat_out.turn, []).append(seat_out.seat)
    turns = record.turns()
    for number, moves in enumerate(turns):
        if not state.movers():
            return f"turn {number + 1} comes after the game was over"
        last = number == len(turns) - 1
        if state.to_move == SIMULTANEOUS:
            stray = sorted({m.seat for m in moves} - set(state.movers()))
            if stray:
                return f"turn {number + 1} has a move of seat {stray[0]}, which was not to move"
        try:
            after = play_turn(game, state, moves, gone_on.get(number, []))
        except GameError as exc:
            if last and record.termination in _REFUSED_MOVE:
                return None
            return f"turn {number + 1} is not legal there: {exc}"
        if after is None:   # the rules cannot play it: the fault that ended the game
            return None if last else f"turn {number + 1} ends the game, but more turns follow"
        state = after
    return state


def _end_problem(record: GameRecord, state: State | None) -> str | None:
    """What is wrong with how the record says the game ended, given the state its moves
    reached (None: it ended on a move the rules refuse, as its fault says)."""
    if state is None:
        return None
    if record.termination is Termination.NORMAL:
        if not state.is_terminal():
            return "it ended normally, but its moves leave the game unfinished"
        if len(record.bots) == 2 and record.winner != state.winner:
            said = "a draw" if state.winner is None else f"a win for seat {state.winner}"
            return f"its winner is {record.winner}, but its moves end in {said}"
        if len(record.bots) > 2 and not record.out and record.ranking is not None \
                and list(record.ranking) != list(state.ranking()):
            return (f"its ranking is {list(record.ranking)}, but its moves end in "
                    f"{list(state.ranking())}")
    if len(record.bots) == 2 and record.termination.is_fault and record.faulted is not None \
            and record.winner != 1 - record.faulted:
        return f"seat {record.faulted} faulted, but its winner is {record.winner}"
    return None
