"""How a sentence check's label reads, the same in the terminal, Markdown and the UI: a user must tell "this is
false" (contradicted, ✗) from "I could not confirm this" (not found, ?) from "another paper says this" (wrong paper,
⇄, naming that paper), each with the evidence sentence. Plain strings; each output escapes them its own way.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.types import CONTRADICTED, NOT_FOUND, SUPPORTED, UNCITED, WRONG_PAPER, SentenceCheck

SYMBOLS = {SUPPORTED: "✓", NOT_FOUND: "?", CONTRADICTED: "✗", WRONG_PAPER: "⇄", UNCITED: "⚠"}
MEANINGS = {
    SUPPORTED: "supported by the cited paper",
    NOT_FOUND: "not found: could not confirm this in the cited paper",
    CONTRADICTED: "contradicted: the cited paper says otherwise",
    WRONG_PAPER: "wrong paper: the cited paper does not say this, another retrieved paper does",
    UNCITED: "uncited: cites no retrieved source",
}
ORDER = (CONTRADICTED, WRONG_PAPER, NOT_FOUND, UNCITED)  # the most serious doubt first


def symbol(label: str) -> str:
    return SYMBOLS.get(label, "⚠")


def meaning(label: str) -> str:
    return MEANINGS.get(label, label)


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
