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
from rag.types import Hit, SentenceCheck

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
    """The offline check. `judge` gives one SentenceCheck per answer sentence: supported or not, why not, and the
    source sentences that back it best (shown in the UI as the evidence)."""

    def __init__(self, vectors: SentenceVectors, threshold: float = 0.55, overlap: float = 0.6) -> None:
        self.vectors = vectors
        self.threshold = threshold
        self.overlap = overlap

    def supported(self, claim: str, cited: Sequence[Hit]) -> bool:
        """True when the cited sources back the claim (markers already stripped)."""
        return self.verdict(claim, cited)[0]

    def verdict(self, claim: str, cited: Sequence[Hit]) -> tuple[bool, str | None, list[tuple[int, str]]]:
        """(supported, why not, evidence as (index into `cited`, sentence)) for one claim."""
        claim = _BULLET.sub("", claim).strip().strip("*").strip()
        trusted = [(i, h) for i, h in enumerate(cited) if not untrusted(h)]  # a source giving orders is no evidence
        if not claim:
            return False, "empty", []
        if not trusted:
            return False, "cites no retrieved source" if not cited else "cites only a source that gives orders", []
        sources = [(i, source_text(h)) for i, h in trusted]
        joined = " ".join(s for _, s in sources)
        sentences = [(i, s) for i, src in sources for s in split_sentences(src.replace("\n", ". "))]
        if _norm(claim) in _norm(joined):
            c = _norm(claim)
            quoted = [(i, s) for i, s in sentences if (n := _norm(s)) and (n in c or c in n)]
            return True, None, quoted[:2]
        missing = numbers_in(claim) - numbers_in(joined)
        if missing:
            return False, f"{', '.join(sorted(missing))} is not in the cited source", []  # invented
        words = set(tokenize(claim))
        if not sentences:
            return False, "the cited source has no text", []
        vecs = self.vectors([claim, *[s for _, s in sentences]])
        sims = vecs[1:] @ vecs[0]
        order = np.argsort(-sims)
        evidence = [sentences[int(j)] for j in order[:2] if sims[int(j)] >= self.threshold * 0.8]
        if words and len(words & set(tokenize(joined))) / len(words) >= self.overlap:
            return True, None, evidence or [sentences[int(order[0])]]
        if float(sims[int(order[0])]) >= self.threshold:
            return True, None, evidence
        return False, "no cited sentence says this", []

    def judge(self, answer: str, hits: Sequence[Hit]) -> list[SentenceCheck]:
        """One check per answer sentence (the refusal sentence is not a claim)."""
        out: list[SentenceCheck] = []
        for sentence in answer_sentences(answer, keep_whole=[h.paper.title for h in hits]):
            if REFUSAL in sentence:
                continue
            numbers = tuple(n for n in parse_markers(sentence) if 1 <= n <= len(hits))
            ok, reason, evidence = self.verdict(strip_markers(sentence), [hits[n - 1] for n in numbers])
            mapped = tuple((numbers[i], s) for i, s in evidence)
            out.append(SentenceCheck(sentence, numbers, ok, reason, mapped))
        return out

    def unsupported(self, answer: str, hits: Sequence[Hit]) -> tuple[list[str], int]:
        """Sentences of the answer that no cited, retrieved source supports; and how many were checked."""
        checks = self.judge(answer, hits)
        return [c.sentence for c in checks if not c.supported], len(checks)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", text.lower())).strip()
