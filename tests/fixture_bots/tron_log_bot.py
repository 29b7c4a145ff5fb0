#!/usr/bin/env python3
"""A tron bot for the simultaneous-move tests (arena dialect, any seat): it logs on stderr
each request's LAST field ('< u+d+-'), each reply ('> u') and anything read early, and moves
into the first free cell next to its head (u, d, l, r). ROLE says how it replies:

  first      at once, then writes the turn (counted from 0) to the FIFO, a gate
  held       reads the turn from the FIFO (so the first bot's reply is written), then logs
             whatever stdin already holds ('early: ...': a referee that told it another's
             move of this turn would show here), then replies
  sleep:K    at once, except on turn K, where it sleeps past any deadline
  chatty:K   at once, and on turn K writes a second line with its reply
  down       at once, always 'd' (into the border, soon)

    python3 tron_log_bot.py ROLE [FIFO]

(Sandboxed bots cannot write files; a FIFO bound read-only still carries the gate.)
"""
import os
import select
import sys
import time

role = sys.argv[1]
fifo = sys.argv[2] if len(sys.argv) > 2 else ""
gate = None
seat, turn = 0, 0
buffer = b""


def read_line(block: bool = True) -> str | None:
    """The next line on stdin; None at its end or, without block, when none is there yet."""
    global buffer
    while b"\n" not in buffer:
        if not block and not select.select([0], [], [], 0)[0]:
            return None
        data = os.read(0, 65536)
        if not data:
            return None
        buffer += data
    line, buffer = buffer.split(b"\n", 1)
    return line.decode()


def note(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def reply(move: str) -> None:
    sys.stdout.write(move + "\n")
    sys.stdout.flush()
    note(f"> {move}")


def free_move(state: str) -> str:
    rows = state.split(" ")[0].split("/")
    r, c = divmod("".join(rows).index("ABCD"[seat]), len(rows[0]))
    for move, (dr, dc) in zip("udlr", ((-1, 0), (1, 0), (0, -1), (0, 1))):
        rr, cc = r + dr, c + dc
        if 0 <= rr < len(rows) and 0 <= cc < len(rows[0]) and rows[rr][cc] == ".":
            return move
    return "u"


while True:
    line = read_line()
    if line is None:
        break
    words = line.split()
    if not words:
        continue
    if words[0] == "arena":
        seat = int(words[3])
        turn = 0
        print("ready", flush=True)
    elif words[0] == "turn":
        note(f"< {words[3]}")
        move = "d" if role == "down" else free_move(line.split(" ", 5)[5])
        if role == "held":
            if gate is None:
                gate = open(fifo)   # blocks until the first bot opens it to write
            if gate.readline().strip() != str(turn):
                note("gate: out of step")
            early = read_line(block=False)
            while early is not None:
                note(f"early: {early}")
                early = read_line(block=False)
        if role.startswith("sleep:") and int(role[6:]) == turn:
            time.sleep(3600)
        reply(move + ("\nhello" if role == f"chatty:{turn}" else ""))
        if role == "first" and fifo:
            if gate is None:
                gate = open(fifo, "w")
            gate.write(f"{turn}\n")
            gate.flush()
        turn += 1
    elif words[0] == "quit":
        break
