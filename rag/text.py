"""Sentences: the unit that is quoted, cited and checked. Shared by chunking, answering and the UI."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences on ., ! or ? followed by a capital or digit (good enough for abstracts)."""
    parts = [p.strip() for p in _SENTENCE_END.split(text.strip())]
    return [p for p in parts if p]


def pages_label(page: int | None, page_end: int | None = None) -> str:
    """ "p. 4", "pp. 4–5", or "" when there is no page (an abstract chunk)."""
    if page is None:
        return ""
    if page_end is not None and page_end != page:
        return f"pp. {page}\u2013{page_end}"
    return f"p. {page}"
