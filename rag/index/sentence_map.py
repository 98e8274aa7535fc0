"""A linear map that takes sentence vectors pooled from the chunk's pass ("late chunking", rag.index.late_chunking)
toward the sentences' standalone encodings, fitted on each library when it is indexed.

A pooled vector carries its chunk's context, so it sits away from where the same sentence lands when it is
encoded on its own, as questions and answer sentences are: the sentence check then picks the wrong source
sentence more often. Encoding a few hundred sentences on their own (the same ones the relevance-floor
calibration embeds, so an embedder that remembers them pays once) gives pairs for a ridge regression toward the
identity, W = (PᵀP + λI)⁻¹(PᵀO + λI); every pooled vector is stored as P·W, re-normalised. Judged on the sentences
it was not fitted on (bench/bench_sentence_map.py), a sentence's own encoding finds its stored vector first among
its chunk's sentences 97.2 % of the time against 93.3 % unmapped on PubMedQA's 422 dev abstracts (fitted on 300
sentences of 150 papers), 96.4 % against 92.5 % on SciFact's first 500 (300 sentences), 91.7 % against 89.9 % on
the 19 bundled abstracts (38 sentences); BENCHMARKS.md section 9a. The "mixed" pass of a full-text library fits it
the same way: on 16 ML PDFs, 300 or 600 body sentences brought pooled vectors closer on average but lined fewer up
with their own encodings than the calibration's 2 per paper (93.0 % / 93.2 % against 94.1 %; section 11d).
"""

from __future__ import annotations

import numpy as np

from rag.index.calibration import Embed, spread_questions
from rag.index.docstore import DocStore, FitMap

RIDGE = 1.0  # λ, chosen on PubMedQA dev among 0.1, 1, 3, 10, 30 (SciFact's first 500 abstracts agreed)
MIN_PAIRS = 10  # fewer sentences than this fit nothing: the pooled vectors are kept as they are


def fit_map(pooled: np.ndarray, own: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """The (dim, dim) matrix W minimising |pooled·W − own|² + ridge·|W − I|²."""
    dim = pooled.shape[1]
    eye = np.eye(dim)
    x, y = pooled.astype(np.float64), own.astype(np.float64)
    return np.linalg.solve(x.T @ x + ridge * eye, x.T @ y + ridge * eye).astype(np.float32)


def map_fitter(embed: Embed) -> FitMap:
    """A function fitting the map on a docstore whose sentence vectors are still pooled (DocStoreBuilder.finish)."""

    def fit(docs: DocStore) -> np.ndarray | None:
        pairs = [(text, vecs[i]) for _, i, text, vecs in spread_questions(docs) if vecs is not None]
        if len(pairs) < MIN_PAIRS:
            return None
        own = np.asarray(embed([text for text, _ in pairs]), dtype=np.float32)
        return fit_map(np.stack([v for _, v in pairs]).astype(np.float32), own)

    return fit


def remembering(embed: Embed) -> Embed:
    """`embed` that keeps what it embedded: the map's sentences are the calibration's pseudo-questions."""
    seen: dict[str, np.ndarray] = {}

    def cached(texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in seen]
        if new:
            seen.update(zip(new, np.asarray(embed(new), dtype=np.float32), strict=True))
        return np.stack([seen[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)

    return cached
