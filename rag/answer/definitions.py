"""An abbreviation the question asks about, answered first with the source sentence that defines it.

The definitions are the sources' own (rag.corpus.abbreviations: Schwartz-Hearst over each abstract, stored with
the paper's metadata at index time; found in the text when an older index did not store them). A question
names an abbreviation by its short form ("KDS", matched as a word, case kept: "ACs" and "AC" alike) or by its long
form ("kernel divergence score", case, hyphens and spaces folded). When it asks what that is ("what does X stand
for", "what is X", "what does X mean", "expand X"), the defining sentence leads the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.question import Question
from rag.corpus.abbreviations import Abbreviation, abbreviations
from rag.text import split_sentences
from rag.types import Hit

# asks what a term is or stands for, not what it does
_DEFINITIONAL = re.compile(
    r"\b(stands?|short|abbreviat\w*|acronyms?|means?|meaning|denot\w*|refer(?:s|red)? to|full (?:name|form)"
    r"|expan\w*|spell\w* out|defin\w*)\b|^\W*(?:what|who)\s+(?:is|are|was|were)\b",
    re.IGNORECASE,
)
# only what it stands for: the defining sentence is the whole answer
_EXPANSION = re.compile(
    r"\b(stands?|short for|abbreviat\w*|acronyms?|full (?:name|form)|expan\w*|spell\w* out)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Definition:
    n: int  # the source ([n], from 1)
    sentence: str  # the sentence that defines it
    abbreviation: Abbreviation
    expansion_only: bool  # the question asks only what it stands for


def _folded(text: str) -> str:
    return " " + re.sub(r"[\W_]+", " ", text.lower()).strip() + " "


def mentions(question: str, abbreviation: Abbreviation, long_form: bool = True) -> bool:
    """The question names the abbreviation by its short form (or by its long form, unless `long_form` is False)."""
    short = re.escape(abbreviation.short.rstrip("s"))
    if re.search(rf"(?<![\w-]){short}s?(?![\w-])", question):
        return True
    return long_form and _folded(abbreviation.long) in _folded(question)


def defined_in(hit: Hit) -> tuple[Abbreviation, ...]:
    """The abbreviations the hit's paper defines: stored at index time, or found in its text now (an index written
    before they were stored)."""
    stored = hit.paper.abbreviations
    if stored is None:
        return abbreviations(hit.text)
    return tuple(Abbreviation(short, long, -1, -1) for short, long in stored)


def _defining(sentence: str, abbreviation: Abbreviation) -> bool:
    return _folded(abbreviation.long) in _folded(sentence) and mentions(sentence, abbreviation, long_form=False)


def definition(question: Question, hits: Sequence[Hit]) -> Definition | None:
    """The first source (in retrieval order) that defines an abbreviation the question asks about, or None."""
    asked = question.asked
    if not _DEFINITIONAL.search(asked):
        return None
    for n, hit in enumerate(hits, 1):
        for abbreviation in defined_in(hit):
            if not mentions(asked, abbreviation):
                continue
            sentence = next((s for s in split_sentences(hit.text) if _defining(s, abbreviation)), None)
            if sentence:
                return Definition(n, sentence, abbreviation, bool(_EXPANSION.search(asked)))
    return None
