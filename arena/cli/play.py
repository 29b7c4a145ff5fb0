"""arena play and arena replay: one game, move by move, in the terminal."""

from __future__ import annotations

import argparse
import random

from arena.errors import did_you_mean
from arena.games import GameError

from .command import Command
from .common import (
    UserError,
    add_referee_options,
    bot_for,
    is_store,
    league_source,
    loaded,
    print_stderr_tail,
    sandbox_from,
    settings_from,
    turn_game,
    with_reads,
)

#: JSON game records a replay reads (arena match --save writes a few KiB a game)
MAX_RECORDS_BYTES = 256 << 20


def _records_from_store(path, args: argparse.Namespace):
    """The record a replay asks for (--game N in league order, or --fixture KEY) from a store,
    which game it is, and which versions of the bots played it."""
    from arena.league import Store
    with Store(path, readonly=True) as store:   # the bots' current versions, as the site
        rows = list(store.seated_records(current=True))
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


def _pause(step: bool) -> bool:
    """With --step, wait for Enter; False when the person typed q or closed the input."""
    if not step:
        return True
    try:
        return input("[Enter: next move, q: quit] ").strip().lower() not in ("q", "quit")
    except EOFError:
        return False


def cmd_replay(args: argparse.Namespace) -> int:
    store_path = league_source(args.file)[0]
    if is_store(store_path):
        record, which, played = _records_from_store(store_path, args)
    else:
        (record, which), played = _record_from_lines(store_path, args), ""
    game = loaded().games.create(record.game, **record.rule_options)
    state = game.initial_state()
    names = [b.name for b in record.bots]
    if game.info.simultaneous:
        return _replay_turns(args, game, record, f"seed {record.seed} ({which}){played}")
    print(f"{game.name}: {names[0]} (x) vs {names[1]} (o), seed {record.seed} ({which}){played}")
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
        print(f"\nply {ply}: {names[move.seat]} ({'xo'[move.seat]}) plays {move.move} ({how})")
        try:
            state = state.play(game.parse_move(move.move))
        except GameError as exc:
            print(f"  (not played: {exc})")
            break
        print(state.render())
    print(f"\nresult: {record.summary()}")
    print_stderr_tail(record)
    return 0


def _replay_turns(args: argparse.Namespace, game, record, which: str) -> int:
    """arena replay of a game whose seats move at once: turn by turn, each seat's move
    and time, and the seats the referee put out for a fault where they went out."""
    names = [b.name for b in record.bots]
    print(f"{game.name}: " + ", ".join(f"{name} (seat {seat})" for seat, name in enumerate(names)) + f", {which}")
    state = game.initial_state()
    print(state.render())
    out: dict[int, list] = {}
    for gone in record.out:
        out.setdefault(gone.turn, []).append(gone)
    for number, moves in enumerate(record.turns()):
        if not _pause(args.step):
            return 0
        said = ", ".join(f"{names[m.seat]} {m.move} ({m.wall_ms:.1f} ms"
                         + (f", substituted: {m.substituted})" if m.substituted else ")") for m in moves)
        print(f"\nturn {number + 1}: {said}")
        for gone in out.get(number, []):
            print(f"  out: {gone.reason}")
        by_seat = {m.seat: game.parse_move(m.move) for m in moves}
        joint = [by_seat.get(seat, 0) for seat in state.movers()]
        try:
            gone_now = [g.seat for g in out.get(number, [])]
            after = state.play_without(joint, gone_now) if gone_now else state.play_joint(joint)
        except GameError as exc:
            print(f"  (not played: {exc})")
            break
        if after is None:
            break
        state = after
        print(state.render())
    print(f"\nresult: {record.summary()}")
    print_stderr_tail(record)
    return 0


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
    from arena.referee import play_game
    game = turn_game(args.game, args.rule)
    bot = with_reads(bot_for(args.against, game), args)
    from arena.referee import BotSpec
    you = BotSpec(name="you", argv=())
    seats = (you, bot) if args.seat == 0 else (bot, you)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    print(f"{game.info.rules}\nYou are {'xo'[args.seat]} (seat {args.seat}); "
          f"{bot.name} has {args.move_ms} ms a move.")
    try:
        record = play_game(game, seats, seed, sandbox_from(args), settings_from(args),
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
    print(f"result: {record.summary()}")
    print_stderr_tail(record, lines=5)
    return 0


def _play_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game")
    p.add_argument("--against", required=True, help="a registered bot name or DIALECT:COMMAND")
    p.add_argument("--seat", type=int, choices=(0, 1), default=0, help="0: you move first (x)")
    p.add_argument("--seed", type=int)
    add_referee_options(p)


def _replay_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="SOURCE",
                   help="a league store or its config, or JSON game records (arena match --save)")
    p.add_argument("--game", type=int, default=1,
                   help="which game: its number in league order, or in a JSON-lines file")
    p.add_argument("--fixture", metavar="KEY", help="a league's game by fixture key, e.g. 'a|b|0|1'")
    p.add_argument("--step", action="store_true", help="wait for Enter before each move")


COMMANDS = (
    Command("play", "play a game yourself against a bot, in the terminal", cmd_play, _play_arguments),
    Command("replay", "show a recorded game move by move", cmd_replay, _replay_arguments),
)
