"""The one lexicon of the pipeline: what a word is, which words carry no content, and the stemmer. BM25
(rag.index.bm25_terms), the sentence check (rag.verify) and the answer step (rag.answer) all read words through
this module, so "does the question/source say this word?" means the same thing in every stage.

- `STOPWORDS`: function words dropped before matching (BM25 drops them too; they are part of its index format).
- `FUNCTION_WORDS`: the wider class of words that never carry a claim (the check's "is this a content word?").
- `stem`: a Snowball (Porter 2) English stemmer from PyStemmer after British spellings are folded to American ones
  ("randomised" -> "randomiz", "tumours" -> "tumor"): "studies", "studied", "studying" give `studi`.
- `tokenize`: lower-case words and numbers ("213,000" -> "213000"), stopwords dropped, each word stemmed.

`rag.index.bm25_terms.TERMS_VERSION` names the BM25 recipe built on `STOPWORDS` and `stem`; a test pins the
fingerprint of both to that version, so changing either here tells you to bump it (an index written with the old
words is then rebuilt from its stored chunks rather than searched with mismatched ones).
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d{3})")
_BRITISH = re.compile(r"(?<=\w{3})(is|ys)(e|ed|es|ing|ation|ations|er|ers)$|(?<=\w{3})our(s?)$")
_stemmer = Stemmer.Stemmer("english")

STOPWORDS = frozenset(
    (
        "a an and are as at be been but by can do does did for from has have how i if in into is it its of on or our "
        "that the their them these they this those to was we were what when where which who whom why will with would "
        "you your about than then there so such not no paper papers"
    ).split()
)
FUNCTION_WORDS = STOPWORDS | frozenset(
    """also both either each more most other such only own same very just however thus hence while whereas
    although though since because than then into onto upon within without across among between through during
    before after above below over under again further once here there when where why how all any few many much
    some can could may might must shall should will would being been having doing its it's their they them this
    that these those which who whom whose what our we us you your he she his her my me i""".split()
)


def _american(word: str) -> str:
    match = _BRITISH.search(word)
    if match is None:
        return word
    if match.group(1):  # randomised -> randomized, analyse -> analyze
        return word[: match.start()] + match.group(1)[0] + "z" + match.group(2)
    return word[: match.start()] + "or" + match.group(3)  # tumour -> tumor


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The stem of one word (case folded)."""
    return str(_stemmer.stemWord(_american(word.casefold())))


def tokenize(text: str) -> list[str]:
    """Lower-case words and numbers ("213,000" -> "213000"), stopwords dropped, each word stemmed."""
    text = _DIGIT_COMMA.sub("", text.lower())
    return [stem(w) for w in _WORD.findall(text) if w not in STOPWORDS]
