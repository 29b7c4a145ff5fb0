"""Bounds declared on a dataclass's fields: the type checks itself with them, and the
league config reads the same ones to check a file and word its messages.

    @dataclass(frozen=True)
    class TimeControl:
        move_ms: int = bounded(1000, min=1, max=DAY_MS)

    def __post_init__(self) -> None:
        check_fields(self, "time control")      # ValueError: time control: move_ms must be ...

Rules (all optional): min / max (inclusive), above (exclusive lower bound),
below (exclusive upper bound), choices (allowed values of a text field).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, get_type_hints

from arena.errors import did_you_mean

DAY_MS = 86_400_000   #: no time setting may exceed a day
BIG = 1_000_000       #: bound of the sandbox limits and the rating constants


def bounded(default: Any, *, min: float | None = None, max: float | None = None,
            above: float | None = None, below: float | None = None,
            choices: Sequence[str] | None = None) -> Any:
    """A dataclass field with a default and the rules its values must follow."""
    rules = {"min": min, "max": max, "above": above, "below": below, "choices": choices}
    return dataclasses.field(default=default,
                             metadata={k: v for k, v in rules.items() if v is not None})


_TYPES: dict[type, dict[str, Any]] = {}


def field_types(cls: type) -> dict[str, Any]:
    """The resolved type of each field of dataclass cls (worked out once per class)."""
    types = _TYPES.get(cls)
    if types is None:
        types = _TYPES[cls] = get_type_hints(cls)
    return types


def base_type(kind: Any) -> Any:
    """int for int and int | None, str for str and str | None, else kind itself."""
    return str if kind in (str, str | None) else int if kind in (int, int | None) else kind


def problem(value: Any, kind: Any, rules: Mapping[str, Any]) -> str | None:
    """Why value is not a kind within rules ("must be an integer >= 1, got 0"), or None."""
    if value is None and kind in (str | None, int | None):
        return None
    base = base_type(kind)
    if base is bool:
        return None if isinstance(value, bool) else f"must be true or false, got {describe(value)}"
    if base is str:
        choices = rules.get("choices")
        if choices is not None and value not in choices:
            guess = did_you_mean(value, choices) if isinstance(value, str) else ""
            return f"must be one of {', '.join(repr(c) for c in choices)}, got {describe(value)}{guess}"
        if not isinstance(value, str) or not value.strip():
            return f"must be non-empty text, got {describe(value)}"
        return None
    number_ok = isinstance(value, (int, float)) if base is float else isinstance(value, int)
    if (isinstance(value, bool) or not number_ok
            or (isinstance(value, float) and not math.isfinite(value))
            or ("min" in rules and value < rules["min"]) or ("max" in rules and value > rules["max"])
            or ("above" in rules and value <= rules["above"])
            or ("below" in rules and value >= rules["below"])):
        return f"must be {wording(base, rules)}, got {describe(value)}"
    return None


def wording(kind: type, rules: Mapping[str, Any]) -> str:
    """What a number field takes, in words: 'an integer >= 1 and <= 86400000'."""
    noun = "an integer" if kind is int else "a number"
    parts = [f">= {rules['min']}" if "min" in rules else "",
             f"> {rules['above']}" if "above" in rules else "",
             f"< {rules['below']}" if "below" in rules else "",
             f"<= {rules['max']}" if "max" in rules else ""]
    return f"{noun} " + " and ".join(p for p in parts if p) if any(parts) else noun


def describe(value: Any) -> str:
    """A value as messages quote it."""
    return "nothing (null)" if value is None else repr(value)


def check_fields(obj: Any, what: str,
                 error: Callable[[str], Exception] = ValueError) -> None:
    """Raise error("WHAT: FIELD must be ..., got ...") for the first field of dataclass obj
    outside its declared type and rules."""
    types = field_types(type(obj))
    for f in dataclasses.fields(obj):
        if base_type(types[f.name]) not in (bool, str, int, float):
            continue
        wrong = problem(getattr(obj, f.name), types[f.name], f.metadata)
        if wrong is not None:
            raise error(f"{what}: {f.name} {wrong}")
