"""Bot versions: a fingerprint of what decides how a bot plays, and what changed between two.

A bot's manifest lists its files (its program's directory and its `readable` paths, each
file by SHA-256), its command, dialect and options, and for a registered bot the plugin's
distribution and version and the agent's code. The fingerprint is a hash of the manifest:
equal fingerprints, same version. Files are hashed again only when their size or mtime
changed (a cache the store keeps), so a league of many bots fingerprints in milliseconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from arena.referee.botspec import code_paths

from .config import BotConfig, LeagueConfig
from .sight import STORE_SIDE_FILES

#: names never part of a bot: caches, version control, editor droppings
EXCLUDED_NAMES = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache",
                            ".ruff_cache", ".venv", "node_modules", ".DS_Store"})
EXCLUDED_SUFFIXES = (".pyc", ".pyo", ".swp", "~")
#: a file changed this recently may change again within the same mtime tick: hash it anyway
RACY_SECONDS = 2.0

#: path -> (size, mtime_ns, sha256 hex): how a file was last hashed
HashCache = MutableMapping[str, tuple[int, int, str]]
Manifest = dict[str, Any]


def file_hash(path: Path, cache: HashCache) -> str:
    """SHA-256 of a file's content, from the cache when its size and mtime are unchanged."""
    st = path.stat()
    key = str(path)
    hit = cache.get(key)
    if hit is not None and hit[0] == st.st_size and hit[1] == st.st_mtime_ns:
        cache[key] = hit   # still in use (see RunCache)
        return hit[2]
    hasher = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    value = hasher.hexdigest()
    if time.time() - st.st_mtime_ns / 1e9 > RACY_SECONDS:   # a fresh file is hashed next time too
        cache[key] = (st.st_size, st.st_mtime_ns, value)
    else:
        cache.pop(key, None)
    return value


class RunCache(dict):
    """A run's hash cache: reads fall back to the stored one, and it holds only the files
    this run looked at, so saving it drops the files no bot has any more."""

    def __init__(self, stored: Mapping[str, tuple[int, int, str]]) -> None:
        super().__init__()
        self.stored = stored

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key) or self.stored.get(key, default)


def tree_files(root: Path, skip: frozenset[Path] = frozenset()) -> Iterable[Path]:
    """Files under root (or root itself), excluded names and skipped paths left out."""
    if root.is_file():
        yield root
        return
    for here, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_NAMES
                         and Path(here, d).resolve() not in skip)
        for name in sorted(names):
            if name in EXCLUDED_NAMES or name.endswith(EXCLUDED_SUFFIXES):
                continue
            path = Path(here, name)
            if path.resolve() not in skip and path.is_file():
                yield path


def tree_hashes(roots: Iterable[Path], cache: HashCache, skip: frozenset[Path] = frozenset()) -> dict[str, str]:
    """Every file under the roots by its path (relative to its root, prefixed with the
    root's index when there are several roots) -> its SHA-256."""
    roots = list(dict.fromkeys(roots))
    out: dict[str, str] = {}
    for root in roots:
        prefix = f"{root.name}/" if len(roots) > 1 else ""
        for path in tree_files(root, skip):
            rel = path.name if root.is_file() else str(path.relative_to(root))
            out[prefix + rel] = file_hash(path, cache)
    return out


def bot_manifest(bot: BotConfig, config: LeagueConfig, plugins: Any, cache: HashCache) -> Manifest:
    """What decides how a league's bot plays, as a JSON-ready mapping."""
    return manifest_of(bot, plugins, cache, config.base_dir, store_files(config.store))


def manifest_of(bot: BotConfig, plugins: Any, cache: HashCache, base_dir: Path,
                skip: frozenset[Path] = frozenset()) -> Manifest:
    """What decides how a bot plays, as a JSON-ready mapping: file options are read from
    base_dir; skip: files (resolved) that are never a bot's, such as the store's, which
    change as games are stored."""
    manifest: Manifest = {}
    if bot.bot is not None:
        decl = plugins.bots.require(bot.bot)
        manifest["bot"] = bot.bot
        manifest["options"] = {k: _plain(v) for k, v in sorted(decl.check_options(bot.options).items())}
        manifest["plugin"] = plugins.versions.get(decl.plugin, decl.plugin or "?")
        if decl.target is not None:
            manifest["agent"] = decl.target
            manifest["agent_code"] = digest(tree_hashes(
                [Path(p) for p in code_paths(decl.target) if not p.endswith((".pyc", ".pyo"))],
                cache, skip))
        else:
            manifest["command"] = list(decl.command or ())
            manifest["dialect"] = decl.dialect
        # files named by file options are the bot's too (e.g. learned weights)
        for key, option in decl.options.items():
            path = option.file_path(manifest["options"].get(key), base_dir)
            if path is not None and path.is_file():
                manifest.setdefault("option_files", {})[key] = file_hash(path, cache)
    else:
        manifest["command"] = bot.command
        manifest["dialect"] = bot.dialect
    manifest["files"] = tree_hashes(bot_roots(bot), cache, skip)
    if bot.build is not None:
        manifest["build"] = bot.build
    return manifest


def fingerprint(manifest: Manifest) -> str:
    """A version's short identity: 16 hex digits of the manifest's SHA-256."""
    return digest(manifest)[:16]


def changes(old: Manifest, new: Manifest) -> list[str]:
    """What differs between two manifests, in words: 'files changed (bot.py)', ..."""
    out: list[str] = []
    old_files, new_files = old.get("files", {}), new.get("files", {})
    names = sorted(n for n in set(old_files) | set(new_files) if old_files.get(n) != new_files.get(n))
    if names:
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        out.append(f"files changed ({shown})")
    old_opts, new_opts = old.get("options", {}), new.get("options", {})
    diffs = [f"{k} {_show(old_opts.get(k))} -> {_show(new_opts.get(k))}"
             for k in sorted(set(old_opts) | set(new_opts)) if old_opts.get(k) != new_opts.get(k)]
    if diffs:
        out.append(f"options changed ({', '.join(diffs)})")
    for key, what in (("bot", "registered bot"), ("command", "command"), ("dialect", "dialect"),
                      ("plugin", "plugin"), ("agent", "agent"), ("build", "build command")):
        if old.get(key) != new.get(key):
            out.append(f"{what} changed ({_show(old.get(key))} -> {_show(new.get(key))})")
    if old.get("agent_code") != new.get("agent_code") and old.get("agent") == new.get("agent"):
        out.append("agent code changed")
    if old.get("option_files") != new.get("option_files"):
        out.append("option files changed")
    return out or ["fingerprint changed"]


def bot_roots(bot: BotConfig) -> list[Path]:
    """Where a bot's files lie: its own directory and its `readable` paths."""
    return _own_roots(bot) + list(bot.readable)


def _own_roots(bot: BotConfig) -> list[Path]:
    """The bot's own directory; for a program lying in the temp directory itself (which
    holds everything else too, as the referee shows it) only the program's file."""
    if bot.dir is None:
        return []
    if bot.dir.resolve() == Path(tempfile.gettempdir()).resolve():
        return [Path(word) for word in bot.argv
                if os.path.isabs(word) and Path(word).parent.resolve() == bot.dir.resolve()
                and Path(word).is_file()][:1]
    return [bot.dir]


def store_files(path: Path) -> frozenset[Path]:
    """A store's file and SQLite's files beside it."""
    store = Path(path).resolve()
    return frozenset(Path(f"{store}{tail}") for tail in ("", *STORE_SIDE_FILES))


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _show(value: Any) -> str:
    return "none" if value is None else value if isinstance(value, str) else json.dumps(value)


def digest(value: Mapping[str, Any] | Any) -> str:
    """SHA-256 (hex) of a JSON-ready value, its keys sorted."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


__all__ = ["EXCLUDED_NAMES", "HashCache", "Manifest", "RunCache", "bot_manifest", "bot_roots", "changes",
           "digest", "file_hash", "fingerprint", "manifest_of", "store_files", "tree_files",
           "tree_hashes"]
