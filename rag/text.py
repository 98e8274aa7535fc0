"""Sentences: the unit that is quoted, cited and checked. Shared by chunking, answering and the UI."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
# abbreviations that end in a full stop without ending the sentence
_ABBREVIATION = re.compile(r"(?:\b(?:i\.e|e\.g|et al|cf|vs|approx|resp|Fig|Eq|Sec|No|Dr|Mr|Ms|Prof)|\b[A-Z])\.$")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences on ., ! or ? followed by a capital or digit (good enough for abstracts); a full
    stop of "i.e.", "e.g.", "et al." or an initial ("J. Smith") does not end a sentence."""
    out: list[str] = []
    for part in (p.strip() for p in _SENTENCE_END.split(text.strip())):
        if not part:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def pages_label(page: int | None, page_end: int | None = None) -> str:
    """ "p. 4", "pp. 4–5", or "" when there is no page (an abstract chunk)."""
    if page is None:
        return ""
    if page_end is not None and page_end != page:
        return f"pp. {page}\u2013{page_end}"
    return f"p. {page}"
