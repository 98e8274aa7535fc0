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

from rag.answer.abstain import ATTRIBUTE_NOUNS, focus_phrases, noun_runs
from rag.answer.extractive import _NUMBER_WORD, _fold, counted_noun, counts
from rag.answer.paper_focus import asked_paper
from rag.answer.question import Question
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
        return "count" if counted_noun(question) else "number"
    phrases = [*noun_runs(question), *focus_phrases(question)]
    measured = any(w in MEASURED for p in phrases for w in re.split(r"[\s-]+", p.lower()))
    return "number" if measured else None


def _sentences(hit: Hit) -> list[str]:
    return [_CITATION.sub(" ", _LINK.sub(" ", s)) for s in split_sentences(hit.text)]


def _singular(word: str) -> str:
    """The singular: "classes" -> "class", "nodes" -> "node", "categories" -> "category"."""
    return word[:-2] if word.endswith(("sses", "shes", "ches", "xes")) else _fold(word)


def _words(text: str) -> set[str]:
    return {_singular(w) for w in re.findall(r"[^\W_]+", text.lower())}


def looked_at(question: Question, hits: Sequence[Hit], floor: float) -> list[Hit]:
    """The sources that must state the value: the paper the question names, else those above the floor."""
    named = asked_paper(question, hits)
    if named is not None:
        return [hits[named - 1]]
    above = [h for h in hits if h.dense_score is not None and h.dense_score >= floor]
    return above or list(hits[:1])


def value_gap(question: Question, hits: Sequence[Hit], floor: float) -> str | None:
    """Why the sources cannot answer: the question asks for a count or a number and none of the sources it is
    about states one (None: they may answer)."""
    kind = asked_value(question)
    if kind is None or not hits:
        return None
    sources = looked_at(question, hits, floor)
    sentences = [s for h in sources for s in _sentences(h)]
    noun = counted_noun(question) if kind == "count" else None
    named = asked_paper(question, hits)
    who, s = (hits[named - 1].paper.title.split(":", 1)[0], "s") if named else ("the relevant papers", "")
    if noun and _singular(noun) in set().union(*map(_words, sentences)):
        if not any(counts(sentence, noun) for sentence in sentences):
            return f"it asks how many {noun}: {who} mention{s} {noun} but state{s} no count of them"
        return None
    if not any(_NUMBER_WORD.search(sentence) for sentence in sentences):
        return f"it asks for a number: {who} state{s} none"
    return None
