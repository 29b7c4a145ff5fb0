"""A bot for examples/referee-java: picks 1 for a big prize, else a random number (seeded by
its argument)."""
import random
import sys

rng = random.Random(sys.argv[1] if len(sys.argv) > 1 else 0)
while sys.stdin.readline():                          # its seat
    prize, points = int(sys.stdin.readline()), sys.stdin.readline()
    print(1 if prize >= 8 else rng.randint(1, 5), flush=True)
