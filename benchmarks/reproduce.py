"""Statistics for the reports in docs/results/: read league stores, run the in-process experiments.

    python benchmarks/reproduce.py table1  [STORE] [--emulation STORE]
                                                     seed 001, Table 1: paper, our agents, the published code
    python benchmarks/reproduce.py table1-defects    seed 001: each published-code defect fixed alone
    python benchmarks/reproduce.py seed002 [STORE]   seed 002, novice against blind and against novice
    python benchmarks/reproduce.py negamax           seed 004, states explored and time, tic-tac-toe
    python benchmarks/reproduce.py td [options]      seed 000, TD-learned constants against the static ones
    python benchmarks/reproduce.py td-compare SETS   seed 000, constant sets against the seed's and the
                                                     author's static AI

Every proportion is printed with its 95% Wilson score interval. The stores are what
`arena run tournaments/repro-*.yaml` writes (results/ by default); `arena leaderboard`
shows the same games, but not from the first mover's side only, nor move counts.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

# the repository root first, so that arena and bots come from this checkout wherever it runs from
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.games import default_registry  # noqa: E402
from arena.games.grid import FULL, HAS_LINE, POPCOUNT, SQUARES  # noqa: E402
from arena.league import Store  # noqa: E402
from arena.record import GameRecord, Termination  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
Z = 1.959963984540054  # two-sided 95%


# ---------------------------------------------------------------- statistics

def wilson(k: int, n: int, z: float = Z) -> tuple[float, float]:
    """95% Wilson score interval of the proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> str:
    """'.42 [.39, .45]'."""
    lo, hi = wilson(k, n)
    return f"{_p(k / n if n else 0)} [{_p(lo)}, {_p(hi)}]"


def _p(x: float) -> str:
    text = f"{x:.2f}"
    return text[1:] if text.startswith("0") else text


def outside(paper: float, k: int, n: int) -> bool:
    """True when the paper's figure lies outside our 95% interval (allowing its 2-decimal rounding)."""
    lo, hi = wilson(k, n)
    return paper + 0.005 < lo or paper - 0.005 > hi


def records(path: str | Path) -> list[GameRecord]:
    """The distinct games of a store, in fixture order.

    The two games of a pair share a game seed with the seats swapped; each bot's own seed
    follows its seat and its name, so an agent against a copy of itself (a name and its
    '-copy') plays two independent games, which may by chance be the same moves (short
    tic-tac-toe games often are). Stores made before the name went into the bot's seed
    hold every such pair as one game played twice: a store in which *every* self-play
    pair is identical move for move is read as one of those, and each pair counts once.
    A line on stderr says which.
    """
    if not Path(path).exists():
        raise SystemExit(f"{path}: no such store; run the league first (see the report)")
    with Store(path) as store:
        stored = list(store.records())
    moves = {g.key: [m.move for m in g.record.moves] for g in stored}
    second_halves = []   # swap-1 games of self-play pairs, with whether they repeat swap 0
    for g in stored:
        names = [b.name.removesuffix("-copy") for b in g.record.bots]
        pair, _, swap = g.key.rpartition("|")
        if names[0] == names[1] and swap == "1":
            second_halves.append((g.key, moves.get(f"{pair}|0") == moves[g.key]))
    old_store = bool(second_halves) and all(same for _, same in second_halves)
    skip = {key for key, _ in second_halves} if old_store else set()
    if second_halves:
        same = sum(same for _, same in second_halves)
        verdict = ("a store from before bot seeds followed names: each pair counted once"
                   if old_store else "independent games: all counted")
        print(f"{path}: self-play pairs: {len(second_halves)}, {same} with both games identical; "
              f"{verdict}", file=sys.stderr)
    return [g.record for g in stored if g.key not in skip]


def md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------- seed 001, Table 1

#: (row agent, column agent, the paper's win, tie, loss rates of the row agent moving first, games)
TABLE1: list[tuple[str, str, tuple[float, float, float], int]] = [
    ("random", "random", (.39, .27, .34), 1000),
    ("perceptron", "random", (.64, .12, .24), 1000),
    ("perceptron", "perceptron", (.56, .04, .40), 5000),
    ("perceptron", "reflex", (.54, .15, .31), 1000),
    ("reflex", "random", (.42, .35, .26), 1000),
    ("reflex", "reflex", (.31, .42, .27), 1000),
    ("minimax-1", "random", (.55, .20, .26), 1000),
    ("minimax-1", "perceptron", (.38, .11, .51), 1000),
    ("minimax-1", "reflex", (.43, .25, .32), 1000),
    ("minimax-1", "minimax-1", (.50, .12, .37), 500),
    ("minimax-1", "advanced-perceptron", (.78, .08, .14), 1000),
    ("minimax-2", "random", (.51, .23, .26), 500),
    ("minimax-2", "perceptron", (.32, .10, .58), 500),
    ("minimax-2", "reflex", (.38, .31, .31), 500),
    ("minimax-2", "minimax-1", (.56, .11, .32), 500),
    ("minimax-2", "minimax-2", (.48, .16, .36), 300),
    ("minimax-2", "advanced-perceptron", (.77, .09, .14), 500),
    ("advanced-perceptron", "random", (.71, .07, .20), 5000),
    ("advanced-perceptron", "perceptron", (.71, .04, .25), 5000),
    ("advanced-perceptron", "reflex", (.57, .14, .29), 1000),
    ("advanced-perceptron", "advanced-perceptron", (.93, .06, .01), 5000),
    ("expectimax-1", "random", (.98, .01, .01), 1000),
    ("expectimax-1", "perceptron", (.87, .09, .04), 750),
    ("expectimax-1", "reflex", (.93, .05, .02), 750),
    ("expectimax-1", "advanced-perceptron", (.96, .03, .01), 500),
    ("expectimax-2", "random", (1.0, 0.0, 0.0), 56),
    ("expectimax-2", "perceptron", (1.0, 0.0, 0.0), 55),
]


def first_mover_counts(games: list[GameRecord]) -> dict[tuple[str, str], list[int]]:
    """(seat-0 name, seat-1 name) -> [seat 0 won, drawn, seat 0 lost, faults], copies ('-copy') folded."""
    out: dict[tuple[str, str], list[int]] = {}
    for r in games:
        names = tuple(b.name.removesuffix("-copy") for b in r.bots)
        cell = out.setdefault((names[0], names[1]), [0, 0, 0, 0])
        if r.termination is not Termination.NORMAL:
            cell[3] += 1
        cell[1 if r.winner is None else 0 if r.winner == 0 else 2] += 1
    return out


#: Which defect of the authors' published code moves each cell (docs/results/seed001-table1.md):
#: 1 the 2-5-8 column never wins (more draws wherever play is partly random), 2 the minimax min
#: node returns None, 3 features of seat 0 maximised in either seat, 4 Reflex filters its own
#: wins, d Expectimax's depth counted after its own move (3 plies at depth 1), a adjacent pieces
#: counted as pairs. The main one first.
DEFECTS: dict[tuple[str, str], str] = {
    ("random", "random"): "1", ("perceptron", "random"): "1, a", ("perceptron", "perceptron"): "a, 1",
    ("perceptron", "reflex"): "a, 4, 1", ("reflex", "random"): "4, 1", ("reflex", "reflex"): "4, 1",
    ("minimax-1", "random"): "2, 1", ("minimax-1", "perceptron"): "2", ("minimax-1", "reflex"): "2, 4",
    ("minimax-1", "minimax-1"): "2, 3", ("minimax-1", "advanced-perceptron"): "3, 2",
    ("minimax-2", "random"): "2, 1", ("minimax-2", "perceptron"): "2", ("minimax-2", "reflex"): "2, 4",
    ("minimax-2", "minimax-1"): "2, 3", ("minimax-2", "minimax-2"): "2, 3",
    ("minimax-2", "advanced-perceptron"): "3, 2",
    ("advanced-perceptron", "random"): "1, a", ("advanced-perceptron", "perceptron"): "a, 1",
    ("advanced-perceptron", "reflex"): "4, 1, a", ("advanced-perceptron", "advanced-perceptron"): "3",
    ("expectimax-1", "random"): "d, 1", ("expectimax-1", "perceptron"): "d, a",
    ("expectimax-1", "reflex"): "d, 4", ("expectimax-1", "advanced-perceptron"): "3, d",
    ("expectimax-2", "random"): "d", ("expectimax-2", "perceptron"): "d",
}


def _cell(counts: dict[tuple[str, str], list[int]], row: str, col: str,
          paper: tuple[float, float, float]) -> tuple[str, str]:
    """('W .41 [.38, .44] D ... L ... (n)', 'W D') for a cell of a store, or '-' when it holds none."""
    w, d, l, _ = counts.get((row, col), [0, 0, 0, 0])
    n = w + d + l
    if not n:
        return "-", ""
    marks = [m for m, p, k in zip("WDL", paper, (w, d, l)) if outside(p, k, n)]
    return f"{rate(w, n)}, {rate(d, n)}, {rate(l, n)} ({n})", " ".join(marks) or "-"


def cmd_table1(args: argparse.Namespace) -> None:
    stores = [("ours", args.store), ("emulation", args.emulation)]
    all_counts = []
    for label, path in stores:
        games = records(path) if Path(path).exists() else []
        counts = first_mover_counts(games)
        all_counts.append(counts)
        faults = sum(c[3] for c in counts.values())
        print(f"{label}: {len(games)} distinct games in {path}; {faults} ended by a fault")
    print("\nRow agent moving first (the paper's cells); W, D, L with 95% Wilson intervals (games). "
          "'out': the paper's figure lies outside our interval. 'defect': what moves the cell "
          "(1 column 2-5-8, 2 min node, 3 seat 0, 4 Reflex wins, d Expectimax depth, a adjacent pairs).\n")
    rows = []
    for row, col, paper, n_paper in TABLE1:
        ours, ours_out = _cell(all_counts[0], row, col, paper)
        emu, emu_out = _cell(all_counts[1], row, col, paper)
        rows.append([row, col, " ".join(_p(x) for x in paper) + f" ({n_paper})", ours, ours_out, emu, emu_out,
                     DEFECTS[(row, col)]])
    print(md_table(["row (first)", "column", "paper W D L (games)", "our agents W, D, L (games)", "out",
                    "published-code emulation W, D, L (games)", "out", "defect"], rows))
    if args.mirror:
        counts = all_counts[0]
        print("\nOur agents, the same pairings with the column agent moving first, and both seats pooled "
              "(row agent's W D L):\n")
        rows = []
        for row, col, _paper, _n in TABLE1:
            if row == col:
                continue
            rw, rd, rl, _ = counts.get((col, row), [0, 0, 0, 0])   # column agent first: its loss is row's win
            fw, fd, fl, _ = counts.get((row, col), [0, 0, 0, 0])
            rn, pn = rw + rd + rl, rw + rd + rl + fw + fd + fl
            rows.append([row, col, f"{_p(rl / rn)} {_p(rd / rn)} {_p(rw / rn)} ({rn})" if rn else "-",
                         f"{_p((fw + rl) / pn)} {_p((fd + rd) / pn)} {_p((fl + rw) / pn)} ({pn})" if pn else "-"])
        print(md_table(["row", "column", "column first: row W D L", "pooled: row W D L"], rows))


def _play_pairing(game, first: tuple[str, dict], second: tuple[str, dict], games: int, seed: int) -> list[int]:
    """[first-mover wins, draws, losses] over `games` in-process games."""
    from bots import agent_class
    counts = [0, 0, 0]
    for g in range(games):
        a = agent_class(first[0])(game, random.Random(seed + 2 * g), **first[1])
        b = agent_class(second[0])(game, random.Random(seed + 2 * g + 1), **second[1])
        state = game.initial_state()
        while not state.is_terminal():
            state = state.play((a, b)[state.to_move].choose(state, None))
        counts[1 if state.winner is None else 0 if state.winner == 0 else 2] += 1
    return counts


def cmd_table1_defects(args: argparse.Namespace) -> None:
    """One experiment per defect: a cell it moves, with the whole emulation and with that defect fixed."""
    from bots.ultimate_agents import EMULATE_PARTS
    registry = default_registry()
    pub = "published-code"

    def without(part: str) -> str:
        return ",".join(p for p in EMULATE_PARTS if p != part) or "none"

    def agent(name: str, emulate: str, **options: Any) -> tuple[str, dict]:
        bot = {"random": "uttt-random", "reflex": "uttt-reflex", "advanced-perceptron": "uttt-advanced-perceptron",
               "minimax-1": "uttt-minimax-pruning", "expectimax-1": "uttt-expectimax",
               "perceptron": "uttt-perceptron"}[name]
        if name in ("minimax-1", "expectimax-1"):
            options["depth"] = 1
        if name != "random":
            from bots import agent_class
            allowed = agent_class(bot).emulate_parts  # type: ignore[attr-defined]
            parts = allowed if emulate == pub else [p for p in emulate.split(",") if p in allowed]
            options["emulate"] = ",".join(parts) or "none"
        return bot, options

    experiments = [
        ("1 column 2-5-8", "random", "random", (.39, .27, .34), "rule column258=counts", None),
        ("2 min node", "minimax-1", "random", (.55, .20, .26), "min node returns its value", "min-node"),
        ("3 seat 0", "advanced-perceptron", "advanced-perceptron", (.93, .06, .01),
         "features of the side to move", "seat0"),
        ("4 Reflex wins", "reflex", "random", (.42, .35, .26), "Reflex keeps its winning moves", "reflex-wins"),
        ("d depth", "expectimax-1", "reflex", (.93, .05, .02), "depth drops after the opponent's move", "depth"),
        ("a adjacent pairs", "perceptron", "reflex", (.54, .15, .31), "adjacent pieces are squares",
         "adjacent-pairs"),
    ]
    rows = []
    for label, row, col, paper, fix, part in experiments:
        results = []
        for fixed in (False, True):
            column258 = "counts" if fixed and part is None else "ignored"
            emulate = without(part) if fixed and part else pub
            game = registry.create("ultimate", column258=column258)
            if row == col == "random":  # the same games as two uttt-random agents, much faster
                rng = random.Random(args.seed)
                counts = [0, 0, 0]
                for _ in range(args.random_games):
                    end = game.random_playout(game.initial_state(), rng)
                    counts[1 if end.winner is None else 0 if end.winner == 0 else 2] += 1
            else:
                counts = _play_pairing(game, agent(row, emulate), agent(col, emulate), args.games, args.seed)
            n = sum(counts)
            results.append(f"{rate(counts[0], n)}, {rate(counts[1], n)}, {rate(counts[2], n)}")
            print(f"{label} fixed={fixed}: {counts}", file=sys.stderr, flush=True)
        rows.append([label, f"{row} vs {col}", " ".join(_p(x) for x in paper), results[0], fix, results[1]])
    print(f"{args.games} games per run ({args.random_games} for random against random), the row agent "
          f"first, seeds from {args.seed}; every run emulates the published code (rule column258=ignored, "
          "emulate=published-code) except the defect named:\n")
    print(md_table(["defect", "cell", "paper W D L", "emulation W, D, L", "fixed alone", "W, D, L"], rows))


def cmd_reflex_filter(args: argparse.Namespace) -> None:
    """How often the Reflex Agent's filter changes anything, against a random opponent."""
    from bots import agent_class
    game = default_registry().create("ultimate")
    decisions = removed = none_safe = 0
    by_phase: dict[str, list[int]] = {"moves 1-10": [0, 0], "11-20": [0, 0], "21-30": [0, 0], "31+": [0, 0]}
    for g in range(args.games):
        reflex = agent_class("uttt-reflex")(game, random.Random(30_000 + g))
        rand = agent_class("uttt-random")(game, random.Random(40_000 + g))
        seats = (reflex, rand) if g % 2 == 0 else (rand, reflex)
        state, ply = game.initial_state(), 0
        while not state.is_terminal():
            agent = seats[state.to_move]
            move = agent.choose(state, None)
            if agent is reflex:
                own = ply // 2 + 1
                stats = reflex.last_stats
                decisions += 1
                changed = 0 < stats["safe"] < stats["moves"]
                removed += changed
                none_safe += stats["safe"] == 0
                phase = "moves 1-10" if own <= 10 else "11-20" if own <= 20 else "21-30" if own <= 30 else "31+"
                by_phase[phase][0] += 1
                by_phase[phase][1] += changed
            state = state.play(move)
            ply += 1
    print(f"{args.games} games of uttt-reflex against uttt-random (seats alternating), "
          f"{decisions} reflex decisions:\n")
    rows = [["all", str(decisions), rate(removed, decisions), rate(none_safe, decisions)]]
    rows += [[phase, str(n), rate(c, n) if n else "-", ""] for phase, (n, c) in by_phase.items()]
    print(md_table(["reflex's own move", "decisions", "filter removed some moves", "no safe move"], rows))


# ---------------------------------------------------------------- seed 002, novice

def _novice_stats(games: list[GameRecord], x_name: str, o_name: str) -> Counter:
    """Outcomes of x_name (seat 0) against o_name: 'win3', 'win4', 'win5', 'loss', 'draw'."""
    out: Counter = Counter()
    for r in games:
        if [b.name.removesuffix("-copy") for b in r.bots] != [x_name, o_name]:
            continue
        if r.termination is not Termination.NORMAL:
            out["fault"] += 1
            continue
        x_moves = sum(1 for m in r.moves if m.seat == 0)
        out["draw" if r.winner is None else f"win{x_moves}" if r.winner == 0 else "loss"] += 1
    return out


def exact_novice(x_policy: str, o_policy: str, optimal: float = 0.4) -> dict[str, float]:
    """Exact outcome probabilities of the implemented policies (x first): 'novice' or 'blind'."""
    from bots.tictactoe_agents import ranked_moves, seed002_score

    def dist(x: int, o: int) -> dict[str, float]:
        score = seed002_score(x, o)
        if score is not None:
            return {"draw" if score == 0 else f"win{POPCOUNT[x]}" if score > 0 else "loss": 1.0}
        x_turn = POPCOUNT[x] == POPCOUNT[o]
        policy = x_policy if x_turn else o_policy
        if policy == "blind":
            free = SQUARES[FULL & ~(x | o)]
            choices = [(s, 1 / len(free)) for s in free]
        else:
            ranking = ranked_moves(x, o)
            choices = [(ranking[0][0], 1.0)] if len(ranking) < 2 else \
                [(ranking[0][0], optimal), (ranking[1][0], 1 - optimal)]
        out: dict[str, float] = {}
        for s, p in choices:
            child = (x | 1 << s, o) if x_turn else (x, o | 1 << s)
            for k, q in dist(*child).items():
                out[k] = out.get(k, 0.0) + p * q
        return out

    return dist(0, 0)


def cmd_seed002(args: argparse.Namespace) -> None:
    games = records(args.store)
    keys = ["win3", "win4", "win5", "loss", "draw"]
    print(f"{len(games)} distinct games in {args.store}\n")
    print("x's results; wins by x's number of moves. Exact: the probabilities of the implemented "
          "policies, by enumerating every game.\n")
    rows = []
    for x_name, o_name, label, policies in (("novice", "blind", "novice x vs blind o", ("novice", "blind")),
                                            ("novice", "novice", "novice x vs novice o", ("novice", "novice")),
                                            ("blind", "novice", "blind x vs novice o", ("blind", "novice"))):
        stats = _novice_stats(games, x_name, o_name)
        n = sum(stats[k] for k in keys)
        if not n:
            continue
        exact = exact_novice(*policies)
        for k in keys:
            rows.append([label, k, str(stats[k]), rate(stats[k], n), f"{exact.get(k, 0.0):.3f}",
                         f"{exact.get(k, 0.0) * n:.1f}", "" if not outside(exact.get(k, 0.0), stats[k], n)
                         else "outside"])
        rows.append([label, "games", str(n), "", "", "", f"faults {stats['fault']}"])
    print(md_table(["pairing", "outcome", "count", "rate [95% CI]", "exact p", "expected count", ""], rows))


# ---------------------------------------------------------------- seed 004, negamax

def _timed(fn, repeat: int) -> tuple[float, float, Any]:
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t) * 1000)
    return min(times), statistics.median(times), result


def _negamax_pm1(x: int, o: int, alpha: int, beta: int, counter: list[int]) -> int:
    """Negamax alpha-beta scoring a finished game win 1 / draw 0 / loss -1 for the side to move
    (no depth term), squares in ascending order; counter[0] counts every call."""
    counter[0] += 1
    if HAS_LINE[x] or HAS_LINE[o]:
        return -1            # the side to move did not make the line: it lost
    if x | o == FULL:
        return 0
    x_turn = POPCOUNT[x] == POPCOUNT[o]
    best = -2
    for s in SQUARES[FULL & ~(x | o)]:
        v = -_negamax_pm1(x | 1 << s, o, -beta, -alpha, counter) if x_turn else \
            -_negamax_pm1(x, o | 1 << s, -beta, -alpha, counter)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


def _root_pm1(x: int, o: int) -> tuple[int, int]:
    """(move, calls below the root) of _negamax_pm1 from a position, root moves as ttt-negamax does them."""
    counter = [0]
    x_turn = POPCOUNT[x] == POPCOUNT[o]
    alpha, move = -2, -1
    for s in SQUARES[FULL & ~(x | o)]:
        v = -_negamax_pm1(x | 1 << s, o, -2, -alpha, counter) if x_turn else \
            -_negamax_pm1(x, o | 1 << s, -2, -alpha, counter)
        if v > alpha:
            alpha, move = v, s
    return move, counter[0]


def cmd_negamax(args: argparse.Namespace) -> None:
    from bots import agent_class
    game = default_registry().create("tictactoe")
    empty = game.initial_state()
    print("First move from the empty board. ttt-negamax: seed 002's score (10 - o's moves), states "
          "counted with the root; win/loss negamax: a finished game scores 1/0/-1, states counted "
          f"without the root. Times: best and median of {args.repeat} runs (10x fewer without "
          "pruning), one core, this process.\n")
    rows = []
    for pruning in (False, True):
        agent = agent_class("ttt-negamax")(game, random.Random(0), pruning=pruning)
        best, median, _ = _timed(lambda agent=agent: agent.choose(empty, None),
                                 args.repeat if pruning else max(1, args.repeat // 10))
        rows.append(["ttt-negamax", "alpha-beta" if pruning else "none", f"{agent.last_stats['nodes']:,}",
                     f"{best:.2f}", f"{median:.2f}"])
    best, median, result = _timed(lambda: _root_pm1(0, 0), args.repeat)
    rows.append(["win/loss negamax", "alpha-beta", f"{result[1]:,}", f"{best:.2f}", f"{median:.2f}"])
    print(md_table(["search", "pruning", "states explored", "best ms", "median ms"], rows))

    print("\nThe seed's sample game (x plays 9, then 3; squares numbered 1-9 as in the seed):\n")
    agent = agent_class("ttt-negamax")(game, random.Random(0))
    rows = []
    x, o, total = 1 << 8, 0, 0
    for label, seed_text in (("x on 9", "5, 3956"),
                             ("x on 9 and 3, o on 5", "6, 4230 (= 3956 + 274: a running total?)")):
        state = game.parse_state("".join("x" if x >> s & 1 else "o" if o >> s & 1 else "." for s in range(9))
                                 + " o")
        reply = agent.choose(state, None)
        move, calls = _root_pm1(x, o)
        total += calls
        rows.append([label, seed_text, f"{reply + 1}, {agent.last_stats['nodes'] - 1:,}",
                     f"{move + 1}, {calls:,} (running total {total:,})"])
        o |= 1 << move
        x |= 1 << 2
    print(md_table(["position", "seed: reply, states explored", "ttt-negamax: reply, states below the root",
                    "win/loss negamax: reply, states below the root"], rows))


# ---------------------------------------------------------------- seed 000, TD learning

def _play_meta(agents, game) -> int | None:
    state = game.initial_state()
    while not state.is_terminal():
        state = state.play(agents[state.to_move].choose(state, None))
    return state.winner


def evaluate_meta(constants: dict[str, float], games_per_seat: int, depth: int, seed: int,
                  static: dict[str, float] | None = None) -> list[int]:
    """[learned won, drawn, lost] against the static default constants (or `static` over them), both
    seats, in-process."""
    from bots import agent_class
    from bots.features import meta_eval
    game = default_registry().create("meta")
    rng = random.Random(seed)
    counts = [0, 0, 0]
    for seat in (0, 1):
        for _ in range(games_per_seat):
            learned = agent_class("meta-minimax")(game, random.Random(rng.getrandbits(64)), depth=depth,
                                                  constants=constants)
            fixed = agent_class("meta-minimax")(game, random.Random(rng.getrandbits(64)), depth=depth,
                                                **({"constants": static} if static else {}))
            winner = _play_meta((learned, fixed) if seat == 0 else (fixed, learned), game)
            counts[1 if winner is None else 0 if winner == seat else 2] += 1
    meta_eval.cache_clear()   # one table per constant set: do not keep them all
    return counts


def cmd_td_compare(args: argparse.Namespace) -> None:
    """Constant sets (JSON files or 'c1=..,c2=..' text) side by side, and each against static AIs."""
    from bots.meta_agents import parse_constants
    sets = []
    for text in args.constants:
        label, _, value = text.partition(":") if ":" in text and not text.startswith("{") else (text, "", text)
        path = Path(value)
        consts = json.loads(path.read_text()) if path.suffix == ".json" and path.exists() else parse_constants(value)
        sets.append((label, consts))
    keys = ["c1", "c2", "c3", "c4", "c5", "c6"]
    print(md_table(["constants"] + keys + ["sum"],
                   [[label] + [f"{c[k]:.2f}" for k in keys] + [f"{sum(c[k] for k in keys):.2f}"] for label, c in sets]))
    opponents = [("the seed's static AI (c2 = 2)", {}), ("the author's static AI (c2 = 1)", {"c2": 1.0})]
    print(f"\nEach set against a static AI, depth {args.depth}, {args.games_per_seat} games in each seat "
          "(W, D, L of the set; 95% Wilson intervals):\n")
    rows = []
    for label, consts in sets:
        row = [label]
        for _name, static in opponents:
            counts = evaluate_meta(consts, args.games_per_seat, args.depth, args.seed, static=static)
            n = sum(counts)
            row.append(f"{rate(counts[0], n)}, {rate(counts[1], n)}, {rate(counts[2], n)}")
            print(f"{label} vs {_name}: {counts}", file=sys.stderr, flush=True)
        rows.append(row)
    print(md_table(["constants"] + [name for name, _ in opponents], rows))


def cmd_td(args: argparse.Namespace) -> None:
    from bots.meta_agents import parse_constants
    from bots.training import train_meta
    ks = list(range(0, args.games + 1, args.every))
    seeds = list(range(1, args.seeds + 1))
    results: dict[str, object] = {"args": {k: v for k, v in vars(args).items() if k != "func"},
                                  "seeds": {}}
    totals = {k: [0, 0, 0] for k in ks}
    figure1: list[list[int]] = [[0, 0, 0] for _ in range(args.games)]   # training game i: learner W D L
    started = time.perf_counter()
    for seed in seeds:
        snaps: list[dict[str, float]] = []
        lines: list[str] = []
        train_meta(args.games, seed, depth=args.depth, alpha=args.alpha, opponent=args.opponent,
                   start=parse_constants(args.start) if args.start else None,
                   snapshots=snaps, progress=lines.append)
        entry: dict[str, object] = {}
        if args.opponent == "static":
            sequence = ""
            for i, line in enumerate(lines):
                outcome = 0 if "(learner;" in line else 2 if "(static;" in line else 1
                figure1[i][outcome] += 1
                sequence += "WDL"[outcome]
            entry["training_games"] = sequence   # the learner's result in each training game
        seed_counts: dict[int, list[int]] = {}
        for k in ks:
            seed_counts[k] = evaluate_meta(snaps[k], args.eval_games, args.depth, seed * 1000 + k)
            totals[k] = [a + b for a, b in zip(totals[k], seed_counts[k])]
            entry[str(k)] = {"constants": snaps[k], "won_drawn_lost": seed_counts[k]}
        results["seeds"][str(seed)] = entry  # type: ignore[index]
        print(f"seed {seed}: " + "; ".join(f"k={k} {seed_counts[k]}" for k in ks)
              + f" ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    print(f"Learned constants (opponent during training: {args.opponent}, start "
          f"{args.start or 'the defaults'}, alpha {args.alpha}, depth {args.depth}) against the static "
          f"defaults, {args.seeds} seeds x 2 seats x {args.eval_games} "
          f"games per k:\n")
    rows = []
    for k in ks:
        w, d, l = totals[k]
        n = w + d + l
        mean = {c: statistics.mean(results["seeds"][str(s)][str(k)]["constants"][c] for s in seeds)  # type: ignore[index]
                for c in ("c1", "c2", "c3", "c4", "c5", "c6")}
        outcomes = [results["seeds"][str(s)][str(k)]["won_drawn_lost"] for s in seeds]  # type: ignore[index]
        better = len([c for c in outcomes if c[0] > c[2]])
        rows.append([str(k), str(n), rate(w, n), rate(d, n), rate(l, n), f"{better}/{len(seeds)}",
                     " ".join(f"{mean[c]:.2f}" for c in mean)])
    print(md_table(["k (training games)", "games", "learned won", "drawn", "learned lost",
                    "seeds where learned won more than lost", "mean c1..c6"], rows))
    if args.opponent == "static":
        print("\nThe training games themselves (learner against static, learner x in odd-numbered "
              "games), over the seeds:\n")
        print(md_table(["training game", "learner won", "drawn", "static won"],
                       [[str(i + 1), *map(str, c)] for i, c in enumerate(figure1)]))
        last5 = [s for s in seeds if set(results["seeds"][str(s)]["training_games"][-5:]) == {"W"}]  # type: ignore[index]
        first5 = [s for s in seeds if "W" not in results["seeds"][str(s)]["training_games"][:5]]  # type: ignore[index]
        print(f"\nSeeds whose learner won all of the last 5 training games: {len(last5)}/{len(seeds)} "
              f"{rate(len(last5), len(seeds))}; won none of the first 5: {len(first5)}/{len(seeds)} "
              f"{rate(len(first5), len(seeds))}; both: "
              f"{len(set(last5) & set(first5))}/{len(seeds)}.")
        results["figure1"] = figure1
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    if args.config:
        _td_config(args, results, seeds)


def _td_config(args: argparse.Namespace, results: dict, seeds: list[int]) -> None:
    """A league config: the static constants against the constants learned in args.games games."""
    k = str(args.games)
    lines = [
        f"# Seed 000: the static constants against the constants learned by `arena train meta --games {k}",
        f"# --seed S` (S = 1..{len(seeds)}, opponent {args.opponent}, start {args.start or 'the defaults'},"
        f" alpha {args.alpha}), written by",
        f"#   python benchmarks/reproduce.py td --seeds {args.seeds} --games {args.games} --opponent "
        f"{args.opponent}" + (f" --start {args.start}" if args.start else "") + f" --config {args.config}",
        "# Report: docs/results/seed000-td.md. The constants are inline, so this file is all a rerun needs",
        "# (a weights file path would work too). A league plays every pairing, learned against learned too.",
        "#   arena run " + args.config,
        f"name: repro-seed000-td{k}-{args.opponent}",
        "game: meta",
        "bots:",
        f"  - {{name: static, bot: meta-minimax, options: {{depth: {args.depth}}}}}",
    ]
    for s in seeds:
        c = results["seeds"][str(s)][k]["constants"]
        inline = ", ".join(f"{name}: {c[name]!r}" for name in ("c1", "c2", "c3", "c4", "c5", "c6"))
        lines.append(f"  - {{name: learned-{s}, bot: meta-minimax, options: {{depth: {args.depth}, "
                     f"constants: {{{inline}}}}}}}")
    lines += ["games_per_pairing: 20", "time_control: {move_ms: 2000, startup_ms: 10000}", "workers: 2",
              f"store: ../results/repro-seed000-td{k}-{args.opponent}.sqlite", "seed: 0"]
    Path(args.config).write_text("\n".join(lines) + "\n")
    print(f"\nwrote {args.config}", file=sys.stderr)


def cmd_td_league(args: argparse.Namespace) -> None:
    """The learned constants against the static ones, from a repro-seed000-td*.yaml league."""
    games = records(args.store)
    counts = [0, 0, 0]
    seeds_better = seeds = 0
    per: dict[str, list[int]] = {}
    for r in games:
        names = [b.name for b in r.bots]
        if "static" not in names or r.termination is not Termination.NORMAL:
            continue
        learned_seat = 1 - names.index("static")
        cell = per.setdefault(names[learned_seat], [0, 0, 0])
        cell[1 if r.winner is None else 0 if r.winner == learned_seat else 2] += 1
    for cell in per.values():
        counts = [a + b for a, b in zip(counts, cell)]
        seeds += 1
        seeds_better += cell[0] > cell[2]
    n = sum(counts)
    print(f"{args.store}: {len(per)} learned constant sets against static, {n} games (both seats)\n")
    print(md_table(["games", "learned won", "drawn", "learned lost", "sets that won more than they lost"],
                   [[str(n), rate(counts[0], n), rate(counts[1], n), rate(counts[2], n),
                     f"{seeds_better}/{seeds} {rate(seeds_better, seeds)}"]]))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("table1", help="seed 001's Table 1: the paper, the repro-table1 store and the "
                       "published-code emulation's store")
    p.add_argument("store", nargs="?", default=str(ROOT / "results/repro-table1.sqlite"))
    p.add_argument("--emulation", default=str(ROOT / "results/repro-table1-published-code.sqlite"))
    p.add_argument("--mirror", action="store_true", help="also our agents' cells with the column agent first")
    p.set_defaults(func=cmd_table1)
    p = sub.add_parser("table1-defects", help="seed 001: a cell per published-code defect, with that defect "
                       "fixed alone (in-process)")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--random-games", type=int, default=20000, help="games of random against random")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=cmd_table1_defects)
    p = sub.add_parser("reflex-filter", help="how often the Reflex Agent's filter changes its choice")
    p.add_argument("--games", type=int, default=200)
    p.set_defaults(func=cmd_reflex_filter)
    p = sub.add_parser("seed002", help="seed 002's novice statistics from the repro-seed002 store")
    p.add_argument("store", nargs="?", default=str(ROOT / "results/repro-seed002.sqlite"))
    p.set_defaults(func=cmd_seed002)
    p = sub.add_parser("negamax", help="seed 004: states explored and time for tic-tac-toe's first move")
    p.add_argument("--repeat", type=int, default=50)
    p.set_defaults(func=cmd_negamax)
    p = sub.add_parser("td-league", help="seed 000: learned against static, from a repro-seed000-td league store")
    p.add_argument("store")
    p.set_defaults(func=cmd_td_league)
    p = sub.add_parser("td-compare", help="seed 000: constant sets side by side and against static AIs")
    p.add_argument("constants", nargs="+", metavar="LABEL:CONSTANTS",
                   help="a label, ':', then a JSON file or 'c1=3,c2=1,...'")
    p.add_argument("--games-per-seat", type=int, default=100)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=cmd_td_compare)
    p = sub.add_parser("td", help="seed 000: TD-learned constants against the static defaults")
    p.add_argument("--seeds", type=int, default=20, help="training seeds 1..N")
    p.add_argument("--games", type=int, default=20, help="training games (the largest k)")
    p.add_argument("--every", type=int, default=5, help="evaluate after every this many games")
    p.add_argument("--eval-games", type=int, default=10, help="evaluation games per seat per seed and k")
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--alpha", type=float, default=0.005)
    p.add_argument("--opponent", choices=("self", "static"), default="self")
    p.add_argument("--start", help="starting constants, e.g. c1=1,c2=1,c3=1,c4=1,c5=1,c6=1 (default: the seed's)")
    p.add_argument("--json", help="also write every seed's constants and results here")
    p.add_argument("--config", help="also write a league config: static against the constants of the largest k")
    p.set_defaults(func=cmd_td)
    args = parser.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
