"""Alpha-beta search for the 9x9 games on raw ints: make/unmake on a list of nine board ints.

The searcher never builds a BigBoardState. A position is the nine 18-bit board
ints (kept in one list, changed in place and restored after each child) plus a
few ints passed down the recursion: the side to move, the target board, the
closed/won board masks and the running evaluation. Every rule question and the
evaluation are lookups in the tables of arena.games.search_support and of a
BoardEval (bots.features), and the evaluation is updated incrementally: only
the board that changed contributes a new term.

What is counted as a node: every position the search reaches, i.e. the root
and every child position produced by a move, whether it is then searched
further, evaluated statically or recognised as the end of the game. (Move
generation alone does not count a node; a child counts once however it is
scored.)
"""

from __future__ import annotations

import time
from collections.abc import Callable

from arena.games.bigboard import BigBoardState, macro_line_table
from arena.games.grid import FULL, HAS_LINE, POPCOUNT, SQUARES
from arena.games.search_support import BIT, BOARD_SPACE, FREE, STATUS, VALID_BOARDS, raw_position

from .features import BoardEval

INF = float("inf")


class SearchTimeout(Exception):
    """The deadline passed in the middle of a search."""


def _winning_squares_table(seat: int) -> list[int]:
    """WINNING[seat][v]: mask of empty squares where seat would complete a line on board v."""
    table = [0] * BOARD_SPACE
    for v in VALID_BOARDS:
        mine = v >> 9 * seat & FULL
        empty = FULL & ~(v | v >> 9)
        mask = 0
        for s in SQUARES[empty]:
            if HAS_LINE[mine | 1 << s]:
                mask |= 1 << s
        table[v] = mask
    return table


_WINNING: list[list[int]] = []


def winning_squares() -> list[list[int]]:
    """Per seat, the table of squares completing a line (built on first use)."""
    if not _WINNING:
        _WINNING.extend([_winning_squares_table(0), _winning_squares_table(1)])
    return _WINNING


class Search9:
    """Negamax alpha-beta for ultimate, meta or nine-board, evaluating with a BoardEval for `agent`.

    Values are integers from the point of view of the side to move at the node
    (negamax); `agent` is the seat whose evaluation the tables hold.
    """

    def __init__(self, state: BigBoardState, ev: BoardEval, agent: int) -> None:
        self.rules = state.rules
        self.macro_line = macro_line_table(state.rules)  # which won-board masks hold a line of boards
        self.ev = ev
        self.agent = agent
        self.boards = [0] * 9
        self.counter = [0]
        self.deadline = [INF]
        self.clock: Callable[[], float] = time.perf_counter
        if self.rules.small_win_ends:
            self.search = self._build_small_win()
        else:
            self.search = self._build_macro()
        self.set_position(state)

    # -------------------------------------------------------------- position

    def set_position(self, state: BigBoardState) -> None:
        """Load a state to search from."""
        boards, self.xwon, self.owon, self.closed, self.target, self.side = raw_position(state)
        self.boards[:] = boards
        ev = self.ev
        self.e = sum(ev.board[v] for v in self.boards) + ev.xwon_table[self.xwon] + ev.owon_table[self.owon]

    @property
    def nodes(self) -> int:
        """Nodes counted since the counter was last reset."""
        return self.counter[0]

    def reset_nodes(self) -> None:
        self.counter[0] = 0

    def root_moves(self) -> list[int]:
        """Legal moves of the loaded position, ascending."""
        boards, target = self.boards, self.target
        bs = (target,) if target >= 0 else SQUARES[FULL & ~self.closed]
        return [9 * b + s for b in bs for s in FREE[boards[b]]]

    def child(self, side: int, target: int, closed: int, xw: int, ow: int, e: int, move: int,
              depth: int = 0):
        """The child reached by `move` of `side`, as (nv, term, nt, nc, nxw, now, ne).

        nv is the new int of the move's board (not stored: the caller sets boards[b] = nv
        while it searches below); term is the value of the child for the mover when the game
        ends there (wins get the depth bonus with `depth` plies left), else None; the rest are
        the child's target, closed mask, won masks and running evaluation."""
        b, s = divmod(move, 9)
        boards, ev, rules = self.boards, self.ev, self.rules
        v = boards[b]
        nv = v | BIT[side][s]
        st = STATUS[nv]
        ne = e + ev.board[nv] - ev.board[v]
        nc, nxw, now = closed, xw, ow
        win = ev.win + (depth if ev.depth_bonus else 0)
        if rules.small_win_ends:
            if st in (1, 2):
                return nv, win, -1, nc, nxw, now, ne
            if st == 3:
                nc |= 1 << b
            if nc >> s & 1:
                if rules.full_target_draws:
                    return nv, 0, -1, nc, nxw, now, ne  # sent to a full board: a tie
                return nv, None, -1, nc, nxw, now, ne
            return nv, None, s, nc, nxw, now, ne
        term = None
        if st:
            nc |= 1 << b
            if st != 3:
                if side:
                    now |= 1 << b
                    ne += ev.owon_table[now] - ev.owon_table[ow]
                    line = self.macro_line[now]
                else:
                    nxw |= 1 << b
                    ne += ev.xwon_table[nxw] - ev.xwon_table[xw]
                    line = self.macro_line[nxw]
                if rules.macro_line_wins and line:
                    term = win
            if term is None and nc == FULL:
                term = 0
                if rules.most_boards_wins:
                    mine, theirs = (POPCOUNT[now], POPCOUNT[nxw]) if side else (POPCOUNT[nxw], POPCOUNT[now])
                    if mine != theirs:
                        term = win if mine > theirs else -win
        nt = -1 if nc >> s & 1 else s
        return nv, term, nt, nc, nxw, now, ne

    def leaf(self, side: int, b: int, nv: int, nt: int, ne: int) -> int:
        """Static value, for the mover `side`, of a child that is not over (see child())."""
        val = ne if side == self.agent else -ne
        nxt = self.ev.next_table
        if nxt is not None and nt >= 0:
            val -= nxt[nv] if nt == b else nxt[self.boards[nt]]
        return val

    def agent_value(self, side: int, b: int, nv: int, term, nt: int, ne: int) -> int:
        """The child's value for the agent (terminal value or static evaluation)."""
        val = term if term is not None else self.leaf(side, b, nv, nt, ne)
        return val if side == self.agent else -val

    def root_values(self, depth: int, moves: list[int] | None = None, alpha: float = -INF,
                    beta: float = INF, ties: bool = False,
                    out: list[tuple[int, float]] | None = None) -> list[tuple[int, float]]:
        """Alpha-beta over the loaded position to `depth` plies; [(move, value)] for the side to
        move, appended to `out` as each move is done (so a caller keeps them on a timeout).
        A value is exact when it is above the best found before it; with ties=True, moves
        equal to the best so far are searched with a window that keeps them exact, so every
        move of the maximal value is exact and recognisable."""
        side, target, closed = self.side, self.target, self.closed
        xw, ow, e = self.xwon, self.owon, self.e
        boards, search = self.boards, self.search
        self.counter[0] += 1  # the root
        if out is None:
            out = []
        for move in (self.root_moves() if moves is None else moves):
            b = move // 9
            nv, term, nt, nc, nxw, now, ne = self.child(side, target, closed, xw, ow, e, move, depth)
            self.counter[0] += 1
            if term is not None:
                val = term
            elif depth == 1:
                val = self.leaf(side, b, nv, nt, ne)
            else:
                a = alpha - 1 if ties else alpha
                v = boards[b]
                boards[b] = nv
                try:
                    val = -search(depth - 1, -beta, -a, side ^ 1, nt, nc, nxw, now, ne)
                finally:
                    boards[b] = v
            out.append((move, val))
            if val > alpha:
                alpha = val
                if alpha >= beta:
                    break
        return out

    # -------------------------------------------------------------- ultimate and meta

    def _build_macro(self):
        boards = self.boards
        ev = self.ev
        BT, MXT, MOT = ev.board, ev.xwon_table, ev.owon_table
        has_nt = ev.next_table is not None
        NT = ev.next_table if ev.next_table is not None else []   # read only when has_nt
        WIN = ev.win
        bonus = 1 if ev.depth_bonus else 0
        macro_line = self.rules.macro_line_wins
        most_boards = self.rules.most_boards_wins
        agent = self.agent
        ST, FR, SQ, HL, PC = STATUS, FREE, SQUARES, self.macro_line, POPCOUNT
        BIT0, BIT1 = BIT
        counter, deadline, clock = self.counter, self.deadline, self.clock

        def search(depth, alpha, beta, side, target, closed, xw, ow, e):
            """Negamax value of the node for `side`, searching `depth` plies (>= 1)."""
            if depth > 2 and clock() > deadline[0]:
                raise SearchTimeout
            bits = BIT1 if side else BIT0
            sgn = 1 if side == agent else -1
            n = 0
            best = -INF
            cut = False
            for b in (SQ[FULL & ~closed] if target < 0 else (target,)):
                v = boards[b]
                bv = BT[v]
                for s in FR[v]:
                    nv = v | bits[s]
                    n += 1
                    st = ST[nv]
                    if not st:
                        ne = e + BT[nv] - bv
                        nt = -1 if closed >> s & 1 else s
                        if depth == 1:
                            val = sgn * ne
                            if has_nt and nt >= 0:
                                val -= NT[nv] if nt == b else NT[boards[nt]]
                        else:
                            boards[b] = nv
                            val = -search(depth - 1, -beta, -alpha, side ^ 1, nt, closed, xw, ow, ne)
                            boards[b] = v
                    else:
                        bm = 1 << b
                        nc = closed | bm
                        ne = e + BT[nv] - bv
                        nxw, now = xw, ow
                        val = None
                        if st != 3:
                            if side:
                                now = ow | bm
                                ne += MOT[now] - MOT[ow]
                                if macro_line and HL[now]:
                                    val = WIN + bonus * depth
                            else:
                                nxw = xw | bm
                                ne += MXT[nxw] - MXT[xw]
                                if macro_line and HL[nxw]:
                                    val = WIN + bonus * depth
                        if val is None and nc == FULL:
                            val = 0
                            if most_boards:
                                mine, theirs = (PC[now], PC[nxw]) if side else (PC[nxw], PC[now])
                                if mine != theirs:
                                    val = WIN + bonus * depth if mine > theirs else -WIN - bonus * depth
                        if val is None:
                            nt = -1 if nc >> s & 1 else s
                            if depth == 1:
                                val = sgn * ne
                                if has_nt and nt >= 0:
                                    val -= NT[boards[nt]]
                            else:
                                boards[b] = nv
                                val = -search(depth - 1, -beta, -alpha, side ^ 1, nt, nc, nxw, now, ne)
                                boards[b] = v
                    if val > best:
                        best = val
                        if val > alpha:
                            alpha = val
                            if alpha >= beta:
                                cut = True
                                break
                if cut:
                    break
            counter[0] += n
            return best

        return search

    # -------------------------------------------------------------- nine-board

    def _build_small_win(self):
        boards = self.boards
        ev = self.ev
        BT = ev.board
        WIN = ev.win
        bonus = 1 if ev.depth_bonus else 0
        full_target_draws = self.rules.full_target_draws
        agent = self.agent
        WINSQ = winning_squares()
        ST, FR, SQ = STATUS, FREE, SQUARES
        BIT0, BIT1 = BIT
        counter, deadline, clock = self.counter, self.deadline, self.clock

        def search(depth, alpha, beta, side, target, closed, xw, ow, e):
            """Negamax value for `side`; xw and ow are unused (a line ends the game)."""
            if depth > 2 and clock() > deadline[0]:
                raise SearchTimeout
            if target >= 0 and WINSQ[side][boards[target]]:
                counter[0] += 1  # the winning child
                return WIN + bonus * depth
            bits = BIT1 if side else BIT0
            sgn = 1 if side == agent else -1
            n = 0
            best = -INF
            cut = False
            for b in (SQ[FULL & ~closed] if target < 0 else (target,)):
                v = boards[b]
                bv = BT[v]
                for s in FR[v]:
                    nv = v | bits[s]
                    n += 1
                    st = ST[nv]
                    if st == 1 or st == 2:
                        val = WIN + bonus * depth
                    else:
                        nc = closed | 1 << b if st == 3 else closed
                        if nc >> s & 1:
                            val = 0 if full_target_draws else None
                        else:
                            val = None
                        if val is None:
                            nt = -1 if nc >> s & 1 else s
                            ne = e + BT[nv] - bv
                            if depth == 1:
                                val = sgn * ne
                            else:
                                boards[b] = nv
                                val = -search(depth - 1, -beta, -alpha, side ^ 1, nt, nc, 0, 0, ne)
                                boards[b] = v
                    if val > best:
                        best = val
                        if val > alpha:
                            alpha = val
                            if alpha >= beta:
                                cut = True
                                break
                if cut:
                    break
            counter[0] += n
            return best

        return search


    # -------------------------------------------------------------- iterative deepening

    def deepen(self, max_depth: int, deadline: float, ties: bool = False
               ) -> tuple[list[tuple[int, float]], int]:
        """Iterative deepening from depth 1 to max_depth until `deadline` (a perf_counter time).

        Returns the (move, value) list of the deepest iteration used and its depth. Each
        iteration searches the previous iteration's best moves first. An iteration cut by
        the deadline is used only without ties and only if it finished at least its first
        move (the previous best): then its best finished move is at least as good, at the
        deeper depth, as that one. Depth 1 always completes. Stops early once the game's
        result is proven (|value| >= the evaluation's win value)."""
        self.deadline[0] = INF
        values = self.root_values(1, ties=ties)
        done = 1
        win = self.ev.win
        last = self.clock()
        self.deadline[0] = deadline
        while done < max_depth:
            best = max(v for _, v in values)
            if abs(best) >= win:
                break
            now = self.clock()
            if now >= deadline:
                break
            order = [m for m, _ in sorted(values, key=lambda mv: -mv[1])]
            partial: list[tuple[int, float]] = []
            try:
                values = self.root_values(done + 1, moves=order, ties=ties, out=partial)
            except SearchTimeout:
                if partial and not ties:
                    values = partial
                    done += 1
                break
            done += 1
            elapsed, last = self.clock() - last, self.clock()
            if last + elapsed * 2 > deadline:  # the next iteration would most likely not finish
                break
        self.deadline[0] = INF
        return values, done
