"""The words BM25 indexes and searches: one function for both sides, so a query word and the same word in an
abstract meet however either is written.

- Unicode compatibility forms folded (NFKC: ligatures, full-width letters, superscript digits) and case folded.
- Greek letters spelled out and joined to their word as by a hyphen: "TNF-α", "TNFα" and "TNF-alpha" all give
  `tnf alpha tnfalpha`.
- Letters and digits split, hyphens and slashes split, and the whole compound kept beside its parts: "HIV1/2",
  "HIV-1/2" and "HIV 1/2" all give `hiv 1 2` plus `hiv1`; "IL-6" and "IL6" give `il 6 il6`. The parts let a
  differently written compound match at all; the joined form ranks the exact compound above its scattered parts.
- Numbers with thousands separators joined ("213,000" -> `213000`).
- Words stemmed and function words dropped by the pipeline's one lexicon (rag.corpus.lexicon: `stem`, a
  Snowball stemmer after British spellings are folded to American ones, and `STOPWORDS`): "grandmultiparous" and
  "grandmultiparity" both give `grandmultipar`.

`TERMS_VERSION` names this recipe. It is part of the recipe every BM25 index records (rag.index.lexical.RECIPE),
and an index written with another is rebuilt from the stored chunks instead of being searched with mismatched
words. Change the version whenever the output of `terms` changes: tests/test_bm25_terms.py pins a fingerprint
of the lexicon's stopwords and stems to this version, so a change to rag.corpus.lexicon is caught there.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rag.corpus.lexicon import STOPWORDS, stem

TERMS_VERSION = "terms-2"  # "terms-1": lower-case words with plurals folded

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


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _GREEK_RE.sub(lambda m: f"-{_GREEK[m.group()]}-", text.casefold())
    return _DIGIT_COMMA.sub("", _HYPHENS.sub("-", text))


def _compound_terms(compound: str) -> Iterable[str]:
    parts = _PART.findall(compound)
    kept = [stem(p) for p in parts if p not in STOPWORDS]
    yield from kept
    if len(parts) > 1:  # the compound as one word too: "hiv1", "il6", "covid19"
        yield stem("".join(parts))


def terms(text: str) -> list[str]:
    """The BM25 terms of a text (a chunk's indexed text, or a query), in order."""
    return [t for compound in _COMPOUND.findall(_normalize(text)) for t in _compound_terms(compound)]


def whole_terms(text: str) -> list[str]:
    """One term per word or compound, never its parts: what a name ("PaperBench", "HIV-1") is looked up by."""
    out = []
    for compound in _COMPOUND.findall(_normalize(text)):
        parts = _PART.findall(compound)
        if parts and not (len(parts) == 1 and parts[0] in STOPWORDS):
            out.append(stem("".join(parts)))
    return out
