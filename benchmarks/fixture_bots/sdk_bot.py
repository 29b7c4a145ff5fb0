"""A minimal bot written with the Python SDK, for start-up timing."""
from arena.sdk import run


class FirstLegal:
    def __init__(self, game, rng, **options):
        pass

    def choose(self, state, time_left_ms):
        return state.legal_moves()[0]


if __name__ == "__main__":
    raise SystemExit(run(FirstLegal))
