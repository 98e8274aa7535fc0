"""Questions about making something smaller ("which of them saves parameters?", "uses fewer parameters", "reduces
the inference cost"), and the sentences that state by how much.

A saving is stated as an amount of what is saved: a number (a percentage, a ratio, a count) near its noun ("up to 87%
more compact in terms of parameters", "reduce the average cost of the inference by 10-60%"). The sentence embedding
rarely ties such a sentence to "saves X", and a follow-up's topic words ("continual learning", borrowed from the
conversation) pull the answer towards sentences that restate the topic; so the extractive answer prefers, among the
sentences that may answer, those that state an amount of what the question asks to be made smaller.
"""

from __future__ import annotations

import re

from rag.corpus.lexicon import stem

# a verb or comparative of making an amount smaller, then its object: up to three words before a preposition
_SMALLER = re.compile(
    r"\b(?:sav(?:e|es|ed|ing)|reduc(?:e|es|ed|ing)|cut(?:s|ting)?|lower(?:s|ed|ing)?|decreas(?:e|es|ed|ing)|"
    r"shrink(?:s|ing)?|compress(?:es|ed|ing)?|fewer|less|smaller)\s+((?:[\w-]+\s*){1,6})",
    re.IGNORECASE,
)
_OBJECT_END = frozenset("in on for by with without while than and or to at from of when whereas can could will would "
                        "should may might must is are was were be been get gets become becomes".split())  # fmt: skip
_NOT_NOUN = frozenset("the a an its their his her our this that these those total overall number amount size count "
                      "much many more most".split())  # fmt: skip
_NUMBER = re.compile(r"\d")
WINDOW = 8  # the noun within this many words of the number


def smaller_nouns(asked: str) -> frozenset[str]:
    """The nouns (folded) of what the question asks to be made smaller; empty when it asks no such thing.
    "reduces the number of parameters" -> {"parameter"}; "lowers the inference cost" -> {"inference", "cost"}."""
    nouns: set[str] = set()
    for m in _SMALLER.finditer(asked):
        words = re.findall(r"[\w-]+", m.group(1).lower())
        phrase: list[str] = []
        for word in words:
            if word == "of" and phrase and all(w in _NOT_NOUN for w in phrase):
                phrase = []  # "the number of ...": what is counted follows
                continue
            if word in _OBJECT_END or len(phrase) >= 3:
                break
            phrase.append(word)
        nouns.update(stem(w) for w in phrase if w not in _NOT_NOUN and not _NUMBER.search(w))
    return frozenset(nouns)


def states_amount(sentence: str, nouns: frozenset[str]) -> bool:
    """The sentence states a number within WINDOW words of one of `nouns`."""
    words = re.findall(r"[\w%.-]+", sentence)
    folded = [stem(w.strip(".")) for w in words]
    for i, word in enumerate(words):
        if _NUMBER.search(word) and nouns.intersection(folded[max(0, i - WINDOW) : i + WINDOW + 1]):
            return True
    return False
