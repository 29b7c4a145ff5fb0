"""A league config read against the registered plugins: its bots (their names, the games
they play, their options and the files those name), its games, dialects and executors."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.errors import did_you_mean
from arena.plugins import Plugins, plugins_or_loaded

from .botentries import OptionFiles
from .config import BotCheck, BotProblem, LeagueConfig, PathCheck, load_config

#: what a league config's missing option file is told beside its path
NO_FILE_HINT = (" (a path is taken from the config's directory; JSON text starting with '{' is "
                "also allowed)")


def known_bots_check(plugins: Plugins, base_dir: str | Path | None = None) -> BotCheck:
    """The config validator's bot check, answered from the loaded plugins; with base_dir
    (the config's directory) files named by file options must exist. A bot's options are
    checked by its declaration (BotDeclaration.options_problem)."""
    def check(name: str, game: str, options: Mapping[str, Any]) -> str | BotProblem | None:
        decl = plugins.bots.get(name)
        if decl is None:
            names = [b.name for b in plugins.bots.all()]
            return f"unknown bot {name!r}{did_you_mean(name, names)}; `arena bots` lists them"
        if not decl.plays(game):
            return f"bot {name!r} plays {decl.game}, not {game}"
        problem = decl.options_problem(options, base_dir)
        if problem is None:
            return None
        return BotProblem(problem.message + (NO_FILE_HINT if problem.missing else ""), option=problem.key)
    return check


def option_files(plugins: Plugins, base_dir: str | Path) -> OptionFiles:
    """The files a registered bot's options name, by option (absolute, from base_dir), as
    the sandbox will show them to it."""
    def files(name: str, options: Mapping[str, Any]) -> dict[str, Path]:
        decl = plugins.bots.get(name)
        if decl is None:
            return {}
        found = {key: decl.options[key].file_path(value, base_dir)
                 for key, value in options.items() if key in decl.options}
        return {key: path.resolve() for key, path in found.items() if path is not None}
    return files


def load_league(path: str, plugins: Plugins | None = None,
                publish_check: PathCheck | None = None) -> LeagueConfig:
    """A league config validated against the plugins' bots, games, dialects and the rest
    (by default the loaded plugins'; and with publish_check, its `publish` path: a run's)."""
    plugins = plugins_or_loaded(plugins)
    base = Path(path).resolve().parent
    return load_config(path, known_bots_check(plugins, base), plugins=plugins,
                       publish_check=publish_check, option_files=option_files(plugins, base))


__all__ = ["NO_FILE_HINT", "known_bots_check", "load_league", "option_files"]
