"""Whether a sentence states a count of what "how many X" counts (rag.answer.question_focus finds X); which
sentences hold a number at all; which state a value of an attribute ("the batch size is set to 128"). Read by the
extractive answer (its quantity answers) and rag.answer.absent_value (refusing a count no source states)."""

from __future__ import annotations

import re

from rag.answer.term_match import cut_short
from rag.corpus.lexicon import stem

NUMBER_WORD = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?"
    r"|thousands?|millions?|billions?|tens|dozens?|twice|double|half|percent)\b",
    re.IGNORECASE,
)

_COUNT = re.compile(
    r"^(?:\d[\d,.]*[kmb]?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    r"|hundreds?|thousands?|millions?|billions?|dozens?|several|many)$",
    re.IGNORECASE,
)
# "the number of hidden units is 5000": the count after its noun (the noun, up to two words after "number of")
_NUMBER_OF = re.compile(r"\bnumber of (?:[\w-]+ ){0,2}?([\w-]+) (?:is|was|are|were|equals|=) (?:set to )?\d", re.I)
COUNT_WINDOW = 6  # the counted noun within this many words after the number ("20 ICML 2024 Spotlight and Oral papers")


def counts(sentence: str, noun: str) -> bool:
    """The sentence states a count of `noun`: a number (not a percentage) followed closely by it, or "the number of
    `noun` is N"."""
    words = re.findall(r"[\w,.%-]+", sentence.lower())
    wanted = stem(noun)
    for i, word in enumerate(words):
        number = word.strip(".,")
        if _COUNT.match(number) and not number.endswith("%"):
            after = {stem(w.strip(".,")) for w in words[i + 1 : i + 1 + COUNT_WINDOW]}
            if wanted in after and "%" not in words[i + 1 : i + 2]:
                return True
    if bool(_NUMBER_OF.search(sentence)) and any(stem(w) == wanted for w in _NUMBER_OF.findall(sentence)):
        return True
    return any(_column_count(cell, noun) for cell in sentence.rstrip(".").split(" | ")[1:])


def _column_count(cell: str, noun: str) -> bool:
    """A table row's cell under a column named for `noun` holds a count ("Params 632M": rag.corpus.pdf_tables names
    each cell by its column, and tables cut names short)."""
    *name, value = cell.lower().split() or [""]
    if not name or not _COUNT.match(value):
        return False
    return stem(name[-1]) == stem(noun) or cut_short(name[-1], noun.lower())


VALUE_WINDOW = 6  # a number within this many words of the attribute ("the batch size is set to 128")


def states_value(sentence: str, phrase: str) -> bool:
    """The sentence gives a value of the attribute `phrase` ("weight decay", "learning rate"): every word of the
    phrase in it, and a number within VALUE_WINDOW words of where the phrase ends ("a weight decay of 0.0001")."""
    words = [stem(w.strip(".,;:()")) for w in re.findall(r"[\w,.%×-]+", sentence.lower())]
    wanted = [stem(w) for w in re.findall(r"\w+", phrase.lower())]
    if not wanted or not set(wanted) <= set(words):
        return False
    for i, word in enumerate(words):
        if word == wanted[-1]:
            near = words[max(0, i - VALUE_WINDOW) : i + 1 + VALUE_WINDOW]
            if any(w[:1].isdigit() or _COUNT.match(w) and w not in {"several", "many"} for w in near):  # "9×", "64"
                return True
    return False
