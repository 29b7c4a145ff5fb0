"""A config file read for checking: YAML with the line of every key, and a reader whose
every complaint is one line naming the file, the line and the key path.

The league schema (arena.league.config) is written with it; nothing here knows leagues.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from arena.bounds import describe, field_types, problem
from arena.errors import ArenaError, did_you_mean
from arena.userfiles import MiB, UserFileError, path_problem, read_text, shown

if TYPE_CHECKING:
    import yaml

KeyPath = tuple[str | int, ...]

MAX_YAML_DEPTH = 64        #: nesting of mappings and lists in a config file
MAX_YAML_NODES = 100_000   #: values in a config file once its aliases are expanded
MAX_CONFIG_BYTES = 1 * MiB  #: a config file's size (a league of hundreds of bots is a few KiB)


class ConfigError(ArenaError, ValueError):
    """A league config that cannot be used; str() is one line: file:line: key: problem."""

    def __init__(self, source: str, line: int | None, path: KeyPath, problem: str) -> None:
        self.source, self.line, self.path, self.problem = source, line, path, problem
        where = f"{source}:{line}" if line is not None else source
        key = format_path(path)
        super().__init__(f"{where}: {key}: {problem}" if key else f"{where}: {problem}")


class MalformedYAML(ConfigError):
    """Text that is no YAML document at all (as against one a config refuses)."""


def format_path(path: KeyPath) -> str:
    """A key path as written in messages: bots[2].options.depth."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def read_yaml(path: str | os.PathLike[str]) -> tuple[Any, Reader]:
    """A YAML file's data and a Reader that knows the line of each of its keys; ConfigError
    when it cannot be read or parsed."""
    source = str(path)
    try:
        text = read_text(path, "config", MAX_CONFIG_BYTES)
    except UserFileError as exc:
        raise ConfigError(source, exc.line, (), exc.problem) from None
    data, lines = parse_yaml(text, source)
    return data, Reader(source, lines)


# --- YAML with line numbers -----------------------------------------------------------------------
# yaml is imported by the functions that read it: a command that reads no YAML (a leaderboard
# of a store) does not import it

def _check_shape(text: str, source: str) -> None:
    """Refuse deep nesting and alias bombs from the event stream (flat, cheap), before
    anything recursive or anything that expands aliases sees the document."""
    import yaml
    depth, nodes = 0, 0
    sizes: dict[str, int] = {}     # values under each anchor, aliases expanded
    opened: list[tuple[str | None, int]] = []
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            line = event.start_mark.line + 1 if event.start_mark is not None else None
            if isinstance(event, yaml.AliasEvent):
                if event.anchor and event.anchor not in sizes and any(
                        anchor == event.anchor for anchor, _ in opened):
                    raise ConfigError(source, line, (), f"the alias *{event.anchor} lies inside the "
                                      f"value it names (&{event.anchor}), which would hold itself "
                                      "without end; write the value out instead")
                nodes += sizes.get(event.anchor or "", 1)
            elif isinstance(event, yaml.ScalarEvent):
                nodes += 1
                if event.anchor:
                    sizes[event.anchor] = 1
            elif isinstance(event, yaml.CollectionStartEvent):
                nodes += 1
                depth += 1
                opened.append((event.anchor, nodes))
                if depth > MAX_YAML_DEPTH:
                    raise ConfigError(source, line, (), f"nested more than {MAX_YAML_DEPTH} "
                                                       "levels deep; a league config needs a few")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                anchor, first = opened.pop()
                if anchor:
                    sizes[anchor] = nodes - first + 1
            if nodes > MAX_YAML_NODES:
                raise ConfigError(source, line, (), f"more than {MAX_YAML_NODES:,} values once "
                                                   "its aliases (*name) are expanded; a league "
                                                   "config needs far fewer")
    except yaml.YAMLError:
        return    # reported with its line by the parse that follows


def parse_yaml(text: str, source: str) -> tuple[Any, dict[KeyPath, int]]:
    """The document's data and the line of every key and list item in it; every YAML arena
    reads is read here (MalformedYAML when text is no YAML, ConfigError when its shape is
    refused: too deep, too many values, a value holding itself)."""
    import yaml
    _check_shape(text, source)
    loader = None
    try:
        loader = yaml.SafeLoader(text)   # refuses characters YAML does not allow
        node = loader.get_single_node()
        lines: dict[KeyPath, int] = {}
        if node is not None:
            _index_lines(node, (), lines, source)
            data = loader.construct_document(node)
        else:
            data, lines = None, {(): 1}
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "cannot parse"
        if exc.context and exc.context_mark is not None and exc.problem:
            problem += f" ({exc.context} on line {exc.context_mark.line + 1})"
        raise MalformedYAML(source, line, (), f"malformed YAML: {problem}") from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise MalformedYAML(source, line, (), f"malformed YAML: {exc.reason} "
                                            f"({exc.character!r})") from None
    except yaml.YAMLError as exc:
        raise MalformedYAML(source, None, (), f"malformed YAML: {' '.join(str(exc).split())}") from None
    finally:
        if loader is not None:
            loader.dispose()
    return data, lines


def _index_lines(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int], source: str) -> None:
    """Record the line of every key and list item; refuse duplicate keys (YAML keeps the last)."""
    import yaml
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.value == "<<":
                continue
            key = key_node.value
            line = key_node.start_mark.line + 1
            if key in seen:
                raise ConfigError(source, line, path + (key,),
                                  "duplicate key: each key may appear once in a mapping")
            seen.add(key)
            lines[path + (key,)] = line
            _index_lines(value_node, path + (key,), lines, source)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[path + (i,)] = item.start_mark.line + 1
            _index_lines(item, path + (i,), lines, source)


# --- checking -------------------------------------------------------------------------------------

class Reader:
    """Turns a key path into an error with the right line, and checks value shapes."""

    def __init__(self, source: str, lines: dict[KeyPath, int]) -> None:
        self.source, self.lines = source, lines

    def fail(self, path: KeyPath, problem: str) -> NoReturn:
        at = path
        while at and at not in self.lines:
            at = at[:-1]
        raise ConfigError(self.source, self.lines.get(at), path, problem)

    def mapping(self, value: Any, path: KeyPath, allowed: Sequence[str],
                required: Sequence[str] = (), what: str = "a mapping") -> dict[str, Any]:
        if value is None and not required:
            return {}
        if not isinstance(value, Mapping):
            self.fail(path, f"must be {what} with keys {', '.join(allowed)}; got {describe(value)}")
        for key in value:
            if not isinstance(key, str):
                self.fail(path, f"keys must be text; got {key!r}")
            if key not in allowed:
                self.fail(path + (key,), f"unknown key{did_you_mean(key, allowed)}; allowed keys: {', '.join(allowed)}")
        for key in required:
            if key not in value:
                self.fail(path, f"required key {key!r} is missing; allowed keys: "
                                f"{', '.join(allowed)}")
        return dict(value)

    def value(self, value: Any, path: KeyPath, kind: Any, rules: Mapping[str, Any]) -> Any:
        """Check one scalar against its type and rules (arena.bounds); a number field's
        integer comes back as a float."""
        wrong = problem(value, kind, rules)
        if wrong is not None:
            self.fail(path, wrong)
        return float(value) if kind is float else value

    def section(self, raw: Any, path: KeyPath, cls: type[Any]) -> Any:
        """Read a mapping into dataclass cls, each field checked against its declared bounds."""
        return cls(**self.fields(self.mapping(raw, path, [f.name for f in dataclasses.fields(cls)]),
                                 path, cls))

    def fields(self, given: Mapping[str, Any], path: KeyPath, cls: type[Any]) -> dict[str, Any]:
        """The fields of dataclass cls that given sets, each checked against its bounds."""
        types = field_types(cls)
        return {f.name: self.value(given[f.name], path + (f.name,), types[f.name], f.metadata)
                for f in dataclasses.fields(cls) if f.name in given}


def read_path(reader: Reader, raw: Any, path: KeyPath, base: Path) -> Path:
    """A path the config names at key path `path`, absolute from base (its directory); the
    config's every path value is read here, and refused in one line when it cannot be a path."""
    text = reader.value(raw, path, str, {})
    wrong = path_problem(text, base)
    if wrong is not None:
        reader.fail(path, f"{wrong}; got {shown(text)}")
    return (base / Path(text).expanduser()).resolve()
