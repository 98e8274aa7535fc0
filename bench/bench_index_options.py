"""What would make indexing cheaper: one embedding pass instead of two.

    .venv/bin/python bench/bench_index_options.py [--synthetic 300]

`rag index` embeds every chunk (title + chunk, for search) and, since issue 17, every sentence of it again (for
the answer step's sentence matching): about twice the embedder's work of search alone. This measures the option
of embedding the sentences only, and using the normalised mean of a chunk's sentence vectors (plus its title's
vector, so the topic is kept) as the chunk's search vector. Dense retrieval only (no BM25), on the dev questions
that have gold papers: recall@5 and MRR of the first gold paper, over the bundled corpus and a synthetic one
(bench/common.py), and the embedding time of each option (MiniLM, length-sorted batches of 8, one process,
side by side). Writes bench/results/index_options.json.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import common
import numpy as np


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=-1, keepdims=True), 1e-12)


def _scores(paper_ids: list[str], vectors: np.ndarray, qvecs: np.ndarray, rows: list[dict]) -> dict:
    sims = qvecs @ vectors.T
    recall, rr = [], []
    for i, r in enumerate(rows):
        ranked = list(dict.fromkeys(paper_ids[j] for j in np.argsort(-sims[i])))
        gold = set(r["gold"])
        recall.append(len(gold & set(ranked[:5])) / len(gold))
        rank = next((n for n, p in enumerate(ranked, 1) if p in gold), None)
        rr.append(1.0 / rank if rank else 0.0)
    return {"recall5": float(np.mean(recall)), "mrr": float(np.mean(rr))}


def compare(corpus: Path, model, batch: int) -> dict:
    from rag.corpus import read_papers
    from rag.index.chunking import chunk_paper, embed_text
    from rag.ports import embed_in_batches
    from rag.settings import load_settings
    from rag.text import split_sentences

    s = load_settings(env={}).index
    papers = list(read_papers([corpus]))
    chunks = [(p, c) for p in papers for c in chunk_paper(p, s.chunk_tokens, s.chunk_overlap)]
    ids = [p.id for p, _ in chunks]
    rows = common.questions(gold_only=True)
    qvecs = _unit(np.asarray(model.embed_batch([r["question"] for r in rows]), dtype=np.float32))

    t = time.perf_counter()
    chunk_vecs = _unit(np.asarray(embed_in_batches(model, [embed_text(p, c.text) for p, c in chunks], batch)))
    chunk_s = time.perf_counter() - t
    owners = [(i, sent) for i, (_, c) in enumerate(chunks) for sent in split_sentences(c.text)]
    t = time.perf_counter()
    sent_vecs = np.asarray(embed_in_batches(model, [sent for _, sent in owners], batch), dtype=np.float32)
    sentences_s = time.perf_counter() - t
    t = time.perf_counter()
    title_vecs = np.asarray(embed_in_batches(model, [p.title for p, _ in chunks], batch), dtype=np.float32)
    titles_s = time.perf_counter() - t

    sums = np.zeros((len(chunks), sent_vecs.shape[1]), dtype=np.float32)
    np.add.at(sums, np.asarray([i for i, _ in owners]), _unit(sent_vecs))
    mean_vecs = _unit(sums)
    mean_title_vecs = _unit(_unit(sums) + _unit(title_vecs))
    return {
        "papers": len(papers),
        "chunks": len(chunks),
        "sentences": len(owners),
        "questions": len(rows),
        "embed_s": {"chunks": chunk_s, "sentences": sentences_s, "titles": titles_s},
        "today_chunks_plus_sentences_s": chunk_s + sentences_s,
        "option_sentences_plus_titles_s": sentences_s + titles_s,
        "dense": {
            "chunk_vector (today)": _scores(ids, chunk_vecs, qvecs, rows),
            "mean of sentence vectors": _scores(ids, mean_vecs, qvecs, rows),
            "mean of sentence vectors + title vector": _scores(ids, mean_title_vecs, qvecs, rows),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--synthetic", type=int, default=300, help="size of the synthetic corpus (0: none)")
    args = parser.parse_args()
    common.check_quiet()
    from rag.adapters.embedding import MiniLMEmbedder
    from rag.settings import load_settings

    model = MiniLMEmbedder()
    model.embed_batch(["warm up"])
    batch = load_settings(env={}).index.embed_batch_size
    result: dict = {"machine": common.machine()}
    result["bundled"] = compare(common.ROOT / "data" / "icml2025.jsonl", model, batch)
    if args.synthetic:
        with tempfile.TemporaryDirectory() as tmp:
            corpus = common.write_corpus(Path(tmp) / "synthetic.jsonl", args.synthetic)
            result[f"synthetic_{args.synthetic}"] = compare(corpus, model, batch)
    common.save("index_options", result)
    rows = []
    for name, r in result.items():
        if name == "machine":
            continue
        for option, m in r["dense"].items():
            rows.append((name, option, f"{m['recall5']:.3f}", f"{m['mrr']:.3f}"))
        today, option = r["today_chunks_plus_sentences_s"], r["option_sentences_plus_titles_s"]
        rows.append((name, "embed s: chunks+sentences (today) / sentences+titles", f"{today:.1f}", f"{option:.1f}"))
    print(common.table(["corpus", "dense vectors", "recall@5", "MRR"], rows))


if __name__ == "__main__":
    main()
