"""A bot for examples/referee-java: always picks the number it is given (default 1)."""
import sys

pick = sys.argv[1] if len(sys.argv) > 1 else "1"
while sys.stdin.readline():                          # its seat
    prize, points = sys.stdin.readline(), sys.stdin.readline()
    print(pick, flush=True)
