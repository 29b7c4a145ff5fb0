"""Ultimate tic-tac-toe as a referee process speaking cg-brutaltester's protocol, for
benchmarks/referees.py: the built-in `ultimate` game's rules (its default rule set: three
won boards in a row win, the 2-5-8 column too; sent to a closed board, play any open one; no
move left is a draw) and the built-in codingame dialect's lines, line for line: the
opponent's last move "row col" (-1 -1 before the first), the number of valid actions, then
each "row col" in the built-in game's order (board by board, square by square). A reply
that is no valid action loses (its ###Error on stderr)."""
import sys

LINES = (0o7, 0o70, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124)   # rows, columns, diagonals as 9-bit masks
WINS = tuple(any(mask & line == line for line in LINES) for mask in range(512))
FULL = 0o777
ROW_COL = tuple(f"{3 * (c // 27) + c % 9 // 3} {3 * (c // 9 % 3) + c % 3}" for c in range(81))
CELL_OF = {text: cell for cell, text in enumerate(ROW_COL)}


def main():
    out, read = sys.stdout, sys.stdin.readline
    first = read().split()
    if first[:1] == ["###Seed"]:
        first = read().split()
    if first != ["###Start", "2"]:
        sys.exit(f"expected '###Start 2', got {first}")
    marks = [[0] * 9, [0] * 9]     # per seat, per board: the squares it holds
    won = [0, 0]                   # per seat: the boards it won
    closed, target, last, seat = 0, -1, "-1 -1", 0
    while True:
        taken = [marks[0][b] | marks[1][b] for b in range(9)]
        boards = (target,) if target >= 0 else [b for b in range(9) if not closed >> b & 1]
        valid = [9 * b + s for b in boards for s in range(9) if not taken[b] >> s & 1]
        out.write(f"###Input {seat}\n{last}\n{len(valid)}\n"
                  + "".join(ROW_COL[cell] + "\n" for cell in valid) + f"###Output {seat} 1\n")
        out.flush()
        reply = read()
        cell = CELL_OF.get(" ".join(reply.split()[:2]))
        if cell not in valid:
            print(f"###Error {seat} {reply.strip()!r} is no valid action", file=sys.stderr, flush=True)
            out.write(f"###End {1 - seat} {seat}\n")
            return out.flush()
        board, square = divmod(cell, 9)
        mine = marks[seat][board] = marks[seat][board] | 1 << square
        if WINS[mine]:
            won[seat] |= 1 << board
            closed |= 1 << board
            if WINS[won[seat]]:
                out.write(f"###End {seat} {1 - seat}\n")
                return out.flush()
        elif (mine | marks[1 - seat][board]) == FULL:
            closed |= 1 << board
        if closed == FULL:
            out.write("###End 01\n")
            return out.flush()
        target = -1 if closed >> square & 1 else square
        last, seat = ROW_COL[cell], 1 - seat


main()
