"""What a "how many X" question counts and whether a sentence states a count of it; which sentences hold a number at
all. Read by the extractive answer (its quantity answers) and rag.answer.absent_value (refusing a count no source
states)."""

from __future__ import annotations

import re

from rag.answer.question import Question

NUMBER_WORD = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?"
    r"|thousands?|millions?|billions?|tens|dozens?|twice|double|half|percent)\b",
    re.IGNORECASE,
)

_HOW_MANY = re.compile(r"\bhow many\s+((?:[\w-]+\s+){0,5})", re.IGNORECASE)
_NOT_COUNTED = frozenset("does did do is are was were has have had can could would will should must the a an of in "
                         "on at for from by with to per there it they we".split())  # fmt: skip
_COUNT = re.compile(
    r"^(?:\d[\d,.]*[kmb]?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    r"|hundreds?|thousands?|millions?|billions?|dozens?|several|many)$",
    re.IGNORECASE,
)
COUNT_WINDOW = 6  # the counted noun within this many words after the number ("20 ICML 2024 Spotlight and Oral papers")


def counted_noun(question: Question) -> str | None:
    """What "how many X" counts: the last word before the verb ("how many individually gradable *tasks* are")."""
    m = _HOW_MANY.search(question.asked)
    if not m:
        return None
    words: list[str] = []
    for word in (w.lower().strip("?,.;:'\"()") for w in m.group(1).split()):
        if word in _NOT_COUNTED or word.endswith("ed") and words:
            break
        words.append(word)
    return words[-1] if words else None


def counts(sentence: str, noun: str) -> bool:
    """The sentence states a count of `noun`: a number (not a percentage) followed closely by it."""
    words = re.findall(r"[\w,.%-]+", sentence.lower())
    wanted = fold(noun)
    for i, word in enumerate(words):
        number = word.strip(".,")
        if _COUNT.match(number) and not number.endswith("%"):
            after = {fold(w.strip(".,")) for w in words[i + 1 : i + 1 + COUNT_WINDOW]}
            if wanted in after and "%" not in words[i + 1 : i + 2]:
                return True
    return False


def fold(word: str) -> str:
    """Singular: "categories" -> "category", "papers" -> "paper"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
