"""The words of a text for the sentence check: tokens, a light stem, and `SourceVocabulary`, which answers "does the
cited source say this word?" through stems, hyphen parts, initialisms, name spellings and word families.
"""

from __future__ import annotations

import re
from functools import cached_property

from rag.corpus.lexicon import stem
from rag.verify.names import NameForms, plain

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*|\d[\d,.]*%?")
RARE_ZIPF = 3.0  # below this a word is rare in general English: a technical term, not a paraphrase word
VERB_FORM = re.compile(r"(?:ing|[^s]s|ed|izes?|ises?|ates?)$|^re[a-z]{4,}")  # inflected or derived verb forms


def words(text: str) -> list[str]:
    return _TOKEN.findall(text)


def norm(word: str) -> str:
    return word.lower().strip("'").replace("'s", "")


class SourceVocabulary:
    """The words of the cited sources, for "does the source say this word?" questions (stems and prefixes)."""

    def __init__(self, text: str) -> None:
        self._text = plain(text)
        self._tokens = tokens = [norm(w) for w in words(self._text)]
        self.exact = set(tokens)
        self.stems = {stem(t) for t in tokens} | {stem(p) for t in tokens for p in t.split("-")}
        self.parts = {p for t in tokens for p in t.split("-")}

    # the forms below are built on first use: many claims are settled by the exact words and stems alone (latency)
    @cached_property
    def forms(self) -> NameForms:
        return NameForms(self._tokens, self._text)

    @cached_property
    def initialisms(self) -> set[str]:
        """Initialisms of 2-5 word spans: "SGD" for "stochastic gradient descent", "MLLM" for "multimodal large
        ...", over the words and over hyphen parts ("TRAP" for "tartrate-resistant acid phosphatase")."""
        seqs = (self._tokens, _hyphen_parts(self._tokens))
        return {"".join(w[0] for w in seq[i : i + n] if w)
                for seq in seqs for n in range(2, 6) for i in range(len(seq))}  # fmt: skip

    @cached_property
    def long(self) -> list[str]:
        return sorted(t for t in self.exact if len(t) >= FAMILY_PREFIX and t.isalpha())

    def has(self, word: str) -> bool:
        w = norm(word)
        if w in self.exact or w in self.parts or stem(w) in self.stems:
            return True
        if self.forms.has(word):  # "iPSCderived", "Post-transcriptional", "leukaemia", "coatmer"
            return True
        if "-" in w:
            return all(self.has(p) for p in w.split("-") if p)
        # an acronym inside a source token ("SGD" in "bSGD"), or a shared long prefix ("hyperspherical")
        acronym = word[:-1] if word.endswith("s") and word[:-1].isupper() else word  # "EVs", "VSMCs"
        a = norm(acronym)
        if acronym.isupper() and len(acronym) >= 2 and (a in self.initialisms or any(a in t for t in self.exact)):
            return True
        if w.startswith("non") and len(w) > 6 and self.has(w[3:].lstrip("-")):
            return True  # "nonhypertensive": the source's "hypertension" with a negating prefix
        s_w = stem(w)
        if len(s_w) >= 5 and any(len(s) >= 5 and (s_w.startswith(s) or s.startswith(s_w)) for s in self.stems):
            return True
        return len(w) >= FAMILY_PREFIX and any(same_family(w, t) for t in self.long)


FAMILY_PREFIX = 8  # long words sharing this much of their start, and most of the shorter one, are one family


def same_family(a: str, b: str) -> bool:
    """Two long words of one family: "hypothalamic"/"hypothalamus", "neurotransmission"/"neurotransmitter"
    (a shared start of 8+ letters covering 70% of the shorter), or one inside the other ("homocysteine" in
    "hyperhomocysteinemia")."""
    if len(b) < FAMILY_PREFIX:
        return False
    if a in b or b in a:
        return True
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n >= FAMILY_PREFIX and n >= 0.7 * min(len(a), len(b))


def _hyphen_parts(tokens: list[str]) -> list[str]:
    return [p for t in tokens for p in t.split("-") if p]
