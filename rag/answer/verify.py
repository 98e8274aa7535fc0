"""Draft -> checked answer parts, the same way for every backend: citation markers that point at no retrieved
source are removed and counted, sources that carry instructions are noted, each sentence is checked against
the sources it cites offline, and, when asked, by the LLM check too (a sentence either rejects is flagged)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rag.answer.backends import Draft
from rag.answer.citations import REFUSAL, clean_markers
from rag.answer.grounding import SupportChecker
from rag.answer.injection import untrusted
from rag.answer.llm_check import LLMVerdicts
from rag.safe_text import neutralise_markdown
from rag.types import NOT_FOUND, Hit, SentenceCheck, Usage

# (sentences the offline check passed, hits) -> the LLM's verdicts
SecondOpinion = Callable[[Sequence[str], Sequence[Hit]], LLMVerdicts]


@dataclass(frozen=True)
class Checked:
    text: str
    abstained: bool
    sentence_checks: tuple[SentenceCheck, ...]
    removed_citations: int
    notes: tuple[str, ...]
    checks: tuple[str, ...]
    usage: Usage = Usage()  # tokens the LLM check spent

    @property
    def unsupported(self) -> tuple[str, ...]:
        return tuple(c.sentence for c in self.sentence_checks if not c.supported)

    @property
    def checked(self) -> int:
        return len(self.sentence_checks)

    @property
    def nothing_supported(self) -> bool:
        return not self.abstained and self.checked > 0 and len(self.unsupported) == self.checked


def check(
    draft: Draft, hits: Sequence[Hit], checker: SupportChecker, second_opinion: SecondOpinion | None = None
) -> Checked:
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
    abstained = REFUSAL in text
    if abstained:
        # a refusal mixed with claims is a refusal
        return Checked(REFUSAL, True, (), removed, tuple(notes), ("offline",))
    judged = checker.judge(text, hits)
    checks: tuple[str, ...] = ("offline",)
    usage = Usage()
    passed = [c.sentence for c in judged if c.supported]
    if second_opinion is not None and passed:
        verdicts = second_opinion(passed, hits)
        usage = verdicts.usage
        if verdicts.error:
            notes.append(f"{verdicts.error}; sentences were checked offline only")
        else:
            checks = ("offline", "llm")
            rejected = {passed[i] for i in verdicts.rejected}
            judged = [
                replace(c, label=NOT_FOUND, reason="the LLM check found it unsupported", checks=checks)
                if c.sentence in rejected
                else replace(c, checks=checks if c.supported else c.checks)
                for c in judged
            ]
    # judged as written; shown, copied and exported without images, raw HTML or non-http(s) links (rag.safe_text)
    text, judged = neutralise_markdown(text), [replace(c, sentence=neutralise_markdown(c.sentence)) for c in judged]
    return Checked(text, False, tuple(judged), removed, tuple(notes), checks, usage)
