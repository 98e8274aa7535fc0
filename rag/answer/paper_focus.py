"""A question about one named paper that asks for a measure or setting that paper never states.

"What accuracy does AffectGPT reach on MER-UniBench?", "In which country were the PreSelect models trained?": the
paper is there and close to the question, and another retrieved paper may well mention an accuracy or a country, so
neither the relevance floor nor rag.answer.abstain.missing_focus refuses it, and quoting the paper's nearest
sentence would answer something else. When the question names exactly one retrieved paper (by a name only it
uses, or an identifier) and its wh-phrase asks for one of the attributes abstracts may simply not state
(rag.answer.question_focus.ATTRIBUTE_NOUNS: a rate, a size, a cost, an affiliation ...), that paper must mention it
(spelling variants allowed, rag.answer.term_match; a count or size may be a bare number). Other things a question
asks for are not checked: a reader may name them in other words than the paper (on the held-out sets, checking
every noun refused answerable paraphrases and caught nothing more).
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.answer.question import Question
from rag.answer.question_focus import ATTRIBUTE_NOUNS
from rag.answer.question_parts import identified_paper
from rag.answer.term_match import Haystack
from rag.types import Hit
from rag.verify.checker import source_text

# what numbers answer without naming it ("which model sizes" -> "1B and 3B parameter models")
NUMERIC = frozenset("size sizes count counts number numbers dimension dimensions amount amounts".split())


def asked_paper(question: Question, hits: Sequence[Hit], named: Sequence[int]) -> int | None:
    """The one retrieved paper (1-based) the question is about, when it names exactly one (`named`: the sources
    it names, rag.answer.question_parts.named_papers)."""
    if len(named) == 1:
        return named[0]
    return identified_paper(question.text, hits) if not named else None


def paper_gap(question: Question, hits: Sequence[Hit], named: Sequence[int]) -> str | None:
    """Why the one paper a question names cannot answer it: what its wh-phrase asks for is not in that paper (None:
    it may answer)."""
    n = asked_paper(question, hits, named)
    if n is None or question.metadata or question.wants("list") or question.wants("comparison"):
        return None
    hit = hits[n - 1]
    paper = Haystack.of("\n".join(source_text(h) for h in hits if h.paper.id == hit.paper.id))  # each passage of it
    for phrase in dict.fromkeys([*question.noun_runs, *question.focus]):
        if paper.abbreviates(phrase):
            continue  # "mean absolute error" where the paper writes "MAE"
        missing = [w for w in phrase.split() if w.lower() not in NUMERIC and not paper.has(w)]
        if any(w.lower() in ATTRIBUTE_NOUNS for w in missing):
            return f"{hit.paper.title.split(':', 1)[0]} does not mention any {phrase!r}"
    return None
