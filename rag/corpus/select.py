"""`--where FIELD~TEXT` and `--since DATE`: which records of a corpus to index, decided while it streams.

Conditions are checked on a record's fields as its reader gives them (our names: title, abstract, authors,
venue, year, doi, plus what the format carries, e.g. the arXiv snapshot's `categories`), before the record is
validated; a record that fails them is counted and dropped without further work.

    FIELD=TEXT   the field, or one of its items, equals TEXT (case ignored): categories=cs.LG
    FIELD~TEXT   the field, or one of its items, contains TEXT (case ignored): title~diffusion
    FIELD!=TEXT  FIELD!~TEXT   the negations (a record without the field passes them)
    --since DATE the record is dated DATE or later (YYYY, YYYY-MM or YYYY-MM-DD; a record dated only by its
                 year counts as the whole year, a record with no date fails)
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

from rag.corpus.text_io import Fields
from rag.errors import ConfigError

_CONDITION_RE = re.compile(r"\s*([A-Za-z_][\w.-]*)\s*(!=|!~|=|~)(.*)", re.DOTALL)
_DATE_RE = re.compile(r"\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_NEEDLE_RE = re.compile(r"[A-Za-z0-9._-]+")  # text that JSON never escapes: safe to look for in raw lines


@dataclass(frozen=True)
class Condition:
    field: str  # lower case
    op: str
    value: str  # lower case

    def accepts(self, fields: Fields) -> bool:
        values = _values(fields.get(self.field))
        if self.op == "=":
            return self.value in values
        if self.op == "~":
            return any(self.value in v for v in values)
        if self.op == "!=":
            return self.value not in values
        return not any(self.value in v for v in values)


@dataclass(frozen=True)
class Selection:
    conditions: tuple[Condition, ...] = ()
    since: date | None = None

    @property
    def active(self) -> bool:
        return bool(self.conditions) or self.since is not None

    def accepts(self, fields: Fields) -> bool:
        if not all(c.accepts(fields) for c in self.conditions):
            return False
        return self.since is None or _latest_day(fields) >= self.since

    def needles(self) -> tuple[str, ...]:
        """Lower-case texts every accepted record's raw text contains: line readers skip lines without them."""
        return tuple(c.value for c in self.conditions if c.op in ("=", "~") and _NEEDLE_RE.fullmatch(c.value))

    def describe(self) -> str:
        parts = [f"{c.field}{c.op}{c.value}" for c in self.conditions]
        if self.since is not None:
            parts.append(f"since {self.since.isoformat()}")
        return ", ".join(parts)


def parse_condition(text: str) -> Condition:
    m = _CONDITION_RE.fullmatch(text)
    if not m or not m.group(3).strip():
        raise ConfigError(
            f"--where {text!r}: write FIELD=TEXT, FIELD~TEXT (contains), FIELD!=TEXT or FIELD!~TEXT, "
            "e.g. --where 'categories~cs.LG'"
        )
    return Condition(m.group(1).lower(), m.group(2), m.group(3).strip().lower())


def parse_date(text: str) -> date:
    """YYYY, YYYY-MM or YYYY-MM-DD -> the first day it names."""
    m = _DATE_RE.fullmatch(text)
    try:
        if m:
            return date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    except ValueError:
        pass
    raise ConfigError(f"--since {text!r}: write a date as YYYY, YYYY-MM or YYYY-MM-DD, e.g. --since 2024-01-01")


def selection(where: list[str] | tuple[str, ...] = (), since: str | date | None = None) -> Selection:
    day = parse_date(since) if isinstance(since, str) else since
    return Selection(tuple(parse_condition(w) for w in where), day)


def _values(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [v for item in value for v in _values(item)]
    if isinstance(value, dict):
        return [v for item in value.values() for v in _values(item)]
    return [str(value).strip().lower()]


def _latest_day(fields: Fields) -> date:
    """The last day the record's date could mean: "2024" -> 2024-12-31, "2024-03" -> 2024-03-31."""
    for value in (fields.get("date"), fields.get("year")):
        m = _DATE_RE.match(str(value)) if isinstance(value, str | int) and not isinstance(value, bool) else None
        if not m:
            continue
        year = int(m.group(1))
        month = int(m.group(2)) if m.group(2) else 12
        try:
            last = calendar.monthrange(year, month)[1] if 1 <= month <= 12 else 31
            return date(year, month, min(int(m.group(3)), last) if m.group(3) else last)
        except ValueError:
            continue
    return date.min
