"""The answer and verify stages' word lexicon: lower-case words and numbers, function words dropped, plurals
folded. BM25 indexes its own terms (rag.index.bm25_terms: a stemmer, compounds, Greek letters), frozen with the
index; this list may change without re-indexing."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d{3})")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "do",
        "does",
        "did",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "that",
        "the",
        "their",
        "them",
        "these",
        "they",
        "this",
        "those",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "about",
        "than",
        "then",
        "there",
        "so",
        "such",
        "not",
        "no",
        "paper",
        "papers",
    ]
)


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Lowercase words and numbers ("213,000" -> "213000"), stopwords dropped, plurals folded. The answer step's
    word overlap; BM25 itself indexes `rag.index.bm25_terms.terms` (a stemmer, compounds, Greek letters)."""
    text = _DIGIT_COMMA.sub("", text.lower())
    return [_stem(w) for w in _WORD.findall(text) if w not in STOPWORDS]
