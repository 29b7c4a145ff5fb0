"""A bot for examples/referee-tictactoe: plays a random free cell (seeded by its argument)."""
import random
import sys

rng = random.Random(sys.argv[1] if len(sys.argv) > 1 else 0)
while sys.stdin.readline():                    # the opponent's last move
    cells = [sys.stdin.readline() for _ in range(int(sys.stdin.readline()))]
    print(rng.choice(cells).strip(), flush=True)
