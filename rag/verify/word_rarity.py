"""How common a word is in general English (Zipf scale, from the `wordfreq` package, which ships its data): a rare
word in a claim is a technical term, not a paraphrase word. The only module that imports wordfreq; loaded on the
first lookup (about 0.4 s), which answers quoted verbatim from their sources never need."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1 << 16)
def zipf(word: str) -> float:
    """Zipf frequency: 7 for "the", about 3 for "plasticity", 0 for words it has never seen."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


@lru_cache(maxsize=1 << 16)
def zipf_in(word: str, language: str) -> float:
    """Zipf frequency of `word` in `language` (an ISO 639-1 code wordfreq ships, e.g. "es"), from its small list
    (words of Zipf 3 and above; about 50 ms to load each): how the question's language is told (rag.answer.language)."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, language, wordlist="small"))
