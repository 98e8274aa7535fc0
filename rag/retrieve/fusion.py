"""Reciprocal rank fusion of several rankings of chunk ids."""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60  # the usual constant: ranks past the first few matter little


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]]) -> tuple[list[str], dict[str, float]]:
    """Ids ordered by fused score (ties by id, so results are stable), and each id's score scaled so that
    first place in every ranking is 1.0."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, cid in enumerate(ranking):
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + rank + 1)
    best = max(1, len(rankings)) / (RRF_K + 1)
    order = sorted(fused, key=lambda c: (-fused[c], c))
    return order, {cid: score / best for cid, score in fused.items()}


def keep_exact_match(order: list[str], fused: dict[str, float], exact: str | None) -> list[str]:
    """Put BM25's exact-name match (rag.index.lexical.LexicalIndex.exact_match) first, with the best fused score.
    Fusion alone lets papers that both retrievers rank in the middle outscore BM25's first place, so a question
    naming one of many near-duplicate papers was answered from the others (or refused)."""
    if exact is None or exact not in fused:
        return order
    fused[exact] = max(fused.values())
    return [exact, *(cid for cid in order if cid != exact)]
