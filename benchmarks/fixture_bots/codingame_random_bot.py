"""A CodinGame Ultimate Tic-Tac-Toe bot as contestants write them: read the opponent's
move and the valid actions, answer one of them (seeded random). It never exits by
itself: on CodinGame the game ends by the referee stopping it."""
import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
read = sys.stdin.readline
while True:
    line = read()
    if not line:
        break
    count = int(read())
    actions = [read() for _ in range(count)]
    sys.stdout.write(rng.choice(actions))
    sys.stdout.flush()
