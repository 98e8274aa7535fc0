"""What a question asks for, read from its asked clause once, when it is analysed (rag.answer.question): the
thing each wh-phrase asks for ("what *acceptance rate*", "which language model *backbone*"), the units it wants
("in *dollars*") and what "how many X" counts. Carried on the Question; the judges read them from there.
"""

from __future__ import annotations

import re

from rag.corpus.lexicon import STOPWORDS

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


def noun_runs(asked: str) -> list[str]:
    """What each wh-phrase of the asked clause asks for, in full: "which language model *backbone*" -> "language
    model backbone" (up to three words before a verb; none for generic heads, as focus_phrases)."""
    runs = []
    for m in _WH_PHRASE.finditer(asked):
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
    return word in STOPWORDS or word in _ASK_VERB or word.endswith(("ed", "ly"))


def focus_phrases(asked: str) -> list[str]:
    """What the question's wh-phrases ask for ("what *acceptance rate*", "in which *country*") and the units it
    wants ("in *dollars*")."""
    clause = asked
    wanted = [w for m in _WH_PHRASE.finditer(clause) if (w := _focus_word(m.group(1)))]
    wanted += [u.group(1).lower() for u in _UNIT.finditer(clause)]
    return wanted + (["cost"] if _COSTS.search(clause) else [])  # "what did it cost?"


_HOW_MANY = re.compile(r"\bhow many\s+((?:[\w-]+\s+){0,5})", re.IGNORECASE)
_NOT_COUNTED = frozenset("does did do is are was were has have had can could would will should must the a an of in "
                         "on at for from by with to per there it they we".split())  # fmt: skip


def counted_noun(asked: str) -> str | None:
    """What "how many X" counts: the last word before the verb ("how many individually gradable *tasks* are")."""
    m = _HOW_MANY.search(asked)
    if not m:
        return None
    words: list[str] = []
    for word in (w.lower().strip("?,.;:'\"()") for w in m.group(1).split()):
        if word in _NOT_COUNTED or word.endswith("ed") and words:
            break
        words.append(word)
    return words[-1] if words else None
