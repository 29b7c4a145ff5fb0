"""What a plugin declares about a bot: BotDeclaration and its BotOptions.

Plain data with no plugin machinery (no pluggy, no importlib.metadata), so a bot's own
sandboxed process may import it, as the reference bots' catalog does; arena.plugins
re-exports both for plugin authors.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.registry import PluginError
from arena.userfiles import not_regular, path_problem, shown

#: what a bot option's value may be (BotOption.kind)
OPTION_KINDS = ("integer", "number", "boolean", "text", "json")


@dataclass(frozen=True)
class BotOption:
    """One option a bot accepts: its default, what values it takes, and its help.

    kind (one of OPTION_KINDS; None: anything) and the inclusive bounds low/high are
    checked before a league runs, so a bad value is a config error, not lost games.
    "json" is a mapping, or JSON text of one (with file=True also a file's path).
    A default of None allows null: it means the bot's own default."""

    default: Any
    help: str = ""
    #: the value may name a file (a string not starting with "{"): a relative path is taken
    #: from the league config's directory, and the file is made readable in the sandbox
    file: bool = False
    kind: str | None = None
    low: float | None = None
    high: float | None = None

    def problem(self, value: Any) -> str | None:
        """Why value is not allowed for this option, in words; None if it is."""
        if value is None and self.default is None:
            return None
        kind = self.kind
        if kind in ("integer", "number"):
            ok = isinstance(value, int) if kind == "integer" else isinstance(value, (int, float))
            if (isinstance(value, bool) or not ok
                    or (isinstance(value, float) and not math.isfinite(value))
                    or (self.low is not None and value < self.low)
                    or (self.high is not None and value > self.high)):
                return f"must be {self.describe()}, got {value!r}"
        elif kind == "boolean" and not isinstance(value, bool):
            return f"must be true or false, got {value!r}"
        elif kind == "text" and not isinstance(value, str):
            return f"must be text, got {value!r}"
        elif kind == "json":
            wrong = _json_problem(value, self.file, self.describe())
            if wrong is not None:
                return wrong
        if self.file and isinstance(value, str) and not value.lstrip().startswith("{"):
            wrong = path_problem(value)
            return None if wrong is None else f"names a file, but {wrong}; got {shown(value)}"
        return None

    def describe(self) -> str:
        """The allowed values in words: 'an integer >= 1', 'a number from 0 to 100'."""
        noun = {"integer": "an integer", "number": "a number", "boolean": "true or false",
                "text": "text", "json": "a mapping or JSON text of one"
                + (", or a file's path" if self.file else "")}.get(self.kind or "", "any value")
        low, high = (_number(b) for b in (self.low, self.high))
        if low is not None and high is not None:
            noun += f" from {low} to {high}"
        elif low is not None:
            noun += f" >= {low}"
        elif high is not None:
            noun += f" <= {high}"
        return noun + (" (or null)" if self.default is None else "")

    def file_path(self, value: Any, base_dir: str | Path | None = None) -> Path | None:
        """The absolute path this option's value names, or None when it names no file."""
        if not self.file or not isinstance(value, str) or value.lstrip().startswith("{"):
            return None
        return (Path(base_dir or ".") / Path(value).expanduser()).resolve()


def _number(bound: float | None) -> str | None:
    return None if bound is None else str(int(bound)) if float(bound).is_integer() else str(bound)


def _json_problem(value: Any, file: bool, allowed: str) -> str | None:
    if isinstance(value, Mapping):
        return None
    if not isinstance(value, str):
        return f"must be {allowed}, got {value!r}"
    if value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            return f"is not valid JSON ({exc}), got {value!r}"
        return None if isinstance(parsed, dict) else f"must be {allowed}, got {value!r}"
    return None if file else f"must be {allowed}, got {value!r}"


@dataclass(frozen=True)
class BotDeclaration:
    """A bot as a plugin declares it. Exactly one of target (a Python agent class
    run through the SDK, 'package.module:Class') or command (argv, with a dialect)."""

    name: str
    game: str                                  #: a game name, or "*" for any game
    description: str
    target: str | None = None
    command: tuple[str, ...] | None = None
    dialect: str = "arena"
    options: Mapping[str, BotOption] = field(default_factory=dict)
    plugin: str = ""                           #: filled in by the registry

    def plays(self, game: str) -> bool:
        return self.game in ("*", game)

    def options_problem(self, given: Mapping[str, Any],
                        base_dir: str | Path | None = None) -> OptionProblem | None:
        """The first of the given options this bot refuses, or None: an option it does not
        have, a value its option does not take, or (given base_dir, where a relative path
        is read from) a file option naming no file or no regular file. The one check of a
        bot's options: a league config, `arena match NAME:KEY=VALUE` and check_options
        all ask it, and word what it found for their reader."""
        for key, value in given.items():
            if key not in self.options:
                allowed = ", ".join(self.options) or "none"
                return OptionProblem(key, f"bot {self.name!r} has no option {key!r} "
                                          f"(options: {allowed})", unknown=True)
            option = self.options[key]
            wrong = option.problem(value)
            if wrong is not None:
                return OptionProblem(key, wrong)
            path = option.file_path(value, base_dir) if base_dir is not None else None
            if path is not None and not path.exists():
                return OptionProblem(key, f"no file {str(path)!r}", missing=True)
            kind = None if path is None else not_regular(path)
            if kind is not None:
                return OptionProblem(key, f"{str(path)!r} is {kind}, not a regular file")
        return None

    def check_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with given options; PluginError names an option the bot
        refuses (options_problem)."""
        problem = self.options_problem(given)
        if problem is not None:
            raise PluginError(problem.message if problem.unknown
                              else f"bot {self.name!r} option {problem.key!r}: {problem.message}")
        return {**{k: o.default for k, o in self.options.items()}, **given}


@dataclass(frozen=True)
class OptionProblem:
    """What BotDeclaration.options_problem found: the option to blame (key) and what is
    wrong with it, in words; unknown: the bot has no such option (the message names the
    bot and the options it has); missing: a file option naming no file."""

    key: str
    message: str
    unknown: bool = False
    missing: bool = False
