"""Exact scan of the docstore's vectors against Chroma's HNSW query, by collection size: where is the crossover?

    .venv/bin/python bench/bench_exact.py [--sizes 1000 5000 10000 20000 40000] [--queries 100]

Grows one index (rag.fakes.HashEmbedder(384) vectors, synthetic corpus; each step indexes only the new papers)
and at each size times, for the same queries and the same query vectors, side by side:
  - `DocStore.nearest(q, 50)`: one matrix-vector product over the memory-mapped float32 vectors;
  - `VectorStore.nearest(q, 50)`: Chroma's HNSW query (ids and distances only);
  - hybrid `Retriever.search(q, 10)` with `exact_search_max_chunks` above the size (exact) and 0 (HNSW),
and how many of HNSW's 50 candidates are the exact 50 (HNSW recall@50). The setting's default (20,000) is
where the scan stops being clearly faster here. Query embedding is not included (it is the same on both sides).
Writes bench/results/exact.json.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from rag.adapters.fakes import HashEmbedder  # noqa: E402
from rag.factory import build_index, open_retriever  # noqa: E402
from rag.settings import load_settings  # noqa: E402


def measure(home: Path, size: int, queries: list[str], embedder: HashEmbedder) -> dict:
    settings = load_settings(home=home, env={})
    exact = open_retriever(settings.replace(exact_search_max_chunks=10**9), embedder=embedder)
    hnsw = open_retriever(settings.replace(exact_search_max_chunks=0), embedder=embedder)
    assert exact.docs is not None and len(exact.docs) == size, "the docstore does not match the index"
    vectors = [np.asarray(embedder.embed_batch([q])[0], dtype=np.float32) for q in queries]
    t_scan, t_hnsw, t_exact_search, t_hnsw_search, overlap = [], [], [], [], []
    for q, v in zip(queries, vectors, strict=True):
        t = time.perf_counter()
        scanned = exact.docs.nearest(v, 50)
        t_scan.append(time.perf_counter() - t)
        t = time.perf_counter()
        approx = hnsw.store.nearest(v.tolist(), 50)
        t_hnsw.append(time.perf_counter() - t)
        overlap.append(len({c for c, _ in scanned} & {c for c, _ in approx}) / len(scanned))
        t = time.perf_counter()
        exact.search(q, 10)
        t_exact_search.append(time.perf_counter() - t)
        t = time.perf_counter()
        hnsw.search(q, 10)
        t_hnsw_search.append(time.perf_counter() - t)
    ms = 1000.0
    return {
        "size": size,
        "scan_p50_ms": common.median(t_scan) * ms,
        "hnsw_p50_ms": common.median(t_hnsw) * ms,
        "scan_over_hnsw": common.median(t_scan) / common.median(t_hnsw),
        "search_exact_p50_ms": common.median(t_exact_search) * ms,
        "search_hnsw_p50_ms": common.median(t_hnsw_search) * ms,
        "hnsw_recall_at_50": sum(overlap) / len(overlap),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000, 20000, 40000])
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    queries = common.query_set(args.queries)
    embedder = HashEmbedder(384)
    result: dict = {"machine": common.machine(), "vectors": "HashEmbedder(384)", "rows": []}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = common.write_corpus(Path(tmp) / "corpus.jsonl", max(args.sizes))
        for size in sorted(args.sizes):
            part = common.write_prefix(corpus, Path(tmp) / f"corpus-{size}.jsonl", size)
            home = Path(tmp) / "home"
            build_index(load_settings(home=home, env={}), [part], embedder=embedder)
            part.unlink()
            row = measure(home, size, queries, embedder)
            result["rows"].append(row)
            print(f"{size:>7}: scan {row['scan_p50_ms']:.3f} ms, HNSW {row['hnsw_p50_ms']:.3f} ms", flush=True)
    cols = list(result["rows"][0])
    print(common.table(cols, [[f"{r[c]:.3g}" for c in cols] for r in result["rows"]]))
    common.save("exact", result)


if __name__ == "__main__":
    main()
