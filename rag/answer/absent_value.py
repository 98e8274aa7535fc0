"""A question that asks for a kind of value its sources never state: refused before any backend writes, so the
extractive answer and an LLM refuse it alike, with the closest papers listed.

The kind is read from the question: "how many X" asks for a count of X; "how much", "how long", "what
percentage" and a wh-phrase asking for a measured attribute ("what *accuracy*", "which *learning rate*",
rag.answer.abstain.ATTRIBUTE_NOUNS less the ones answered by a name) ask for a number. The sources looked at are
the one retrieved paper the question names (rag.answer.paper_focus.asked_paper), else the retrieved papers above
the relevance floor (else the first one). A count of X is stated when one of their sentences puts a number right
before X (rag.answer.extractive.counts); when they never mention X, any number may be it (a reader may name X in
other words). A number is stated when a sentence holds a digit or a number word outside links and citations
("Huh et al., 2024"). Lists, comparisons, summaries, yes/no, "why" and multi-part questions are left to the
backends: they do not ask for one value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.counting import NUMBER_WORD, counts
from rag.answer.paper_focus import asked_paper
from rag.answer.question import Question
from rag.answer.question_focus import ATTRIBUTE_NOUNS
from rag.corpus.lexicon import stem
from rag.text import split_sentences
from rag.types import Hit

# attributes a name answers, not a number ("which *university*", "in which *country*")
NAMED = frozenset(
    """university universities institution institutions affiliation affiliations lab labs laboratory company
    companies country countries funding grant grants sponsor license language languages version identifier id
    doi""".split()
)
MEASURED = ATTRIBUTE_NOUNS - NAMED
_NOT_ONE_VALUE = ("list", "comparison", "summary", "yes_no", "why", "metadata")
_AMOUNT = re.compile(
    r"\bhow (?:many|much|large|big|long)\b|\bwhat (?:percentage|fraction|number|proportion|share)\b", re.IGNORECASE
)
_LINK = re.compile(r"https?://\S+|\bwww\.\S+")
_CITATION = re.compile(r"\([^()]*\b(?:19|20)\d\d[a-z]?\)|\bet al\.?,? \(?(?:19|20)\d\d[a-z]?\)?")


def asked_value(question: Question) -> str | None:
    """The kind of value asked: "count" ("how many X"), "number" (how much, a measured attribute) or None."""
    if len(question.parts) > 1 or any(question.wants(kind) for kind in _NOT_ONE_VALUE):
        return None
    if question.wants("quantity") and _AMOUNT.search(question.asked):  # not "how does it improve ...": a way
        return "count" if question.counted else "number"
    phrases = [*question.noun_runs, *question.focus]
    measured = any(w in MEASURED for p in phrases for w in re.split(r"[\s-]+", p.lower()))
    return "number" if measured else None


def _sentences(hit: Hit) -> list[str]:
    return [_CITATION.sub(" ", _LINK.sub(" ", s)) for s in split_sentences(hit.text)]


def _words(text: str) -> set[str]:
    return {stem(w) for w in re.findall(r"[^\W_]+", text.lower())}


def looked_at(hits: Sequence[Hit], floor: float, named: int | None) -> list[Hit]:
    """The sources that must state the value: the paper the question names, else those above the floor."""
    if named is not None:
        return [h for h in hits if h.paper.id == hits[named - 1].paper.id]  # all its windows (full text)
    above = [h for h in hits if h.dense_score is not None and h.dense_score >= floor]
    return above or list(hits[:1])


def _states_count(sentence: str, noun: str) -> bool:
    """The sentence gives a count of `noun`: a number right before it (rag.answer.extractive.counts), any number in a
    sentence that names it ("a large collection of examples (up to 10M in some cases)"), or none of it ("without
    retaining exemplars", "exemplar-free": zero is a count)."""
    root = re.escape(stem(noun))
    if counts(sentence, noun) or NUMBER_WORD.search(sentence) and stem(noun) in _words(sentence):
        return True
    return bool(re.search(rf"\b(?:no|without|zero)\s+(?:[\w-]+\s+){{0,2}}{root}|\b{root}\w*-free\b", sentence, re.I))


def value_gap(question: Question, hits: Sequence[Hit], floor: float, names: Sequence[int]) -> str | None:
    """Why the sources cannot answer: the question asks for a count or a number and none of the sources it is
    about states one (None: they may answer). "How many X" needs a count of X when the paper it is about (the one
    it names, else the first source) mentions X; otherwise, as for any number asked, a number will do."""
    kind = asked_value(question)
    if kind is None or not hits:
        return None
    named = asked_paper(question, hits, names)
    sources = looked_at(hits, floor, named)
    sentences = [s for h in sources for s in _sentences(h)]
    about = hits[named - 1] if named is not None else hits[0]
    who, s = (about.paper.title.split(":", 1)[0], "s") if named is not None else ("the relevant papers", "")
    noun = question.counted if kind == "count" else None
    if noun and stem(noun) in set().union(*map(_words, _sentences(about))):
        if not any(_states_count(sentence, noun) for sentence in sentences):
            return f"it asks how many {noun}: {who} mention{s} {noun} but state{s} no count of them"
        return None
    if not any(NUMBER_WORD.search(sentence) for sentence in sentences):
        return f"it asks for a number: {who} state{s} none"
    return None
