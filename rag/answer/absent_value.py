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

A measured attribute asked by name ("what *learning rate*", "which *batch size*", "what *mean absolute error*") asks
for a value of that kind, not for any number: it is stated only by a sentence that names the attribute with a
number within VALUE_WINDOW words of the attribute's words ("an average 10% relative gain", "a learning rate of
3e-4"); a number about something else ("GLUE score to 80.5%" for "which learning rate") does not answer. Numbers the
question itself holds ("top-1", "ICML 2025") are not values stated.

A thing asked to be named ("which *optimizer*", "what *visual encoder*"), or counted ("how many *TPUs*"), is refused
only when the question names the one paper it is about, no word of the thing occurs in that paper, and the paper's
sentence closest to the question holds no name or number the question does not ("Which optimizer was used to
pre-train BERT?"): then nothing there can be the answer. "Which organization supplied the well records in the
Alberta Wells Dataset?" is answered: its closest sentence names the Alberta Energy Regulator. Questions that
describe a paper instead of naming it are left to the backends: on the dev sets their wh-noun was a paraphrase
("which commercial earth-observation company") as often as a missing detail, and a name near the asked noun did not
tell them apart either ("what *perspective*").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.counting import NUMBER_WORD, counts
from rag.answer.paper_focus import asked_paper
from rag.answer.question import Question
from rag.answer.question_focus import ATTRIBUTE_NOUNS
from rag.answer.term_match import abbreviation
from rag.corpus.lexicon import STOPWORDS, stem
from rag.text import split_sentences
from rag.types import Hit
from rag.verify.sentence_vectors import SentenceVectors

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
# a number within this many words of the asked attribute's words states a value of it: on the dev sets of both
# corpora (eval/sets/*/dev_absent.jsonl and the icml2025 dev suites) 1 to 40 refuse the same questions and 0 (only
# a number that is itself one of the attribute's words) refuses 5 more answerable ones; a PDF's body says "Mini batch
# size was set to 32" (bench/pdf_dev2 b7), four words apart, so the window is rag.answer.counting's, 6
VALUE_WINDOW = 6
_TOKEN = re.compile(r"[^\W_][\w.,%*/+'-]*[^\W_%]%?|[^\W_]")
_NUMBER = re.compile(
    r"\d|^(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?"
    r"|thousands?|millions?|billions?|dozens?|twice|double|half|percent)$",
    re.IGNORECASE,
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


def _stems(text: str) -> list[str]:
    return [stem(t.lower().removesuffix("'s")) for t in _TOKEN.findall(text)]


def measured_runs(question: Question) -> list[tuple[str, list[str]]]:
    """The measured attributes a wh-phrase asks for, each with its words' stems ("learning rate", [learn, rate]);
    a phrase holding a name the question capitalises ("what are *ACs*") asks about that name, not for a measure."""
    capitalised = {stem(w.lower()) for w in _TOKEN.findall(question.asked)[1:] if any(c.isupper() for c in w)}
    runs = []
    for phrase in dict.fromkeys([*question.noun_runs, *question.focus]):
        if not any(word in MEASURED for word in re.split(r"[\s-]+", phrase.lower())):
            continue
        stems = [s for s in _stems(phrase) if s not in STOPWORDS]
        if stems and not capitalised & set(stems):
            short = abbreviation(phrase)  # "MAE of 2.73 years" states a mean absolute error
            runs.append((phrase, stems + ([short] if short else [])))
    return runs


def states_measure(sentence: str, run: Sequence[str], asked: set[str]) -> bool:
    """The sentence names one of the attribute's words and holds a number (not one of the question's) within
    VALUE_WINDOW words of one of them."""
    tokens = _TOKEN.findall(sentence)
    stems = [stem(t.lower().removesuffix("'s")) for t in tokens]
    near = [i for i, s in enumerate(stems) if s in run]
    numbers = [i for i, t in enumerate(tokens) if _NUMBER.search(t) and stems[i] not in asked]
    return any(abs(i - j) <= VALUE_WINDOW for i in near for j in numbers)


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
    if question.wants("quantity"):  # "how much", "what percentage": any number may be it
        return None
    asked = set(_stems(question.asked))
    for phrase, run in measured_runs(question):
        if not any(states_measure(sentence, run, asked) for sentence in sentences):
            return f"it asks for a {phrase}: {who} state{s} none"
    return None


def asked_name(question: Question) -> str | None:
    """The thing a one-value wh-question asks to be named ("which *optimizer*", "what *visual encoder*"): its first
    wh-phrase, unless that asks for a measure (a number answers it, above) or holds a name the question capitalises
    ("what are *ACs*": the thing is named already)."""
    if len(question.parts) > 1 or any(question.wants(kind) for kind in (*_NOT_ONE_VALUE, "quantity")):
        return None
    if not question.noun_runs or measured_runs(question):
        return None
    phrase = question.noun_runs[0]
    capitalised = {stem(w.lower()) for w in _TOKEN.findall(question.asked)[1:] if any(c.isupper() for c in w)}
    return None if any(s in capitalised for s in _stems(phrase)) else phrase


def states_value(sentence: str, known: set[str]) -> bool:
    """The sentence holds a number or a name (an acronym, a mixed-case or capitalised word not opening it) that is
    not one of `known` (the question's words): something that could be the value asked."""
    for i, token in enumerate(_TOKEN.findall(sentence)):
        if stem(token.lower().removesuffix("'s")) in known:
            continue
        rest = token[1:]
        if _NUMBER.search(token) and any(c.isdigit() for c in token) or any(c.isupper() for c in rest):
            return True
        if i > 0 and token[0].isupper():
            return True
    return False


def name_gap(question: Question, hits: Sequence[Hit], names: Sequence[int], vectors: SentenceVectors) -> str | None:
    """Why the one paper the question names cannot say which thing it asks for (None: it may): see the module
    docstring."""
    phrase = asked_name(question) or (question.counted if asked_value(question) == "count" else None)
    n = asked_paper(question, hits, names) if phrase else None
    if phrase is None or n is None:
        return None
    sentences = _sentences(hits[n - 1])
    words = {s for sentence in sentences for s in _stems(sentence)}
    if not sentences or any(s in words for s in _stems(phrase) if s not in STOPWORDS):
        return None
    closest = sentences[int((vectors(sentences) @ vectors([question.asked])[0]).argmax())]
    if states_value(closest, set(_stems(question.text))):
        return None
    title = hits[n - 1].paper.title.split(":", 1)[0]
    asks = f"how many {phrase}" if phrase == question.counted else f"which {phrase}"
    return f"it asks {asks}: {title} never mentions {'any' if phrase == question.counted else 'one'}"
