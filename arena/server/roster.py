"""The roster: who plays in the server's ladder. The file the running ladder watches (the
organiser's config with the accepted submissions' bots appended and its stop conditions
left out), and an admin's changes to who plays (retire a bot, bring it back, suspend a
participant's bot), which go to the league's store and the server's database from here
only."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import yaml

from arena.errors import ArenaError
from arena.league.config import ConfigError, plain_data
from arena.league.configfile import read_yaml
from arena.league.runner import load_league
from arena.league.store import Store, StoreError
from arena.plugins import Plugins, plugins_or_loaded

from .admission import admit
from .db import ServerDB
from .process import SubmissionError

#: the stop conditions of a ladder, which the roster leaves out: the server's ladder plays on
STOP_KEYS = ("games", "hours", "until")
#: what an admin may do to a bot of the ladder
BOT_ACTIONS = ("retire", "unretire", "suspend")


@dataclass(frozen=True)
class RosterEntry:
    """A participant's bot as the server hands it to the ladder: one bot entry of the roster,
    which the ladder reads as it reads any config's bot. What the ladder needs of it: its
    name (the submitted bot's), the command that starts it, its own directory (all it may
    read besides the system) and its dialect (None: the config's default)."""

    name: str
    command: str
    dir: Path
    dialect: str | None = None

    #: the keys of its entry, in the order the roster and the server's database write them
    KEYS: ClassVar[tuple[str, ...]] = ("name", "command", "dir", "dialect")

    def config_entry(self) -> dict[str, str]:
        """The bot entry as a config reads it (no dialect when it has none)."""
        entry = {"name": self.name, "command": self.command, "dir": str(self.dir)}
        if self.dialect is not None:
            entry["dialect"] = self.dialect
        return entry

    def to_json(self) -> str:
        """The entry as the server's database keeps it once its submission is accepted."""
        return json.dumps(self.config_entry())

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> RosterEntry:
        """The entry of a config bot entry of these keys (a wheel's bot, as wheels.py
        declares it); SubmissionError (one line) for any other key, or a name, command or
        dir that is no text."""
        other = sorted(str(key) for key in raw if key not in cls.KEYS)
        if other:
            raise SubmissionError(f"a roster entry has only {', '.join(cls.KEYS)}; got {', '.join(other)}")
        for key in cls.KEYS:
            value = raw.get(key)
            if not isinstance(value, str) and not (key == "dialect" and value is None):
                raise SubmissionError(f"a roster entry's {key} must be text, got {value!r}")
        dialect = raw.get("dialect")
        return cls(name=raw["name"], command=raw["command"], dir=Path(raw["dir"]), dialect=dialect)

    @classmethod
    def from_json(cls, text: str) -> RosterEntry:
        """The entry the server's database keeps (to_json)."""
        return cls.from_config(json.loads(text))


def as_config_entry(entry: RosterEntry | Mapping[str, Any]) -> dict[str, Any]:
    """A bot entry as a config reads it: a roster entry's, or a mapping given as one."""
    return entry.config_entry() if isinstance(entry, RosterEntry) else dict(entry)


class UnknownBot(ArenaError):
    """An admin's change names a bot the league's store does not have."""


class StoreUnavailable(ArenaError):
    """The league's store cannot be written now (an admin's change is not made)."""


class _PlainDumper(yaml.SafeDumper):
    """YAML without anchors: every entry written out in full."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def roster_path(config_path: Path) -> Path:
    """Where the roster of a ladder config lies: beside it, `.<stem>.serve.yaml`."""
    config_path = Path(config_path)
    return config_path.with_name(f".{config_path.stem}.serve.yaml")


def write_roster(config_path: Path, extra: Sequence[RosterEntry | Mapping[str, Any]], *,
                 plugins: Plugins | None = None) -> Path:
    """Write the file the running ladder watches: the organiser's config with the `extra`
    bot entries appended and its stop conditions (ladder: games, hours, until) left out,
    beside it so that its relative paths hold. It is checked as `arena run` reads it
    before it replaces the last one at once (os.replace); SubmissionError (the roster as
    it was) when it would not be taken. Its path. An entry is a RosterEntry, or a config's
    bot entry as a mapping."""
    entries = [as_config_entry(item) for item in extra]
    config_path = Path(config_path).resolve()
    try:
        data, _reader = read_yaml(config_path)
    except ConfigError as exc:
        raise SubmissionError(f"the ladder's config is not valid: {exc}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("bots"), list):
        raise SubmissionError(f"{config_path}: the ladder's config has no list of bots")
    roster = dict(data)
    roster["bots"] = [*data["bots"], *(plain_data(item) for item in entries)]
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
        admit(entries, taken.bots[len(taken.bots) - len(entries):], taken)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target





# --- an admin's changes to who plays ---------------------------------------------------------

def retired_bots(store_path: Path) -> set[str]:
    """The bots retired in the league's store (none before it exists)."""
    if not store_path.is_file():
        return set()
    with Store(store_path, readonly=True) as store:
        return store.bots.retired()


def change_bot(store_path: Path, db: ServerDB, name: str, action: str) -> str:
    """Retire a bot, bring it back, or suspend a participant's bot (its version in the
    ladder stops, its accepted submissions are rejected so that it leaves the roster; a new
    submission plays again); what was done, in words. UnknownBot when the store has no bot
    name, StoreUnavailable when the store cannot be written."""
    try:
        store = Store(store_path)
    except StoreError as exc:
        raise StoreUnavailable(f"the league's store cannot be written now: {exc}") from None
    with store:
        versions = store.bots.current()
        if name not in versions:
            raise UnknownBot(f"no bot {name[:40]!r} in the league's store")
        if action == "retire":
            store.bots.retire(name)
            return f"{name}: retired (its games stay as history)"
        if action == "unretire":
            store.bots.retire(name, False)
            return f"{name}: back in the ladder"
        store.bots.suspend(name, versions[name], "suspended by an admin")
    for submission in db.submissions(bot=name, status="accepted"):
        db.set_status(submission.id, "rejected",
                      message="suspended by an admin; a new submission plays again")
    return f"{name} v{versions[name]}: suspended"


__all__ = ["BOT_ACTIONS", "STOP_KEYS", "StoreUnavailable", "UnknownBot", "change_bot", "retired_bots",
           "roster_path", "write_roster"]
