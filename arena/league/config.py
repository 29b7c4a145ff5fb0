"""A league's YAML config: read, checked completely, and turned into frozen dataclasses.

Nothing runs until the whole file is known to be valid, and every mistake is
reported as one line naming the file, the line and the key path.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, get_type_hints

import yaml

from arena.games import GameRegistry, default_registry
from arena.plugins import loaded_plugins

DIALECTS = ("arena", "codingame", "theaigames", "riddles")  #: as arena.protocol names them
#: sandbox modes (as arena.sandbox takes them); "auto": the strongest isolation the host offers
SANDBOX_MODES = ("auto", "bwrap", "unshare", "none")
TIMEOUT_MODES = ("forfeit", "strikes")
#: how bots' files reach Ray nodes: the same paths everywhere, or shipped with the run
RAY_FILES = ("shared", "runtime_env")
#: who plays whom: every two bots, or each candidate against every bot of the pool
SCHEDULES = ("round-robin", "gauntlet")
#: a Ray address: auto, HOST:PORT or ray://HOST:PORT (HOST may be [IPv6])
RAY_ADDRESS_RE = re.compile(r"auto|(ray://)?([A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}")

KeyPath = tuple[str | int, ...]

DAY_MS = 86_400_000        #: no time setting may exceed a day
MAX_GAMES = 1_000_000      #: games in one league, all pairings together
MAX_WORKERS = 4096         #: the run also caps local workers at 4 per CPU, with a warning
MAX_YAML_DEPTH = 64        #: nesting of mappings and lists in a config file
MAX_YAML_NODES = 100_000   #: values in a config file once its aliases are expanded
BIG = 1_000_000            #: bound of the sandbox limits and the rating constants


class ConfigError(ValueError):
    """A league config that cannot be used; str() is one line: file:line: key: problem."""

    def __init__(self, source: str, line: int | None, path: KeyPath, problem: str) -> None:
        self.source, self.line, self.path, self.problem = source, line, path, problem
        where = f"{source}:{line}" if line is not None else source
        key = format_path(path)
        super().__init__(f"{where}: {key}: {problem}" if key else f"{where}: {problem}")


@dataclass(frozen=True)
class BotProblem:
    """What a bot check found wrong; option names the bad option, if one is to blame."""

    message: str
    option: str | None = None


#: Checks a registered bot: (bot name, game, options) -> None when fine, else the problem.
BotCheck = Callable[[str, str, Mapping[str, Any]], "str | BotProblem | None"]


def format_path(path: KeyPath) -> str:
    """A key path as written in messages: bots[2].options.depth."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# --- the config, as dataclasses -------------------------------------------------------------
# Sections read by _section() declare their checks in field metadata: min / max (inclusive),
# above (exclusive lower bound), below (exclusive upper bound), choices.

@dataclass(frozen=True)
class TimeControl:
    """How much time a bot gets (enforced by the referee)."""

    move_ms: int = field(default=1000, metadata={"min": 1, "max": DAY_MS})
    startup_ms: int = field(default=5000, metadata={"min": 1, "max": DAY_MS})
    bank_ms: int = field(default=0, metadata={"min": 0, "max": DAY_MS})
    increment_ms: int = field(default=0, metadata={"min": 0, "max": DAY_MS})
    overhead_ms: int = field(default=50, metadata={"min": 0, "max": DAY_MS})
    load_grace: float = field(default=10.0, metadata={"min": 0, "max": 1000})


@dataclass(frozen=True)
class TimeoutPolicy:
    """What a missed deadline costs: the game (forfeit), or a strike and a random move."""

    mode: str = field(default="forfeit", metadata={"choices": TIMEOUT_MODES})
    strikes: int = field(default=3, metadata={"min": 1, "max": 1000})


@dataclass(frozen=True)
class SandboxConfig:
    """Isolation and resource limits for every bot process."""

    mode: str = field(default="auto", metadata={"choices": SANDBOX_MODES})
    memory_mb: int = field(default=1024, metadata={"min": 1, "max": BIG})
    cpu_seconds: int = field(default=600, metadata={"min": 1, "max": BIG})
    file_size_mb: int = field(default=16, metadata={"min": 1, "max": BIG})
    open_files: int = field(default=256, metadata={"min": 3, "max": BIG})
    processes: int = field(default=64, metadata={"min": 1, "max": BIG})
    scratch_mb: int = field(default=64, metadata={"min": 1, "max": BIG})


@dataclass(frozen=True)
class RatingConfig:
    """TrueSkill constants and how faults are rated."""

    mu: float = field(default=25.0, metadata={"min": -BIG, "max": BIG})
    sigma: float = field(default=25.0 / 3, metadata={"above": 0, "max": BIG})
    beta: float = field(default=25.0 / 6, metadata={"above": 0, "max": BIG})
    tau: float = field(default=25.0 / 300, metadata={"min": 0, "max": BIG})
    draw_probability: float = field(default=0.1, metadata={"above": 0, "below": 1})
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
    files: str = field(default="shared", metadata={"choices": RAY_FILES})
    #: times Ray plays a game again whose worker process or node died
    max_retries: int = field(default=3, metadata={"min": 0, "max": 100})
    #: Ray CPUs each game reserves: a node plays (its CPUs / cpus_per_game) games at once
    cpus_per_game: float = field(default=1.0, metadata={"above": 0, "max": 4096})


@dataclass(frozen=True)
class BotConfig:
    """One entrant: a registered bot with options, or a command speaking a dialect."""

    name: str
    bot: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    command: str | None = None
    #: the command split into words, files that exist made absolute (runs from any directory)
    argv: tuple[str, ...] = ()
    dialect: str = "arena"
    #: the bot's own directory, which it may read (absolute): the directory of its program
    #: (or script), or the `dir` given; None for registered bots and programs on PATH
    dir: Path | None = None
    #: more files and directories the bot may read (absolute, they exist)
    readable: tuple[Path, ...] = ()
    #: the user accepts that what the bot reads holds the store, this config or another bot
    allow_shared_dir: bool = False
    #: a command run once before the league in the bot's directory (outside the sandbox)
    build: str | None = None

    @property
    def spec(self) -> str:
        """How the bot is started, as a record's BotEntry.spec: NAME or DIALECT:COMMAND."""
        return self.bot if self.bot is not None else f"{self.dialect}:{self.command}"


@dataclass(frozen=True)
class LeagueConfig:
    """A validated league: who plays what, under which limits, stored where."""

    name: str
    game: str
    rules: Mapping[str, Any]
    bots: tuple[BotConfig, ...]
    games_per_pairing: int = 2
    time_control: TimeControl = TimeControl()
    timeout_policy: TimeoutPolicy = TimeoutPolicy()
    sandbox: SandboxConfig = SandboxConfig()
    rating: RatingConfig = RatingConfig()
    workers: int = 1
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
    #: directory relative paths were resolved against (the config file's directory)
    base_dir: Path = Path(".")
    #: the file this came from, None when built from a dict
    source: Path | None = None

    @property
    def bot_names(self) -> list[str]:
        """Display names in config order."""
        return [bot.name for bot in self.bots]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready snapshot (paths as strings)."""
        snapshot: dict[str, Any] = _jsonable(dataclasses.asdict(self))
        return snapshot

    def to_json(self) -> str:
        """to_dict() as compact JSON with sorted keys."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))


def _jsonable(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


TOP_KEYS = ("name", "game", "rules", "bots", "games_per_pairing", "time_control", "timeout_policy",
            "sandbox", "rating", "workers", "executor", "ray", "store", "seed", "publish",
            "openings", "schedule", "candidates")
OPENINGS_KEYS = ("spec", "order")
BOT_KEYS = ("name", "bot", "options", "command", "dialect", "dir", "readable", "allow_shared_dir",
            "build")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


# --- entry points ---------------------------------------------------------------------------

def load_config(path: str | os.PathLike[str], known_bots: BotCheck | None = None, *,
                games: GameRegistry | None = None,
                executors: Collection[str] | None = None) -> LeagueConfig:
    """Read and validate a league YAML file; raises ConfigError (one line) on any problem.
    executors: the names `executor:` may give (None: the loaded plugins' executors)."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(source, None, (), f"cannot read the config: {exc}") from None
    data, lines = _parse_yaml(text, source)
    base = Path(path).resolve().parent
    reader = _Reader(source, lines)
    return _build(reader, data, base, known_bots, games or default_registry(), Path(path),
                  executors)


def config_from_dict(data: Mapping[str, Any], *, base_dir: str | os.PathLike[str] = ".",
                     known_bots: BotCheck | None = None, games: GameRegistry | None = None,
                     source: str = "<config>",
                     executors: Collection[str] | None = None) -> LeagueConfig:
    """Validate a config given as a dict (no line numbers); raises ConfigError."""
    reader = _Reader(source, {})
    return _build(reader, data, Path(base_dir).resolve(), known_bots, games or default_registry(),
                  None, executors)


# --- YAML with line numbers -----------------------------------------------------------------

def _check_shape(text: str, source: str) -> None:
    """Refuse deep nesting and alias bombs from the event stream (flat, cheap), before
    anything recursive or anything that expands aliases sees the document."""
    depth, nodes = 0, 0
    sizes: dict[str, int] = {}     # values under each anchor, aliases expanded
    opened: list[tuple[str | None, int]] = []
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            line = event.start_mark.line + 1 if event.start_mark is not None else None
            if isinstance(event, yaml.AliasEvent):
                nodes += sizes.get(event.anchor or "", 1)
            elif isinstance(event, yaml.ScalarEvent):
                nodes += 1
                if event.anchor:
                    sizes[event.anchor] = 1
            elif isinstance(event, yaml.CollectionStartEvent):
                nodes += 1
                depth += 1
                opened.append((event.anchor, nodes))
                if depth > MAX_YAML_DEPTH:
                    raise ConfigError(source, line, (), f"nested more than {MAX_YAML_DEPTH} "
                                                       "levels deep; a league config needs a few")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                anchor, first = opened.pop()
                if anchor:
                    sizes[anchor] = nodes - first + 1
            if nodes > MAX_YAML_NODES:
                raise ConfigError(source, line, (), f"more than {MAX_YAML_NODES:,} values once "
                                                   "its aliases (*name) are expanded; a league "
                                                   "config needs far fewer")
    except yaml.YAMLError:
        return    # reported with its line by the parse that follows


def _parse_yaml(text: str, source: str) -> tuple[Any, dict[KeyPath, int]]:
    _check_shape(text, source)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        lines: dict[KeyPath, int] = {}
        if node is not None:
            _index_lines(node, (), lines, source)
            data = loader.construct_document(node)
        else:
            data, lines = None, {(): 1}
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "cannot parse"
        if exc.context and exc.context_mark is not None and exc.problem:
            problem += f" ({exc.context} on line {exc.context_mark.line + 1})"
        raise ConfigError(source, line, (), f"malformed YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(source, None, (), f"malformed YAML: {exc}") from None
    finally:
        loader.dispose()
    return data, lines


def _index_lines(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int], source: str) -> None:
    """Record the line of every key and list item; refuse duplicate keys (YAML keeps the last)."""
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.value == "<<":
                continue
            key = key_node.value
            line = key_node.start_mark.line + 1
            if key in seen:
                raise ConfigError(source, line, path + (key,),
                                  "duplicate key: each key may appear once in a mapping")
            seen.add(key)
            lines[path + (key,)] = line
            _index_lines(value_node, path + (key,), lines, source)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[path + (i,)] = item.start_mark.line + 1
            _index_lines(item, path + (i,), lines, source)


# --- checking -------------------------------------------------------------------------------

def _describe(value: Any) -> str:
    return "nothing (null)" if value is None else repr(value)


class _Reader:
    """Turns a key path into an error with the right line, and checks value shapes."""

    def __init__(self, source: str, lines: dict[KeyPath, int]) -> None:
        self.source, self.lines = source, lines

    def fail(self, path: KeyPath, problem: str) -> NoReturn:
        at = path
        while at and at not in self.lines:
            at = at[:-1]
        raise ConfigError(self.source, self.lines.get(at), path, problem)

    def mapping(self, value: Any, path: KeyPath, allowed: Sequence[str],
                required: Sequence[str] = (), what: str = "a mapping") -> dict[str, Any]:
        if value is None and not required:
            return {}
        if not isinstance(value, Mapping):
            self.fail(path, f"must be {what} with keys {', '.join(allowed)}; got {_describe(value)}")
        for key in value:
            if not isinstance(key, str):
                self.fail(path, f"keys must be text; got {key!r}")
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                self.fail(path + (key,), f"unknown key{hint}; allowed keys: {', '.join(allowed)}")
        for key in required:
            if key not in value:
                self.fail(path, f"required key {key!r} is missing; allowed keys: "
                                f"{', '.join(allowed)}")
        return dict(value)

    def value(self, value: Any, path: KeyPath, kind: Any, rules: Mapping[str, Any]) -> Any:
        """Check one scalar against its declared type and field metadata."""
        optional = kind in (str | None, int | None)
        if value is None and optional:
            return None
        base = str if kind in (str, str | None) else int if kind in (int, int | None) else kind
        if base is bool:
            if not isinstance(value, bool):
                self.fail(path, f"must be true or false, got {_describe(value)}")
            return value
        if base is str:
            choices = rules.get("choices")
            if choices is not None and value not in choices:
                allowed = ", ".join(repr(c) for c in choices)
                self.fail(path, f"must be one of {allowed}, got {_describe(value)}")
            if not isinstance(value, str) or not value.strip():
                self.fail(path, f"must be non-empty text, got {_describe(value)}")
            return value
        number_ok = isinstance(value, (int, float)) if base is float else isinstance(value, int)
        if (isinstance(value, bool) or not number_ok
                or (isinstance(value, float) and not math.isfinite(value))):
            self.fail(path, f"must be {_bounds(base, rules)}, got {_describe(value)}")
        if (("min" in rules and value < rules["min"]) or ("max" in rules and value > rules["max"])
                or ("above" in rules and value <= rules["above"])
                or ("below" in rules and value >= rules["below"])):
            self.fail(path, f"must be {_bounds(base, rules)}, got {_describe(value)}")
        return float(value) if base is float else value


def _bounds(kind: type, rules: Mapping[str, Any]) -> str:
    noun = "an integer" if kind is int else "a number"
    parts = [f">= {rules['min']}" if "min" in rules else "",
             f"> {rules['above']}" if "above" in rules else "",
             f"< {rules['below']}" if "below" in rules else "",
             f"<= {rules['max']}" if "max" in rules else ""]
    return f"{noun} " + " and ".join(p for p in parts if p) if any(parts) else noun


def _section(reader: _Reader, raw: Any, path: KeyPath, cls: type[Any]) -> Any:
    """Read a mapping into dataclass cls, checking each field against its metadata."""
    names = [f.name for f in dataclasses.fields(cls)]
    given = reader.mapping(raw, path, names)
    hints = get_type_hints(cls)
    values = {f.name: reader.value(given[f.name], path + (f.name,), hints[f.name], f.metadata)
              for f in dataclasses.fields(cls) if f.name in given}
    return cls(**values)


def _build(reader: _Reader, data: Any, base: Path, known_bots: BotCheck | None,
           games: GameRegistry, source: Path | None,
           executors: Collection[str] | None = None) -> LeagueConfig:
    if data is None:
        reader.fail((), f"the config is empty; expected a mapping with keys {', '.join(TOP_KEYS)}")
    top = reader.mapping(data, (), TOP_KEYS, required=("name", "game", "bots"))

    name = reader.value(top["name"], ("name",), str, {})
    if not NAME_RE.fullmatch(name):
        reader.fail(("name",), f"must be letters, digits, '.', '_' or '-' (it names files), "
                               f"starting with a letter or digit; got {name!r}")

    game = reader.value(top["game"], ("game",), str, {})
    if game not in games.names():
        close = difflib.get_close_matches(game, games.names(), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        reader.fail(("game",), f"unknown game {game!r}{hint}; known games: "
                               f"{', '.join(games.names())}")
    rules = _rules(reader, top.get("rules"), games, game)

    gpp = reader.value(top.get("games_per_pairing", 2), ("games_per_pairing",), int,
                       {"min": 2, "max": MAX_GAMES})
    if gpp % 2:
        reader.fail(("games_per_pairing",), f"must be an even integer >= 2 (games come in "
                                            f"seat-swapped pairs), got {gpp!r}")
    if isinstance(top["bots"], list):
        count = len(top["bots"])
        total = count * (count - 1) // 2 * gpp
        if total > MAX_GAMES:
            reader.fail(("games_per_pairing",), f"{count} bots and {gpp} games per pairing make "
                                                f"{total:,} games; a league has at most "
                                                f"{MAX_GAMES:,}")

    timeout_policy = _section(reader, top.get("timeout_policy"), ("timeout_policy",), TimeoutPolicy)
    if (timeout_policy.mode == "forfeit" and isinstance(top.get("timeout_policy"), Mapping)
            and "strikes" in top["timeout_policy"]):
        reader.fail(("timeout_policy", "strikes"), "only allowed with mode: strikes "
                                                  "(mode is 'forfeit')")

    if executors is None:
        executors = loaded_plugins().executors.names()   # built-ins first
    executor = reader.value(top.get("executor", "local"), ("executor",), str,
                            {"choices": tuple(executors)})
    ray = None
    if "ray" in top:
        if executor != "ray":
            reader.fail(("ray",), f"only allowed with executor: ray (executor is {executor!r})")
        ray = _section(reader, top["ray"], ("ray",), RayConfig)
        if ray.address is not None and not RAY_ADDRESS_RE.fullmatch(ray.address):
            reader.fail(("ray", "address"), f"must be auto, HOST:PORT or ray://HOST:PORT (null "
                                            f"starts a local Ray instance), got {ray.address!r}")
    elif executor == "ray":
        ray = RayConfig()

    store = _path(reader, top.get("store", f"results/{name}.sqlite"), ("store",), base)
    if store.exists() and store.is_dir():
        reader.fail(("store",), f"must be a file path, but {str(store)!r} is a directory")
    above = next(p for p in store.parents if p.exists())   # what must hold the missing dirs
    if not above.is_dir():
        reader.fail(("store",), f"cannot be made: {str(above)!r} is a file, not a directory")
    publish = None if top.get("publish") is None else _path(reader, top["publish"], ("publish",),
                                                           base)

    bots = _bots(reader, top["bots"], base, game, known_bots, store)
    seed = reader.value(top.get("seed", 0), ("seed",), int, {"min": 0, "max": 2**63 - 1})
    openings, order = _openings(reader, top.get("openings", "none"), games, game, rules, seed,
                                base, bots)

    schedule, candidates = _schedule(reader, top, bots)

    return LeagueConfig(
        name=name, game=game, rules=rules, bots=bots, openings=openings, openings_order=order,
        schedule=schedule, candidates=candidates,
        games_per_pairing=gpp,
        time_control=_section(reader, top.get("time_control"), ("time_control",), TimeControl),
        timeout_policy=timeout_policy,
        sandbox=_section(reader, top.get("sandbox"), ("sandbox",), SandboxConfig),
        rating=_section(reader, top.get("rating"), ("rating",), RatingConfig),
        workers=reader.value(top.get("workers", os.cpu_count() or 1), ("workers",), int,
                             {"min": 1, "max": MAX_WORKERS}),
        executor=executor, ray=ray, store=store,
        seed=seed, publish=publish, base_dir=base, source=source,
    )


def _openings(reader: _Reader, raw: Any, games: GameRegistry, game: str, rules: dict[str, Any],
              seed: int, base: Path, bots: tuple[BotConfig, ...]) -> tuple[str, str]:
    """openings: SPEC, or {spec: SPEC, order: sequential|random}; the spec is read now, so a
    bad book line stops the config, and bots whose dialect cannot start from one are refused."""
    from arena.openings import ORDERS, OpeningError, parse_spec
    from arena.protocol import get_dialect
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
        openings = parse_spec(spec, games.create(game, **rules), order, seed, base)
    except OpeningError as exc:
        reader.fail(path, str(exc))
    if not openings.is_none:
        for i, bot in enumerate(bots):
            if bot.command is not None and not get_dialect(bot.dialect).plays_openings:
                reader.fail(path, f"bots[{i}] ({bot.name}) speaks the {bot.dialect} dialect, "
                                  "whose bots cannot start from an opening (docs/protocol.md); "
                                  "use none")
    return ("none" if openings.is_none else spec.strip()), order


def _schedule(reader: _Reader, top: Mapping[str, Any],
              bots: tuple[BotConfig, ...]) -> tuple[str, tuple[str, ...]]:
    """schedule and candidates: a gauntlet names its candidates (bots of the league, not all
    of them); candidates mean nothing without a gauntlet."""
    schedule = reader.value(top.get("schedule", "round-robin"), ("schedule",), str,
                            {"choices": SCHEDULES})
    raw = top.get("candidates")
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
            close = difflib.get_close_matches(name, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            reader.fail(("candidates", i), f"unknown bot {name!r}{hint}; candidates are names "
                                           f"from bots: {', '.join(names)}")
        if name in seen:
            reader.fail(("candidates", i), f"{name!r} is listed twice")
        seen.append(name)
    if len(seen) == len(names):
        reader.fail(("candidates",), "every bot is a candidate, so nobody is left in the pool "
                                     "to play; leave at least one bot out (or use round-robin)")
    return schedule, tuple(seen)


def _path(reader: _Reader, raw: Any, path: KeyPath, base: Path) -> Path:
    text = reader.value(raw, path, str, {})
    return (base / Path(text).expanduser()).resolve()


def _rules(reader: _Reader, raw: Any, games: GameRegistry, game: str) -> dict[str, Any]:
    options = {opt.name: opt for opt in games.get(game).info.options}
    if raw is not None and not options:
        reader.fail(("rules",), f"game {game!r} has no rule options; remove 'rules'")
    given = reader.mapping(raw, ("rules",), list(options), what=f"a mapping of {game!r} rule options")
    for key, value in given.items():
        choices = options[key].choices
        if value not in choices or isinstance(value, bool) != any(isinstance(c, bool)
                                                                  for c in choices):
            allowed = ", ".join(repr(c) for c in choices)
            reader.fail(("rules", key), f"must be one of {allowed}, got {_describe(value)}")
    return {key: given.get(key, opt.default) for key, opt in options.items()}


def _bots(reader: _Reader, raw: Any, base: Path, game: str,
          known_bots: BotCheck | None, store: Path | None = None) -> tuple[BotConfig, ...]:
    if not isinstance(raw, list) or len(raw) < 2:
        count = f"{len(raw)} bot{'s' * (len(raw) != 1)}" if isinstance(raw, list) else _describe(raw)
        reader.fail(("bots",), f"must be a list of at least 2 bots (each with name and bot "
                               f"or command), got {count}")
    bots: list[BotConfig] = []
    first_use: dict[str, int] = {}
    for i, item in enumerate(raw):
        bot = _bot(reader, item, ("bots", i), base, game, known_bots)
        if bot.name in first_use:
            reader.fail(("bots", i, "name"), f"duplicate bot name {bot.name!r} (already used by "
                                             f"bots[{first_use[bot.name]}]); names must be unique")
        first_use[bot.name] = i
        bots.append(bot)
    _check_sight(reader, raw, bots, base, store)
    return tuple(bots)


def _bot(reader: _Reader, raw: Any, path: KeyPath, base: Path, game: str,
         known_bots: BotCheck | None) -> BotConfig:
    item = reader.mapping(raw, path, BOT_KEYS, required=("name",), what="a bot: a mapping")
    name = reader.value(item["name"], path + ("name",), str, {})
    if "|" in name or name != name.strip() or not name.isprintable():
        reader.fail(path + ("name",), f"must be printable text without '|' or surrounding "
                                      f"spaces, got {name!r}")
    if ("bot" in item) == ("command" in item):
        reader.fail(path, "give exactly one of 'bot' (a registered bot) or 'command' "
                          "(a program to run)")
    if "bot" in item:
        for key in ("dialect", "dir", "build"):
            if key in item:
                reader.fail(path + (key,), "only allowed with 'command' (a registered bot "
                                           "knows how it is started)")
        bot_name = reader.value(item["bot"], path + ("bot",), str, {})
        options = item.get("options") or {}
        if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
            reader.fail(path + ("options",), f"must be a mapping of option names to values, "
                                             f"got {_describe(options)}")
        if known_bots is not None:
            problem = known_bots(bot_name, game, options)
            if isinstance(problem, BotProblem) and problem.option is not None:
                reader.fail(path + ("options", problem.option), problem.message)
            if problem is not None:
                reader.fail(path + ("bot",), problem.message if isinstance(problem, BotProblem)
                            else problem)
        return BotConfig(name=name, bot=bot_name, options=dict(options),
                         readable=_readable(reader, item, path, base),
                         allow_shared_dir=_allow_shared(reader, item, path))

    if "options" in item:
        reader.fail(path + ("options",), "only allowed with 'bot'; pass a command's options "
                                         "in the command itself")
    command = reader.value(item["command"], path + ("command",), str, {})
    dialect = reader.value(item.get("dialect", "arena"), path + ("dialect",), str,
                           {"choices": DIALECTS})
    try:
        words = shlex.split(command)
    except ValueError as exc:
        reader.fail(path + ("command",), f"cannot split into words ({exc}): check the quotes")
    if not words:
        reader.fail(path + ("command",), "must name a program to run, got an empty command")
    build = None
    if "build" in item:
        build = reader.value(item["build"], path + ("build",), str, {})
        if not build.strip():
            reader.fail(path + ("build",), "must be a command to run, got an empty one")
    argv, files = _resolve_argv(words, base)
    program = words[0]
    if build is None and "/" in program and not (base / program).is_file():
        reader.fail(path + ("command",), f"program {program!r} not found (relative paths are "
                                         f"relative to {str(base)!r})")
    if "/" not in program and files[0] is None and shutil.which(program) is None:
        reader.fail(path + ("command",), f"program {program!r} is not on PATH and is not a file "
                                         f"in {str(base)!r}")
    bot_dir: Path | None
    if "dir" in item:
        bot_dir = _path(reader, item["dir"], path + ("dir",), base)
        if not bot_dir.is_dir():
            reader.fail(path + ("dir",), f"must be an existing directory, got {str(bot_dir)!r}")
    else:
        code = _own_code(words, base)
        bot_dir = code.parent if code is not None else None
        if build is not None and code is None:   # the program is what the build makes
            if "/" not in program:
                reader.fail(path + ("build",), "needs 'dir' (the directory to build in) when "
                                               "the command does not name the built program's path")
            bot_dir = Path(os.path.normpath(base / program)).parent
    return BotConfig(name=name, command=command, argv=argv, dialect=dialect, dir=bot_dir,
                     readable=_readable(reader, item, path, base),
                     allow_shared_dir=_allow_shared(reader, item, path), build=build)


# --- what a bot may read --------------------------------------------------------------------
# A bot reads its own directory and nothing else of the user's: never the store (every
# result), this config, or another bot's code. The directories the config gives a bot are
# checked here, so that a layout that would show them is refused before anything runs.

#: directories every bot may read anyway (the system, this Python): never a bot's own code
_SHARED_ROOTS = tuple(dict.fromkeys(os.path.realpath(p) for p in (
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", sys.prefix, sys.base_prefix,
    sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)))))


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _own_code(words: Sequence[str], base: Path) -> Path | None:
    """The bot's own program or script: the first word of the command naming a file that is
    not part of the system or this Python (`./bot`, `python3 bots/a.py`, `java -jar b.jar`)."""
    for word in words:
        if word.startswith("-"):
            continue
        candidate = Path(os.path.normpath(base / Path(word).expanduser()))
        if candidate.is_file() and not any(_inside(Path(os.path.realpath(candidate)), Path(root))
                                           for root in _SHARED_ROOTS):
            return candidate
    return None


def _command_sight(words: Sequence[str], base: Path) -> list[Path]:
    """What naming files in a command shows the bot (as the referee reads a command): the
    directory of every file it names, and every directory it names, outside the system."""
    seen: list[Path] = []
    for i, word in enumerate(words):
        candidate = Path(os.path.normpath(base / Path(word).expanduser()))
        if not ("/" in word or (i > 0 and candidate.exists())) or not candidate.exists():
            continue
        shown = candidate.resolve()
        shown = shown if shown.is_dir() else shown.parent
        if not any(_inside(shown, Path(root)) for root in _SHARED_ROOTS):
            seen.append(shown)
    return seen


def _readable(reader: _Reader, item: Mapping[str, Any], path: KeyPath, base: Path) -> tuple[Path, ...]:
    raw = item.get("readable")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        reader.fail(path + ("readable",), f"must be a list of paths (relative to the config's "
                                          f"directory), got {_describe(raw)}")
    found = []
    for i, entry in enumerate(raw):
        where = path + ("readable", i)
        target = _path(reader, entry, where, base)
        if not target.exists():
            reader.fail(where, f"no such file or directory: {str(target)!r} (a path is taken "
                               f"from the config's directory)")
        found.append(target)
    return tuple(dict.fromkeys(found))


def _allow_shared(reader: _Reader, item: Mapping[str, Any], path: KeyPath) -> bool:
    value = item.get("allow_shared_dir", False)
    if not isinstance(value, bool):
        reader.fail(path + ("allow_shared_dir",), f"must be true or false, got {_describe(value)}")
    return value


def _check_sight(reader: _Reader, raw: Sequence[Mapping[str, Any]], bots: Sequence[BotConfig],
                 base: Path, store: Path | None) -> None:
    """Refuse a bot whose readable paths hold the store, this config or another bot's own
    directory (unless it says allow_shared_dir: true)."""
    config_file = Path(reader.source).resolve() if Path(reader.source).is_file() else None
    own = {bot.name: (bot.dir, _own_code(shlex.split(bot.command), base) if bot.command else None)
           for bot in bots}
    for i, bot in enumerate(bots):
        if bot.allow_shared_dir:
            continue
        sight: list[tuple[Path, KeyPath]] = []
        if bot.command is not None:
            key: KeyPath = ("bots", i, "dir" if "dir" in raw[i] else "command")
            if bot.dir is not None:
                sight.append((bot.dir.resolve(), key))
            sight += [(d, ("bots", i, "command")) for d in _command_sight(shlex.split(bot.command), base)]
        sight += [(p.resolve(), ("bots", i, "readable", j)) for j, p in enumerate(bot.readable)]
        for shown, where in sight:
            if store is not None and _inside(store, shown):
                _refuse(reader, where, bot, shown, f"the store {str(store)!r}: the bot could read every result")
            if config_file is not None and _inside(config_file, shown):
                _refuse(reader, where, bot, shown, f"this config {str(config_file)!r}")
            for other in bots:
                other_dir, other_code = own[other.name]
                if other is bot or other_dir is None or other_code == own[bot.name][1]:
                    continue   # the same program under two names shares its directory freely
                if _inside(other_dir.resolve(), shown):
                    _refuse(reader, where, bot, shown,
                            f"bot {other.name!r}'s directory {str(other_dir)!r}")


def _refuse(reader: _Reader, where: KeyPath, bot: BotConfig, shown: Path, what: str) -> NoReturn:
    reader.fail(where, f"bot {bot.name!r} would read {str(shown)!r}, which holds {what}; give "
                       f"each bot a directory of its own (its program's directory is what it "
                       f"reads), or set allow_shared_dir: true for this bot (it can then read them)")


def _resolve_argv(words: list[str], base: Path) -> tuple[tuple[str, ...], list[Path | None]]:
    """Words of a command with existing relative files made absolute; also each word's file.

    Symlinks are not resolved: a program may behave by the name it is called by.
    """
    files: list[Path | None] = []
    for word in words:
        candidate = Path(os.path.normpath(base / word)) if not word.startswith("-") else None
        files.append(candidate if candidate is not None and candidate.is_file() else None)
    argv = tuple(str(f) if f is not None and not os.path.isabs(w) else w
                 for w, f in zip(words, files))
    return argv, files


