"""A test double for plugin games whose moves do not name their squares: a state that
plays exactly as the state it wraps but draws its grid its own way."""

from arena.games import Grid, State


class Redrawn(State):
    """Plays as `inner`; grid() is redraw() of inner's marks (None: no grid at all)."""

    def __init__(self, inner):
        self.inner, self.to_move = inner, inner.to_move

    def wrap(self, inner):
        """The state after a move, redrawn the same way (subclasses with settings pass them on)."""
        return type(self)(inner)

    def redraw(self, marks: str) -> str | None:
        raise NotImplementedError

    def legal_moves(self):
        return self.inner.legal_moves()

    def play(self, move):
        return self.wrap(self.inner.play(move))

    def is_terminal(self):
        return self.inner.is_terminal()

    @property
    def winner(self):
        return self.inner.winner

    def encode(self):
        return self.inner.encode()

    def render(self):
        return self.inner.render()

    def grid(self):
        marks = self.redraw(self.inner.grid().marks)
        return None if marks is None else Grid(3, 3, marks)
