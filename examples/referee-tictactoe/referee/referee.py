"""Tic-tac-toe as a referee process speaking cg-brutaltester's protocol (docs/referees.md).
Its bots read CodinGame's Tic-Tac-Toe input each turn: the opponent's last move "row col"
(-1 -1 before the first), the number of free cells, then each free cell "row col"; they answer
"row col" (anything after it is a message). A move that is no free cell loses."""
import sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def say(*lines):
    print(*lines, sep="\n", flush=True)


def main():
    first = sys.stdin.readline().split()
    if first[:1] == ["###Seed"]:      # its games are all alike: it needs no seed, but reads one
        first = sys.stdin.readline().split()
    if first != ["###Start", "2"]:
        sys.exit(f"expected '###Start 2', got {first}")
    board, last = [None] * 9, "-1 -1"
    for ply in range(9):
        seat = ply % 2
        free = [cell for cell in range(9) if board[cell] is None]
        say(f"###Input {seat}", last, len(free), *(f"{cell // 3} {cell % 3}" for cell in free))
        say(f"###Output {seat} 1")
        words = sys.stdin.readline().split()
        try:
            cell = 3 * int(words[0]) + int(words[1])
        except (IndexError, ValueError):
            cell = None
        if cell not in free:
            print(f"###Error {seat} {' '.join(words)!r} is no free cell", file=sys.stderr, flush=True)
            return say(f"###End {1 - seat} {seat}")
        board[cell], last = seat, f"{cell // 3} {cell % 3}"
        if any(all(board[i] == seat for i in line) for line in LINES):
            return say(f"###End {seat} {1 - seat}")
    say("###End 01")


main()
