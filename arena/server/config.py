"""The `server:` section of a ladder config: where the server keeps its data, how a new
version is validated, the caps on uploads and builds, the rate limits. `arena run`
accepts the section and ignores it; `arena serve` and `arena users` read it here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bounds import bounded
from arena.league.config import LeagueConfig
from arena.league.configfile import Reader, read_path, read_yaml
from arena.plugins import Plugins, plugins_or_loaded

from .build import BuildLimits
from .uploads import UploadCaps

SERVER_KEYS = ("data", "validate", "uploads", "build", "rates")
VALIDATE_KEYS = ("against", "games")
MAX_VALIDATION_GAMES = 20


@dataclass(frozen=True)
class RateLimits:
    """What one participant may ask of the server."""

    submissions_per_hour: int = bounded(20, min=1, max=100_000)
    requests_per_second: float = bounded(20.0, above=0, max=100_000)
    #: requests allowed at once above the rate (a page and its assets, a burst of polls)
    burst: int = bounded(60, min=1, max=100_000)
    #: a request body other than an upload (a login, a form without a file)
    form_bytes: int = bounded(64 * 1024, min=1024, max=16 * 1024 * 1024)
    session_hours: float = bounded(24.0 * 7, above=0, max=24.0 * 366)
    #: scrypt checks of tokens the server makes a second, whatever the addresses asking (a
    #: token checked once is known after: a participant's own requests cost none); each
    #: costs some tens of ms of a CPU
    token_checks_per_second: float = bounded(4.0, above=0, max=1000)
    token_checks_burst: int = bounded(20, min=1, max=10_000)


@dataclass(frozen=True)
class ServerConfig:
    """A ladder config as the server runs it."""

    path: Path                  #: the organiser's config file
    league: LeagueConfig
    data: Path                  #: the server's own directory (server.sqlite, submissions/)
    validate_against: str       #: the config's bot a new version plays first
    validate_games: int
    #: the plugins it was read with: what the server's processes look names up in
    plugins: Plugins = field(compare=False, repr=False)
    rates: RateLimits = field(default_factory=RateLimits)
    uploads: UploadCaps = field(default_factory=UploadCaps)
    build: BuildLimits = field(default_factory=BuildLimits)

    @property
    def database(self) -> Path:
        """The server's SQLite file: users, sessions, submissions."""
        return self.data / "server.sqlite"

    @property
    def submissions(self) -> Path:
        """Where each accepted upload's directory is kept, submissions/BOT/N/."""
        return self.data / "submissions"


def default_data_dir(store: Path) -> Path:
    """results/x.sqlite -> results/x.server: the server's data beside the league's store."""
    return store.with_suffix(".server") if store.suffix else store.with_name(store.name + ".server")


def load_server(path: str | Path, plugins: Plugins | None = None, limits: bool = True) -> ServerConfig:
    """The league config at path (it must be a ladder) with its `server:` section read,
    against the plugins (by default the loaded ones); raises ConfigError in one line naming
    the file, the key and what is allowed. Without limits the upload caps and build limits
    are left unread (the defaults): `arena users` needs none."""
    from arena.league.runner import load_league
    plugins = plugins_or_loaded(plugins)
    league = load_league(str(path), plugins)
    data, reader = read_yaml(path)
    raw = data.get("server") if isinstance(data, dict) else None
    if league.schedule != "ladder":
        reader.fail(("schedule",), "arena serve runs a ladder: give schedule: ladder "
                                   f"(schedule is {league.schedule!r})")
    section = reader.mapping(raw, ("server",), SERVER_KEYS)
    base = Path(path).resolve().parent
    data_dir = default_data_dir(league.store)
    if "data" in section:
        data_dir = read_path(reader, section["data"], ("server", "data"), base)
    against, games = _validate(reader, section.get("validate"), league)
    return ServerConfig(
        path=Path(path), league=league, data=data_dir, validate_against=against,
        validate_games=games, plugins=plugins,
        rates=reader.section(section.get("rates"), ("server", "rates"), RateLimits),
        uploads=_caps(reader, section.get("uploads")) if limits else UploadCaps(),
        build=_build_limits(reader, section.get("build")) if limits else BuildLimits())


def _validate(reader: Reader, raw: Any, league: LeagueConfig) -> tuple[str, int]:
    """(the bot a new version plays first, how many games): the config's first bot and 2
    unless `validate:` says."""
    given = reader.mapping(raw, ("server", "validate"), VALIDATE_KEYS)
    names = league.bot_names
    against = reader.value(given.get("against", names[0] if names else ""), ("server", "validate", "against"),
                           str, {})
    if against not in names:
        reader.fail(("server", "validate", "against"), f"unknown bot {against!r}; the config's bots: "
                                                       f"{', '.join(names) or 'none'}")
    games = reader.value(given.get("games", 2), ("server", "validate", "games"), int,
                         {"min": 2, "max": MAX_VALIDATION_GAMES})
    if games % 2:
        reader.fail(("server", "validate", "games"), f"must be even (games are played in seat-swapped "
                                                     f"pairs), got {games}")
    return against, games


def _caps(reader: Reader, raw: Any) -> UploadCaps:
    return reader.section(raw, ("server", "uploads"), UploadCaps)


def _build_limits(reader: Reader, raw: Any) -> BuildLimits:
    return reader.section(raw, ("server", "build"), BuildLimits)
