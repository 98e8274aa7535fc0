"""Prototype (bench-local monkeypatch, not product code): a cheaper hybrid search, timed side by side.

    .venv/bin/python bench/proto_search.py [--size 10000] [--home DIR]

rag.retriever.Retriever.search today, per query: VectorStore.query calls count() first (one extra store call),
asks the dense query for documents+metadatas of all 50 candidates, fetches the lexical-only candidates with
their embeddings, converts each vector to a tuple of Python floats and takes dot products in Python.
The prototype (same fusion, same results) instead: queries distances only, fuses ranks, and fetches
documents, metadata and embeddings for the best fused ids only (2k at a time, more when filters or the
per-paper rule drop some), with a numpy dot product. Checks both return the same hits, then times them
alternately on the same queries (hash vectors, no MiniLM). Writes bench/results/proto_search_<chunks>.json.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import common
import numpy as np


def fast_search(self, query: str, k: int | None = None, *, filters=None, mode: str = "hybrid",
                token_budget: int | None = None, per_paper: int = 1):  # fmt: skip
    from rag.records import paper_from_metadata
    from rag.retriever import RRF_K, Filters
    from rag.types import Hit

    k = self.settings.search_k if k is None else k
    filters = filters or Filters()
    n = self.settings.candidates * (4 if filters.active else 1)
    qvec = np.asarray(self.embedder.embed_batch([query.strip()])[0])
    col = self.store._collection
    ranked, dense, lexical = [], {}, {}
    if mode in ("hybrid", "dense"):
        got = col.query(query_embeddings=[qvec.tolist()], n_results=n, where=filters.where(), include=["distances"])
        dense = {cid: 1.0 - d for cid, d in zip(got["ids"][0], got["distances"][0], strict=True)}
        ranked.append(got["ids"][0])
    if mode in ("hybrid", "lexical"):
        lexical = dict(self.lexical.search(query, n))
        ranked.append(list(lexical))
    fused: dict[str, float] = {}
    for ranking in ranked:
        for rank, cid in enumerate(ranking):
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + rank + 1)
    order = sorted(fused, key=lambda c: (-fused[c], c))
    best = len(ranked) / (RRF_K + 1)
    hits, per, used, pos = [], {}, 0, 0
    while pos < len(order) and len(hits) < k:
        batch = order[pos : pos + 2 * k]
        pos += len(batch)
        got = col.get(ids=batch, include=["documents", "metadatas", "embeddings"])
        rows = {cid: i for i, cid in enumerate(got["ids"])}
        for cid in batch:
            if cid not in rows:
                continue
            i = rows[cid]
            meta, text = got["metadatas"][i], got["documents"][i]
            if cid not in dense:
                dense[cid] = float(np.asarray(got["embeddings"][i]) @ qvec)
            paper = paper_from_metadata(meta, str(meta.get("abstract") or text))
            if not filters.accepts(paper) or per.get(paper.id, 0) >= per_paper:
                continue
            tokens = int(meta.get("num_tokens", 0) or 0)
            if token_budget is not None and hits and used + tokens > token_budget:
                pos = len(order)
                break
            per[paper.id] = per.get(paper.id, 0) + 1
            used += tokens
            hits.append(Hit(paper, cid, text, fused[cid] / best, dense.get(cid), lexical.get(cid), tokens))
            if len(hits) >= k:
                break
    return hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--home", help="reuse an index built by an earlier run (hash vectors)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    common.check_quiet()
    from rag.fakes import HashEmbedder
    from rag.indexer import build_index
    from rag.retriever import Filters, Retriever
    from rag.settings import load_settings

    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or str(Path(tmp) / "home")
        settings = load_settings(env={}, home=home)
        if not args.home:
            corpus = common.write_corpus(Path(tmp) / "c.jsonl", args.size)
            build_index(settings, [corpus], embedder=HashEmbedder(384))
        r = Retriever(settings, embedder=HashEmbedder(384))
        queries = common.query_set(args.queries)
        same = 0
        checks = [(q, {}) for q in queries] + [(q, {"filters": Filters(year_min=2020)}) for q in queries[:20]]
        checks += [(q, {"token_budget": 600}) for q in queries[:20]]
        for q, kw in checks:
            a = [(h.chunk_id, round(h.score, 9)) for h in r.search(q, 10, **kw)]
            b = [(h.chunk_id, round(h.score, 9)) for h in fast_search(r, q, 10, **kw)]
            same += a == b
        times: dict[str, list[float]] = {"current": [], "prototype": []}
        for _ in range(args.rounds):
            for q in queries:
                for name, fn in (("current", Retriever.search), ("prototype", fast_search)):
                    t = time.perf_counter()
                    fn(r, q, 10)
                    times[name].append(1000 * (time.perf_counter() - t))
        size = r.store.count()
    result = {"machine": common.machine(), "chunks": size, "identical_results": f"{same}/{len(checks)}"}
    for name, v in times.items():
        result[f"{name}_p50_ms"] = common.pct(v, 50)
        result[f"{name}_p95_ms"] = common.pct(v, 95)
    result["p50_ratio_prototype_over_current"] = result["prototype_p50_ms"] / result["current_p50_ms"]
    common.save(f"proto_search_{size}", result)
    for key, value in result.items():
        print(f"{key:34} {value:.3f}" if isinstance(value, float) else f"{key:34} {value}")


if __name__ == "__main__":
    main()
