"""A league's identity and a match's: the settings that make it the league (or the
`arena match`) it is, as its store keeps them, and how a store's differ from a config's,
in words that name what changed."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from arena.games import Game
from arena.games.external import ExternalGame, RefereeSpec
from arena.plugins import games_or_loaded
from arena.referee import BotSpec
from arena.registry import Registry
from arena.stats import SprtSpec

from .config import LeagueConfig

if TYPE_CHECKING:
    from .executors.base import GameJob  # executors import the store, which imports this


def league_identity(config: LeagueConfig, openings: str) -> dict[str, str]:
    """The settings that make a league what it is, as the store keeps them: changed, the
    old games are another league's (game, rule options, seed, openings, time control,
    timeout policy, and a referee game's referee)."""
    return {"game": config.game, "rules": json.dumps(dict(config.rules), sort_keys=True),
            "seed": str(config.seed), "openings": openings,
            "time_control": settings_text(config.time_control),
            "timeout_policy": settings_text(config.timeout_policy), **referee_identity(config.referee)}


def referee_identity(spec: RefereeSpec | None) -> dict[str, str]:
    """A referee game's part of its identity (docs/referees.md): what its referee is and its
    fingerprint, once a run took it (arena.league.referees). Before that there is none: a
    config read again (a ladder watching its file) binds without it, leaving the stored one."""
    if spec is None or not spec.fingerprint:
        return {}
    return {"referee": json.dumps({**spec.identity(), "fingerprint": spec.fingerprint}, sort_keys=True)}


def same_rules(stored: str, current: str, game: str, games: Registry[type[Game]] | None = None) -> bool:
    """Whether a store's rule options are the config's, counting an option the store predates
    (a game of games, by default the loaded plugins', gained it since) as agreeing when the
    config leaves it at its default."""
    old, new = json.loads(stored), json.loads(current)
    if old == new:
        return True
    games = games_or_loaded(games)
    if game not in games.names():  # e.g. a plugin game no longer installed
        return False
    defaults = {opt.name: opt.default for opt in games.require(game).info.options}
    return set(old) <= set(new) and all(
        old[k] == new[k] if k in old else k in defaults and new[k] == defaults[k] for k in new)


def settings_text(section: Any) -> str:
    """A settings dataclass as sorted JSON, as the store keeps it: a field left unset (None,
    as first_move_ms, which time controls gained later) is not written, so a league's
    settings read as they did before it had one."""
    return json.dumps(settings_dict(section), sort_keys=True)


def settings_dict(section: Any) -> dict[str, Any]:
    """A settings dataclass as a mapping, its unset (None) fields left out."""
    return {key: value for key, value in dataclasses.asdict(section).items() if value is not None}


def fill_identity(meta: dict[str, str]) -> None:
    """Identity keys a store from an older arena lacks, read from its config snapshot."""
    meta.setdefault("openings", "none")
    snapshot = json.loads(meta.get("config", "{}"))
    for key in ("time_control", "timeout_policy"):
        if key not in meta and key in snapshot:
            meta[key] = json.dumps(snapshot[key], sort_keys=True)


def fill_match_identity(meta: dict[str, str]) -> None:
    """A match store from an older arena names each bot with its command, options and what
    it reads; those are its version now (arena.league.versions), so only its name is kept."""
    bots = json.loads(meta.get("match.bots", "[]"))
    if any(set(bot) != {"name"} for bot in bots):
        meta["match.bots"] = json.dumps([{"name": bot["name"]} for bot in bots], sort_keys=True)


def match_identity(job: GameJob, seed: int, openings: str, sprt: SprtSpec | None) -> dict[str, str]:
    """The store keys a resumed `arena match` must agree on (Store.bind_match), from its
    job (the game, its rules, the two bots, the clocks and memory; a game played by a
    referee process: its referee and fingerprint too) and its seed, openings and test; the
    cap and concurrency may change."""
    def text(value: Any) -> str:
        return json.dumps(value, sort_keys=True)
    settings = job.settings
    referee = job.made.spec if isinstance(job.made, ExternalGame) else None
    return {"game": job.game, "rules": text(job.rules), "seed": str(seed), "openings": openings,
            "match.bots": text([bot_identity(b) for b in job.bots.values()]),
            "match.settings": text({"time": settings_dict(settings.time),
                                    "timeouts": dataclasses.asdict(settings.timeout_policy),
                                    "memory_mb": job.limits.memory_mb}),
            "match.sprt": sprt.text() if sprt is not None else "none", **referee_identity(referee)}


def bot_identity(spec: BotSpec) -> dict[str, Any]:
    """Which bot a match's seat is, on a resume: its name. What it is (how it starts, its
    options, its files, what it reads) is its version, as in a league
    (arena.match.match_bot_config)."""
    return {"name": spec.name}


def differs(key: str, old: str, new: str) -> str:
    """'seed 1, the config says 2'; for a settings mapping only what changed:
    'time_control move_ms 1000, the config says move_ms 200'."""
    try:
        before, after = json.loads(old), json.loads(new)
    except ValueError:
        before = after = None
    if isinstance(before, dict) and isinstance(after, dict) and key != "rules":
        keys = [k for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
        if key == "referee" and keys == ["fingerprint"]:
            return (f"referee {after.get('name')} at fingerprint {before['fingerprint']}, which its "
                    f"files, command or build no longer make (now {after['fingerprint']})")
        old = ", ".join(f"{k} {before.get(k)}" for k in keys)
        new = ", ".join(f"{k} {after.get(k)}" for k in keys)
    return f"{key} {old}, the config says {new}"


FIRST_PARTS = {"name": 0, "spec": 1, "options": 2, "time": 3}


def difference(key: str, stored: str, given: str) -> tuple[str, str, str]:
    """(where, stored part, given part) of the first difference of two values, JSON or text."""
    try:
        old, new = json.loads(stored), json.loads(given)
    except ValueError:
        return key, repr(stored), repr(given)
    where = key
    while True:
        if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
            # what a user wrote first (a bot's name, options), how it was resolved last
            part = next(k for k in sorted(old, key=lambda k: (FIRST_PARTS.get(k, 9), k))
                        if old[k] != new[k])
            where, old, new = f"{where}.{part}", old[part], new[part]
        elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            index = next(i for i, (a, b) in enumerate(zip(old, new)) if a != b)
            where, old, new = f"{where}[{index}]", old[index], new[index]
        else:
            return where, json.dumps(old), json.dumps(new)
