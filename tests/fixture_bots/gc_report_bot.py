#!/usr/bin/env python3
"""An SDK bot that plays the first legal move and writes on stderr, at each move, how
many objects the garbage collector holds frozen ('frozen N') and how many it tracks
outside them ('tracked N')."""

import gc
import sys

from arena.sdk import run


class Reporter:
    def __init__(self, game, rng, **options):
        self.tables = [[0] * 9 for _ in range(100)]   # made by the agent: never frozen

    def choose(self, state, time_left_ms):
        sys.stderr.write(f"frozen {gc.get_freeze_count()} tracked {len(gc.get_objects())}\n")
        return state.legal_moves()[0]


if __name__ == "__main__":
    raise SystemExit(run(Reporter))
