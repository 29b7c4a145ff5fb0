"""What the server's ladder takes of a submission: its bot entry, once the ladder's config
has read it as any bot's (config.validate_entrant for a validation, the roster read as
`arena run` reads it for the roster), checked here as a submission, in one place: no build
of its own on the host, and nothing to read but its own directory."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.league.config import BotConfig, LeagueConfig
from arena.league.sight import inside, shared
from arena.referee.botspec import parse_command

from .process import SubmissionError


def admit(entries: Sequence[Mapping[str, Any]], bots: Sequence[BotConfig], config: LeagueConfig) -> None:
    """Check submitted entries as the server's ladder takes a submission, each beside the
    bot the config read it as (bots, in the same order): SubmissionError (one line, naming
    the bot) for an entry with a build, which would run on the host (a submission's runs in
    the sandbox, build.py), or one that reads more than its own directory (confine)."""
    for bot, entry in zip(bots, entries, strict=True):
        if "build" in entry:
            raise SubmissionError(f"bot {bot.name!r}: a submission's build runs in the sandbox (build()), "
                                  "never as a league's build: on the host; leave 'build' out of its entry")
        confine(bot, entry, config)


def confine(bot: BotConfig, entry: Mapping[str, Any], config: LeagueConfig) -> None:
    """SubmissionError unless a submitted bot (entry, as config reads it) reads only its
    own directory, given as its `dir` and no other bot's, and the system and this Python,
    which every bot reads: the sandbox shows a bot every path its command names, and a
    league's own check allows two bots one directory (one program, two options) and knows
    nothing of the server's files (its database, other submissions)."""
    if bot.command is None:
        return   # a registered bot: the organiser's plugins declare it
    if bot.dir is None or "dir" not in entry:
        raise SubmissionError(f"bot {bot.name!r}: a submission's entry needs its 'dir', its "
                              "own directory")
    own = bot.dir.resolve()
    for other in config.bots:
        if other.name != bot.name and other.dir is not None and (
                inside(own, other.dir.resolve()) or inside(other.dir.resolve(), own)):
            raise SubmissionError(f"bot {bot.name!r}: its directory {str(own)!r} overlaps the "
                                  f"directory of bot {other.name!r}; a submission has one of its own")
    named = [path for path in parse_command(bot.command, config.base_dir).paths if path is not None]
    for path in [*named, *bot.readable]:
        if not (inside(path.resolve(), own) or shared(path.resolve())):
            raise SubmissionError(f"bot {bot.name!r}: its command or readable names {str(path)!r}, "
                                  f"outside its own directory {str(own)!r}; a submission may read "
                                  "only its own files")


__all__ = ["admit", "confine"]
