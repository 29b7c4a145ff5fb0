"""Perft counts too deep for the test suite, checked, and the time each took.

tests/test_games_perft.py counts every game from the start up to depth 6 (ultimate and
nineboard) in the suite; ultimate's depth 7 (33,782,544 leaves, the same independently
computed value the suite held until it moved here) takes 7-13 s of one core and is
counted here instead. Exits 1 if a count differs.

    .venv/bin/python benchmarks/perft_deep.py
"""

from __future__ import annotations

import sys
import time

from arena.games import default_registry, perft

#: (game, depth, the count from the start)
DEEP = (("ultimate", 7, 33782544),)


def main() -> int:
    wrong = 0
    for name, depth, known in DEEP:
        start = default_registry().create(name).initial_state()
        t0 = time.perf_counter()
        nodes = perft(start, depth)
        seconds = time.perf_counter() - t0
        verdict = "ok" if nodes == known else f"WRONG: expected {known:,}"
        print(f"{name} perft {depth}: {nodes:,} ({seconds:.1f} s) {verdict}")
        wrong += nodes != known
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
