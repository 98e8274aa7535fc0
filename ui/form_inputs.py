"""Chat-form values -> Assistant arguments: the conversation as plain-text messages, and the search filters.

A value the reader typed wrong raises QuestionError, which the UI shows as a ⚠ message. No gradio here.
"""

from __future__ import annotations

from typing import Any

from rag.errors import QuestionError
from rag.filters import Filters
from rag.ports import Message
from ui import render


def chat_history(history: list[dict[str, Any]] | None) -> list[Message]:
    """Chat history (role/content dicts, answers rendered as HTML) -> plain-text messages for ask_stream."""
    out: list[Message] = []
    for m in history or []:
        role, content = m.get("role"), m.get("content")
        if isinstance(content, list):  # content blocks
            content = " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
        if role not in ("user", "assistant") or not isinstance(content, str):
            continue
        text = render.plain_text(content) if role == "assistant" else content.strip()
        if text and not text.startswith("⚠"):
            out.append({"role": role, "content": text})
    return out


def _year(value: Any, label: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        year = int(float(value))
    except (TypeError, ValueError):
        raise QuestionError(f"{label} must be a year, like 2024") from None
    if not 0 < year < 10000:
        raise QuestionError(f"{label} must be a year, like 2024")
    return year


def search_filters(year_min: Any, year_max: Any, venue: str | None, author: str | None) -> Filters | None:
    lo, hi = _year(year_min, "'Year from'"), _year(year_max, "'Year to'")
    if lo is not None and hi is not None and lo > hi:
        raise QuestionError(f"the year range {lo}-{hi} is empty")
    f = Filters(lo, hi, (venue or "").strip() or None, (author or "").strip() or None)
    return f if f.active else None
