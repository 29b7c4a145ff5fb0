"""arena play and arena replay: one game, move by move, in the terminal."""

from __future__ import annotations

import argparse
import random

from arena.errors import did_you_mean
from arena.games import SIMULTANEOUS, GameError
from arena.record import play_turn

from .command import Command
from .common import (
    UserError,
    add_referee_options,
    bot_for,
    is_store,
    league_source,
    loaded,
    make_game,
    path_argument,
    print_stderr_tail,
    sandbox_from,
    settings_from,
    warn_damage,
    with_reads,
)

#: JSON game records a replay reads (arena match --save writes a few KiB a game)
MAX_RECORDS_BYTES = 256 << 20


def _records_from_store(path, args: argparse.Namespace):
    """The record a replay asks for (--game N in league order, or --fixture KEY) from a store,
    which game it is, and which versions of the bots played it."""
    from arena.league import Store
    with Store(path, readonly=True) as store:   # the bots' current versions, as the site
        warn_damage("replay", store)
        rows = list(store.games.seated(current=True))
    games = [game for game, _versions in rows]
    if not games:
        raise UserError(f"{path} holds no games yet")

    def found(i: int, which: str):
        stored, versions = rows[i]
        played = [f"{bot.name} v{v}" for bot, v in zip(stored.record.bots, versions)]
        return stored.record, which, f", played by {', '.join(played[:-1])} and {played[-1]}"
    if args.fixture is not None:
        for i, stored in enumerate(games):
            if stored.key == args.fixture:
                return found(i, f"fixture {stored.key}")
        keys = [g.key for g in games]
        hint = did_you_mean(args.fixture, keys) or f" (keys look like {', '.join(keys[:3])})"
        raise UserError(f"--fixture {args.fixture!r} is not in {path}{hint}")
    if not 1 <= args.game <= len(games):
        raise UserError(f"--game must be 1..{len(games)} for {path} (games in league order)")
    return found(args.game - 1, f"game {args.game} of {len(games)}, fixture {games[args.game - 1].key}")


def _record_from_lines(path, args: argparse.Namespace):
    """The record a replay asks for from a JSON record or JSON lines (arena match --save)."""
    from arena.record import GameRecord
    if args.fixture is not None:
        raise UserError("--fixture needs a league store or config; a saved match has --game N")
    from arena.userfiles import UserFileError, read_text
    try:
        text = read_text(path, "game records", MAX_RECORDS_BYTES)
    except UserFileError as exc:
        raise UserError(f"{exc} (expected a league store or JSON game records)") from None
    lines = [line for line in text.splitlines(keepends=True) if line.strip()]
    if not lines:
        raise UserError(f"{path} holds no game record")
    if len(lines) == 1 or lines[0].lstrip().startswith("{") and not lines[0].rstrip().endswith("}"):
        texts = ["".join(lines)]
    else:
        texts = lines
    if not 1 <= args.game <= len(texts):
        raise UserError(f"--game must be 1..{len(texts)} for {path}")
    try:
        return GameRecord.from_json(texts[args.game - 1]), f"game {args.game} of {len(texts)}"
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{path}: not a game record ({exc})") from None


def _pause(step: bool, unit: str = "move") -> bool:
    """With --step, wait for Enter; False when the person typed q or closed the input."""
    if not step:
        return True
    try:
        return input(f"[Enter: next {unit}, q: quit] ").strip().lower() not in ("q", "quit")
    except EOFError:
        return False


def cmd_replay(args: argparse.Namespace) -> int:
    from arena.league.storefile import StoreDamagedError
    from arena.recordcheck import rules_problem
    store_path = league_source(args.file)[0]
    from_store = is_store(store_path)
    if from_store:
        record, which, played = _records_from_store(store_path, args)
    else:
        (record, which), played = _record_from_lines(store_path, args), ""
    if record.referee is not None:     # played by a referee process: its transcript
        return _replay_transcript(args, record, which, played, store_path if from_store else None)
    game = loaded().games.create(record.game, **record.rule_options)
    problem = rules_problem(record, game)
    if problem is not None:   # a record that lies is not shown as played
        said = f"{which}: its record does not follow the rules of {game.name}: {problem}"
        if from_store:
            raise StoreDamagedError(f"{store_path}: the store is damaged ({said}): restore it "
                                    "from a backup or use another file")
        raise UserError(f"{store_path}: {said}")
    state = game.start(record.seed)
    names, marks = [b.name for b in record.bots], game.info.seat_names
    if game.info.by_turn:
        return _replay_turns(args, game, record, f"seed {record.seed} ({which}){played}")
    print(f"{game.name}: {names[0]} ({marks[0]}) vs {names[1]} ({marks[1]}), seed {record.seed} ({which}){played}")
    if record.opening:
        print(f"opening: {','.join(record.opening_moves())} ({record.opening} plies played "
              "by the referee)")
    print(state.render())
    for ply, move in enumerate(record.moves, 1):
        if not _pause(args.step):
            return 0
        note = f", substituted: {move.substituted}" if move.substituted else ""
        cpu = f", cpu {move.cpu_ms:.1f} ms" if move.cpu_ms is not None else ""
        how = "opening" if ply <= record.opening else f"{move.wall_ms:.1f} ms{cpu}{note}"
        print(f"\nply {ply}: {names[move.seat]} ({marks[move.seat]}) plays {move.move} ({how})")
        try:
            state = state.play(game.parse_move(move.move))
        except GameError as exc:
            print(f"  (not played: {exc})")
            break
        print(state.render())
    print(f"\nresult: {record.summary(game.info.by_turn, marks)}")
    print_stderr_tail(record)
    return 0


def _replay_turns(args: argparse.Namespace, game, record, which: str) -> int:
    """arena replay of a game whose moves go by turns (seats moving at once, or in rounds):
    turn by turn, each seat's move and time, and the seats the referee put out for a fault
    where they went out."""
    names = [b.name for b in record.bots]
    print(f"{game.name}: " + ", ".join(f"{name} (seat {seat})" for seat, name in enumerate(names)) + f", {which}")
    state = game.start(record.seed)
    print(state.render())
    out = _out_by_turn(record)
    for number, moves in enumerate(record.turns()):
        if not _pause(args.step, "turn"):
            return 0
        print(f"\nturn {number + 1}: {_turn_words(names, moves)}")
        for gone in out.get(number, []):
            print(f"  out: {gone.reason}")
        try:
            after = play_turn(game, state, moves, [gone.seat for gone in out.get(number, [])])
        except GameError as exc:
            print(f"  (not played: {exc})")
            break
        if after is None:
            break
        state = after
        print(state.render())
    print(f"\nresult: {record.summary(game.info.by_turn, game.info.seat_names)}")
    print_stderr_tail(record)
    return 0


def _replay_transcript(args: argparse.Namespace, record, which: str, played: str, store_path) -> int:
    """arena replay of a game played by a referee process (docs/referees.md): step by step,
    the lines each seat was given and answered, with times, and the referee's ###Error lines
    where they came; then the result and the referee's stderr tail."""
    from arena.league.storefile import StoreDamagedError
    from arena.recordcheck import transcript_problem
    from arena.transcript import ending_lines, error_lines, errors_before, header, step_lines, steps
    problem = transcript_problem(record)
    if problem is not None:
        said = f"{which}: its record is no game a referee process played: {problem}"
        if store_path is not None:
            raise StoreDamagedError(f"{store_path}: the store is damaged ({said}): restore it "
                                    "from a backup or use another file")
        raise UserError(said)
    print(header(record, which + played))
    for line in error_lines(errors_before(record)):
        print(line)
    for step in steps(record):
        if not _pause(args.step, "step"):
            return 0
        print()
        for line in step_lines(step):
            print(line)
    seats = tuple(f"seat {seat}" for seat in range(len(record.bots)))
    print(f"\nresult: {record.summary(False, seats)}")
    for line in ending_lines(record):
        print(line)
    print_stderr_tail(record)
    return 0


def _out_by_turn(record) -> dict[int, list]:
    """The seats put out for a fault (record.out), by the turn they went out on."""
    out: dict[int, list] = {}
    for gone in record.out:
        out.setdefault(gone.turn, []).append(gone)
    return out


def _turn_words(names: list[str], moves) -> str:
    """A recorded turn for people: each seat's bot, move and time."""
    return ", ".join(f"{names[m.seat]} {m.move} ({m.wall_ms:.1f} ms"
                     + (f", substituted: {m.substituted})" if m.substituted else ")") for m in moves)


class _Resigned(Exception):
    """The person at the terminal left the game."""


def _move_hint(game, state) -> str:
    """What the prompt asks for: the form of a move and, when few, the legal ones."""
    legal = state.legal_moves()
    grid = state.grid()
    if game.info.move_count == 81 and grid is not None and grid.regions:
        target = grid.target
        if target >= 0:
            return (f"board {target}: type '{target} SQUARE', free squares "
                    f"{' '.join(str(m % 9) for m in legal)}")
        return "any open board: BOARD SQUARE, each 0-8, or a cell 0-80"
    # a cell when moves name the board's squares (tic-tac-toe), else a move (a column, ...)
    what = "a free cell" if grid is not None and len(grid.marks) == game.info.move_count else "a move"
    return f"{what}: {' '.join(map(game.move_text, legal))}"


def _parse_human_move(game, text: str) -> int:
    """A move typed by a person: a cell number, or BOARD SQUARE for a 9x9 game.
    ValueError says what is allowed."""
    words = text.split()
    cells = game.info.move_count
    try:
        numbers = [int(w) for w in words]
    except ValueError:
        numbers = []
    if cells == 81 and len(numbers) == 2:
        board, square = numbers
        if not (0 <= board < 9 and 0 <= square < 9):
            raise ValueError(f"{board} {square} is out of range: board and square are each 0-8")
        return 9 * board + square
    if len(numbers) == 1:
        if not 0 <= numbers[0] < cells:
            more = ", or BOARD SQUARE with each 0-8" if cells == 81 else ""
            raise ValueError(f"{numbers[0]} is out of range: a cell is 0-{cells - 1}{more}")
        return numbers[0]
    try:
        return game.parse_move(text.strip())
    except GameError:
        form = "a cell 0-80, or BOARD SQUARE with each 0-8" if cells == 81 else f"a cell 0-{cells - 1}"
        raise ValueError(f"{text.strip()!r} is not a move: type {form} (q to leave)") from None


def _human_player(game):
    """A LocalPlayer that asks the person at the terminal, re-asking until the move is legal."""
    from arena.games.drawing import draw

    def ask(state, last_move):
        if last_move is not None:
            print(f"\nopponent played {_move_words(game, last_move)}")
        print(draw(state, last_move))
        legal = state.legal_moves()
        while True:
            try:
                text = input(f"your move ({_move_hint(game, state)}): ")
            except EOFError:
                raise _Resigned() from None
            if text.split() in (["q"], ["quit"], ["resign"]):
                raise _Resigned()
            try:
                move = _parse_human_move(game, text)
            except ValueError as exc:
                print(f"  {exc}")
                continue
            if move not in legal:
                try:
                    state.play(move)
                except GameError as exc:
                    print(f"  {exc}")
                continue
            return move
    return ask


def _move_words(game, move: int) -> str:
    """A move as a person reads it: '43 (board 4, square 7)' for a 9x9 game."""
    if game.info.move_count == 81:
        return f"{move} (board {move // 9}, square {move % 9})"
    return game.move_text(move)


def cmd_play(args: argparse.Namespace) -> int:
    game = make_game(args.game, args.rule)
    seats = game.initial_state().seats
    if not 0 <= args.seat < seats:
        raise UserError(f"--seat {args.seat}: {game.name}{_rules_text(args.rule)} has seats 0-{seats - 1}")
    bots = [with_reads(bot_for(text, game), args) for text in args.against]
    if len(bots) == 1:
        bots *= seats - 1     # one bot named plays every seat but yours
    if len(bots) != seats - 1:
        what = ("yours and one bot's: give --against once" if seats == 2 else
                f"so give one bot (it plays every seat but yours) or {seats - 1}, one per other seat in seat order")
        raise UserError(f"--against given {len(args.against)} times: {game.name}{_rules_text(args.rule)} has "
                        f"{seats} seats, {what}")
    from arena.referee import BotSpec
    you = BotSpec(name="you", argv=())
    lineup = [*_named_apart(bots)]
    lineup.insert(args.seat, you)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    if game.info.by_turn:
        return _play_at_once(game, args, lineup, seed)
    if seats != 2:
        raise UserError(f"game {game.name!r} has {seats} seats taking turns: arena play plays such a "
                        "game between you and one bot only")
    bot = lineup[1 - args.seat]
    print(f"{game.info.rules}\nYou are {game.info.seat_names[args.seat]} (seat {args.seat}); "
          f"{bot.name} has {args.move_ms} ms a move.")
    from arena.referee import play_game
    try:
        record = play_game(game, lineup, seed, sandbox_from(args), settings_from(args),
                           local={args.seat: _human_player(game)})
    except _Resigned:
        print("\nyou left the game")
        return 0
    from arena.games.drawing import draw
    played = [game.parse_move(m.move) for m in record.moves if m.move.isdigit()]
    final = game.replay(played)
    if record.moves and record.moves[-1].seat != args.seat and played:
        print(f"\nopponent played {_move_words(game, played[-1])}")
    print()
    print(draw(final, played[-1] if played else None))
    print(f"result: {record.summary(game.info.simultaneous, game.info.seat_names)}")
    print_stderr_tail(record, lines=5)
    return 0


def _rules_text(rules: list[str]) -> str:
    """' with players=3' for the --rule options given, '' for none."""
    return f" with {' '.join(rules)}" if rules else ""


def _named_apart(bots: list) -> list:
    """The bots, a name that several share told apart by their place among them ('tron-random#2')."""
    import dataclasses
    names = [b.name for b in bots]
    return [dataclasses.replace(b, name=f"{b.name}#{i + 1}") if names.count(b.name) > 1 else b
            for i, b in enumerate(bots)]


def _play_at_once(game, args: argparse.Namespace, lineup: list, seed: int) -> int:
    """arena play of a game whose moves go by turns. Seats moving at once: each turn the
    referee asks the bots first (one batch, their clocks running), then you, and plays the
    turn once every move is in, so no one learns another's move of the turn before making
    their own. In rounds: each seat in its turn, you seeing the moves made before yours."""
    from arena.referee import play_game
    names = [b.name for b in lineup]
    others = [name for name in names if name != "you"]
    how = ("Every turn you and the bots move at once: you see their moves after yours." if game.info.simultaneous
           else "Every turn the seats move one after another in seat order: you see the moves made before yours.")
    print(f"{game.info.rules}\nYou are seat {args.seat}{_letter(game, args.seat)}; "
          f"{', '.join(others)} {'has' if len(others) == 1 else 'have'} {args.move_ms} ms a move. {how}")
    try:
        record = play_game(game, lineup, seed, sandbox_from(args), settings_from(args),
                           local={args.seat: _human_at_once(game, args.seat, names)})
    except _Resigned:
        print("\nyou left the game")
        return 0
    state, out, turns = game.start(seed), _out_by_turn(record), record.turns()
    for number, moves in enumerate(turns):
        after = play_turn(game, state, moves, [gone.seat for gone in out.get(number, [])])
        if after is None:
            break
        state = after
    if turns:
        print(f"\nturn {len(turns)}: {_turn_words(names, turns[-1])}")
        for gone in out.get(len(turns) - 1, []):
            print(f"  out: {gone.reason}")
    print(state.render())
    print(f"result: {record.summary(game.info.by_turn, game.info.seat_names)}")
    print_stderr_tail(record, lines=5)
    return 0


def _letter(game, seat: int) -> str:
    """' (B on the board)' where the start's grid marks the seat's head with its capital."""
    grid = game.initial_state().grid()
    letter = chr(ord("A") + seat)
    return f" ({letter} on the board)" if grid is not None and letter in grid.marks else ""


def _human_at_once(game, seat: int, names: list[str]):
    """A LocalPlayer for a game whose seats move at once: shows the last turn's moves (read
    from the two positions: the referee tells a local seat none) and the board, and asks
    for this seat's move until it is one of its moves."""
    seen: list = []

    def ask(state, _last_move):
        if seen and state.to_move == SIMULTANEOUS:    # in rounds the board shows the moves made since
            print(f"\nturn {len(seen)}: {_moves_between(game, seen[-1], state, names)}")
        seen.append(state)
        print(state.render())
        mine = state.moves_of(seat)
        choices = " ".join(map(game.move_text, mine))
        while True:
            try:
                text = input(f"your move ({choices}; q to leave): ")
            except EOFError:
                raise _Resigned() from None
            if text.split() in (["q"], ["quit"], ["resign"]):
                raise _Resigned()
            try:
                move = game.parse_move(text.strip())
            except GameError as exc:
                print(f"  {exc} (q to leave)")
                continue
            if move in mine:
                return move
            print(f"  {game.move_text(move)} is not one of your moves now: {choices}")
    return ask


def _moves_between(game, before, after, names: list[str]) -> str:
    """Each mover's move from one position to the next, found by playing every joint move of
    before (with the seats gone since put out, when no joint move alone gets there: a fault):
    'you r, tron-random u'; 'out' for a seat several of whose moves lead there alike (each
    put it out) or that went out for a fault."""
    from arena.games import joint_moves
    movers = before.movers()
    gone = [seat for seat in movers if seat not in after.movers()] if after.movers() else []
    moves: list[set[int]] = [set() for _ in movers]
    for play in (before.play_joint, lambda joint: before.play_without(joint, gone)):
        for joint in joint_moves(before):
            if play(joint) == after:
                for found, move in zip(moves, joint):
                    found.add(move)
        if any(moves) or not gone:
            break
    return ", ".join(f"{names[seat]} {game.move_text(next(iter(found))) if len(found) == 1 else 'out'}"
                     for seat, found in zip(movers, moves))


def _play_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game")
    p.add_argument("--against", required=True, action="append", metavar="BOT",
                   help="a registered bot name or DIALECT:COMMAND; in a game of more than two seats "
                        "once (it plays every other seat) or once per other seat, in seat order")
    p.add_argument("--seat", type=int, default=0,
                   help="your seat: 0 moves first (x); where seats move at once, 0 to players-1")
    p.add_argument("--seed", type=int)
    add_referee_options(p)


def _replay_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="SOURCE", type=path_argument,
                   help="a league store or its config, or JSON game records (arena match --save)")
    p.add_argument("--game", type=int, default=1,
                   help="which game: its number in league order, or in a JSON-lines file")
    p.add_argument("--fixture", metavar="KEY", help="a league's game by fixture key, e.g. 'a|b|0|1'")
    p.add_argument("--step", action="store_true", help="wait for Enter before each move")


COMMANDS = (
    Command("play", "play a game yourself against a bot, in the terminal", cmd_play, _play_arguments),
    Command("replay", "show a recorded game move by move", cmd_replay, _replay_arguments),
)
