"""The roster: the file the server's running ladder watches, the organiser's config with the
accepted submissions' bots appended and its stop conditions left out."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from arena.league.config import ConfigError
from arena.league.configfile import read_yaml
from arena.league.runner import load_league
from arena.plugins import Plugins, plugins_or_loaded

from .process import SubmissionError
from .validation import confine

#: the stop conditions of a ladder, which the roster leaves out: the server's ladder plays on
STOP_KEYS = ("games", "hours", "until")


class _PlainDumper(yaml.SafeDumper):
    """YAML without anchors: every entry written out in full."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def roster_path(config_path: Path) -> Path:
    """Where the roster of a ladder config lies: beside it, `.<stem>.serve.yaml`."""
    config_path = Path(config_path)
    return config_path.with_name(f".{config_path.stem}.serve.yaml")


def write_roster(config_path: Path, extra: Sequence[Mapping[str, Any]], *,
                 plugins: Plugins | None = None) -> Path:
    """Write the file the running ladder watches: the organiser's config with the `extra`
    bot entries appended and its stop conditions (ladder: games, hours, until) left out,
    beside it so that its relative paths hold. It is checked as `arena run` reads it
    before it replaces the last one at once (os.replace); SubmissionError (the roster as
    it was) when it would not be taken. Its path."""
    config_path = Path(config_path).resolve()
    try:
        data, _reader = read_yaml(config_path)
    except ConfigError as exc:
        raise SubmissionError(f"the ladder's config is not valid: {exc}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("bots"), list):
        raise SubmissionError(f"{config_path}: the ladder's config has no list of bots")
    for item in extra:
        if "build" in item:
            raise SubmissionError(f"bot {item.get('name')!r}: a submission's build runs in the "
                                  "sandbox (build()), never as a league's build: on the host")
    roster = dict(data)
    roster["bots"] = [*data["bots"], *(_plain(dict(item)) for item in extra)]
    if isinstance(roster.get("ladder"), Mapping):
        roster["ladder"] = {k: v for k, v in roster["ladder"].items() if k not in STOP_KEYS}
    target = roster_path(config_path)
    text = yaml.dump(roster, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True)
    fd, temp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(f"# written by arena serve from {config_path.name}: edit that file instead\n")
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        try:
            taken = load_league(temp, plugins_or_loaded(plugins))
        except ConfigError as exc:
            raise SubmissionError(str(exc).replace(temp, str(target))) from None
        for bot, item in zip(taken.bots[len(taken.bots) - len(extra):], extra):
            confine(bot, item, taken)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target


def _plain(value: Any) -> Any:
    """Entries as YAML writes them: paths as text, tuples as lists."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value



__all__ = ["STOP_KEYS", "roster_path", "write_roster"]
