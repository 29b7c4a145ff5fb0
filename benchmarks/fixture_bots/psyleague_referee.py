"""psyleague's play command for the comparison in benchmarks/versus_psyleague.py: a minimal
ultimate tic-tac-toe referee for two CodinGame-protocol bots, as a psyleague user writes
one. Each argument is a bot's command line; prints psyleague's JSON result. No clock,
no sandbox: each reply is read as it comes, and the bots are killed at the end."""
import json
import shlex
import subprocess
import sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def won(cells, mark):
    return any(cells[a] == cells[b] == cells[c] == mark for a, b, c in LINES)


def play(commands):
    bots = [subprocess.Popen(shlex.split(c), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, bufsize=1) for c in commands]
    cells = [["."] * 9 for _ in range(9)]   # board -> square
    boards = ["."] * 9                      # x, o, d (full) or . (open)
    target, last, turn = None, (-1, -1), 0
    winner = None
    try:
        while True:
            open_boards = [b for b in range(9) if boards[b] == "."]
            if target is not None and boards[target] == ".":
                open_boards = [target]
            legal = [(b, s) for b in open_boards for s in range(9) if cells[b][s] == "."]
            if not legal:
                break
            rows = [(3 * (b // 3) + s // 3, 3 * (b % 3) + s % 3) for b, s in legal]
            bot = bots[turn]
            bot.stdin.write(f"{last[0]} {last[1]}\n{len(rows)}\n"
                            + "".join(f"{r} {c}\n" for r, c in rows))
            bot.stdin.flush()
            row, col = map(int, bot.stdout.readline().split()[:2])
            if (row, col) not in rows:
                winner = 1 - turn
                break
            b, s = legal[rows.index((row, col))]
            mark = "xo"[turn]
            cells[b][s] = mark
            if won(cells[b], mark):
                boards[b] = mark
            elif "." not in cells[b]:
                boards[b] = "d"
            if won(boards, mark):
                winner = turn
                break
            target, last, turn = s, (row, col), 1 - turn
    finally:
        for bot in bots:
            bot.kill()
            bot.wait()
    return winner


winner = play(sys.argv[1:3])
ranks = [0, 0] if winner is None else [0 if winner == 0 else 1, 0 if winner == 1 else 1]
print(json.dumps({"ranks": ranks, "errors": [0, 0], "test_data": {}, "player_data": [{}, {}]}))
