"""Is the question written in English? The embedder (all-MiniLM-L6-v2), BM25's stemmer and the sentence scores read
English, so a question in another language mostly matches through its names, numbers and acronyms: the answer then
carries a one-line note saying so, never a silent answer to a question it did not understand.

Decided from word frequencies, not from a list of words: each word of the question votes *foreign* when it is much
more common (`MARGIN` on the Zipf scale) in one of the widely used languages wordfreq ships (`OTHER`) than in
English ("de", "modelo", "welche"), *English* when it is known in English and not much more common elsewhere, and
not at all when no list knows it (a name, a technical term, an acronym) or it is written as a name (mixed case, all
capitals). A letter of a non-Latin script (Chinese, Japanese, Korean, Cyrillic, Arabic ...) votes foreign (half a
word per Han or kana character: a Chinese word is one to two characters). The question is foreign when the foreign
share of the votes reaches `THRESHOLD`.

Calibration (`python -m eval.language_calibration`): every English question of eval/sets/icml2025/dev*.jsonl
against the 60 sentences of eval/language/non_english.jsonl (Spanish, French, German, Portuguese and Chinese, 10
each; Italian, Dutch, Japanese and Russian, 2-3 each), written for this purpose. See the numbers at THRESHOLD.
"""

from __future__ import annotations

import re
import unicodedata

from rag.verify.word_rarity import zipf_in

OTHER = ("es", "fr", "de", "pt", "it", "nl")  # Latin-script languages compared with English (about 0.3 s to load)
MARGIN = 1.0  # a word is foreign when another language uses it this much more often (Zipf: 10x)
# English dev questions (n=365): foreign share max 0.25 (PubMedQA's 522 English questions, not used: max 0.25);
# other-language sentences (n=60): min 0.57. The threshold sits between the two
THRESHOLD = 0.4
NOTE = (
    "The question does not look like English: matching works on English text, so only the names, numbers and "
    "acronyms in it are matched reliably; ask in English for a full answer."
)

_WORD = re.compile(r"[^\W\d_]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _latin(word: str) -> bool:
    return all(unicodedata.name(ch, "").startswith("LATIN") for ch in word)


def _name(word: str) -> bool:
    """Written as a name or an acronym: a capital after the first letter ("PieClam", "KDS")."""
    return any(ch.isupper() for ch in word[1:])


def votes(text: str) -> tuple[float, float]:
    """(foreign, English) votes of the question's words: foreign counts the votes of the one other language most of
    them point to (a Spanish question is Spanish throughout; "et al." in an English one is Latin read as French and
    Spanish, one word each)."""
    by_language = dict.fromkeys(OTHER, 0.0)
    script = english = 0.0
    for m in _WORD.finditer(text):
        word = m.group(0)
        if not _latin(word):
            cjk = len(_CJK.findall(word))
            script += cjk / 2 + (1.0 if len(word) - cjk >= 2 else 0.0)
            continue
        if _name(word):
            continue
        word = word.lower()
        en = zipf_in(word, "en")
        foreign = [lang for lang in OTHER if zipf_in(word, lang) >= en + MARGIN]
        for lang in foreign:
            by_language[lang] += 1
        if not foreign and en > 0:
            english += 1
    return script + max(by_language.values()), english


def foreign_share(text: str) -> float:
    """The share of the question's votes that say it is not English (0 when no word votes)."""
    foreign, english = votes(text)
    return foreign / (foreign + english) if foreign + english else 0.0


CROSSLINGUAL_NOTE = (
    "The question does not look like English: it was matched through a multilingual encoder mapped onto the English "
    "index, and the answer quotes the English sources; ask in English for the most reliable answer."
)


def foreign(text: str) -> bool:
    """The text does not look like English."""
    return foreign_share(text) >= THRESHOLD


def language_note(text: str, crosslingual: bool = False) -> str | None:
    """The note for a question that does not look like English, else None. `crosslingual`: the retriever reads such
    a question with the multilingual encoder (rag.retrieve.crosslingual)."""
    return (CROSSLINGUAL_NOTE if crosslingual else NOTE) if foreign(text) else None
