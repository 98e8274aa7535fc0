"""A structured abstract's labelled parts ("BACKGROUND", "RESULTS", "CONCLUSIONS"), kept through every reader.

Two ways a source gives them: a `sections` field (a list of `{"label", "text"}` objects, as PubMedQA's corpus and
our own JSONL carry), or labels written into the abstract itself ("BACKGROUND: ... METHODS: ... RESULTS: ..."),
as PubMed abstracts arrive through RIS, BibTeX or CSV exports. Only labels that name a part of an abstract
(rag.corpus.roles.role_of_label) count, so "Note: ..." or "Aim 1: ..." inside an ordinary abstract is not taken for one.
The abstract's text is never changed: the parts only tell each sentence's role (rag.corpus.roles).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rag.corpus.roles import role_of_label
from rag.types import AbstractSection

MAX_SECTIONS = 50
# "RESULTS:" / "Materials and Methods:" at the start of the abstract or of a sentence: capitalised words, a colon
_INLINE = re.compile(r"(?:^|(?<=[.!?])\s+|\s{2,})([A-Z][A-Za-z]*(?:[ ,&/-]+[A-Za-z]+){0,5})\s*:\s+(?=\S)")


def _text(value: object) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def given_sections(value: object) -> tuple[AbstractSection, ...]:
    """A `sections` field: `[{"label": ..., "text": ...}]` (or `[[label, text]]`); anything else gives ()."""
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        return ()
    out = []
    for item in list(value)[:MAX_SECTIONS]:
        if isinstance(item, Mapping):
            label, text = _text(item.get("label")), _text(item.get("text"))
        elif isinstance(item, Sequence) and not isinstance(item, str | bytes) and len(item) == 2:
            label, text = _text(item[0]), _text(item[1])
        else:
            continue
        if label and text:
            out.append(AbstractSection(label, text))
    return tuple(out)


def _is_label(label: str) -> bool:
    """Upper-case labels ("RESULTS") or title-case ones of a few words ("Materials and Methods") that name a part."""
    words = label.split()
    if not words or len(label) > 60 or role_of_label(label) is None:
        return False
    return label.isupper() or all(w[0].isupper() or w.lower() in ("and", "of", "the", "&") for w in words)


def inline_sections(abstract: str) -> tuple[AbstractSection, ...]:
    """The parts of an abstract that labels its parts in its own text: two labels at least, the first at the start."""
    found = [m for m in _INLINE.finditer(abstract) if _is_label(m.group(1))]
    if len(found) < 2 or abstract[: found[0].start()].strip():
        return ()
    out = []
    for m, following in zip(found, [*found[1:], None], strict=True):
        text = abstract[m.end() : following.start() if following else len(abstract)].strip()
        if text:
            out.append(AbstractSection(m.group(1).strip(), " ".join(text.split())))
    return tuple(out[:MAX_SECTIONS])


def abstract_sections(value: object, abstract: str) -> tuple[AbstractSection, ...]:
    """The labelled parts: the `sections` field when the source has one, else labels inside the abstract."""
    return given_sections(value) or inline_sections(abstract)
