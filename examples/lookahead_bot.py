#!/usr/bin/env python3
"""A bot that looks one move ahead: it takes a win, avoids moves that let the
opponent win at once, and otherwise plays at random (any game of the arena)."""

from arena.sdk import run


class Lookahead:
    def __init__(self, game, rng, **options):
        self.rng = rng          # seeded by the referee, so a game replays exactly

    def choose(self, state, time_left_ms):
        me = state.to_move      # 0 (x, moves first) or 1 (o)
        best, best_score = [], -1.0
        for move in state.legal_moves():           # ints, ascending
            score = self.score(state.play(move), me)   # play() returns a new state
            if score > best_score:
                best, best_score = [move], score
            elif score == best_score:
                best.append(move)
        return self.rng.choice(best)

    def score(self, after, me):
        """1 for a win, 0 for a loss or a move the opponent can punish, else 0.5."""
        if after.is_terminal():
            return after.returns()[me]              # (x's score, o's score)
        for reply in after.legal_moves():
            then = after.play(reply)
            if then.is_terminal() and then.winner == 1 - me:   # winner: a seat or None
                return 0.0
        return 0.5


if __name__ == "__main__":
    raise SystemExit(run(Lookahead))
