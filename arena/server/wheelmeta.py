"""A wheel's metadata read as text: its RECORD (every file listed, with a hash to check),
the `arena` group of its entry points (refusing scripts an install would put on the PATH),
its Requires-Python and Requires-Dist, and which requirements this Python does not meet.

Nothing here imports or runs the wheel's code. Each reader refuses through the caller's
`refuse(path, problem)` (uploads' member writer), which names the upload and the member.
"""

from __future__ import annotations

import configparser
import csv
import email.message
import hashlib
import importlib.metadata
import io
import re
import sys
from base64 import urlsafe_b64encode
from collections.abc import Iterable
from typing import Protocol

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet

_ENTRY_POINT = re.compile(r"[A-Za-z_][\w.]*(\s*:\s*[A-Za-z_][\w.]*)?(\s*\[[\w\s,.-]*\])?")


class Refuser(Protocol):
    """What refuses a member of the upload: an exception to raise, naming it."""

    def refuse(self, path: str, problem: str, status: int = 400) -> Exception: ...


def missing_requirements(requires: Iterable[str]) -> list[str]:
    """The requirements that this Python's installed distributions do not satisfy, each with why."""
    missing = []
    for text in requires:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            missing.append(f"{text} (not a requirement specifier)")
            continue
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        shown = _requirement_text(requirement)
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(f"{shown} (not installed)")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            missing.append(f"{shown} ({version} installed)")
    return missing


def read_record(writer: Refuser, text: str, where: str, paths: set[str]) -> dict[str, tuple[str, str]]:
    """RECORD's (algorithm, digest) per file; every file of the wheel but RECORD must be listed."""
    record: dict[str, tuple[str, str]] = {}
    exempt = {where, where + ".jws", where + ".p7s"}
    for row in csv.reader(io.StringIO(text)):
        if not row:
            continue
        path, digest = row[0], row[1] if len(row) > 1 else ""
        if path in exempt:
            continue
        if path not in paths:
            raise writer.refuse(where, f"lists {path!r}, which the wheel does not hold")
        algorithm, _, value = digest.partition("=")
        if algorithm not in ("sha256", "sha384", "sha512") or not value:
            raise writer.refuse(where, f"gives {path!r} the hash {digest!r}; sha256 (or sha384, sha512) is needed")
        record[path] = (algorithm, value)
    unlisted = sorted(paths - set(record) - exempt)
    if unlisted:
        raise writer.refuse(unlisted[0], "is not listed in the wheel's RECORD")
    return record


def check_hash(writer: Refuser, record: dict[str, tuple[str, str]], path: str, data: bytes) -> None:
    """Refuse data whose hash is not the one RECORD gives path."""
    algorithm, expected = record[path]
    if b64(hashlib.new(algorithm, data).digest()) != expected:
        raise writer.refuse(path, "does not match its hash in the wheel's RECORD")


def arena_entry_points(writer: Refuser, text: str | None, where: str) -> tuple[tuple[str, str], ...]:
    """The `arena` group of entry_points.txt, refusing scripts an install would put on the PATH."""
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # entry-point names keep their case
    try:
        parser.read_string(text or "", source=where)
    except configparser.Error as exc:
        raise writer.refuse(where, f"cannot be read ({str(exc).splitlines()[0]})") from None
    for scripts in ("console_scripts", "gui_scripts"):
        if parser.has_section(scripts):
            raise writer.refuse(where, f"declares {scripts} (commands an install would put on the PATH are not taken)")
    if not parser.has_section("arena") or not parser.items("arena"):
        raise writer.refuse(where, "declares no `arena` entry point: a plugin names its module under "
                                   "[project.entry-points.arena] (docs/plugins.md, Packaging)")
    entries = []
    for name, value in parser.items("arena"):
        if not _ENTRY_POINT.fullmatch(value.strip()):
            raise writer.refuse(where, f"gives the arena entry point {name!r} the value {value!r}, not 'module' "
                                       f"or 'module:attribute'")
        entries.append((name, value.strip()))
    return tuple(entries)


def requirements(writer: Refuser, metadata: email.message.Message, where: str) -> tuple[str, ...]:
    """METADATA's Requires-Dist that apply to this Python (markers evaluated, no extras), and a
    Requires-Python this Python meets."""
    python = metadata.get("Requires-Python")
    if python:
        try:
            fits = SpecifierSet(str(python)).contains(".".join(map(str, sys.version_info[:3])), prereleases=True)
        except InvalidSpecifier:
            raise writer.refuse(where, f"has Requires-Python {python!r}, which cannot be read") from None
        if not fits:
            raise writer.refuse(where, f"needs Python {python}, and this is {sys.version.split()[0]}")
    requires = []
    for text in metadata.get_all("Requires-Dist") or []:
        try:
            requirement = Requirement(str(text))
        except InvalidRequirement:
            raise writer.refuse(where, f"has Requires-Dist {text!r}, which cannot be read") from None
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            requires.append(_requirement_text(requirement))
    return tuple(requires)


def _requirement_text(requirement: Requirement) -> str:
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    return f"{requirement.name}{extras}{requirement.specifier}"


def b64(digest: bytes) -> str:
    """A digest as RECORD writes it: urlsafe base64 without padding."""
    return urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
