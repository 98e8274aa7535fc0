"""Draft -> checked answer parts, the same way for every backend: citation markers that point at no retrieved
source are removed and counted, sources that carry instructions are noted, and each sentence is checked
against the sources it cites."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.backends import Draft
from rag.answer.citations import REFUSAL, clean_markers
from rag.answer.grounding import SupportChecker
from rag.answer.injection import untrusted
from rag.types import Hit


@dataclass(frozen=True)
class Checked:
    text: str
    abstained: bool
    unsupported: tuple[str, ...]  # sentences no cited source supports
    checked: int  # sentences judged
    removed_citations: int
    notes: tuple[str, ...]

    @property
    def nothing_supported(self) -> bool:
        return not self.abstained and self.checked > 0 and len(self.unsupported) == self.checked


def check(draft: Draft, hits: Sequence[Hit], checker: SupportChecker) -> Checked:
    text, removed = clean_markers(draft.text, set(range(1, len(hits) + 1)))
    notes = list(draft.notes)
    if removed:
        notes.append(f"removed {removed} citation(s) of sources that were not retrieved")
    flagged = [f"[{n}] {h.paper.id}" for n, h in enumerate(hits, 1) if untrusted(h)]
    if flagged:
        notes.append(
            f"source {', '.join(flagged)} contains instructions addressed to the model; "
            "treated as data and never used as evidence"
        )
    unsupported, checked = checker.unsupported(text, hits)
    abstained = REFUSAL in text
    if abstained and not text.startswith(REFUSAL):
        text, unsupported = REFUSAL, []  # a refusal mixed with claims is a refusal
    return Checked(text, abstained, tuple(unsupported), checked, removed, tuple(notes))
