"""The second stage: the best fused candidates rescored by how well their best sentence matches the question.

A chunk vector averages a whole abstract; a question, a claim above all, is usually answered by one sentence of
it. The docstore keeps each sentence's vector from index time (rag.index.docstore), so this costs one small
matrix-vector product per candidate and embeds nothing at query time.

Rule: for the first EVIDENCE_DEPTH fused candidates, best = the highest cosine between the question and one of
the chunk's sentences; it is scaled over those candidates (lowest 0, highest 1) and mixed into their fused score:
score = (1 - EVIDENCE_WEIGHT) * fused + EVIDENCE_WEIGHT * best. Candidates below that depth keep their order.
A paper with several chunks there keeps the places its chunks earned, filled best sentence first, so the chunk
that represents it (one hit per paper) is the one whose sentence matches the question best.

When any of those candidates has no stored sentence vectors (an index built with `sentence_vectors = false`, a
worker whose docstore is outdated or missing), the stage is skipped and the fused order stands: embedding 30
abstracts' sentences per query would cost ~1-2 s on two cores, and skipping costs little (SciFact train claims
nDCG@10 0.7486 instead of 0.7492, recall@5 0.798 instead of 0.805; the bundled plain-language dev questions
recall@5 0.98 instead of 1.00). Weight 0.2 tuned on dev data only (0.3 and above lost nDCG on the SciFact claims);
BENCHMARKS.md section 7 has the figures.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

EVIDENCE_DEPTH = 30  # fused candidates rescored
EVIDENCE_WEIGHT = 0.2  # share of the best-sentence score in the final one

# chunk ids -> each one's highest cosine between the question and one of its stored sentences (None: not stored)
BestSentences = Callable[[list[str]], "np.ndarray | None"]


def rescore(order: list[str], fused: dict[str, float], best_sentences: BestSentences) -> list[str]:
    """`order` with its first EVIDENCE_DEPTH ids reordered by fused and best-sentence score (`fused` updated for
    them; the order stays descending in it); unchanged when sentence vectors are missing."""
    head = order[:EVIDENCE_DEPTH]
    if len(head) < 2:
        return order
    best = best_sentences(head)
    if best is None:
        return order
    low, high = float(best.min()), float(best.max())
    scaled = (best - low) / max(high - low, 1e-6)
    mix = zip(head, scaled.tolist(), strict=True)
    score = {cid: (1.0 - EVIDENCE_WEIGHT) * fused[cid] + EVIDENCE_WEIGHT * s for cid, s in mix}
    head = sorted(head, key=lambda cid: (-score[cid], cid))
    floor = max((fused[cid] for cid in order[EVIDENCE_DEPTH:]), default=0.0)
    top = max(score.values()) or 1.0
    places = [floor + (1.0 - floor) * score[cid] / top for cid in head]  # descending; the head above the rest
    head = _best_chunk_first(head, dict(zip(head, best.tolist(), strict=True)))
    fused.update(zip(head, places, strict=True))
    return head + order[EVIDENCE_DEPTH:]


def _best_chunk_first(head: list[str], best: dict[str, float]) -> list[str]:
    """Within each paper, its chunks in the places its chunks hold, best sentence first: a paper keeps the rank its
    best-scoring chunk earned, and is shown (one hit per paper) with the chunk whose sentence answers best, e.g.
    a full-text paper's abstract stating the figure rather than a body page that only mentions the topic."""
    papers: dict[str, list[str]] = {}
    for cid in head:
        papers.setdefault(cid.rsplit(":", 1)[0], []).append(cid)
    chosen = {paper: iter(sorted(chunks, key=lambda c: -best[c])) for paper, chunks in papers.items()}
    return [next(chosen[cid.rsplit(":", 1)[0]]) for cid in head]
