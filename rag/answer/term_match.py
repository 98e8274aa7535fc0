"""Is a question's term in the sources, allowing for how people spell it?

Before a question is refused because a name or number it uses is in no retrieved source, the term is looked for
in the forms people and papers write the same thing: any case; with or without hyphens, slashes and spaces
("HIV1/2" = "HIV-1/2", "IgM-enriched" = "IgM enriched"); a plural acronym ("HPVs" = "HPV"); an acronym spelled out
("UK" = "United Kingdom", and the other way: "mean absolute error" = "MAE"); a small typing error or another ending
of the same word ("grandmultiparity" = "grandmultiparous"); a table's column name cut short ("Params" =
"parameters", in a row rag.corpus.pdf_tables wrote as "ViT-Huge | Params 632M."); a number within rounding ("370" ~
"371"). Whatever still
does not match is missing; what does match is answered, and the sentence check judges the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_ALNUM = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
_COLUMN = re.compile(r"\| ([a-z][\w-]*(?: [a-z][\w-]*){0,3}) [-+−±~≈<>]?\d")  # a row's cell: "| params 632m"

_GLUE = frozenset("of the to and in for a an on".split())  # not in an abbreviation: "area under the curve" is AUC
MIN_INITIALS = 3  # a phrase of fewer words is not matched by its initials ("learning rate" is not any "LR")
MIN_EDIT_LENGTH = 5  # shorter words must match exactly: "rats" is not "cats"
SHARED_STEM = 0.75  # two long words with this share of the shorter one as a common start are one word, inflected
MIN_CUT = 5  # a word cut short ("Params", "Temp") has at least these letters before any plural "s"
CUT_SHARE = 0.5  # ... and at least this share of the word it stands for
NUMBER_SLACK = 0.01  # a number within 1 % (at least 1 for integers of 10 and more) is the same number, rounded


def _squash(text: str) -> str:
    return "".join(_ALNUM.findall(text.lower()))


def _edits_at_most_one(a: str, b: str) -> bool:
    """Levenshtein distance <= 1 (or one swap of neighbours)."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                   and a[diff[1]] == b[diff[0]])  # fmt: skip
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _same_word(a: str, b: str) -> bool:
    """A typing error, or the same word with another ending (a common start of most of the shorter word)."""
    if min(len(a), len(b)) < MIN_EDIT_LENGTH or a.isdigit() or b.isdigit():
        return False
    if _edits_at_most_one(a, b):
        return True
    shared = len(next((a[:i] for i in range(min(len(a), len(b)), 0, -1) if a[:i] == b[:i]), ""))
    return shared >= 6 and shared >= SHARED_STEM * min(len(a), len(b))


def cut_short(short: str, word: str) -> bool:
    """`short` is `word` cut short, as tables name their columns: "params" for "parameters"."""
    cut = short.removesuffix("s") if short.endswith("s") and not word.startswith(short) else short
    return len(cut) >= MIN_CUT and len(word) > len(cut) and word.startswith(cut) and len(cut) >= CUT_SHARE * len(word)


def _near(n: float, numbers: frozenset[float]) -> bool:
    slack = max(1.0 if n >= 10 and n.is_integer() else 0.0, NUMBER_SLACK * abs(n))
    return any(abs(n - m) <= slack for m in numbers)


@dataclass(frozen=True)
class Haystack:
    """The retrieved sources' text, in the forms a term is looked for in."""

    text: str  # lower-cased
    squashed: str  # letters and digits only
    words: frozenset[str]
    numbers: frozenset[float]
    acronyms: frozenset[str]  # initials of runs of capitalised words ("United Kingdom" -> "uk")
    capitals: frozenset[str] = frozenset()  # words written in capitals ("MAE"), lower-cased
    columns: frozenset[str] = frozenset()  # words of a table's column names ("| Params 632M"), lower-cased

    @classmethod
    def of(cls, text: str) -> Haystack:
        lower = text.lower()
        words = [m.group(0) for m in _CAPITALISED.finditer(text)]
        initials = {"".join(w[0] for w in words[i : i + n]).lower()
                    for n in range(2, 6) for i in range(len(words) - n + 1)}  # fmt: skip
        numbers = frozenset(float(x) for x in _NUMBER.findall(lower.replace(",", "")))
        capitals = frozenset(w.lower() for w in _ALNUM.findall(text) if len(w) > 1 and w.isupper())
        columns = frozenset(w for name in _COLUMN.findall(lower) for w in _ALNUM.findall(name))
        return cls(lower, _squash(text), frozenset(_ALNUM.findall(lower)), numbers, frozenset(initials), capitals,
                   columns)  # fmt: skip

    def abbreviates(self, phrase: str) -> bool:
        """The phrase's initials are a word written in capitals here ("mean absolute error" -> "MAE"): a paper that
        uses the abbreviation alone mentions what the phrase names."""
        return (short := abbreviation(phrase)) is not None and short in self.capitals

    def has(self, term: str) -> bool:
        """The term, or one of its usual variants, occurs (see the module docstring)."""
        t = term.lower().rstrip("%").strip()
        if not t or t in self.text or t.replace(",", "") in self.text.replace(",", ""):
            return True
        squashed = _squash(t)
        if squashed and squashed in self.squashed:  # hyphens, slashes and spaces
            return True
        if term.rstrip().endswith("s") and term[:-1].isupper() and len(term) > 2 and squashed[:-1] in self.squashed:
            return True  # "HPVs" for "HPV"
        if term.isupper() and squashed in self.acronyms:
            return True  # "UK" for "United Kingdom"
        if _NUMBER.fullmatch(t.replace(",", "")):
            return _near(float(t.replace(",", "")), self.numbers)  # "370" for "371"
        parts = _ALNUM.findall(t)
        if not parts or any(p.isdigit() for p in parts):
            return False  # "GPT-5" is not "GPT-4": a name's number must be there as it is
        return all(p in self.words or self._similar(p) for p in parts)  # "IgM enriched", "grandmultiparous"

    def _similar(self, word: str) -> bool:
        return any(_same_word(word, w) for w in self.words if w[:1] == word[:1]) or any(
            cut_short(w, word) for w in self.columns
        )


def abbreviation(phrase: str) -> str | None:
    """The phrase's initials, lower-cased ("mean absolute error" -> "mae"; "area under the curve" -> "auc"), when it
    has at least MIN_INITIALS words besides the glue words."""
    words = [w for w in _ALNUM.findall(phrase.lower()) if w not in _GLUE]
    return "".join(w[0] for w in words) if len(words) >= MIN_INITIALS else None


@lru_cache(maxsize=8)
def haystack_of(text: str) -> Haystack:
    """`Haystack.of`, kept for the last few texts: one answer asks it of the same sources several times (the refusal
    test, the whole question, each of its parts)."""
    return Haystack.of(text)
