"""A league's YAML config: read, checked completely, and turned into frozen dataclasses.

Nothing runs until the whole file is known to be valid, and every mistake is
reported as one line naming the file, the line and the key path (arena.league.configfile).
Sections that configure the referee and the sandbox are read straight into their runtime
types (TimeControl, TimeoutPolicy, Limits), whose fields declare their own bounds. The
`bots:` entries are read by arena.league.botentries (its BotConfig and checks are
re-exported here, the config's face).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bounds import BIG, bounded
from arena.bounds import describe as _describe
from arena.errors import did_you_mean
from arena.games import FromFile, Game
from arena.games.external import ExternalGame, RefereeSpec
from arena.plugins import Plugins, plugins_or_loaded
from arena.protocol import Dialect
from arena.referee.timecontrol import TimeControl, TimeoutPolicy
from arena.registry import Registry
from arena.sandbox import Limits
from arena.userfiles import NAME_MAX, not_regular, read_rule_file

from .botentries import BotCheck, BotConfig, BotContext, BotProblem, OptionFiles, bot_entries, bot_entry
from .configfile import ConfigError, KeyPath, Reader, format_path, read_path, read_yaml
from .refereegame import check_referee_sight, read_game, refuse_for_referee
from .sight import STORE_SIDE_FILES, check_sight, check_site

#: how bots' files reach Ray nodes: the same paths everywhere, or shipped with the run
RAY_FILES = ("shared", "runtime_env")
#: who plays whom: every two bots, each candidate against every bot of the pool, or a
#: ladder (pairings chosen as it goes by a matchmaker, until a stop condition)
SCHEDULES = ("round-robin", "gauntlet", "ladder")
#: a Ray address: auto, HOST:PORT or ray://HOST:PORT (HOST may be [IPv6])
RAY_ADDRESS_RE = re.compile(r"auto|(ray://)?([A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}")

MAX_GAMES = 1_000_000      #: games in one league, all pairings together
MAX_WORKERS = 4096         #: the run also caps local workers at 4 per CPU, with a warning
SANDBOX_KEYS = ("mode",) + tuple(f.name for f in dataclasses.fields(Limits))

__all__ = ["BotCheck", "BotConfig", "BotProblem", "ConfigError", "LadderConfig", "LeagueConfig",
           "OptionFiles",
           "PathCheck", "RatingConfig", "RayConfig", "config_from_dict", "format_path", "load_config"]


#: Checks a path the config names: None when fine, else the problem (one line).
PathCheck = Callable[[Path], "str | None"]


# --- the config, as dataclasses -------------------------------------------------------------
# Sections read by Reader.section() declare their checks with arena.bounds.bounded().

#: the rating system a league is rated by unless its config names another
DEFAULT_RATING_SYSTEM = "trueskill"


@dataclass(frozen=True)
class RatingConfig:
    """The rating system (a registered name), TrueSkill's constants and how faults are rated."""

    system: str = DEFAULT_RATING_SYSTEM
    mu: float = bounded(25.0, min=-BIG, max=BIG)
    sigma: float = bounded(25.0 / 3, above=0, max=BIG)
    beta: float = bounded(25.0 / 6, above=0, max=BIG)
    tau: float = bounded(25.0 / 300, min=0, max=BIG)
    draw_probability: float = bounded(0.1, above=0, below=1)
    faults_count_as_losses: bool = True


@dataclass(frozen=True)
class RayConfig:
    """Where the Ray cluster is and how games run on it (executor: ray)."""

    #: None: a private local Ray instance with `workers` CPUs, started for the run;
    #: "auto": the cluster started on this machine with `ray start` (or $RAY_ADDRESS);
    #: "HOST:PORT": that cluster's head; "ray://HOST:PORT": through Ray Client
    address: str | None = None
    #: how bots' files reach the nodes: "shared" (same paths on every node) or
    #: "runtime_env" (copied with the run through Ray's runtime environment)
    files: str = bounded("shared", choices=RAY_FILES)
    #: times Ray plays a game again whose worker process or node died
    max_retries: int = bounded(3, min=0, max=100)
    #: Ray CPUs each game reserves: a node plays (its CPUs / cpus_per_game) games at once
    cpus_per_game: float = bounded(1.0, above=0, max=4096)


#: the matchmaker a ladder uses unless its config names another
DEFAULT_MATCHMAKER = "active"
MAX_HOURS = 24 * 366   #: a ladder's `hours`: a year at most


@dataclass(frozen=True)
class LadderConfig:
    """A ladder's matchmaker, stop conditions, newcomers and suspension: the `ladder` section."""

    #: a registered matchmaker (arena plugins lists them)
    matchmaker: str = DEFAULT_MATCHMAKER
    #: stop once the store holds this many of the ladder's games (all runs together)
    games: int | None = None
    #: stop after this long in this run
    hours: float | None = None
    #: stop when every adjacent pair of the top `until_top` bots (None: of every bot) is
    #: separated at this likelihood of superiority (`until: {separated: S, top: K}`)
    until_separated: float | None = None
    until_top: int | None = None
    #: a bot with fewer games is a newcomer, seated first
    min_games: int = 10
    #: a version that faulted in more than suspend_share of its games, once it has played
    #: suspend_after, plays no more (`suspend: {share: S, after: N}`)
    suspend_share: float = 0.5
    suspend_after: int = 10


@dataclass(frozen=True)
class LeagueConfig:
    """A validated league: who plays what, under which limits, stored where."""

    name: str
    game: str
    rules: Mapping[str, Any]
    bots: tuple[BotConfig, ...]
    games_per_pairing: int = 2
    #: a game of more than two seats: the number of games (None: a league of two seats,
    #: which plays games_per_pairing games a pairing)
    games: int | None = None
    time_control: TimeControl = TimeControl()
    timeout_policy: TimeoutPolicy = TimeoutPolicy()
    #: the isolation mode (arena.sandbox.MODES) and the limits of every bot: the `sandbox` section
    sandbox_mode: str = "auto"
    limits: Limits = Limits()
    rating: RatingConfig = RatingConfig()
    workers: int = 1
    #: local workers keep to their own share of the CPUs (executors.local.cpu_shares)
    pin_workers: bool = True
    executor: str = "local"
    ray: RayConfig | None = None
    store: Path = Path("results/league.sqlite")
    seed: int = 0
    publish: Path | None = None
    #: where games start (arena.openings): none, random:N, book:NAME or a book file
    openings: str = "none"
    #: a book's order: sequential, or random (shuffled by the seed)
    openings_order: str = "sequential"
    #: round-robin (every two bots meet) or gauntlet (candidates meet every other bot)
    schedule: str = "round-robin"
    #: with schedule gauntlet: the bots under test, who play the pool but not each other
    candidates: tuple[str, ...] = ()
    #: with schedule ladder: its matchmaker, stop conditions and suspension
    ladder: LadderConfig | None = None
    #: directory relative paths were resolved against (the config file's directory)
    base_dir: Path = Path(".")
    #: the file this came from, None when built from a dict
    source: Path | None = None
    #: a game played by a referee process (`game:` given as a mapping, or a plugin's referee
    #: game once a run built it): what its relay plays by; None for a game of rules in arena
    referee: RefereeSpec | None = None

    @property
    def bot_names(self) -> list[str]:
        """Display names in config order."""
        return [bot.name for bot in self.bots]

    def made_game(self, games: Registry[type[Game]]) -> Game:
        """The game the league plays, its rules set: by its referee process, or registered."""
        if self.referee is not None:
            return ExternalGame(self.referee)
        return games.create(self.game, **self.rules)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready snapshot (paths as strings), sections as the file writes them."""
        snapshot: dict[str, Any] = plain_data(dataclasses.asdict(self))
        snapshot["sandbox"] = {"mode": snapshot.pop("sandbox_mode"), **snapshot.pop("limits")}
        if snapshot["time_control"]["first_move_ms"] is None:   # as before time controls had it
            del snapshot["time_control"]["first_move_ms"]
        if snapshot["ladder"] is None:   # a league's snapshot stays as it was before ladders
            del snapshot["ladder"]
        if snapshot["games"] is None:    # and a two-seat league's as before free-for-alls
            del snapshot["games"]
        if snapshot["referee"] is None:  # and a game of rules' as before referee processes
            del snapshot["referee"]
        return snapshot

    def to_json(self) -> str:
        """to_dict() as compact JSON with sorted keys."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))


def plain_data(value: Any) -> Any:
    """Config data as JSON and YAML write it: paths as text, tuples as lists, keys as text."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_data(v) for v in value]
    return value


TOP_KEYS = ("name", "game", "rules", "bots", "games_per_pairing", "games", "time_control", "timeout_policy",
            "sandbox", "rating", "workers", "pin_workers", "executor", "ray", "store", "seed", "publish",
            "openings", "schedule", "candidates", "ladder", "server", "requires")
LADDER_KEYS = ("matchmaker", "games", "hours", "until", "min_games", "suspend")
UNTIL_KEYS = ("separated", "top")
SUSPEND_KEYS = ("share", "after")
OPENINGS_KEYS = ("spec", "order")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


# --- entry points ---------------------------------------------------------------------------

def load_config(path: str | os.PathLike[str], known_bots: BotCheck | None = None, *,
                plugins: Plugins | None = None,
                games: Registry[type[Game]] | None = None,
                dialects: Registry[Dialect] | None = None,
                executors: Collection[str] | None = None,
                publish_check: PathCheck | None = None,
                option_files: OptionFiles | None = None) -> LeagueConfig:
    """Read and validate a league YAML file; raises ConfigError (one line) on any problem.
    The games, dialects, executors (the names `executor:` may give), rating systems and
    matchmakers it may name are the plugins' (games, dialects, executors: those given
    instead); publish_check, when given, checks the `publish` path (a run writes it);
    option_files names the files registered bots' options show them (for the sight check)."""
    data, reader = read_yaml(path)
    return _build(_Context(reader, Path(path).resolve().parent, Path(path),
                           _known(plugins, games, dialects, executors), known_bots, publish_check,
                           option_files), data)


def config_from_dict(data: Mapping[str, Any], *, base_dir: str | os.PathLike[str] = ".",
                     known_bots: BotCheck | None = None, plugins: Plugins | None = None,
                     games: Registry[type[Game]] | None = None,
                     dialects: Registry[Dialect] | None = None,
                     source: str = "<config>",
                     executors: Collection[str] | None = None) -> LeagueConfig:
    """Validate a config given as a dict (no line numbers); raises ConfigError."""
    reader = Reader(source, {})
    return _build(_Context(reader, Path(base_dir).resolve(), None,
                           _known(plugins, games, dialects, executors), known_bots), data)


@dataclass(frozen=True)
class _Known:
    """The games, dialects, executors, rating systems and matchmakers a config may name."""

    games: Registry[type[Game]]
    dialects: Registry[Dialect]
    executors: tuple[str, ...]
    rating_systems: tuple[str, ...]
    matchmakers: tuple[str, ...]


def _known(plugins: Plugins | None, games: Registry[type[Game]] | None,
           dialects: Registry[Dialect] | None, executors: Collection[str] | None) -> _Known:
    """What a config may name: the plugins' (built-ins first, then plugins'), or the games,
    dialects and executors given. An executor a plugin registered but that was refused may
    be named: the run then says why it was refused."""
    plugins = plugins_or_loaded(plugins)
    return _Known(plugins.games if games is None else games,
                  plugins.dialects if dialects is None else dialects,
                  tuple([*plugins.executors.names(), *plugins.executors.refused]
                        if executors is None else executors),
                  tuple(plugins.rating_systems.names()), tuple(plugins.matchmakers.names()))


# --- checking -------------------------------------------------------------------------------------

def _rating(reader: Reader, raw: Any, known: _Known) -> RatingConfig:
    """The rating section; its system one the plugins registered."""
    rating: RatingConfig = reader.section(raw, ("rating",), RatingConfig)
    systems = known.rating_systems
    if rating.system not in systems:
        hint = did_you_mean(rating.system, systems)
        reader.fail(("rating", "system"), f"unknown rating system {rating.system!r}{hint}; known: "
                                          f"{', '.join(systems)}")
    return rating


class AbsentRequirement(ConfigError):
    """A path the config's `requires` names is absent: the league's bots are not here (a
    clone of other people's bots, say, that its comment says how to get)."""


def _requires(reader: Reader, raw: Any, base: Path, source: Path | None) -> None:
    """Check `requires`, a path or a list of paths (from the config's directory) the league
    needs and bot-arena does not ship; AbsentRequirement (one line) for the first absent."""
    if raw is None:
        return
    listed = raw if isinstance(raw, list) else [raw]
    for index, item in enumerate(listed):
        key = ("requires", index) if isinstance(raw, list) else ("requires",)
        path = read_path(reader, item, key, base)
        if not path.exists():
            told = f"the comment at the top of {source.name}" if source is not None else "the config"
            at = key if key in reader.lines else ("requires",)
            raise AbsentRequirement(reader.source, reader.lines.get(at), key,
                                    f"{str(path)!r} is absent: this league plays bots bot-arena does not "
                                    f"ship; get them as {told} says, then run it again")


@dataclass(frozen=True)
class _Context:
    """What one config is read with: its reader (the file's name and lines), the directory
    relative paths start from, the file (None for a dict), what it may name, and the
    caller's checks of its registered bots, its publish path and its bots' option files."""

    reader: Reader
    base: Path
    source: Path | None
    known: _Known
    known_bots: BotCheck | None = None
    publish_check: PathCheck | None = None
    option_files: OptionFiles | None = None


@dataclass(frozen=True)
class _GameSection:
    """The `game:` (and `rules:`) read: the game's name, its rules, the game made with them,
    and its referee process's spec when a referee process plays it (else None)."""

    name: str
    rules: dict[str, Any]
    made: Game
    referee: RefereeSpec | None


def _build(ctx: _Context, data: Any) -> LeagueConfig:
    """The whole config read section by section, in the order its mistakes are reported."""
    reader, known = ctx.reader, ctx.known
    top = _top(ctx, data)
    name = _name(reader, top)
    game = _game(ctx, top)
    seats = game.made.seats
    ffa_games = _ffa_games(reader, top, game.name, seats)
    gpp = _games_per_pairing(reader, top, ffa_games)
    timeout_policy = _timeout_policy(reader, top)
    executor, ray = _executor(reader, top, known)
    store = _store(ctx, top, name)
    publish = _publish(ctx, top)
    bots = _bots(ctx, top, game, store, publish)
    seed = reader.value(top.get("seed", 0), ("seed",), int, {"min": 0, "max": 2**63 - 1})
    openings, order = ("none", "sequential") if game.referee is not None else \
        _openings(reader, top.get("openings", "none"), known, game.name, game.rules, seed, ctx.base,
                  bots)

    if ffa_games is not None and len(bots) < seats:
        reader.fail(("bots",), f"a game of {game.name} with these rules seats {seats} bots; the "
                               f"league has {len(bots)}")
    schedule, candidates = _schedule(reader, top, bots)
    ladder = _ladder(reader, top, known) if schedule == "ladder" else None
    sandbox_mode, limits = _sandbox(reader, top.get("sandbox"))

    return LeagueConfig(
        name=name, game=game.name, rules=game.rules, bots=bots, openings=openings,
        openings_order=order, schedule=schedule, candidates=candidates, ladder=ladder,
        games_per_pairing=gpp, games=ffa_games,
        time_control=reader.section(top.get("time_control"), ("time_control",), TimeControl),
        timeout_policy=timeout_policy,
        sandbox_mode=sandbox_mode, limits=limits,
        rating=_rating(reader, top.get("rating"), known),
        workers=reader.value(top.get("workers", os.cpu_count() or 1), ("workers",), int,
                             {"min": 1, "max": MAX_WORKERS}),
        pin_workers=reader.value(top.get("pin_workers", True), ("pin_workers",), bool, {}),
        executor=executor, ray=ray, store=store,
        seed=seed, publish=publish, base_dir=ctx.base, source=ctx.source, referee=game.referee,
    )


def _top(ctx: _Context, data: Any) -> Mapping[str, Any]:
    """The file's top level: a mapping of known keys, with name, game and bots; what it
    `requires` present; `server` (arena serve's settings) a mapping."""
    reader = ctx.reader
    if data is None:
        reader.fail((), f"the config is empty; expected a mapping with keys {', '.join(TOP_KEYS)}")
    top: Mapping[str, Any] = reader.mapping(data, (), TOP_KEYS, required=("name", "game", "bots"))
    _requires(reader, top.get("requires"), ctx.base, ctx.source)

    if top.get("server") is not None and not isinstance(top["server"], Mapping):
        # arena serve reads the section (arena/server); a league only checks its shape
        reader.fail(("server",), f"must be a mapping (the settings of arena serve, "
                                 f"docs/server.md), got {_describe(top['server'])}")
    return top


def _name(reader: Reader, top: Mapping[str, Any]) -> str:
    """name: it names files, so letters, digits, '.', '_' and '-'."""
    name: str = reader.value(top["name"], ("name",), str, {})
    if not NAME_RE.fullmatch(name):
        reader.fail(("name",), f"must be letters, digits, '.', '_' or '-' (it names files), "
                               f"starting with a letter or digit; got {name!r}")
    return name


def _game(ctx: _Context, top: Mapping[str, Any]) -> _GameSection:
    """game (and rules): a mapping for a game played by a referee process (docs/referees.md),
    else a registered game's name, its rules checked against its options; a registered game
    a referee process plays (a plugin's) is one too, and refuses what such a game cannot have."""
    reader, games = ctx.reader, ctx.known.games
    if isinstance(top["game"], Mapping):     # a game played by a referee process (docs/referees.md)
        referee = read_game(reader, top["game"], ctx.base)
        refuse_for_referee(reader, top)
        return _GameSection(referee.name, {}, ExternalGame(referee), referee)
    game = reader.value(top["game"], ("game",), str, {})
    if game not in games.names():
        hint = did_you_mean(game, games.names())
        reader.fail(("game",), f"unknown game {game!r}{hint}; known games: "
                               f"{', '.join(games.names())}")
    rules = _rules(reader, top.get("rules"), games, game, ctx.base)
    played = games.create(game, **rules)
    if isinstance(played, ExternalGame):   # a plugin's game played by a referee process
        referee = played.spec
        refuse_for_referee(reader, top)
        return _GameSection(game, rules, played, referee)
    return _GameSection(game, rules, played, None)


def _games_per_pairing(reader: Reader, top: Mapping[str, Any], ffa_games: int | None) -> int:
    """games_per_pairing: even (seat-swapped pairs), not given to a ladder, and a league's
    games in all (a two-seat league's: every pair of bots plays them) at most MAX_GAMES."""
    gpp: int = reader.value(top.get("games_per_pairing", 2), ("games_per_pairing",), int,
                            {"min": 2, "max": MAX_GAMES})
    if gpp % 2:
        reader.fail(("games_per_pairing",), f"must be an even integer >= 2 (games come in "
                                            f"seat-swapped pairs), got {gpp!r}")
    laddered = top.get("schedule") == "ladder"
    if laddered and "games_per_pairing" in top:
        reader.fail(("games_per_pairing",), "not allowed with schedule: ladder (its matchmaker "
                                            "chooses how often bots meet; stop it with "
                                            "ladder: {games: N})")
    if isinstance(top["bots"], list) and not laddered and ffa_games is None:
        count = len(top["bots"])
        total = count * (count - 1) // 2 * gpp
        if total > MAX_GAMES:
            reader.fail(("games_per_pairing",), f"{count} bots and {gpp} games per pairing make "
                                                f"{total:,} games; a league has at most "
                                                f"{MAX_GAMES:,}")
    return gpp


def _timeout_policy(reader: Reader, top: Mapping[str, Any]) -> TimeoutPolicy:
    """timeout_policy: strikes only with mode: strikes."""
    timeout_policy: TimeoutPolicy = reader.section(top.get("timeout_policy"), ("timeout_policy",),
                                                   TimeoutPolicy)
    if (timeout_policy.mode == "forfeit" and isinstance(top.get("timeout_policy"), Mapping)
            and "strikes" in top["timeout_policy"]):
        reader.fail(("timeout_policy", "strikes"), "only allowed with mode: strikes "
                                                  "(mode is 'forfeit')")
    return timeout_policy


def _executor(reader: Reader, top: Mapping[str, Any], known: _Known) -> tuple[str, RayConfig | None]:
    """executor (a known one), and ray: its settings, only with executor: ray (the defaults
    when not given)."""
    executor: str = reader.value(top.get("executor", "local"), ("executor",), str,
                                 {"choices": known.executors})
    ray = None
    if "ray" in top:
        if executor != "ray":
            reader.fail(("ray",), f"only allowed with executor: ray (executor is {executor!r})")
        ray = reader.section(top["ray"], ("ray",), RayConfig)
        if ray.address is not None and not RAY_ADDRESS_RE.fullmatch(ray.address):
            reader.fail(("ray", "address"), f"must be auto, HOST:PORT or ray://HOST:PORT (null "
                                            f"starts a local Ray instance), got {ray.address!r}")
    elif executor == "ray":
        ray = RayConfig()
    return executor, ray


def _store(ctx: _Context, top: Mapping[str, Any], name: str) -> Path:
    """store: a path whose name leaves room for SQLite's side files, a regular file or none
    yet, whose missing directories can be made."""
    reader = ctx.reader
    store = read_path(reader, top.get("store", f"results/{name}.sqlite"), ("store",), ctx.base)
    room = NAME_MAX - max(len(side) for side in STORE_SIDE_FILES)
    if len(os.fsencode(store.name)) > room:
        reader.fail(("store",), f"names a file of {len(os.fsencode(store.name))} bytes; a store's "
                                f"name holds at most {room}, leaving room for SQLite's "
                                f"{', '.join(STORE_SIDE_FILES)} files beside it")
    kind = not_regular(store)   # sqlite would open /dev/null and write /dev/null-journal
    if kind is not None:
        reader.fail(("store",), f"must be a regular file or a path where none exists yet, but "
                                f"{str(store)!r} is {kind}")
    above = next(p for p in store.parents if p.exists())   # what must hold the missing dirs
    if not above.is_dir():
        reader.fail(("store",), f"cannot be made: {str(above)!r} is a file, not a directory")
    return store


def _publish(ctx: _Context, top: Mapping[str, Any]) -> Path | None:
    """publish: None, or a path the caller's publish_check (a run's: it writes it) accepts."""
    publish = None if top.get("publish") is None else read_path(ctx.reader, top["publish"],
                                                               ("publish",), ctx.base)
    if publish is not None and ctx.publish_check is not None:
        problem = ctx.publish_check(publish)
        if problem is not None:
            ctx.reader.fail(("publish",), problem)
    return publish


def _bots(ctx: _Context, top: Mapping[str, Any], game: _GameSection, store: Path,
          publish: Path | None) -> tuple[BotConfig, ...]:
    """bots: each entry read (botentries), what each may read checked against the store, the
    site a run publishes and a referee process's files, and each command's dialect able to
    play the game (a referee process's bots give none)."""
    reader, known, referee = ctx.reader, ctx.known, game.referee
    bots = bot_entries(reader, top["bots"], BotContext(ctx.base, game.name, ctx.known_bots,
                                                       known.dialects),
                       store, publish, ctx.option_files)
    if publish is not None and ctx.publish_check is not None:   # a run's: it publishes
        check_site(reader, publish, store, bots, ctx.base, ctx.option_files)
    if referee is not None:
        check_referee_sight(reader, referee, bots, store, publish)
    for i, bot in enumerate(bots):
        if referee is not None:
            _no_dialect(reader, top["bots"][i], i)
        why = None if bot.command is None else known.dialects.require(bot.dialect).supports(game.made)
        if why is not None:
            reader.fail(("bots", i, "dialect"), why)
    return bots


def _ffa_games(reader: Reader, top: Mapping[str, Any], game: str, seats: int) -> int | None:
    """games: the number of games of a league of more than two seats (None for two seats,
    where it means nothing); what only two-seat leagues have is refused there."""
    if seats == 2:
        if "games" in top:
            reader.fail(("games",), f"only for games of more than two seats ({game} with these "
                                    "rules has two: give games_per_pairing)")
        return None
    laddered = top.get("schedule") == "ladder"
    for key, why in (("games_per_pairing", "give ladder: {games: N}" if laddered
                      else "give games: N, the number of games"),
                     ("openings", "games start from the game's own start"),
                     ("candidates", "use schedule: round-robin or ladder"),
                     *((("games", "give ladder: {games: N}"),) if laddered else ())):
        if key in top:
            reader.fail((key,), f"not allowed for a game of {seats} seats ({why})")
    if top.get("schedule", "round-robin") not in ("round-robin", "ladder"):
        reader.fail(("schedule",), f"a game of {seats} seats plays round-robin (its games drawn "
                                   f"so that bots meet evenly) or ladder; got {top['schedule']!r}")
    if laddered:
        return None     # the ladder's matchmaker picks the games, as they go
    if "games" not in top:
        reader.fail(("game",), f"a game of {game} with these rules seats {seats} bots: give games: N, "
                        "the number of games the league plays")
    return int(reader.value(top["games"], ("games",), int, {"min": 1, "max": MAX_GAMES}))


def _sandbox(reader: Reader, raw: Any) -> tuple[str, Limits]:
    """sandbox: the isolation mode, and the Limits of every bot process beside it."""
    # the modes are the sandbox's detection's: imported to read a config, not with config's types
    from arena.sandbox import MODES
    path: KeyPath = ("sandbox",)
    given = reader.mapping(raw, path, SANDBOX_KEYS)
    mode = reader.value(given.get("mode", "auto"), path + ("mode",), str,
                        {"choices": MODES})
    return mode, Limits(**reader.fields(given, path, Limits))


def _openings(reader: Reader, raw: Any, known: _Known, game: str, rules: dict[str, Any],
              seed: int, base: Path, bots: tuple[BotConfig, ...]) -> tuple[str, str]:
    """openings: SPEC, or {spec: SPEC, order: sequential|random}; the spec is read now, so a
    bad book line stops the config, and bots whose dialect cannot start from one are refused."""
    from arena.openings import ORDERS, OpeningError, parse_spec
    path: KeyPath = ("openings",)
    if isinstance(raw, Mapping):
        given = reader.mapping(raw, path, OPENINGS_KEYS, required=("spec",))
        spec = reader.value(given["spec"], path + ("spec",), str, {})
        order = reader.value(given.get("order", "sequential"), path + ("order",), str,
                             {"choices": ORDERS})
        path = path + ("spec",)
    else:
        if not isinstance(raw, str) or not raw.strip():
            reader.fail(path, "must be none, random:N, book:NAME, a book file, or a mapping "
                              f"with keys {', '.join(OPENINGS_KEYS)}; got {_describe(raw)}")
        spec, order = raw, "sequential"
    try:
        openings = parse_spec(spec, known.games.create(game, **rules), order, seed, base)
    except OpeningError as exc:
        reader.fail(path, str(exc))
    if not openings.is_none:
        for i, bot in enumerate(bots):
            if bot.command is not None and not known.dialects.require(bot.dialect).plays_openings:
                reader.fail(path, f"bots[{i}] ({bot.name}) speaks the {bot.dialect} dialect, "
                                  "whose bots cannot start from an opening (docs/protocol.md); "
                                  "use none")
    return ("none" if openings.is_none else spec.strip()), order


def _schedule(reader: Reader, top: Mapping[str, Any],
              bots: tuple[BotConfig, ...]) -> tuple[str, tuple[str, ...]]:
    """schedule and candidates: a gauntlet names its candidates (bots of the league, not all
    of them); candidates mean nothing without a gauntlet."""
    schedule = reader.value(top.get("schedule", "round-robin"), ("schedule",), str,
                            {"choices": SCHEDULES})
    raw = top.get("candidates")
    if "ladder" in top and schedule != "ladder":
        reader.fail(("ladder",), f"only allowed with schedule: ladder (schedule is {schedule!r})")
    if schedule != "gauntlet":
        if "candidates" in top:
            reader.fail(("candidates",), f"only allowed with schedule: gauntlet (schedule is "
                                         f"{schedule!r})")
        return schedule, ()
    if raw is None:
        reader.fail(("schedule",), "a gauntlet needs candidates: a list of the bots under "
                                   "test, e.g. candidates: [my-bot]")
    if not isinstance(raw, list) or not raw:
        reader.fail(("candidates",), f"must be a list of bot names (the bots under test), "
                                     f"got {_describe(raw)}")
    names = [bot.name for bot in bots]
    seen: list[str] = []
    for i, item in enumerate(raw):
        name = reader.value(item, ("candidates", i), str, {})
        if name not in names:
            hint = did_you_mean(name, names)
            reader.fail(("candidates", i), f"unknown bot {name!r}{hint}; candidates are names "
                                           f"from bots: {', '.join(names)}")
        if name in seen:
            reader.fail(("candidates", i), f"{name!r} is listed twice")
        seen.append(name)
    if len(seen) == len(names):
        reader.fail(("candidates",), "every bot is a candidate, so nobody is left in the pool "
                                     "to play; leave at least one bot out (or use round-robin)")
    return schedule, tuple(seen)


def _ladder(reader: Reader, top: Mapping[str, Any], known: _Known) -> LadderConfig:
    """The ladder section (optional: every key has a default): a registered matchmaker, stop
    conditions (none: it runs until stopped), newcomers' games and suspension."""
    path: KeyPath = ("ladder",)
    given = reader.mapping(top.get("ladder"), path, LADDER_KEYS)
    matchmaker = reader.value(given.get("matchmaker", DEFAULT_MATCHMAKER), path + ("matchmaker",),
                              str, {})
    if matchmaker not in known.matchmakers:
        reader.fail(path + ("matchmaker",), f"unknown matchmaker {matchmaker!r}"
                                            f"{did_you_mean(matchmaker, known.matchmakers)}; known: "
                                            f"{', '.join(known.matchmakers)}")
    games = reader.value(given.get("games"), path + ("games",), int | None,
                         {"min": 1, "max": 10 * MAX_GAMES})
    hours = given.get("hours")
    if hours is not None:
        hours = reader.value(hours, path + ("hours",), float, {"above": 0, "max": MAX_HOURS})
    separated = top_k = None
    if given.get("until") is not None:
        until = reader.mapping(given["until"], path + ("until",), UNTIL_KEYS,
                               required=("separated",),
                               what="a mapping like {separated: 0.95, top: 8}")
        separated = reader.value(until["separated"], path + ("until", "separated"), float,
                                 {"above": 0.5, "below": 1})
        top_k = reader.value(until.get("top"), path + ("until", "top"), int | None,
                             {"min": 2, "max": MAX_WORKERS * 1000})
    suspend = reader.mapping(given.get("suspend"), path + ("suspend",), SUSPEND_KEYS,
                             what="a mapping like {share: 0.5, after: 10}")
    share = reader.value(suspend.get("share", 0.5), path + ("suspend", "share"), float,
                         {"min": 0, "max": 1})
    after = reader.value(suspend.get("after", 10), path + ("suspend", "after"), int,
                         {"min": 1, "max": 10 * MAX_GAMES})
    min_games = reader.value(given.get("min_games", 10), path + ("min_games",), int,
                             {"min": 0, "max": 10 * MAX_GAMES})
    return LadderConfig(matchmaker=matchmaker, games=games, hours=hours,
                        until_separated=separated, until_top=top_k, min_games=min_games,
                        suspend_share=share, suspend_after=after)


def _rules(reader: Reader, raw: Any, games: Registry[type[Game]], game: str, base: Path) -> dict[str, Any]:
    options = {opt.name: opt for opt in games.require(game).info.options}
    if raw is not None and not options:
        reader.fail(("rules",), f"game {game!r} has no rule options; remove 'rules'")
    given = reader.mapping(raw, ("rules",), list(options), what=f"a mapping of {game!r} rule options")
    for key, value in list(given.items()):
        if isinstance(options[key].choices, FromFile) and isinstance(value, str) and value:
            # a file (tron's map), from the config's directory, read and checked as every user file
            given[key] = value = read_rule_file(read_path(reader, value, ("rules", key), base),
                                                options[key].choices)
        choices = options[key].choices
        if value not in choices or isinstance(value, bool) != any(isinstance(c, bool)
                                                                  for c in choices):
            allowed = ", ".join(repr(c) for c in choices)
            guess = did_you_mean(value, [c for c in choices if isinstance(c, str)]) \
                if isinstance(value, str) else ""
            reader.fail(("rules", key), f"must be one of {allowed}, got {_describe(value)}{guess}")
    return games.require(game).complete_options(given)


def validate_entrant(raw: Any, config: LeagueConfig, known_bots: BotCheck | None = None, *,
                     plugins: Plugins | None = None, games: Registry[type[Game]] | None = None,
                     dialects: Registry[Dialect] | None = None,
                     source: str | None = None) -> BotConfig:
    """One more bot for a league (a ladder's newcomer, a submission to a server), checked as
    the config's own bots are: its keys, its registered bot and options or its command and
    dialect, a name no bot of config has, and what it may read (never the store, the config
    or another bot's directory, nor another bot its). It takes the place bots[N] after the
    config's N bots, which errors name, after source (the config's file, else
    "<entrant>"); ConfigError (one line) on any problem."""
    known = _known(plugins, games, dialects, None)
    reader = Reader(source or (str(config.source) if config.source else "<entrant>"), {})
    at = len(config.bots)
    bot = bot_entry(reader, raw, ("bots", at), BotContext(config.base_dir, config.game, known_bots,
                                                               known.dialects))
    if bot.name in config.bot_names:
        reader.fail(("bots", at, "name"), f"duplicate bot name {bot.name!r} (already used by "
                                          f"bots[{config.bot_names.index(bot.name)}]); names must be unique")
    if config.referee is not None:   # a game played by a referee process: as the config's bots
        _no_dialect(reader, raw, at)
        check_referee_sight(reader, config.referee, (*config.bots, bot), config.store, config.publish)
    if bot.command is not None:
        why = known.dialects.require(bot.dialect).supports(config.made_game(known.games))
        if why is not None:
            reader.fail(("bots", at, "dialect"), why)
    # the others' entries as written are not at hand (they only name an error's key)
    check_sight(reader, [{}] * at + [raw], (*config.bots, bot), config.base_dir, config.store)
    return bot


def _no_dialect(reader: Reader, raw: Any, at: int) -> None:
    """A bot of a game played by a referee process gives no dialect: it reads its referee's
    lines as they are."""
    if isinstance(raw, Mapping) and "dialect" in raw:
        reader.fail(("bots", at, "dialect"), "a game played by a referee process relays its referee's "
                                             "lines to the bots as they are: leave dialect out")
