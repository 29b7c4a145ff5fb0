"""What the arena subcommands share: the one-line UserError, the loaded plugins, and
turning arguments into games, bots, sandboxes, match settings and league sources."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.errorline import error_line
from arena.errors import ArenaError, did_you_mean
from arena.userfiles import UserFileError, not_regular, open_regular, path_problem, shown

if TYPE_CHECKING:
    import os
    from pathlib import Path

    from arena.games import Game
    from arena.games.external import RefereeSpec
    from arena.league.config import RatingConfig
    from arena.league.rating_systems import RatingSystem
    from arena.league.store import Store
    from arena.plugins import Plugins
    from arena.record import GameRecord
    from arena.referee import BotSpec, MatchSettings
    from arena.sandbox import Sandbox


EXIT_FAILED = 1   #: a run that failed for a reason that is no bot's fault
EXIT_USAGE = 2    #: a mistake in what was asked: a bad argument, config or store


class UserError(ArenaError):
    """A mistake in the command's arguments: reported in one line, no traceback."""


RULE_HELP = "a rule option, KEY=VALUE (repeatable), e.g. tiebreak=boards"


_WARNED = False


def loaded() -> Plugins:
    """The plugins every part of arena shares, loaded once; load failures are reported
    (once), not fatal."""
    global _WARNED
    from arena.plugins import loaded_plugins
    plugins = loaded_plugins()
    if not _WARNED:
        _WARNED = True
        for error in plugins.errors:
            print(f"arena: WARNING: {error}", file=sys.stderr)
    return plugins


def parse_moves(game: Game, text: str | None) -> list[int]:
    """Moves written "40,36" (--moves), as the game's move numbers."""
    if not text:
        return []
    return [game.parse_move(item) for item in text.replace(" ", "").split(",") if item]


def make_game(name: str, rule_options: Sequence[str] = ()) -> Game:
    """The game called name with --rule KEY=VALUE options, from the loaded plugins."""
    from arena.games import FromFile
    from arena.userfiles import read_rule_file
    games = loaded().games
    declared = {opt.name: opt for opt in games.require(name).info.options}
    options: dict[str, object] = {}
    for item in rule_options:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"--rule {item!r}: expected KEY=VALUE")
        choices = declared[key].choices if key in declared else None
        # an option whose value is a file's (tron's map): the file named, read and checked
        options[key] = read_rule_file(value, choices) if isinstance(choices, FromFile) and value else value
    return games.create(name, **options)


def two_seat_game(name: str, rule_options: Sequence[str] = ()) -> Game:
    """make_game for a command that plays two bots against each other (arena match): a game
    of more seats is refused in one line."""
    game = make_game(name, rule_options)
    if game.seats != 2:
        raise UserError(f"game {name!r} has {game.seats} seats: arena match plays two bots "
                        "(give --rule players=2, or play more in a league)")
    return game


def rule_options(items: Sequence[str]) -> dict[str, str]:
    """The --rule KEY=VALUE options as given."""
    return dict(item.partition("=")[::2] for item in items)


def _registered_bot(name: str) -> BotSpec | None:
    """BotSpec for a bot a plugin registered, or None."""
    from arena.referee.botspec import registered_bot_spec
    return registered_bot_spec(name, loaded())


def bot_for(text: str, game: Game | None, referee: RefereeSpec | None = None) -> BotSpec:
    """The BotSpec a user named for a game: a registered bot that plays it (with a guess for
    a mistyped name), or DIALECT:COMMAND. Refused up front, as a league config is. For a
    game played by a referee process (referee: its RefereeSpec, game None) a command, as
    it is or after a DIALECT: its bots read their referee's lines unchanged."""
    from arena.referee.botspec import BotSpecError, command_spec, resolve_bot
    if referee is not None:
        dialect, sep, command = text.partition(":")
        command = command if sep and dialect in loaded().dialects.names() else text
        return command_spec(command.strip() or text, "arena", command, dialects=loaded().dialects.names())
    assert game is not None, "a game of rules in arena, or a referee process's"
    name, sep, option_text = text.partition(":")
    if sep and loaded().bots.get(name) is not None:
        spec = _bot_with_options(name, option_text)
        text = name
    else:
        spec = None
    try:
        spec = spec or resolve_bot(text, _registered_bot, dialects=loaded().dialects.names())
    except BotSpecError:
        hint = did_you_mean(text, [b.name for b in loaded().bots.all()])
        if hint and ":" not in text:
            raise UserError(f"unknown bot {text!r}{hint}; `arena bots` "
                            "lists the bots, or give DIALECT:COMMAND") from None
        raise
    decl = loaded().bots.get(text)
    if decl is not None and not decl.plays(game.name):
        others = [b.name for b in loaded().bots.all() if b.plays(game.name)]
        raise UserError(f"bot {text!r} plays {decl.game}, not {game.name}; bots for {game.name}: "
                        f"{', '.join(others) or 'none'} (`arena bots --game {game.name}`)")
    return spec


def _bot_with_options(name: str, text: str) -> BotSpec:
    """BotSpec of a registered bot with options written NAME:KEY=VALUE[,KEY=VALUE...];
    values are read as YAML scalars (3, true, a path), file options from the current directory."""
    from arena.league.configfile import MalformedYAML, parse_yaml
    from arena.referee.botspec import bot_spec
    options: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UserError(f"{name}:{text}: expected {name}:KEY=VALUE[,KEY=VALUE...]")
        try:
            options[key.strip()] = parse_yaml(value, f"{name}:{key.strip()}")[0]
        except MalformedYAML:
            options[key.strip()] = value
    decl = loaded().bots.require(name)   # bot_for found it
    problem = decl.options_problem(options, ".")   # the check a league config makes
    if problem is not None:
        raise UserError(problem.message if problem.unknown else f"{name}:{problem.key}: {problem.message}")
    return bot_spec(decl, options, name=f"{name}:{text}", base_dir=".")


def sandbox_from(args: argparse.Namespace) -> Sandbox:
    """The sandbox --sandbox and --memory-mb ask for; its warnings go to stderr."""
    from arena.sandbox import Limits, Sandbox
    sandbox = Sandbox(limits=Limits(memory_mb=args.memory_mb), mode=args.sandbox)
    for warning in sandbox.warnings:
        print(f"arena: WARNING: {warning}", file=sys.stderr)
    return sandbox


def settings_from(args: argparse.Namespace) -> MatchSettings:
    """The clocks and timeout policy of the referee options (add_referee_options)."""
    from arena.referee import MatchSettings, TimeControl, TimeoutPolicy
    try:
        time_control = TimeControl(move_ms=args.move_ms, startup_ms=args.startup_ms,
                                   bank_ms=args.bank_ms, increment_ms=args.increment_ms,
                                   overhead_ms=args.overhead_ms, first_move_ms=args.first_move_ms)
        mode, _, count = args.timeouts.partition(":")
        policy = TimeoutPolicy(mode=mode, strikes=int(count) if count else 3)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    dialects = dict(loaded().dialects.items())   # the referee's, as a league's job carries them
    return MatchSettings(time=time_control, timeout_policy=policy, dialects=dialects)


def with_reads(spec: BotSpec, args: argparse.Namespace) -> BotSpec:
    """The bot spec with the --read paths added to what it may read."""
    import dataclasses
    import os
    paths = []
    for path in args.read:
        full = os.path.abspath(os.path.expanduser(path))
        if not os.path.exists(full):
            raise UserError(f"--read {path}: no such file or directory")
        paths.append(full)
    return dataclasses.replace(spec, readable=tuple(dict.fromkeys((*spec.readable, *paths))))


SQLITE_MAGIC = b"SQLite format 3\x00"


def is_store(path: str | os.PathLike[str]) -> bool:
    """True for an SQLite file (a league store), judged by its first bytes."""
    try:
        fd = open_regular(path, "store")   # a FIFO is no store, and is not waited on
    except UserFileError:
        return False
    with open(fd, "rb") as fh:
        return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC


def league_source(source: str) -> tuple[Path, RatingConfig | None, list[str] | None, str | None]:
    """(store path, rating settings or None, bot names or None, title or None) of a league
    store or its YAML config, as every command that reads a league takes either."""
    from pathlib import Path
    path = Path(source)
    if not path.exists():
        raise UserError(f"{path}: no such store or league config")
    if path.suffix not in (".yaml", ".yml"):
        kind = not_regular(path)   # a config is read (and refused) by load_league
        if kind is not None:
            raise UserError(f"{path}: it is {kind}, not a regular file (a league store or config)")
        return path, None, None, None
    from arena.league.runner import load_league
    config = load_league(str(path), loaded())
    if not config.store.exists():
        raise UserError(f"{config.store} does not exist yet: run `arena run {path}` first")
    return config.store, config.rating, config.bot_names, config.name


def warn_damage(command: str, store: Store) -> None:
    """Say on stderr that a store read is damaged outside what the command read."""
    if store.damage is not None:
        from arena.league.storefile import damage_warning
        print(f"arena {command}: warning: {damage_warning(store.path, store.damage)}", file=sys.stderr)


def print_stderr_tail(record: GameRecord, lines: int = 10) -> None:
    """The last lines a faulted bot wrote to stderr: usually why it failed (the error line
    of its trace first, when they do not hold it)."""
    for line in stderr_tail(record, lines):
        print(line)


def stderr_tail(record: GameRecord, lines: int = 10) -> list[str]:
    """The lines print_stderr_tail prints."""
    if record.faulted is None:
        return []
    tail = record.stderr_tails[record.faulted].strip()
    if not tail:
        return []
    last = tail.splitlines()[-lines:]
    said = error_line(tail)      # the line that says why, when the last lines do not hold it
    held = any(line.strip() and (said.startswith(line.strip()) or line.strip().startswith(said))
               for line in last)
    shown = [] if not said or held else ["  " + said, "  ..."]
    return [f"stderr of {record.bots[record.faulted].name} (last lines):", *shown,
            *("  " + line for line in last)]


def path_argument(text: str) -> str:
    """An argparse type for every path argument: the checks of a config's path values
    (arena.userfiles.path_problem), refused as argparse refuses, one line and exit 2."""
    wrong = path_problem(text)
    if wrong is not None:
        raise argparse.ArgumentTypeError(f"{wrong}; got {shown(text)}")
    return text


def add_referee_options(p: argparse.ArgumentParser) -> None:
    """The referee's options shared by match and play: rules, clocks, sandbox, files."""
    p.add_argument("--rule", action="append", default=[], help=RULE_HELP)
    p.add_argument("--move-ms", type=int, default=1000, help="time per move (ms)")
    p.add_argument("--startup-ms", type=int, default=5000, help="time to start and handshake (ms)")
    p.add_argument("--first-move-ms", type=int, help="time for a bot's first move, its start-up "
                   "included where its dialect has no handshake (default: --move-ms, and "
                   "--startup-ms more without a handshake)")
    p.add_argument("--bank-ms", type=int, default=0, help="time bank usable on any move (ms)")
    p.add_argument("--increment-ms", type=int, default=0, help="added to the bank after each move")
    p.add_argument("--overhead-ms", type=int, default=50, help="transport allowance per move (ms)")
    p.add_argument("--timeouts", default="forfeit",
                   help="'forfeit' (a late move loses) or 'strikes:N' (N late moves are replaced "
                        "by a random legal move)")
    from arena.sandbox import MODES
    p.add_argument("--sandbox", default="auto", choices=MODES)
    p.add_argument("--memory-mb", type=int, default=1024, help="memory limit per bot (MiB)")
    p.add_argument("--read", action="append", default=[], metavar="PATH", type=path_argument,
                   help="a file or directory the bots may read, read-only (repeatable); a bot "
                        "reads its program's directory and the files its command names anyway")


def add_rating_option(p: argparse.ArgumentParser) -> None:
    """--rating NAME: a registered rating system (arena_register_rating_systems)."""
    from arena.league import DEFAULT_RATING_SYSTEM
    p.add_argument("--rating", choices=loaded().rating_systems.names(),
                   help=f"the rating system that ranks the bots (default: the league's rating.system, "
                        f"{DEFAULT_RATING_SYSTEM} unless set)")


def rating_system_from(args: argparse.Namespace) -> RatingSystem | None:
    """The rating system --rating names, or None: the league's own."""
    return None if args.rating is None else loaded().rating_systems.require(args.rating)
