"""One setting's value: parsed from text into its field's type, and checked against its allowed range or choices.
rag.settings declares the fields and their ranges; this module knows nothing of which settings exist."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rag.errors import ConfigError


def value_range(lo: float | None = None, hi: float | None = None, *, choices: tuple[str, ...] = ()) -> dict[str, Any]:
    """Field metadata: the allowed range (inclusive) or the allowed values ("many": a comma-separated list)."""
    return {"lo": lo, "hi": hi, "choices": choices}


def coerce_value(name: str, kind: str, value: Any) -> Any:
    """`value` (text from the environment or a file, or a Python value) as the field's type `kind`."""
    if value is None or (isinstance(value, str) and value == "" and "None" in kind):
        return None
    optional_float = kind.startswith("float") and "None" in kind
    if isinstance(value, str) and value.strip().lower() in ("auto", "off") and optional_float:
        return None  # a number the program decides (min_relevance: the collection's floor), or a rule left off
    try:
        if kind.startswith("Path"):
            return Path(str(value)).expanduser()
        if kind.startswith("int"):
            if isinstance(value, float) and not value.is_integer():
                raise ValueError
            return int(value)
        if kind.startswith("float"):
            return float(value)
        if kind.startswith("bool"):
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word in ("1", "true", "yes", "on"):
                return True
            if word in ("0", "false", "no", "off"):
                return False
            raise ConfigError(f"setting '{name}' expects true or false, got {value!r}")
    except (TypeError, ValueError):
        raise ConfigError(f"setting '{name}' expects a number, got {value!r}") from None
    return str(value)


def check_range(name: str, value: Any, meta: Mapping[str, Any]) -> None:
    """A ConfigError when `value` is outside the field's range or choices (its `value_range` metadata)."""
    choices = meta.get("choices") or ()
    for item in [v.strip() for v in value.split(",") if v.strip()] if meta.get("many") else [value]:
        if choices and item not in choices:
            raise ConfigError(f"{name} must be one of {', '.join(choices)}; got '{item}'")
    lo, hi = meta.get("lo"), meta.get("hi")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value != value:  # NaN
            raise ConfigError(f"setting '{name}' must be a number, got NaN")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            bounds = f"at least {lo:g}" if hi is None else f"between {lo:g} and {hi:g}"
            raise ConfigError(f"{name} must be {bounds}; got {value:g} (setting '{name}', RAG_{name.upper()})")
