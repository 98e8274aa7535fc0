"""Markdown text for report.md: numbers rounded to 3 decimals, one-line table cells, and tables."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def fmt(value: Any) -> str:
    """A value for the report text: 3 decimals for floats, a dash for None."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{value:.3f}"
    return str(value)


def cell(text: Any, limit: int = 0) -> str:
    """Text safe inside a Markdown table cell (one line, pipes escaped), cut to `limit` characters."""
    s = " ".join(str(text).split())
    if limit and len(s) > limit:
        s = s[: limit - 1].rstrip() + "…"
    return s.replace("|", "\\|")


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> list[str]:
    align = align or "l" + "r" * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines
