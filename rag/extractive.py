"""The no-LLM backend: answers made of the retrieved abstracts' own sentences, each with its citation.

Deterministic and grounded by construction. Sentences are ranked by embedding similarity to the question
plus word overlap; questions that ask for a quantity only take sentences that state one; questions about
authors, code or links are answered from the index metadata. When nothing scores well enough the answer
is the fixed refusal sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag.chunking import split_sentences
from rag.citations import REFUSAL
from rag.grounding import SentenceVectors, untrusted
from rag.lexical import tokenize
from rag.types import Hit

_QUANTITY = re.compile(
    r"\bhow (many|much|large|big|long|fast|often)\b|\bwhat (percentage|fraction|number|proportion|share|size)\b"
    r"|\bby how much\b|\bhow .* (improve|reduce|save)",
    re.IGNORECASE,
)
_AUTHORS = re.compile(
    r"\bwho\b.*\b(wrote|write|authored|authors?|behind|created)\b|\b(list|name|names of) the authors\b|\bwritten by\b"
    r"|\bwho are the authors\b|\bauthor list\b",
    re.IGNORECASE,
)
_CODE = re.compile(
    r"\b(github|source code|code (repository|repo|link|url|release))\b|\brepository for\b"
    r"|\b(where|is there|link|url|available|released?|find)\b.*\bcode\b|\bcode\b.*\b(available|released?|public)\b",
    re.IGNORECASE,
)
_LINK = re.compile(
    r"\barxiv (id|link|number|identifier)\b|\b(link|url) (to|of|for) (the|this|that)\b|\bwhere can i (read|find)\b"
    r"|\bwhat (link|url)\b|\b(link|url) (is|are) (available|there)\b",
    re.IGNORECASE,
)
_MULTI = re.compile(
    r"\b(compare|comparison|contrast|versus|vs\.?|both|each|which papers|what papers|papers that)\b", re.I
)
_NUMBER_WORD = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds?"
    r"|thousands?|millions?|billions?|tens|dozens?|twice|double|half|percent)\b",
    re.IGNORECASE,
)
_FINDING = re.compile(
    r"\b(we|our)\s+(show|find|demonstrate|achieve|observe|reveal)|\b(results?|experiments?) (show|demonstrate)", re.I
)
_CONTRIBUTION = re.compile(r"\b(we|this (paper|work))\s+(propose|introduce|present|develop|design|build)", re.I)


def metadata_intent(question: str) -> list[str]:
    """Which bibliographic facts the question asks for: "authors", "code", "link" (or none)."""
    return [kind for kind, rx in (("authors", _AUTHORS), ("code", _CODE), ("link", _LINK)) if rx.search(question)]


@dataclass(frozen=True)
class Scored:
    n: int  # source number
    position: int
    text: str
    score: float


class Extractive:
    name = "extractive"

    def __init__(self, vectors: SentenceVectors, min_score: float = 0.35, max_sentences: int = 3) -> None:
        self.vectors = vectors
        self.min_score = min_score
        self.max_sentences = max_sentences

    def _score(self, question: str, hits: Sequence[Hit]) -> list[Scored]:
        candidates = [
            (n, i, s)
            for n, h in enumerate(hits, 1)
            if not untrusted(h)  # a source that gives the model orders is never quoted
            for i, s in enumerate(split_sentences(h.text))
        ]
        if not candidates:
            return []
        vecs = self.vectors([question] + [s for _, _, s in candidates])
        sims = vecs[1:] @ vecs[0]
        qwords = set(tokenize(question))
        out = []
        for (n, i, s), sim in zip(candidates, sims, strict=True):
            # words of the paper's own title identify the paper, not the answer: a background sentence that
            # restates the topic should not beat the sentence that answers
            asked = qwords - set(tokenize(hits[n - 1].paper.title)) or qwords
            overlap = len(asked & set(tokenize(s))) / len(asked) if asked else 0.0
            prior = 0.3 * (hits[n - 1].dense_score or 0.0)  # sentences of the most relevant paper come first
            finding = 0.05 if _CONTRIBUTION.search(s) or _FINDING.search(s) else 0.0
            out.append(Scored(n, i, s, float(sim) + 0.3 * overlap + prior + finding))
        return sorted(out, key=lambda c: -c.score)

    def answer(self, question: str, hits: Sequence[Hit]) -> str:
        if not hits:
            return REFUSAL
        meta = self._metadata_answer(question, hits)
        if meta:
            return meta
        scored = self._score(question, hits)
        if _QUANTITY.search(question):
            scored = [c for c in scored if _NUMBER_WORD.search(c.text)]
        if not scored or scored[0].score < self.min_score:
            return REFUSAL
        if _MULTI.search(question):
            return self._per_paper(scored, hits)
        chosen: list[Scored] = []
        per_paper: dict[int, int] = {}
        top = scored[0]
        for c in scored:
            if len(chosen) >= self.max_sentences or c.score < 0.85 * top.score:
                break
            if c.n != top.n and c.score < 0.92 * top.score:
                continue  # another paper joins only when it is about as relevant
            if per_paper.get(c.n, 0) < 2:
                chosen.append(c)
                per_paper[c.n] = per_paper.get(c.n, 0) + 1
        chosen.sort(key=lambda c: (c.n, c.position))  # read paper by paper, in the abstract's order
        return " ".join(f"{c.text.rstrip()} [{c.n}]" for c in chosen)

    def _per_paper(self, scored: list[Scored], hits: Sequence[Hit], max_papers: int = 4) -> str:
        """For questions about several papers: the best sentence of each paper about as relevant as the best one."""
        best = max((h.dense_score or 0.0) for h in hits)
        picked: dict[int, Scored] = {}
        for c in scored:
            if c.n not in picked and (hits[c.n - 1].dense_score or 0.0) >= 0.75 * best and len(picked) < max_papers:
                picked[c.n] = c
        return " ".join(f"{c.text.rstrip()} [{c.n}]" for c in sorted(picked.values(), key=lambda c: c.n))

    def summary(self, question: str, hits: Sequence[Hit], min_relevance: float) -> str:
        """One line per relevant paper: its most on-topic contribution sentence, cited."""
        top = max((h.dense_score or 0.0) for h in hits) if hits else 0.0
        keep = [
            (n, h)
            for n, h in enumerate(hits, 1)
            if (h.dense_score or 0.0) >= max(min_relevance, top - 0.2) and not untrusted(h)
        ]
        if not keep:
            return REFUSAL
        lines = [f"{len(keep)} relevant paper{'s' if len(keep) > 1 else ''}:"]
        for n, h in keep:
            sentences = split_sentences(h.text)
            vecs = self.vectors([question, *sentences])
            sims = vecs[1:] @ vecs[0]
            bonus = np.array([0.15 if _CONTRIBUTION.search(s) else 0.0 for s in sentences])
            best = sentences[int(np.argmax(sims + bonus))]
            lines.append(f"- {h.paper.title}: {best.rstrip()} [{n}]")
        return "\n".join(lines)

    def _metadata_answer(self, question: str, hits: Sequence[Hit]) -> str | None:
        """Authors, code and links come from the index metadata of the best-matching paper."""
        wants = metadata_intent(question)
        if not wants:
            return None
        p = hits[0].paper
        parts = []
        if "authors" in wants and p.authors:
            year = str(p.year) if p.year and str(p.year) not in (p.venue or "") else ""
            where = ", ".join(x for x in (p.venue or "", year) if x)
            parts.append(f"{p.title}{f' ({where})' if where else ''} is by {', '.join(p.authors)} [1].")
        if "code" in wants and p.code_url:
            parts.append(f"The code for {p.title} is at {p.code_url} [1].")
        if "link" in wants and (p.url or p.arxiv_id):
            arxiv = f"arXiv {p.arxiv_id}, " if p.arxiv_id else ""
            parts.append(f"{p.title} is available at {arxiv}{p.url or ''} [1].".replace(", [1]", " [1]"))
        return " ".join(parts) if parts else REFUSAL
