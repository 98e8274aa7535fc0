"""Does the question ask for something no retrieved source has? Decided before any model writes a word.

Specific names and numbers (key terms), the thing a wh-phrase asks for ("which *university*") and units
("in *dollars*") are looked up in the retrieved sources; only what the question actually asks (its last
interrogative clause) counts, so planted instructions and premises before it do not cause refusals.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag.answer.definitions import defined_in, mentions
from rag.answer.question import Question
from rag.answer.question_focus import ATTRIBUTE_NOUNS
from rag.answer.term_match import haystack_of
from rag.corpus.lexicon import tokenize
from rag.retrieve.fields import author_match
from rag.text import split_sentences
from rag.types import Hit
from rag.verify.checker import source_text

PHRASE_WINDOW = 3  # words between two words of an asked phrase written apart ("cost of inference")


def missing_key_terms(question: Question, hits: Sequence[Hit]) -> list[str]:
    """Key terms of what the question asks (not of planted instructions before it, and not of a "why"
    question's premise) that appear in none of the retrieved sources."""
    if question.wants("why"):
        return []  # a premise is for the answer to confirm or correct, not a reason to refuse
    haystack = haystack_of(" ".join(source_text(h) for h in hits))
    return [term for term in question.key_terms if not haystack.has(term)]  # spelling variants allowed


def missing_focus(question: Question, hits: Sequence[Hit]) -> str | None:
    """The thing a question asks for ("what *acceptance* rate", "which *university*", "in *dollars*") when no
    retrieved source mentions it: then the sources cannot say which one or how much."""
    wanted = question.focus
    if not wanted:
        return None
    text = " ".join(source_text(h) for h in hits)
    present = _words_and_pairs(text)
    for phrase in wanted:
        stems = tokenize(phrase)
        attribute = any(w.lower() in ATTRIBUTE_NOUNS for w in re.split(r"[\s-]+", phrase))
        if stems and " ".join(stems) not in present and attribute and not _near(tuple(stems), text):
            return phrase
    return None


@lru_cache(maxsize=64)
def _near(stems: tuple[str, ...], text: str) -> bool:
    """Every word of a phrase in one sentence, each within PHRASE_WINDOW words of the last, in any order: "the
    average cost of inference" mentions an *inference cost*, "a 10% relative gain in accuracy" a *relative accuracy*."""
    if len(stems) < 2:
        return False
    for sentence in split_sentences(text):
        tokens = tokenize(sentence)
        places = [[i for i, t in enumerate(tokens) if t == s] for s in stems]
        if all(places) and max(map(min, places)) - min(map(max, places)) <= PHRASE_WINDOW * (len(stems) - 1):
            return True
    return False


@lru_cache(maxsize=8)  # the same sources, once for each part of a question
def _words_and_pairs(text: str) -> frozenset[str]:
    tokens = tokenize(text)
    present = set(tokens) | {f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)}
    if "%" in text:  # a percentage is written with its sign ("up to 87% more compact")
        present |= {*tokenize("percentage percent")}
    return frozenset(present)


@dataclass(frozen=True)
class Floors:
    """The library's relevance floors (rag.types.Calibration, or the min_relevance setting): a paper below
    `relevance` is not relevant; a sentence whose similarity to the question is below `sentence` does not address
    it. `origin` says where the relevance floor came from, for notes."""

    relevance: float
    sentence: float = 0.0
    origin: str = "default"


def top_relevance(hits: Sequence[Hit]) -> float:
    """The best cosine similarity among the hits: the "anything relevant?" signal."""
    return max((h.dense_score for h in hits if h.dense_score is not None), default=0.0)


def retrieval_refusal(
    question: Question, hits: Sequence[Hit], floors: Floors | float, agree: Callable[[], bool] = lambda: False
) -> str | None:
    """The only reasons to refuse before any backend writes: nothing was retrieved, or nothing relevant: the best
    cosine similarity is below the relevance floor, the question names nothing a source mentions, and the dense
    search and BM25 do not rank the same paper first (`agree`, asked only then: two independent signals pointing at
    one paper say a low similarity is the question's wording, a reader's own words, not a missing paper). A question
    naming an author of a retrieved paper, or an abbreviation one defines, names that paper (its similarity to the
    abstract says nothing), in every backend: an LLM's answer to it is checked like any other. Whether
    the sources actually answer is for the backend to judge: an LLM through the prompt's refusal sentence, the
    extractive backend from its evidence."""
    if not hits:
        return "no indexed paper matches the question"
    floor = floors.relevance if isinstance(floors, Floors) else floors
    origin = floors.origin if isinstance(floors, Floors) else "the setting"
    best = top_relevance(hits)
    named = bool(question.key_terms) and not missing_key_terms(question, hits)  # e.g. "PaperBench"
    # an author of a retrieved paper ("Zilberg's paper"), an abbreviation one defines ("bSGD")
    named = named or any(author_match(question.names, h.paper.authors) for h in hits)
    named = named or any(mentions(question.asked, a, False) for h in hits for a in defined_in(h))
    if best < floor and not named and not agree():
        return f"nothing relevant was found (best similarity {best:.2f} < {floor:.2f}, {origin})"
    return None


def lexical_gap(question: Question, hits: Sequence[Hit], focus: bool = True) -> str | None:
    """What the question asks for that no retrieved source mentions: a key term (a name, a number) or the thing a
    wh-phrase asks for ("which *university*"). Evidence for the extractive backend's refusal, never a gate."""
    missing = missing_key_terms(question, hits)
    if missing:
        return f"no retrieved paper mentions {', '.join(repr(t) for t in missing)}"
    if not focus or question.metadata:
        return None
    thing = missing_focus(question, hits)
    return f"no retrieved paper mentions any {thing!r}" if thing else None
