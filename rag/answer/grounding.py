"""Is a sentence supported by the sources it cites?

No NLI model ships in any package here, so support is judged from what is: exact containment, numbers
(every number in a claim must appear in a cited source), content-word overlap, and sentence-level
embedding similarity with the same local embedder the index uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from rag.answer.citations import REFUSAL, answer_sentences, parse_markers, strip_markers
from rag.answer.injection import untrusted
from rag.answer.sentence_vectors import SentenceVectors
from rag.index.lexical import tokenize
from rag.text import split_sentences
from rag.types import Hit

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_BULLET = re.compile(r"^\s*(?:[-*\u2022]\s+)")


def source_text(hit: Hit) -> str:
    """Everything a citation of this hit can be supported by: the passage and the paper's metadata."""
    p = hit.paper
    meta = [
        p.title,
        "; ".join(p.authors),
        p.venue or "",
        str(p.year or ""),
        p.url or "",
        p.code_url or "",
        p.arxiv_id or "",
    ]
    return "\n".join(x for x in meta if x) + "\n" + hit.text


def numbers_in(text: str) -> set[str]:
    return {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(text)}


class SupportChecker:
    def __init__(self, vectors: SentenceVectors, threshold: float = 0.55, overlap: float = 0.6) -> None:
        self.vectors = vectors
        self.threshold = threshold
        self.overlap = overlap

    def supported(self, claim: str, cited: Sequence[Hit]) -> bool:
        """True when the cited sources back the claim (markers already stripped)."""
        claim = _BULLET.sub("", claim).strip().strip("*").strip()
        cited = [h for h in cited if not untrusted(h)]  # a source that gives orders is no evidence
        if not claim or not cited:
            return False
        sources = [source_text(h) for h in cited]
        joined = " ".join(sources)
        if _norm(claim) in _norm(joined):
            return True
        if not numbers_in(claim) <= numbers_in(joined):
            return False  # a number no cited source gives: invented
        words = set(tokenize(claim))
        if words and len(words & set(tokenize(joined))) / len(words) >= self.overlap:
            return True
        sentences = [s for src in sources for s in split_sentences(src.replace("\n", ". "))]
        if not sentences:
            return False
        vecs = self.vectors([claim, *sentences])
        return float(np.max(vecs[1:] @ vecs[0])) >= self.threshold

    def unsupported(self, answer: str, hits: Sequence[Hit]) -> tuple[list[str], int]:
        """Sentences of the answer that no cited, retrieved source supports; and how many were checked."""
        bad: list[str] = []
        checked = 0
        for sentence in answer_sentences(answer, keep_whole=[h.paper.title for h in hits]):
            if REFUSAL in sentence:
                continue
            checked += 1
            cited = [hits[n - 1] for n in parse_markers(sentence) if 1 <= n <= len(hits)]
            if not self.supported(strip_markers(sentence), cited):
                bad.append(sentence)
        return bad, checked


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", text.lower())).strip()
