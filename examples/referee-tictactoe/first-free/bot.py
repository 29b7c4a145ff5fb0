"""A bot for examples/referee-tictactoe: plays the first free cell it is offered."""
import sys

while sys.stdin.readline():                    # the opponent's last move
    cells = [sys.stdin.readline() for _ in range(int(sys.stdin.readline()))]
    print(cells[0].strip(), flush=True)
