"""Tools that run over any game's rules: perft, random games and random positions."""

from __future__ import annotations

import itertools
import random

from .base import SIMULTANEOUS, Game, State


def joint_moves(state: State) -> list[tuple[int, ...]]:
    """Every joint move of state: one move per seat of movers(), in that order; [] when over."""
    movers = state.movers()
    if not movers:
        return []
    return list(itertools.product(*(state.moves_of(seat) for seat in movers)))


def perft(state: State, depth: int) -> int:
    """Number of move sequences of length depth from state (games that end earlier are not
    counted); in a simultaneous game each turn's joint move counts as one step."""
    if depth == 0:
        return 1
    if state.to_move == SIMULTANEOUS:
        turns = joint_moves(state)
        if depth == 1:
            return len(turns)
        return sum(perft(state.play_joint(moves), depth - 1) for moves in turns)
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft(state.play(move), depth - 1) for move in moves)


def random_game(game: Game, rng: random.Random, state: State | None = None) -> list[int]:
    """Moves of a game played by uniformly random choice: legal_moves()[int(rng.random() * n)]."""
    state = game.initial_state() if state is None else state
    moves = []
    while not state.is_terminal():
        legal = state.legal_moves()
        move = legal[int(rng.random() * len(legal))]
        moves.append(move)
        state = state.play(move)
    return moves


def random_turns(game: Game, rng: random.Random, state: State | None = None) -> list[tuple[int, ...]]:
    """Joint moves of a game played by uniformly random choice, for any game: each turn,
    each mover in seat order takes moves_of(seat)[int(rng.random() * n)]."""
    state = game.initial_state() if state is None else state
    turns = []
    while not state.is_terminal():
        moves = []
        for seat in state.movers():
            legal = state.moves_of(seat)
            moves.append(legal[int(rng.random() * len(legal))])
        turns.append(tuple(moves))
        state = state.play_joint(moves)
    return turns


def random_playout(game: Game, state: State, rng: random.Random) -> State:
    """The final state of a random game from state; uses a game's fast playout when it has one."""
    fast = getattr(game, "random_playout", None)
    if fast is not None:
        return fast(state, rng)
    if state.to_move == SIMULTANEOUS:
        for moves in random_turns(game, rng, state):
            state = state.play_joint(moves)
        return state
    for move in random_game(game, rng, state):
        state = state.play(move)
    return state


def random_positions(game: Game, count: int, rng: random.Random,
                     plies: tuple[int, int] = (0, 50)) -> list[State]:
    """count positions where the game is not over, each reached by random play after
    rng.randrange(*plies) plies (or fewer, where the game ended: then it is tried again)."""
    out: list[State] = []
    while len(out) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(*plies)):
            if state.is_terminal():
                break
            if state.to_move == SIMULTANEOUS:
                state = state.play_joint([rng.choice(state.moves_of(seat)) for seat in state.movers()])
                continue
            moves = state.legal_moves()
            state = state.play(moves[rng.randrange(len(moves))])
        if not state.is_terminal():
            out.append(state)
    return out
