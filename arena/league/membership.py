"""A running ladder's membership: its config and its bots' files watched, so that a bot
added joins, a bot edited becomes a new version and a bot removed or retired stops, with
no restart.

Membership.poll() is cheap when nothing changed: it stats the config and the bots' files
and reads the retired bots (0.69 ms for 32 bots of 5 files, each in its own directory, on
2 busy cores: benchmarks/membership.py). Only what changed, once its files have been still
for RACY_SECONDS, is read again: the config is validated whole (as `arena run` reads it),
a changed bot is rebuilt (`build:`) and fingerprinted again (the hash cache spares its
unchanged files), and a new version is recorded in the store. A change the ladder cannot
take (a broken edit, another game, a build that fails) is refused in one message, once,
and the ladder goes on as it was.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.plugins import Plugins
from arena.referee.botspec import code_paths

from .builds import BuildError, build_bots, build_key, build_outputs
from .config import BotConfig, ConfigError, LeagueConfig, PathCheck
from .identity import differs
from .loading import load_league
from .store import Store, VersionNote
from .versions import (
    EXCLUDED_NAMES,
    EXCLUDED_SUFFIXES,
    RACY_SECONDS,
    Manifest,
    RunCache,
    bot_roots,
    fingerprint,
    manifest_of,
    store_files,
)

#: settings that make the ladder the league it is: its games are all played under them
IDENTITY_KEYS = ("game", "rules", "seed", "openings", "openings_order", "time_control",
                 "timeout_policy")
#: settings a running ladder was started with and keeps until it is run again (its
#: matchmaker is made once for a run, and may keep state between calls)
RUN_KEYS = ("store", "sandbox", "schedule", "executor", "ray", "workers", "pin_workers", "rating",
            "ladder.matchmaker")

#: (mtime_ns, size, inode) of a file; None when there is none
FileStat = tuple[int, int, int] | None
#: a bot's files as stat saw them: (path, size, mtime_ns, inode) each, in order
Signature = tuple[tuple[str, int, int, int], ...]


@dataclass(frozen=True)
class MembershipUpdate:
    """What poll() found: the config now in force and the bots that joined, changed and
    left; refused: what could not be taken (the ladder goes on without it)."""

    config: LeagueConfig
    added: list[str] = field(default_factory=list)
    changed: list[VersionNote] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    refused: str | None = None
    #: why each removed bot left: "removed from the config" or "retired"
    why_removed: Mapping[str, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The update as the terminal says it, one line a change (a refused build's
        output follows its line)."""
        out = [f"{name}: joins the ladder" for name in self.added]
        out += [f"{note}; its earlier versions play no more" for note in self.changed]
        out += [f"{name}: {self.why_removed.get(name, 'removed')}, plays no more"
                for name in self.removed]
        if self.refused is not None:
            out.append(f"not taken: {self.refused}")
        return out


@dataclass
class _Seen:
    """A bot as the last poll saw it, and the version of it that plays."""

    bot: BotConfig              #: as the config last gave it
    signature: Signature        #: its files when last looked at
    settled: bool               #: False: a file was too fresh to trust its mtime; look again
    playing: BotConfig | None   #: the entry whose version plays (None: it never joined)
    print_: str | None          #: that version's fingerprint


class Membership:
    """Watches a ladder's config file and its bots' files; poll() says what changed."""

    def __init__(self, config_path: str | os.PathLike[str], config: LeagueConfig,
                 plugins: Plugins, store: Store, publish_check: PathCheck | None = None) -> None:
        """Take the config and the bots as they are now as the ones in force (the ladder has
        synced their versions as it started); nothing is written to the store."""
        self.path = Path(config_path)
        self.config = config
        self.plugins = plugins
        self.store = store
        self.publish_check = publish_check
        self._file_config = config          # the file as last taken (a failed build aside)
        self._file_stat = _file_stat(self.path)   # as it was read
        self._last_refusal: str | None = None
        #: the changed bots' files (name, signature) when the config last failed to read
        self._blocked: tuple[tuple[str, Signature], ...] | None = None
        self._skip = store_files(config.store)
        self._builds = store.caches.builds()
        self._cache = RunCache(store.caches.hashes())
        self._retired = store.bots.retired()
        self._root_cache: dict[str, tuple[BotConfig, list[Path]]] = {}
        scan = _Scan(self._skip)
        self._seen: dict[str, _Seen] = {}
        for bot in config.bots:
            signature, settled = scan.signature(self._roots(bot))
            manifest = self._manifest(bot, config.bots)
            self._seen[bot.name] = _Seen(bot, signature, settled, bot, fingerprint(manifest))
        self._saved_cache = dict(self._cache)   # as the store has it: the ladder saved it

    # --- the one entry point ---

    def poll(self) -> MembershipUpdate | None:
        """What changed since the last poll (None: nothing). New versions are synced into
        the store before they are reported; a refused change is reported once."""
        refusals: list[str] = []
        stat = _file_stat(self.path)
        reread = stat != self._file_stat
        if reread and not _settled_stat(stat):
            return None   # being written: read once it has been still for RACY_SECONDS
        self._file_stat = stat
        retired = self.store.bots.retired()
        scan = _Scan(self._skip)
        dirty = self._dirty(self._file_config.bots, retired, scan)
        waiting = tuple((name, scan.signature(self._roots(self._bot(name)))[0]) for name in dirty)
        if not reread and dirty and waiting == self._blocked:
            dirty = []   # the config failed with these bots as they are: it would again
        elif reread or dirty:
            try:
                read = load_league(str(self.path), self.plugins, self.publish_check)
            except ConfigError as exc:   # the config in force stays, bots as they play now:
                refusals.append(str(exc))
                dirty = []   # a changed bot stays changed, taken once the config reads again
                self._blocked = waiting
            else:
                self._blocked = None
                fixed = self._fixed_change(read)
                if fixed is not None:
                    refusals.append(fixed)
                else:
                    self._file_config = read
                    self._last_refusal = None   # taken: a refusal met again is said again
                    dirty = self._dirty(read.bots, retired, scan)

        manifests: dict[str, Manifest] = {}
        for name in dirty:
            manifest, problem = self._refingerprint(self._bot(name), scan)
            if problem is not None:
                refusals.append(problem)
            elif manifest is not None:
                manifests[name] = manifest
        notes = self.store.bots.sync(manifests) if manifests else []
        for name, manifest in manifests.items():
            seen = self._seen[name]
            seen.playing, seen.print_ = seen.bot, fingerprint(manifest)
        if dirty and dict(self._cache) != self._saved_cache:
            self.store.caches.save_hashes(self._cache)
            self._saved_cache = dict(self._cache)
        return self._update(retired, notes, refusals)

    def fingerprints(self) -> dict[str, str]:
        """Each bot's fingerprint of the version in force, as its BotSpec is to carry it (a
        worker keys its bot processes by it), without reading the store."""
        return {bot.name: seen.print_ for bot in self.config.bots
                if (seen := self._seen.get(bot.name)) is not None and seen.print_ is not None}

    # --- the config ---

    def _fixed_change(self, read: LeagueConfig) -> str | None:
        """The refusal of a config that changes what a running ladder keeps, else None."""
        old, new = self.config.to_dict(), read.to_dict()
        keys = [key for key in IDENTITY_KEYS + RUN_KEYS if _at(old, key) != _at(new, key)]
        if not keys:
            return None
        key = keys[0]
        more = f" (and {', '.join(keys[1:])})" if keys[1:] else ""
        again = (" (with another store, or --new-season: the ladder's games are all played "
                 "under one " + key + ")") if key in IDENTITY_KEYS else ""
        return (f"{self.path}: {differs(key, _text(_at(old, key)), _text(_at(new, key)))}{more}: "
                f"a running ladder keeps its {key}; nothing of this edit is taken until it is "
                f"put back, or the ladder is stopped and run again{again}")

    # --- the bots ---

    def _dirty(self, bots: Iterable[BotConfig], retired: set[str], scan: _Scan) -> list[str]:
        """The bots (not retired) that are new, or whose entry or files differ from when
        they were last looked at, once their files have been still for RACY_SECONDS: a file
        being written (a copy, an editor's save) is not taken half done, and an edit after
        that changes an mtime the scan has seen settled."""
        out = []
        for bot in bots:
            if bot.name in retired:
                continue
            seen = self._seen.get(bot.name)
            signature, settled = scan.signature(self._roots(bot))
            if not settled:
                continue
            if seen is None or seen.bot != bot or not seen.settled or signature != seen.signature:
                out.append(bot.name)
        return out

    def _bot(self, name: str) -> BotConfig:
        return next(bot for bot in self._file_config.bots if bot.name == name)

    def _refingerprint(self, bot: BotConfig, scan: _Scan) -> tuple[Manifest | None, str | None]:
        """Build the bot if it has a build, then fingerprint it: its manifest when it is a
        version other than the one playing, else None; or the refusal of a failed build."""
        seen = self._seen.get(bot.name)
        problem = None
        if bot.build is not None:
            problem = self._build(bot, seen)
        signature, settled = scan.signature(self._roots(bot), fresh=True)   # what a build wrote
        if seen is None:
            seen = self._seen[bot.name] = _Seen(bot, signature, settled, None, None)
        seen.bot, seen.signature, seen.settled = bot, signature, settled
        if problem is not None:
            seen.settled = True   # built again when its files or entry change, not every poll
            return None, problem
        manifest = self._manifest(bot, self._file_config.bots)
        return (None if fingerprint(manifest) == seen.print_ and seen.playing == bot
                else manifest), None

    def _build(self, bot: BotConfig, seen: _Seen | None) -> str | None:
        """Run the bot's build unless it is up to date; the refusal if it fails."""
        base = self._file_config.base_dir
        try:
            done = build_bots([bot], base, self._builds, self._cache, io.StringIO(), self._skip)
        except BuildError as exc:
            playing = (f"{bot.name} keeps playing as it was" if seen is not None and seen.playing
                       else f"{bot.name} does not join")
            return f"{exc.summary}; {playing} until it builds:\n{exc.output}".rstrip()
        keys = {build_key(b, base) for b in self._file_config.bots} - {None}
        records = {key: record for key, record in {**self._builds, **done}.items() if key in keys}
        if records != self._builds:
            self.store.caches.save_builds(records)
            self._builds = records
        return None

    def _manifest(self, bot: BotConfig, bots: Iterable[BotConfig]) -> Manifest:
        """The bot's manifest (what its fingerprint hashes), its build's outputs left out."""
        outputs = build_outputs(list(bots), self._file_config.base_dir, self._builds)
        return manifest_of(bot, self.plugins, self._cache, self._file_config.base_dir,
                           self._skip | outputs)

    def _roots(self, bot: BotConfig) -> list[Path]:
        """Where the files that make a bot lie: its directory and `readable` paths, and for
        a registered bot its agent's code and the files its options name."""
        known = self._root_cache.get(bot.name)
        if known is not None and known[0] == bot:
            return known[1]
        roots = bot_roots(bot)
        if bot.bot is not None:
            decl = self.plugins.bots.get(bot.bot)
            if decl is not None and decl.target is not None:
                roots += [Path(p) for p in code_paths(decl.target) if not p.endswith((".pyc", ".pyo"))]
            for key, value in bot.options.items():
                option = decl.options.get(key) if decl is not None else None
                path = option.file_path(value, self._file_config.base_dir) if option else None
                if path is not None:
                    roots.append(path)
        self._root_cache[bot.name] = (bot, roots)
        return roots

    # --- the update ---

    def _update(self, retired: set[str], notes: list[VersionNote],
                refusals: list[str]) -> MembershipUpdate | None:
        """The config now in force (each bot at the entry whose version plays) and what
        changed in it; None when nothing did."""
        bots = tuple(seen.playing for bot in self._file_config.bots
                     if (seen := self._seen.get(bot.name)) is not None and seen.playing is not None)
        config = dataclasses.replace(self._file_config, bots=bots)
        before = {bot.name for bot in self.config.bots} - self._retired
        now = {bot.name for bot in bots} - retired
        names = [bot.name for bot in bots]
        added = [name for name in names if name in now - before]
        gone = [bot.name for bot in self.config.bots if bot.name in before - now]
        why = {name: "retired" if name in retired else "removed from the config" for name in gone}
        changed = [note for note in notes if note.bot in before and note.bot in now]
        refused = "\n".join(refusals) if refusals else None
        if refused is not None and refused == self._last_refusal:
            refused = None   # said already (a broken config is read again while a bot waits)
        elif refused is not None:
            self._last_refusal = refused
        unchanged = config == self.config and not (added or changed or gone or refused)
        self.config, self._retired = config, retired
        if unchanged:
            return None
        return MembershipUpdate(config=config, added=added, changed=changed, removed=gone,
                                refused=refused, why_removed=why)


class _Scan:
    """One poll's look at the bots' files: each root walked once, however many bots share it."""

    def __init__(self, skip: frozenset[Path]) -> None:
        self.skip = skip
        self.skip_names = {path.name for path in skip}
        self.now = time.time()
        self._roots: dict[Path, tuple[Signature, bool]] = {}

    def signature(self, roots: Iterable[Path], fresh: bool = False) -> tuple[Signature, bool]:
        """The files under the roots as stat sees them, and whether all are old enough for
        their mtimes to tell every change; fresh: walk again (a build has just run)."""
        out: list[tuple[str, int, int, int]] = []
        settled = True
        for root in roots:
            if fresh or root not in self._roots:
                self._roots[root] = self._walk(root)
            found, old = self._roots[root]
            out += found
            settled = settled and old
        return tuple(out), settled

    def _walk(self, root: Path) -> tuple[Signature, bool]:
        """The files of a root as tree_files lists them, stat-ed: scandir's entries, and a
        path resolved only when its name is a skipped file's (resolving each file, as
        tree_files does, was most of a poll's time: 24 ms for 32 bots against 0.7)."""
        found: list[tuple[str, int, int, int]] = []
        try:
            if not root.is_dir():
                st = root.stat()
                found.append((str(root), st.st_size, st.st_mtime_ns, st.st_ino))
            else:
                self._into(str(root), found)
        except OSError:   # gone: no files
            pass
        settled = all(self.now - mtime / 1e9 > RACY_SECONDS for _p, _s, mtime, _i in found)
        return tuple(found), settled

    def _into(self, folder: str, found: list[tuple[str, int, int, int]]) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            return
        for entry in entries:
            name = entry.name
            if name in EXCLUDED_NAMES:
                continue
            if name in self.skip_names and Path(entry.path).resolve() in self.skip:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    self._into(entry.path, found)
                elif entry.is_file() and not name.endswith(EXCLUDED_SUFFIXES):
                    st = entry.stat()
                    found.append((entry.path, st.st_size, st.st_mtime_ns, st.st_ino))
            except OSError:   # gone since it was listed
                continue


def _file_stat(path: Path) -> FileStat:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _settled_stat(stat: FileStat) -> bool:
    """Whether a file's mtime is old enough that an edit would change it (see RACY_SECONDS)."""
    return stat is None or time.time() - stat[0] / 1e9 > RACY_SECONDS


def _at(snapshot: Mapping[str, Any], key: str) -> Any:
    """A config snapshot's value at a dotted key (ladder.matchmaker); None where it has none."""
    value: Any = snapshot
    for part in key.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _text(value: Any) -> str:
    """A config value as identity.differs reads it: text as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


__all__ = ["IDENTITY_KEYS", "RUN_KEYS", "Membership", "MembershipUpdate"]
