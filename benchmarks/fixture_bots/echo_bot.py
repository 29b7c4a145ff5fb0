"""The trivial bot for round-trip timing: answers every line with '0' at once."""
import sys

out = sys.stdout
for _ in sys.stdin:
    out.write("0\n")
    out.flush()
