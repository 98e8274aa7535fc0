"""Draft -> checked answer parts, the same way for every backend: citation markers that point at no retrieved
source are removed and counted, sources that carry instructions are noted, each sentence is checked against
the sources it cites offline, and, when asked, by the LLM check too (a sentence either rejects is flagged)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rag.answer.backends import Draft
from rag.answer.citations import (
    REFUSAL,
    answer_sentences,
    clauses_by_marker,
    clean_markers,
    parse_markers,
    strip_markers,
)
from rag.safe_text import neutralise_markdown
from rag.types import NOT_FOUND, WRONG_PAPER, Hit, SentenceCheck, Usage
from rag.verify.checker import SupportChecker
from rag.verify.injection import untrusted
from rag.verify.second_opinion import SecondOpinion


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


def judge_answer(checker: SupportChecker, answer: str, hits: Sequence[Hit]) -> list[SentenceCheck]:
    """One check per answer sentence (the refusal sentence is not a claim): each sentence's [n] markers give the
    sources it cites and its clauses, and the verify stage judges it against them among all retrieved `hits`."""
    out: list[SentenceCheck] = []
    for sentence in answer_sentences(answer, keep_whole=[h.paper.title for h in hits]):
        if REFUSAL in sentence:
            continue
        numbers = tuple(n for n in parse_markers(sentence) if 1 <= n <= len(hits))
        cited_numbers = tuple(dict.fromkeys(numbers))
        place = {n: i for i, n in enumerate(cited_numbers, 1)}
        clauses = [(text, tuple(place[n] for n in ns if n in place)) for text, ns in clauses_by_marker(sentence)]
        v = checker.check(strip_markers(sentence), [hits[n - 1] for n in cited_numbers], hits, clauses,
                          [f"[{n}]" for n in cited_numbers])  # fmt: skip
        backing: tuple[int, ...]
        if v.cited_instead is not None:  # a clause's number or name is in another paper the sentence cites
            there = cited_numbers[v.cited_instead]
            mapped, backing = tuple((there, s) for _, s in v.evidence), (there,)
        elif v.label == WRONG_PAPER:  # evidence indexes `hits` (the paper that does support it), not the cited ones
            mapped = tuple((v.supported_by[0] + 1, s) for _, s in v.evidence)
            backing = tuple(j + 1 for j in v.supported_by)
        else:
            mapped, backing = tuple((cited_numbers[i], s) for i, s in v.evidence), ()
        out.append(SentenceCheck(sentence, numbers, v.label, v.reason, mapped, supported_by=backing))
    return out


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
    judged = judge_answer(checker, text, hits)
    checks: tuple[str, ...] = ("offline",)
    usage = Usage()
    passed = [c for c in judged if c.supported]
    if second_opinion is not None and passed:
        verdicts = second_opinion([(strip_markers(c.sentence), [hits[n - 1] for n in dict.fromkeys(c.cited)])
                                   for c in passed])  # fmt: skip
        usage = verdicts.usage
        if verdicts.error:
            notes.append(f"{verdicts.error}; sentences were checked offline only")
        else:
            checks = ("offline", "llm")
            rejected = {passed[i].sentence for i in verdicts.rejected}
            judged = [
                replace(c, label=NOT_FOUND, reason="the LLM check found it unsupported", checks=checks)
                if c.sentence in rejected
                else replace(c, checks=checks if c.supported else c.checks)
                for c in judged
            ]
    # judged as written; shown, copied and exported without images, raw HTML or non-http(s) links (rag.safe_text)
    text, judged = neutralise_markdown(text), [replace(c, sentence=neutralise_markdown(c.sentence)) for c in judged]
    return Checked(text, False, tuple(judged), removed, tuple(notes), checks, usage)
