"""The trivial arena-protocol bot for referee timing: the first legal move, no parsing beyond that."""
import sys

out = sys.stdout
for line in sys.stdin:
    if line.startswith("turn"):
        legal = line.split(" ", 5)[4]
        comma = legal.find(",")
        out.write((legal if comma < 0 else legal[:comma]) + "\n")
        out.flush()
    elif line.startswith("arena"):
        out.write("ready\n")
        out.flush()
    elif line.startswith("quit"):
        break
