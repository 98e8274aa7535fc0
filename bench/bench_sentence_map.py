"""Issue 23: how far sentence vectors pooled from the chunk's pass (late chunking) sit from the sentences' own
encodings, before and after the library's sentence map (rag.index.sentence_map), on real abstracts.

For each corpus: every chunk is encoded once (`late_pass`, as `rag index` does) and every sentence on its own.
The map is fitted as the indexer fits it (2 sentences from each of up to 150 papers spread over the library,
rag.index.calibration.spread_questions' choice, ridge λ = RIDGE) and judged on the other sentences: the mean cosine
between a sentence's own encoding and its stored vector, and "alignment", how often a sentence's own encoding
finds its stored vector first among its chunk's sentences (what the sentence check relies on). λ is swept too.

    .venv/bin/python bench/bench_sentence_map.py    # ~4 min on 2 cores; writes bench/results/sentence_map.json
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import common
import numpy as np

from rag.adapters.embedding import MiniLMEmbedder
from rag.index.calibration import MAX_PAPERS_EMBEDDED, PER_PAPER_EMBEDDED, picked
from rag.index.chunking import chunk_paper, embed_text
from rag.index.late_chunking import late_pass
from rag.index.sentence_map import RIDGE, fit_map
from rag.text import split_sentences
from rag.types import Paper

EXT = Path(os.environ.get("RAG_EVAL_EXTERNAL") or common.ROOT.parent / "shared" / "external")
CORPORA = {
    "pubmedqa-dev (422)": (common.ROOT / "eval" / "sets" / "pubmedqa" / "corpus.jsonl", 422),
    "scifact (first 500)": (EXT / "scifact" / "corpus.jsonl", 500),
    "bundled icml2025 (19)": (common.ROOT / "data" / "icml2025.jsonl", 19),
}


def _papers(path: Path, n: int) -> list[Paper]:
    out = []
    for line in path.read_text("utf-8").split("\n")[:n]:
        r = json.loads(line)
        out.append(Paper(id=r["id"], title=r.get("title") or "", abstract=r.get("abstract") or ""))
    return out


def _encode(model: MiniLMEmbedder, papers: list[Paper]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(own, pooled, (paper, chunk) per sentence, the sentence)."""
    own, pooled, keys, texts = [], [], [], []
    for p, paper in enumerate(papers):
        chunks = chunk_paper(paper)
        _, rows = late_pass(model, [embed_text(paper, c.text) for c in chunks], chunks)
        for c, (chunk, vectors) in enumerate(zip(chunks, rows, strict=True)):
            sentences = split_sentences(chunk.text)
            own += model.embed_batch(sentences)
            pooled += vectors
            keys += [(p, c)] * len(sentences)
            texts += sentences
    return np.array(own, np.float32), np.array(pooled, np.float32), np.array(keys), texts


def _fit_rows(keys: np.ndarray, texts: list[str], papers: int) -> np.ndarray:
    """The indexer's choice (calibration.spread_questions): `picked` sentences of each of up to
    MAX_PAPERS_EMBEDDED papers spread over the library, each at its first occurrence."""
    count = min(papers, MAX_PAPERS_EMBEDDED)
    rows: list[int] = []
    for p in sorted({round(k * (papers - 1) / max(1, count - 1)) for k in range(count)}):
        mine = np.flatnonzero(keys[:, 0] == p)
        first: dict[str, int] = {}
        for row in mine:
            first.setdefault(texts[row], int(row))
        distinct = list(first)
        rows += [first[distinct[i]] for i in picked(distinct, PER_PAPER_EMBEDDED)]
    return np.array(rows)


def _judge(stored: np.ndarray, own: np.ndarray, keys: np.ndarray, test: np.ndarray) -> dict:
    stored = stored / np.linalg.norm(stored, axis=1, keepdims=True)
    hits = total = 0
    in_test = np.zeros(len(own), bool)
    in_test[test] = True
    for key in {tuple(k) for k in keys[test]}:
        rows = np.flatnonzero((keys[:, 0] == key[0]) & (keys[:, 1] == key[1]))
        if len(rows) < 2:
            continue
        best = (own[rows] @ stored[rows].T).argmax(axis=1)
        for r, row in enumerate(rows):
            if in_test[row]:
                total += 1
                hits += int(best[r] == r)
    cosine = float(np.einsum("ij,ij->i", stored[test], own[test]).mean())
    return {"mean_cosine": round(cosine, 4), "aligned": hits, "of": total, "alignment": round(hits / max(total, 1), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="sentence_map", help="result name under bench/results/")
    args = ap.parse_args()
    model = MiniLMEmbedder()
    result: dict = {"machine": common.machine(), "ridge": RIDGE, "corpora": {}}
    for name, (path, n) in CORPORA.items():
        if not path.exists():
            print(f"{name}: {path} not found, skipped")
            continue
        papers = _papers(path, n)
        own, pooled, keys, texts = _encode(model, papers)
        fit = _fit_rows(keys, texts, len(papers))
        test = np.setdiff1d(np.arange(len(own)), fit)
        row = {"papers": len(papers), "sentences": len(own), "fitted_on": len(fit),
               "pooled": _judge(pooled, own, keys, test)}  # fmt: skip
        for ridge in (0.1, RIDGE, 3.0, 10.0, 30.0):
            row[f"mapped, ridge {ridge:g}"] = _judge(pooled @ fit_map(pooled[fit], own[fit], ridge), own, keys, test)
        result["corpora"][name] = row
        print(name, json.dumps(row))
    path = common.save(args.out, result)
    rows = [(name, kind, v["mean_cosine"], f"{v['aligned']}/{v['of']} = {v['alignment']:.3f}")
            for name, row in result["corpora"].items() for kind, v in row.items() if isinstance(v, dict)]  # fmt: skip
    print(common.table(["corpus", "stored vector", "mean cosine to own", "own finds it first"], rows))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
