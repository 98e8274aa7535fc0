"""Sentences: the unit that is quoted, cited and checked. Shared by chunking, answering and the UI."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences on ., ! or ? followed by a capital or digit (good enough for abstracts)."""
    parts = [p.strip() for p in _SENTENCE_END.split(text.strip())]
    return [p for p in parts if p]
