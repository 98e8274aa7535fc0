"""A question about one named paper that asks for something that paper never mentions.

"What accuracy does AffectGPT reach on MER-UniBench?", "Which hospital provided the data for SQGEF?": the paper is
there and close to the question, so neither the relevance floor nor a missing name refuses it, and quoting the
paper's nearest sentence would answer something else. When the question names exactly one retrieved paper (by a
name only it uses, or an identifier), the thing its wh-phrase asks for must be in that paper (spelling variants
allowed, rag.answer.term_match; a count or size may be a bare number). Otherwise the paper cannot say which, and
the answer refuses. Words of a premise are not checked: a false premise is answered by correcting it.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.answer.abstain import focus_phrases, noun_runs
from rag.answer.grounding import source_text
from rag.answer.question import Question
from rag.answer.question_parts import identified_paper, named_papers
from rag.answer.term_match import Haystack
from rag.types import Hit

# what numbers answer without naming it ("which model sizes" -> "1B and 3B parameter models")
NUMERIC = frozenset("size sizes count counts number numbers dimension dimensions amount amounts".split())


def asked_paper(question: Question, hits: Sequence[Hit]) -> int | None:
    """The one retrieved paper (1-based) the question is about, when it names exactly one."""
    named = named_papers(question.text, hits)
    if len(named) == 1:
        return named[0]
    return identified_paper(question.text, hits) if not named else None


def paper_gap(question: Question, hits: Sequence[Hit]) -> str | None:
    """Why the one paper a question names cannot answer it: what its wh-phrase asks for is not in that paper (None:
    it may answer)."""
    n = asked_paper(question, hits)
    if n is None or question.metadata or question.wants("list") or question.wants("comparison"):
        return None
    hit = hits[n - 1]
    paper = Haystack.of(source_text(hit))
    for phrase in dict.fromkeys([*noun_runs(question), *focus_phrases(question)]):
        words = [w for w in phrase.split() if w.lower() not in NUMERIC]
        if words and not all(paper.has(word) for word in words):
            return f"{hit.paper.title.split(':', 1)[0]} does not mention any {phrase!r}"
    return None
