"""A submission's validation: its bot entry checked as the ladder would take it, then a
match against a bot of the ladder, played by the league's own runner in the sandbox."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.league.config import ConfigError, LeagueConfig, validate_entrant
from arena.league.configfile import format_path
from arena.league.progress import Progress
from arena.league.runner import known_bots_check, load_league, run_league
from arena.league.store import Store
from arena.plugins import Plugins, plugins_or_loaded

from .admission import admit
from .process import SubmissionError
from .roster import RosterEntry, as_config_entry


@dataclass(frozen=True)
class Validation:
    """How a validation match ended: ok when every game ended without a fault of the
    candidate; else the first fault in words, with the candidate's stderr tail of that game."""

    ok: bool
    fault: str | None
    stderr_tail: str
    games: int



def validate(config_path: Path, entry: RosterEntry | Mapping[str, Any], against: str, games: int,
             workdir: Path, *, plugins: Plugins | None = None) -> Validation:
    """Play `games` games (seat-swapped pairs) of the candidate bot entry against the bot
    `against` of the ladder config, under the ladder's game, rules, time control and
    sandbox, through the league's own runner, with the store in workdir (which no bot
    reads). SubmissionError for an entry the config would not take or an `against` it
    lacks; RunError when the host cannot play (no fault of the bot); KeyboardInterrupt
    when a stop (Ctrl-C, SIGTERM) cut its games short, which is no verdict. plugins: the
    server's (by default the loaded ones). The entry is a RosterEntry, or a config's bot
    entry as a mapping."""
    entry = as_config_entry(entry)
    plugins = plugins_or_loaded(plugins)
    config = _load(config_path, plugins)
    if games < 2 or games % 2:
        raise SubmissionError(f"validation games must be an even number >= 2 (seat-swapped "
                              f"pairs), got {games!r}")
    if config.made_game(plugins.games).seats != 2:   # (its referee process's, or registered)
        raise SubmissionError(f"validation plays games of two seats; {config.game} here has more")
    opponent = next((bot for bot in config.bots if bot.name == against), None)
    if opponent is None:
        raise SubmissionError(f"validate.against: no bot {against!r} in {config_path}; "
                              f"its bots are {', '.join(config.bot_names)}")
    try:   # as the ladder would take it: no organiser's bot's name, nothing of theirs to read
        candidate = validate_entrant(dict(entry), config, known_bots_check(plugins, config.base_dir),
                                     plugins=plugins)
    except ConfigError as exc:
        raise SubmissionError(_entry_problem(exc)) from None
    admit([entry], [candidate], config)
    # the organiser's bot as the ladder built it: its build ran already, on the host
    opponent = dataclasses.replace(opponent, build=None)
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    seen = [path for path in (candidate.dir, *candidate.readable) if path is not None]
    if any(workdir == path or path in workdir.parents for path in seen):
        raise SubmissionError(f"the validation's directory {str(workdir)!r} lies in what the "
                              "bot reads; give one outside it")
    league = dataclasses.replace(
        config, bots=(candidate, opponent), schedule="round-robin", candidates=(), ladder=None,
        games=None, games_per_pairing=games, workers=1, executor="local", ray=None,
        sandbox_mode="bwrap", store=workdir / "validation.sqlite", publish=None, source=None)
    quiet = io.StringIO()
    summary = run_league(league, plugins, workers=1, progress=Progress(0, stream=quiet, tty=False),
                         keep_going=True, standings=0, out=quiet)
    if summary.interrupted:   # Ctrl-C or SIGTERM: its games were cut short, no verdict on the bot
        raise KeyboardInterrupt
    return _verdict(league, candidate.name, games)


def _entry_problem(exc: ConfigError) -> str:
    """What is wrong with a submission's entry, without the organiser's config file and line
    it would be read at (`ladder.yaml:9: bots[7].command: ...` is `command: ...`)."""
    if exc.path[:1] == ("bots",) and len(exc.path) > 1 and isinstance(exc.path[1], int):
        key = format_path(exc.path[2:])
        return f"{key}: {exc.problem}" if key else exc.problem
    return str(exc)


def _load(config_path: Path, plugins: Plugins) -> LeagueConfig:
    try:
        return load_league(str(config_path), plugins)
    except ConfigError as exc:
        raise SubmissionError(f"the ladder's config is not valid: {exc}") from None


def _verdict(league: LeagueConfig, name: str, games: int) -> Validation:
    """The validation's result as its store has it: the candidate's first fault, if any."""
    with Store(league.store, readonly=True) as store:
        records = [game.record for game in store.games.records()]
    for record in records:
        if record.faulted is not None and record.bots[record.faulted].name == name:
            fault = record.termination.label + (f": {record.reason}" if record.reason else "")
            return Validation(False, fault, record.stderr_tails[record.faulted], len(records))
    if len(records) < games:
        return Validation(False, f"validation stopped after {len(records)} of {games} games", "",
                          len(records))
    return Validation(True, None, "", len(records))



__all__ = ["Validation", "validate"]
