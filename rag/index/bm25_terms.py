"""The words BM25 indexes and searches: one function for both sides, so a query word and the same word in an
abstract meet however either is written.

- Unicode compatibility forms folded (NFKC: ligatures, full-width letters, superscript digits) and case folded.
- Greek letters spelled out and joined to their word as by a hyphen: "TNF-α", "TNFα" and "TNF-alpha" all give
  `tnf alpha tnfalpha`.
- Letters and digits split, hyphens and slashes split, and the whole compound kept beside its parts: "HIV1/2",
  "HIV-1/2" and "HIV 1/2" all give `hiv 1 2` plus `hiv1`; "IL-6" and "IL6" give `il 6 il6`. The parts let a
  differently written compound match at all; the joined form ranks the exact compound above its scattered parts.
- Numbers with thousands separators joined ("213,000" -> `213000`).
- British spellings folded to American ones where the two differ only in -ise/-yse and -our endings.
- A Snowball (Porter 2) English stemmer from PyStemmer: "grandmultiparous" and "grandmultiparity" both give
  `grandmultipar`; "studies", "studied", "studying" give `studi`.
- A short list of function words dropped (the same list the answer step uses, rag.verify.lexicon.STOPWORDS).

`TERMS_VERSION` names this recipe. It is part of the recipe every BM25 index records (rag.index.lexical.RECIPE),
and an index written with another is rebuilt from the stored chunks instead of being searched with mismatched
words. Change the version whenever the output of `terms` changes. The stopword list is this module's own copy:
the answer step's list (rag.verify.lexicon.STOPWORDS) may change without changing what BM25 indexed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import Stemmer

TERMS_VERSION = "terms-2"  # "terms-1": lower-case words with plurals folded (rag.verify.lexicon.tokenize)

_STOP = frozenset(
    "a an and are as at be been but by can do does did for from has have how i if in into is it its of on or our "
    "that the their them these they this those to was we were what when where which who whom why will with would "
    "you your about than then there so such not no paper papers".split()
)
_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta", "η": "eta", "θ": "theta",
    "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "ο": "omicron", "π": "pi",
    "ρ": "rho", "σ": "sigma", "ς": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi",
    "ψ": "psi", "ω": "omega",
}  # fmt: skip
_GREEK_RE = re.compile("[" + "".join(_GREEK) + "]")
_HYPHENS = re.compile(r"[-‐‑–]{2,}")
_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d{3})")
# a compound: alphanumeric runs joined by hyphens or slashes ("HIV-1/2", "non-small", "COVID-19")
_COMPOUND = re.compile(r"[^\W_]+(?:[-/‐‑–][^\W_]+)*")
_PART = re.compile(r"[^\W\d_]+|\d+")  # letters or digits: "hiv1" -> "hiv", "1"
_BRITISH = re.compile(r"(?<=\w{3})(is|ys)(e|ed|es|ing|ation|ations|er|ers)$|(?<=\w{3})our(s?)$")
_stemmer = Stemmer.Stemmer("english")


def _american(word: str) -> str:
    match = _BRITISH.search(word)
    if match is None:
        return word
    if match.group(1):  # randomised -> randomized, analyse -> analyze
        return word[: match.start()] + match.group(1)[0] + "z" + match.group(2)
    return word[: match.start()] + "or" + match.group(3)  # tumour -> tumor


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(_american(word)))


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _GREEK_RE.sub(lambda m: f"-{_GREEK[m.group()]}-", text.casefold())
    return _DIGIT_COMMA.sub("", _HYPHENS.sub("-", text))


def _compound_terms(compound: str) -> Iterable[str]:
    parts = _PART.findall(compound)
    kept = [_stem(p) for p in parts if p not in _STOP]
    yield from kept
    if len(parts) > 1:  # the compound as one word too: "hiv1", "il6", "covid19"
        yield _stem("".join(parts))


def terms(text: str) -> list[str]:
    """The BM25 terms of a text (a chunk's indexed text, or a query), in order."""
    return [t for compound in _COMPOUND.findall(_normalize(text)) for t in _compound_terms(compound)]


def whole_terms(text: str) -> list[str]:
    """One term per word or compound, never its parts: what a name ("PaperBench", "HIV-1") is looked up by."""
    out = []
    for compound in _COMPOUND.findall(_normalize(text)):
        parts = _PART.findall(compound)
        if parts and not (len(parts) == 1 and parts[0] in _STOP):
            out.append(_stem("".join(parts)))
    return out
