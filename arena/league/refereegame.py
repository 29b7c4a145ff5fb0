"""A game played by a referee process, as a config declares it (docs/referees.md): a league's
`game:` given as a mapping, `arena match --game FILE`'s file, or a plugin's referee_game(),
read and checked as every config key is (one line naming the file, the key and what is
allowed), into the RefereeSpec the relay plays by. Its sight is checked too: the referee
may read its own directory, never the store, the config or a bot's files."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bounds import DAY_MS, bounded
from arena.games.external import PLAYERS, PROTOCOLS, ExternalGame, RefereeSpec, referee_game_class
from arena.referee.botspec import BotSpecError, parse_command
from arena.sandbox import Limits

from .botentries import BotConfig
from .configfile import KeyPath, Reader, read_path
from .sight import inside, own_code, protected, shared

#: the keys of a game played by a referee process
GAME_KEYS = ("name", "referee", "players", "build", "dir", "readable", "protocol", "seed",
             "startup_ms", "step_ms", "game_ms", "referee_faults", "sandbox")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class RefereeLimits:
    """The referee's clocks (wall time) and how many void games in a row stop a run."""

    startup_ms: int = bounded(30_000, min=1, max=DAY_MS)
    step_ms: int = bounded(10_000, min=1, max=DAY_MS)
    game_ms: int = bounded(600_000, min=1, max=DAY_MS)
    referee_faults: int = bounded(3, min=1, max=1_000_000)


def read_game(reader: Reader, raw: Any, base: Path, path: KeyPath = ("game",)) -> RefereeSpec:
    """The game a mapping declares (GAME_KEYS), relative paths from base; ConfigError (one
    line) for anything wrong. The command is read from `dir` when it is given, else from
    base; the referee runs in `dir`, else in its program's (or script's) directory."""
    given = reader.mapping(raw, path, GAME_KEYS, required=("name", "referee", "players"),
                           what="a game played by a referee process: a mapping")
    name = reader.value(given["name"], path + ("name",), str, {})
    if not NAME_RE.fullmatch(name):
        reader.fail(path + ("name",), f"must be letters, digits, '.', '_' or '-', starting with a letter "
                                      f"or digit; got {name!r}")
    players = reader.value(given["players"], path + ("players",), int, {"min": PLAYERS[0], "max": PLAYERS[-1]})
    protocol = reader.value(given.get("protocol", PROTOCOLS[0]), path + ("protocol",), str,
                            {"choices": PROTOCOLS})
    seed = reader.value(given.get("seed", False), path + ("seed",), bool, {})
    command = reader.value(given["referee"], path + ("referee",), str, {})
    build = None
    if "build" in given:
        build = reader.value(given["build"], path + ("build",), str, {})
    home: Path | None = None
    if "dir" in given:
        home = read_path(reader, given["dir"], path + ("dir",), base)
        if not home.is_dir():
            reader.fail(path + ("dir",), f"must be an existing directory, got {str(home)!r}")
    try:
        parsed = parse_command(command, home or base)
    except BotSpecError as exc:
        reader.fail(path + ("referee",), str(exc))
    problem = parsed.program_problem()
    if problem is not None and not (build is not None and "/" in parsed.words[0]):   # a build makes it
        reader.fail(path + ("referee",), problem)
    problem = parsed.script_problem()
    if problem is not None and build is None:
        reader.fail(path + ("referee",), problem)
    if home is None:
        code = own_code(parsed)
        if code is None:
            reader.fail(path + ("referee",), "names no program or script of the referee's own: give "
                                             "'dir', the directory it runs in (its command is read from there)")
        home = code.parent
    readable = _readable(reader, given.get("readable"), path + ("readable",), base)
    limits = RefereeLimits(**reader.fields(given, path, RefereeLimits))
    sandbox = reader.mapping(given.get("sandbox"), path + ("sandbox",), [f for f in Limits.__dataclass_fields__])
    caps = reader.fields(sandbox, path + ("sandbox",), Limits)
    # what its command names outside its directory (inside, it reads it anyway: a build's
    # output named in the command, there only once built, must not change what it is made of)
    shown = tuple(str(p) for p in parsed.shown() if not shared(p) and not inside(p, home.resolve()))
    return RefereeSpec(name=name, command=command, argv=parsed.argv, dir=str(home), players=players,
                       protocol=protocol, seed=seed, build=build,
                       readable=tuple(dict.fromkeys((*shown, *map(str, readable)))),
                       startup_ms=limits.startup_ms, step_ms=limits.step_ms, game_ms=limits.game_ms,
                       referee_faults=limits.referee_faults, limits=tuple(sorted(caps.items())))


def _readable(reader: Reader, raw: Any, path: KeyPath, base: Path) -> tuple[Path, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        reader.fail(path, "must be a list of paths (relative to the config's directory)")
    found = []
    for i, entry in enumerate(raw):
        target = read_path(reader, entry, path + (i,), base)
        if not target.exists():
            reader.fail(path + (i,), f"no such file or directory: {str(target)!r}")
        found.append(target)
    return tuple(found)


def refuse_for_referee(reader: Reader, top: Mapping[str, Any]) -> None:
    """What a league of a game played by a referee process cannot have: rule options (the
    referee's rules are its own), openings (it starts where its referee starts it), timeout
    strikes (no move can be played for a late bot), Ray's runtime_env files (which ship the
    bots' directories, not the referee's)."""
    for key, why in (("rules", "its rules are its referee's own"),
                     ("openings", "it starts where its referee starts it")):
        if key in top:
            reader.fail((key,), f"not allowed for a game played by a referee process ({why})")
    policy = top.get("timeout_policy")
    if isinstance(policy, Mapping) and policy.get("mode") == "strikes":
        reader.fail(("timeout_policy", "mode"), "a game played by a referee process has no move to "
                                                "play for a late bot: a timeout forfeits (mode: forfeit)")
    ray = top.get("ray")
    if isinstance(ray, Mapping) and ray.get("files") == "runtime_env":
        reader.fail(("ray", "files"), "the nodes are not sent a referee's directory: a game played by a "
                                      "referee process needs files: shared (its files at the same paths "
                                      "on every node)")


def check_referee_sight(reader: Reader, spec: RefereeSpec, bots: Sequence[BotConfig],
                        store: Path | None, publish: Path | None, path: KeyPath = ("game",)) -> None:
    """Refuse a referee whose directory or readable paths hold the store (or its side files),
    the published site, this config or a bot's own directory: it could read every result,
    or the bots' code."""
    config_file = Path(reader.source).resolve() if Path(reader.source).is_file() else None
    forbidden = protected(store, publish)
    if config_file is not None:
        forbidden.append((config_file, f"this config {str(config_file)!r}"))
    forbidden += [(bot.dir.resolve(), f"bot {bot.name!r}'s directory {str(bot.dir)!r}")
                  for bot in bots if bot.dir is not None]
    for root in (spec.dir, *spec.readable):
        shown = Path(root).resolve()
        for held, what in forbidden:
            if inside(held, shown) or inside(shown, held):
                reader.fail(path + ("dir",), f"the referee would read {str(shown)!r}, which holds "
                                             f"{what}; give the referee a directory of its own")


def game_file(path: Path) -> RefereeSpec:
    """The game a YAML file declares (`arena match --game FILE`): the mapping at its top, or
    under `game:` (a league config); ConfigError (one line) for anything wrong."""
    from .configfile import read_yaml
    data, reader = read_yaml(path)
    at: KeyPath = ()
    if isinstance(data, Mapping) and isinstance(data.get("game"), Mapping):
        data, at = data["game"], ("game",)
    return read_game(reader, data, path.resolve().parent, at)


def referee_game(declared: Mapping[str, Any], base_dir: str | Path, source: str = "<plugin>") -> type[ExternalGame]:
    """A game played by a referee process, for a plugin's arena_register_games: the mapping a
    league config's `game:` takes (its relative paths from base_dir, the plugin's own
    directory, say); ConfigError (one line) for anything wrong."""
    return referee_game_class(read_game(Reader(source, {}), dict(declared), Path(base_dir).resolve(), ()))


def referee_bot(spec: RefereeSpec) -> BotConfig:
    """The referee as its build and its fingerprint see a bot: its command, directory,
    readable paths and build."""
    return BotConfig(name=f"referee {spec.name}", command=spec.command, argv=spec.argv, dialect=spec.protocol,
                     dir=Path(spec.dir), readable=tuple(Path(p) for p in spec.readable), build=spec.build)


__all__ = ["GAME_KEYS", "RefereeLimits", "check_referee_sight", "game_file", "read_game", "referee_bot",
           "referee_game", "refuse_for_referee"]
