"""Openings: where games start, so that N games between deterministic bots are N samples.

An opening is a list of moves played from the game's start before the bots take over.
Specs (`--openings` of `arena match`, `openings:` of a league config):

- ``none``: the empty board (the default);
- ``random:N``: N uniformly random legal plies drawn from the game's seed, so both
  games of a seat-swapped pair share the opening and a re-run reproduces it;
- ``book:NAME``: a book shipped with arena (arena/books/NAME.txt; `arena openings --list`);
- ``FILE``: a book file: one opening per line, a move list (``40,36,4``) or a state line
  in the game's encoding; ``#`` starts a comment. Openings are used in order (or in an
  order shuffled by the league seed), one per seat-swapped pair, wrapping around.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.games import Game, GameError, State
from arena.userfiles import MiB, UserFileError, read_text

Opening = tuple[int, ...]

BOOK_DIR = Path(__file__).parent / "books"
ORDERS = ("sequential", "random")
MAX_BOOK_BYTES = 16 * MiB   #: a book file's size (a shipped book of 100 openings is 4 KiB)
#: random openings drawn before giving up on finding one that leaves the game open
RANDOM_TRIES = 1000


class OpeningError(GameError):
    """An openings spec or book that cannot be used; the text names the file and line."""


@dataclass(frozen=True)
class Openings:
    """A parsed openings spec: how to find the opening of pair k with game seed s."""

    spec: str                      #: what the user wrote (after normalising `none`)
    plies: int = 0                 #: random:N
    book: tuple[Opening, ...] = ()  #: book:NAME or FILE, in the order used
    order: str = "sequential"

    @property
    def is_none(self) -> bool:
        return not self.plies and not self.book

    def identity(self) -> str:
        """What a league store remembers: the spec and the order (books by content)."""
        if self.is_none:
            return "none"
        if self.plies:
            return self.spec
        digest = hashlib.sha256(repr(self.book).encode()).hexdigest()[:16]
        return f"a book of {len(self.book)} openings (in the order used: sha256 {digest})"

    def opening(self, game: Game, pair: int, seed: int) -> Opening:
        """The opening of seat-swapped pair number `pair` (from 0) whose games have `seed`."""
        if self.plies:
            return random_opening(game, self.plies, seed)
        if self.book:
            return self.book[pair % len(self.book)]
        return ()


NONE = Openings("none")


def parse_spec(text: str, game: Game, order: str = "sequential", shuffle_seed: int = 0,
               base_dir: Path | None = None) -> Openings:
    """The Openings a spec names for game; OpeningError saying what is allowed otherwise.

    With order "random" a book is shuffled once by shuffle_seed (the league seed)."""
    if order not in ORDERS:
        raise OpeningError(f"openings order {order!r}: must be one of {', '.join(ORDERS)}")
    spec = text.strip()
    if spec in ("", "none"):
        return NONE
    refuse_moving_at_once(game, f"openings {spec!r}: ")
    if spec.startswith("random:"):
        count = spec[len("random:"):]
        if not count.isascii() or not count.isdigit() or int(count) < 1:
            raise OpeningError(f"openings {spec!r}: random:N needs a whole number N >= 1 of plies")
        plies = int(count)
        if plies >= game.info.max_length:
            raise OpeningError(f"openings {spec!r}: {game.name} games last at most "
                               f"{game.info.max_length} plies; an opening must leave moves to play")
        return Openings(spec, plies=plies)
    if spec.startswith("book:"):
        name = spec[len("book:"):]
        path = BOOK_DIR / f"{name}.txt"
        if not name or "/" in name or not path.is_file():
            raise OpeningError(f"openings {spec!r}: no shipped book {name!r}; shipped books: "
                               f"{', '.join(shipped_books()) or 'none'}")
    else:
        path = Path(spec).expanduser()
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        if not path.exists():   # anything else there is refused by read_book, saying what it is
            raise OpeningError(f"openings {spec!r}: no file {str(path)!r}; use none, random:N, "
                               f"book:NAME or a book file (one opening per line)")
    book = read_book(path, game)
    if order == "random":
        shuffled = list(book)
        random.Random(f"openings|{shuffle_seed}").shuffle(shuffled)
        book = tuple(shuffled)
    return Openings(spec, book=book, order=order)


def refuse_moving_at_once(game: Game, prefix: str = "") -> None:
    """OpeningError for a game whose seats move at once: an opening here is plies of a game
    of turns, played by the referee before the bots take over, and such a game has none."""
    if game.info.simultaneous:
        raise OpeningError(f"{prefix}game {game.name!r}: its seats move at once, and openings (random:N, "
                           "books) are plies of a game of turns; play it from its start (openings: none), "
                           "mirrored for every seat, its games varied by the seed each bot is handed")
    if game.info.rounds:
        raise OpeningError(f"{prefix}game {game.name!r} with these rules: its seats move in rounds whose "
                           "starts are drawn from each game's seed, which vary its games; play it with "
                           "openings: none")


def shipped_books() -> list[str]:
    """Names of the books shipped with arena (book:NAME)."""
    return sorted(p.stem for p in BOOK_DIR.glob("*.txt"))


def read_book(path: Path, game: Game) -> tuple[Opening, ...]:
    """Every opening of a book file; OpeningError naming the file and line of a bad one."""
    try:
        lines = read_text(path, "openings book", MAX_BOOK_BYTES).splitlines()
    except UserFileError as exc:
        raise OpeningError(str(exc)) from None
    book = []
    for number, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            book.append(parse_opening(game, line))
        except GameError as exc:
            raise OpeningError(f"{path}:{number}: bad opening: {exc}") from None
    if not book:
        raise OpeningError(f"{path}: the openings book holds no opening (one move list like "
                           f"40,36,4 or one {game.name} state per line)")
    return tuple(book)


def parse_opening(game: Game, text: str) -> Opening:
    """One book line: a move list (40,36,4) or a state in the game's encoding, as moves."""
    words = text.replace(" ", "")
    if words and all(part.isascii() and part.isdigit() for part in words.split(",")):
        moves = tuple(game.parse_move(part) for part in words.split(","))
        check_opening(game, moves)
        return moves
    try:
        target = game.parse_state(text)
    except GameError as exc:
        raise OpeningError(f"{text[:60]!r} is neither a move list (like 40,36,4) nor a "
                           f"{game.name} state ({exc})") from None
    moves = moves_to(game, target)
    check_opening(game, moves)
    return moves


def check_opening(game: Game, moves: Sequence[int]) -> State:
    """The state after an opening; GameError if a move is illegal or the game is over."""
    state = game.initial_state()
    for ply, move in enumerate(moves, 1):
        try:
            state = state.play(move)
        except GameError as exc:
            raise OpeningError(f"ply {ply} ({game.move_text(move)}): {exc}") from None
    if state.is_terminal():
        raise OpeningError(f"the opening {format_opening(game, moves)} ends the game; an opening "
                           "must leave moves to play")
    return state


def moves_to(game: Game, target: State) -> Opening:
    """A move list from the start that reaches target (a state given as a book line).

    Searches only moves after which every mark on the board (State.grid()) is one target
    has there, so it works for any game whose moves add marks to a grid; OpeningError for a
    game without a grid, or if no order of the marks reaches target."""
    start = game.initial_state()
    goal = target.grid()
    if start.grid() is None or goal is None:
        raise OpeningError(f"{game.name}: a state line needs a game whose states have a grid; "
                           "give the opening as a move list")
    wanted = target.encode()
    marks = sum(1 for mark in goal.marks if mark != ".")

    def fits(state: State) -> bool:
        """Every mark on state's board is the one target has on that square."""
        grid = state.grid()
        return grid is not None and len(grid.marks) == len(goal.marks) and all(
            mark == "." or mark == want for mark, want in zip(grid.marks, goal.marks))

    def search(state: State, path: list[int]) -> Opening | None:
        if len(path) == marks:
            return tuple(path) if state.encode() == wanted else None
        if state.is_terminal():
            return None
        for move in state.legal_moves():
            after = state.play(move)
            if fits(after):
                found = search(after, path + [move])
                if found is not None:
                    return found
        return None

    found = search(start, [])
    if found is None:
        raise OpeningError(f"no sequence of legal moves from the start reaches the state "
                           f"{target.encode()!r}")
    return found


def random_opening(game: Game, plies: int, seed: int) -> Opening:
    """plies uniformly random legal moves, fixed by seed, that leave the game open."""
    rng = random.Random(f"opening|{game.name}|{plies}|{seed}")
    for _ in range(RANDOM_TRIES):
        state = game.initial_state()
        moves: list[int] = []
        while len(moves) < plies and not state.is_terminal():
            legal = state.legal_moves()
            move = legal[int(rng.random() * len(legal))]
            moves.append(move)
            state = state.play(move)
        if not state.is_terminal():
            return tuple(moves)
    raise OpeningError(f"no random {plies}-ply {game.name} opening left the game open in "
                       f"{RANDOM_TRIES} tries; use fewer plies")


def format_opening(game: Game, moves: Sequence[int]) -> str:
    """A move list as a book line: 40,36,4."""
    return ",".join(game.move_text(m) for m in moves)


def distinct_games(move_lists: Sequence[Sequence[str]]) -> int:
    """How many different games (by their whole move list) there are."""
    return len({tuple(moves) for moves in move_lists})


def repeat_warning(move_lists: Sequence[Sequence[str]], at_once: bool = False,
                   referee: bool = False) -> str | None:
    """A warning when fewer distinct games than games were played, else None. move_lists:
    the games that ended normally; a game a fault ended (a crash, a timeout, a bot that did
    not start) repeats for the bot's reason, which no opening cures, so callers leave it out.
    at_once: the game's seats move at once, which has no openings: the bots' own seeds vary it.
    referee: a game played by a referee process, which has none either: its seed varies it."""
    distinct = distinct_games(move_lists)
    if distinct >= len(move_lists):
        return None
    head = (f"only {distinct} distinct games (by move list) in {len(move_lists)} games that ended "
            "normally: repeated games are not independent samples; ")
    if referee:
        return head + ("a game played by a referee process has no openings: vary its games with the "
                       "referee's seed (seed: true, for a referee that takes one) or the bots' own "
                       "(docs/referees.md)")
    vary = ("vary the bots' play with the seed each is handed (its seats move at once: no openings)"
            if at_once else "vary the start with openings (random:N or a book")
    return head + f"{vary}, docs/openings.md)"


# --- making balanced books ------------------------------------------------------------------

#: a position's value for the first player (x): 1 won, 0.5 even, 0 lost
Evaluator = Callable[[State], float]


@dataclass(frozen=True)
class BookEntry:
    """One generated opening with the value it was judged to have."""

    moves: Opening
    value: float


def generate_book(game: Game, plies: int, count: int, seed: int, evaluate: Evaluator,
                  band: float = 0.1, max_candidates: int | None = None,
                  progress: Callable[[int, int], None] | None = None) -> list[BookEntry]:
    """count distinct openings (by position) of `plies` random plies whose value for x is
    within band of 0.5, in the order found; deterministic from seed and evaluate.

    With plies small enough that every position can be listed (tic-tac-toe), every
    distinct position is a candidate, in a seeded order. Raises OpeningError when the
    candidates run out first."""
    refuse_moving_at_once(game)
    rng = random.Random(f"book|{game.name}|{plies}|{seed}")
    limit = max_candidates if max_candidates is not None else 50 * count
    seen: set[str] = set()
    found: list[BookEntry] = []
    tried = 0
    for moves in _candidates(game, plies, rng, limit):
        state = game.replay(list(moves))
        key = state.encode()
        if state.is_terminal() or key in seen:
            continue
        seen.add(key)
        tried += 1
        value = evaluate(state)
        if abs(value - 0.5) <= band:
            found.append(BookEntry(moves, value))
            if progress is not None:
                progress(len(found), tried)
            if len(found) == count:
                return found
    raise OpeningError(f"only {len(found)} of {count} {plies}-ply {game.name} openings within "
                       f"{band} of even among {tried} distinct positions tried; widen --band, "
                       "lower --count or change --plies")


def _candidates(game: Game, plies: int, rng: random.Random, limit: int) -> Iterator[Opening]:
    """Move lists to try: all of them shuffled when there are few, else random draws."""
    small = _all_openings(game.initial_state(), plies, cap=20_000)
    if small is not None:
        rng.shuffle(small)
        yield from small
        return
    for _ in range(limit):
        state = game.initial_state()
        moves = []
        for _ply in range(plies):
            legal = state.legal_moves()
            if not legal:
                break
            move = legal[int(rng.random() * len(legal))]
            moves.append(move)
            state = state.play(move)
        yield tuple(moves)


def _all_openings(state: State, plies: int, cap: int) -> list[Opening] | None:
    """Every move list of length plies from state, or None if there are more than cap."""
    out: list[Opening] = [()]
    for _ in range(plies):
        nxt: list[Opening] = []
        for moves in out:
            here = state
            for m in moves:
                here = here.play(m)
            nxt.extend(moves + (m,) for m in here.legal_moves())
            if len(nxt) > cap:
                return None
        out = nxt
    return out


def mcts_evaluator(game: Game, simulations: int, seed: int) -> Evaluator:
    """A position's value for x by the reference MCTS agent with a fixed number of
    simulations (both sides search in its tree), seeded per position for reproducibility."""
    try:
        from bots.mcts import MCTS
    except ImportError as exc:
        raise OpeningError(f"judging openings needs the reference bots package: {exc}") from None

    def evaluate(state: State) -> float:
        agent = MCTS(game, random.Random(f"{seed}|{state.encode()}"), time_ms=0,
                     iterations=simulations, reuse=False)
        agent.choose(state, None)
        value = agent.last_stats["value"]
        if value is None:  # one legal move: nothing searched; judge the position after it
            after = state.play(state.legal_moves()[0])
            return after.returns()[0] if after.is_terminal() else evaluate(after)
        mover = state.to_move
        return float(value) if mover == 0 else 1.0 - float(value)
    return evaluate
