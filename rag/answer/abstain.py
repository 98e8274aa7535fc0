"""Does the question ask for something no retrieved source has? Decided before any model writes a word.

Specific names and numbers (key terms), the thing a wh-phrase asks for ("which *university*") and units
("in *dollars*") are looked up in the retrieved sources; only what the question actually asks (its last
interrogative clause) counts, so planted instructions and premises before it do not cause refusals.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.answer.definitions import defined_in, mentions
from rag.answer.question import Question
from rag.answer.term_match import Haystack
from rag.retrieve.fields import author_match
from rag.types import Hit
from rag.verify.checker import source_text
from rag.verify.lexicon import STOPWORDS, tokenize


def missing_key_terms(question: Question, hits: Sequence[Hit]) -> list[str]:
    """Key terms of what the question asks (not of planted instructions before it, and not of a "why"
    question's premise) that appear in none of the retrieved sources."""
    if question.wants("why"):
        return []  # a premise is for the answer to confirm or correct, not a reason to refuse
    haystack = Haystack.of(" ".join(source_text(h) for h in hits))
    return [term for term in question.key_terms if not haystack.has(term)]  # spelling variants allowed


_AUX = frozenset(
    "is are was were does do did can could would should has have had will the a an its their this these".split()
)
_WH_PHRASE = re.compile(
    r"(?:^|[,;]\s*|\band\s+|\b(?:in|on|at|from|by|for|with|of|to|under)\s+)(?:what|which|how many|how much)\s+"
    r"((?:[\w-]+\s+){0,4})",
    re.IGNORECASE,
)
_COSTS = re.compile(r"\b(?:what|how much)\b.*\bcosts?\W*$", re.IGNORECASE)
_UNIT = re.compile(r"\bin (?:us |usd )?(dollars|euros|hours|days|gpu[- ]hours|kwh|watts)\b", re.IGNORECASE)
GENERIC_FOCUS = frozenset(
    """paper papers work works study studies method methods approach approaches technique techniques idea ideas way
    ways kind kinds type types sort result results finding findings thing things problem problems issue issues
    challenge challenges contribution contributions goal goals task tasks main key new novel other specific
    exactly role aspect aspects part parts it they them he she we you one ones size sizes number numbers name
    names value values amount amounts best most first last latest""".split()
)


_ASK_VERB = frozenset("does did do can could would should will has have had".split())
# What a question can ask for that an abstract may simply not state: a measure, a setting, a cost, an
# affiliation. A missing focus refuses only when it is one of these; other missing words (a paraphrase's
# "body shape" for "width") are left to the evidence.
ATTRIBUTE_NOUNS = frozenset(
    """rate rates score scores accuracy accuracies error errors precision recall f1 auc bleu rouge fid perplexity
    percentage percent fraction proportion ratio size sizes depth width rank dimension dimensions count budget
    cost costs price prices hours hour minutes seconds days weeks months time duration latency throughput
    memory parameters dollars euros usd university universities institution institutions affiliation
    affiliations lab labs laboratory company companies country countries funding grant grants sponsor license
    language languages version identifier id doi seed seeds batch epochs epoch steps temperature threshold level
    levels""".split()
)
_NUMBER_WORDS = frozenset("two three four five six seven eight nine ten both several many few".split())
_DETERMINERS = frozenset("the a an this that these those its their his her our".split())
_SKIP = frozenset("is are was were the a an".split())


def _focus_word(fragment: str) -> str | None:
    """The noun a wh-phrase asks for: "what [is the] *acceptance* rate" -> "acceptance"; none for "what does X do"
    or for generic heads ("which theory paper", "what new method")."""
    words = [w.lower().strip("?,.;:'\"()") for w in fragment.split()]
    if not words or words[0] in _ASK_VERB:
        return None
    while words and words[0] in _SKIP:
        words = words[1:]
    if not words or words[0] in GENERIC_FOCUS or words[0] in STOPWORDS or words[0] in _ASK_VERB:
        return None
    if words[0] in _NUMBER_WORDS:
        return None  # "which two papers": a count, not a thing asked for
    if len(words) > 1 and words[1] in _DETERMINERS:
        return None  # "what happens to the ...", "which determines the ...": a verb, not a noun
    if len(words) > 1 and words[1] in GENERIC_FOCUS and words[1] not in ATTRIBUTE_NOUNS:
        return None  # "which theory paper", "what new method": generic; but "batch size" is a setting
    if len(words) > 1 and words[1].isalpha() and not _not_noun(words[1]):
        return f"{words[0]} {words[1]}"  # "learning rate": the pair must occur together
    return words[0]


def noun_runs(question: Question) -> list[str]:
    """What each wh-phrase of the asked clause asks for, in full: "which language model *backbone*" -> "language
    model backbone" (up to three words before a verb; none for generic heads, as focus_phrases)."""
    runs = []
    for m in _WH_PHRASE.finditer(question.asked):
        head = _focus_word(m.group(1))
        words = [w.lower().strip("?,.;:'\"()") for w in m.group(1).split()]
        while words and words[0] in _SKIP:
            words = words[1:]
        if head is None:
            continue
        run = head.split()
        for word in words[len(run) : 3]:
            if not word.isalpha() or _not_noun(word) or word in GENERIC_FOCUS:
                break
            run.append(word)
        runs.append(" ".join(run))
    return runs


def _not_noun(word: str) -> bool:
    return word in STOPWORDS or word in _ASK_VERB or word in _SKIP or word.endswith(("ed", "ly"))


def focus_phrases(question: Question) -> list[str]:
    """What the question's wh-phrases ask for ("what *acceptance rate*", "in which *country*") and the units it
    wants ("in *dollars*")."""
    clause = question.asked
    wanted = [w for m in _WH_PHRASE.finditer(clause) if (w := _focus_word(m.group(1)))]
    wanted += [u.group(1).lower() for u in _UNIT.finditer(clause)]
    return wanted + (["cost"] if _COSTS.search(clause) else [])  # "what did it cost?"


def missing_focus(question: Question, hits: Sequence[Hit]) -> str | None:
    """The thing a question asks for ("what *acceptance* rate", "which *university*", "in *dollars*") when no
    retrieved source mentions it: then the sources cannot say which one or how much."""
    wanted = focus_phrases(question)
    tokens = tokenize(" ".join(source_text(h) for h in hits))
    present = set(tokens) | {f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)}
    for phrase in wanted:
        stems = " ".join(tokenize(phrase))
        attribute = any(w.lower() in ATTRIBUTE_NOUNS for w in re.split(r"[\s-]+", phrase))
        if stems and stems not in present and attribute:
            return phrase
    return None


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
    question: Question, hits: Sequence[Hit], floors: Floors | float, agree: Callable[[], bool] = lambda: False,
    fields: bool = True,
) -> str | None:
    """The only reasons to refuse before any backend writes: nothing was retrieved, or nothing relevant: the best
    cosine similarity is below the relevance floor, the question names nothing a source mentions, and the dense
    search and BM25 do not rank the same paper first (`agree`, asked only then: two independent signals pointing at
    one paper say a low similarity is the question's wording, a reader's own words, not a missing paper). A question
    naming an author of a retrieved paper, or an abbreviation one defines, names that paper (its similarity to the
    abstract says nothing), when `fields` is on: the Assistant turns it on for the extractive backend only (an LLM
    answer to such a question went past the checker with planted errors it does not catch yet). Whether
    the sources actually answer is for the backend to judge: an LLM through the prompt's refusal sentence, the
    extractive backend from its evidence."""
    if not hits:
        return "no indexed paper matches the question"
    floor = floors.relevance if isinstance(floors, Floors) else floors
    origin = floors.origin if isinstance(floors, Floors) else "the setting"
    best = top_relevance(hits)
    named = bool(question.key_terms) and not missing_key_terms(question, hits)  # e.g. "PaperBench"
    if fields:  # an author of a retrieved paper ("Zilberg's paper"), an abbreviation one defines ("bSGD")
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
