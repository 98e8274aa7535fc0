"""The one label table: how each label of the sentence check reads, the same for answers and drafts, in the
terminal, JSON, Markdown and the UI. A user must tell "this is false" (contradicted, ✗) from "I could not confirm
this" (not found, ?) from "another paper says this" (wrong paper, ⇄, naming that paper), each with the evidence
sentence. Plain strings; each output escapes them its own way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.types import CONTRADICTED, NOT_FOUND, SUPPORTED, UNCITED, WRONG_PAPER, SentenceCheck

NOT_IN_LIBRARY = "not in library"  # a draft's sentence cites only keys the library does not hold: nothing to check


@dataclass(frozen=True)
class Label:
    symbol: str
    words: str  # the headline of a flagged sentence
    meaning: str  # the legend's explanation


TABLE = {
    SUPPORTED: Label("✓", "supported by the cited paper", "a sentence of the cited paper says it"),
    NOT_FOUND: Label("?", "not found: could not confirm this in the cited paper",
                     "the cited paper does not confirm it (a term or number is not in it, or nothing it says is "
                     "close)"),
    CONTRADICTED: Label("✗", "contradicted: the cited paper says otherwise",
                        "a sentence of the cited paper says otherwise"),
    WRONG_PAPER: Label("⇄", "wrong paper: the cited paper does not say this, another retrieved paper does",
                       "the cited paper does not say it; another paper of the library does"),
    UNCITED: Label("–", "uncited: cites no retrieved source",
                   "cites nothing; a library paper that supports it is suggested when there is one"),
    NOT_IN_LIBRARY: Label("∅", "not in library: cites only papers the library does not hold",
                          "cites only papers the library does not hold, so nothing could be checked"),
}  # fmt: skip
SYMBOLS = {label: row.symbol for label, row in TABLE.items()}
MEANINGS = {label: row.meaning for label, row in TABLE.items()}
ORDER = (CONTRADICTED, WRONG_PAPER, NOT_FOUND, UNCITED)  # the most serious doubt first


def symbol(label: str) -> str:
    return SYMBOLS.get(label, "⚠")


def meaning(label: str) -> str:
    """The headline words of a label ("contradicted: the cited paper says otherwise")."""
    return TABLE[label].words if label in TABLE else label


def flagged(checks: Sequence[SentenceCheck]) -> list[SentenceCheck]:
    """The checks that are not supported, the most serious kind first (answer order within a kind)."""
    rank = {label: i for i, label in enumerate(ORDER)}
    return sorted((c for c in checks if not c.supported), key=lambda c: rank.get(c.label, len(ORDER)))


def evidence_line(check: SentenceCheck, titles: Sequence[str]) -> str | None:
    """ "[2] Title says: …" for the evidence sentence (for a wrong paper: the paper that does support it)."""
    if not check.evidence:
        return None
    n, sentence = check.evidence[0]
    title = titles[n - 1] if 1 <= n <= len(titles) else ""
    verb = {CONTRADICTED: "says instead", WRONG_PAPER: "says it", NOT_FOUND: "says at most"}.get(check.label, "says")
    return f"[{n}]{' ' + title if title else ''} {verb}: “{sentence}”"


def flag_lines(check: SentenceCheck, titles: Sequence[str]) -> tuple[str, str | None, str | None]:
    """(headline "✗ contradicted: …", why, evidence line) of one flagged sentence."""
    head = f"{symbol(check.label)} {meaning(check.label)}"
    if check.label == WRONG_PAPER and check.supported_by:
        head += " (" + ", ".join(f"[{n}]" for n in check.supported_by) + ")"
    return head, check.reason, evidence_line(check, titles)
