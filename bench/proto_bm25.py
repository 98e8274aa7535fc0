"""Prototype (bench-local, not product code): a lower-memory BM25 build, measured against LexicalIndex.build.

    .venv/bin/python bench/proto_bm25.py [--n 100000]

LexicalIndex.build hands bm25s one Python list of token strings per chunk: at 100k abstracts that is ~20M
separate str objects alive at once. The prototype maps tokens to int32 ids while tokenizing (one numpy array
per chunk, one vocabulary dict) and calls bm25s.BM25.index((ids, vocab)). Each variant builds in a fresh
subprocess (peak RSS = VmHWM of that process) and saves; the parent loads both and checks that the top-50 ids
and scores agree on ~100 queries. Writes bench/results/proto_bm25_<n>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common


def _texts(corpus: Path) -> tuple[list[str], list[str]]:
    from rag.chunking import chunk_paper
    from rag.corpus import read_papers
    from rag.records import chunk_metadata, lexical_text

    ids, texts = [], []
    for paper in read_papers([corpus]):
        for chunk in chunk_paper(paper):
            ids.append(chunk.id)
            texts.append(lexical_text(chunk_metadata(paper, chunk), chunk.text))
    return ids, texts


def build_prototype(ids: list[str], texts: list[str], fingerprint: str):
    import bm25s
    import numpy as np

    from rag.lexical import LexicalIndex, tokenize

    vocab: dict[str, int] = {}
    docs = []
    for text in texts:
        tokens = tokenize(text) or ["\u2205"]
        docs.append(np.fromiter((vocab.setdefault(t, len(vocab)) for t in tokens), dtype=np.int32, count=len(tokens)))
    vocab.setdefault("", len(vocab))  # what bm25s adds itself when it builds from token strings
    model = bm25s.BM25()
    model.index((docs, vocab), show_progress=False)
    return LexicalIndex(list(ids), model, fingerprint)


def child(variant: str, corpus: Path, out: Path) -> None:
    from rag.lexical import LexicalIndex

    ids, texts = _texts(corpus)
    base = common.peak_rss_of(os.getpid())
    t = time.perf_counter()
    build = LexicalIndex.build if variant == "current" else build_prototype
    index = build(ids, texts, "x")
    seconds = time.perf_counter() - t
    index.save(out)
    peak = common.peak_rss_of(os.getpid())
    print(json.dumps({"build_s": seconds, "peak_rss_mb": peak / 2**20, "before_build_rss_mb": base / 2**20}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100000)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return
    common.check_quiet()
    from rag.lexical import LexicalIndex

    result: dict = {"machine": common.machine(), "n": args.n}
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        corpus = common.write_corpus(tmp / "c.jsonl", args.n)
        for variant in ("current", "prototype"):
            cmd = [sys.executable, __file__, "--child", variant, str(corpus), str(tmp / variant)]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
            result[variant] = json.loads(proc.stdout.strip().splitlines()[-1])
        a, b = LexicalIndex.load(tmp / "current"), LexicalIndex.load(tmp / "prototype")
        assert a is not None and b is not None
        queries = common.query_set(100)
        same_ids = same_scores = 0
        for q in queries:
            ra, rb = a.search(q, 50), b.search(q, 50)
            same_scores += [round(s, 4) for _, s in ra] == [round(s, 4) for _, s in rb]
            same_ids += [i for i, _ in ra] == [i for i, _ in rb]
        result["identical_top50_scores"] = f"{same_scores}/{len(queries)}"
        result["identical_top50_ids"] = f"{same_ids}/{len(queries)}"
    common.save(f"proto_bm25_{args.n}", result)
    print(common.table(["variant", "build s", "RSS before build MB", "peak RSS MB"], [
        (v, result[v]["build_s"], result[v]["before_build_rss_mb"], result[v]["peak_rss_mb"])
        for v in ("current", "prototype")
    ]))  # fmt: skip
    print(f"identical top-50 scores {result['identical_top50_scores']}, ids {result['identical_top50_ids']}")


if __name__ == "__main__":
    main()
