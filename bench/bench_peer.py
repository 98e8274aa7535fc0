"""Side by side with LangChain (langchain-chroma) and LlamaIndex: index time, query latency, recall@5.

    .venv/bin/pip install -e '.[bench]'      # langchain-chroma/-core/-text-splitters/-community/-classic, rank-bm25,
                                             # llama-index-core, llama-index-vector-stores-chroma
    .venv/bin/python bench/bench_peer.py [--synthetic 2000,10000] [--runs 3] [--synthetic-runs 1]

Both sides get the same chunks: by default the peers embed exactly the chunks our index embeds (`--peer-chunks
ours`), and the run stops with an error when the texts the three sides embedded differ; `--peer-chunks splitter`
cuts their text with LangChain's RecursiveCharacterTextSplitter (our tiktoken length, 320/32 tokens), as their users
would: equal to ours on the bundled abstracts, about 2 % more tokens on SciFact (the result records `same_chunks`
and each side's `encoder_tokens`). The same embedded text (title + chunk), the same embedding model instance
(rag.embedding.MiniLMEmbedder, wrapped in a langchain `Embeddings`, same length-sorted batches as the indexer)
and the same embedded Chroma (`Chroma(client=PersistentClient(...), ...)`, cosine space). Model loading is outside
every timing. Ours: rag.build_index (+ BM25, + the sentence vectors answers use; also timed without them) and
hybrid Retriever.search(q, 5), its query-vector memory emptied before each search; LangChain: add_texts
and similarity_search_with_score(q, 5); LlamaIndex: VectorStoreIndex over a ChromaVectorStore built from TextNodes of
the same text (metadata excluded from the embedded text) and index.as_retriever(similarity_top_k=5). Queries
alternate between the sides. recall@5: share of gold paper ids
in the top 5 distinct papers, averaged over the dev questions with gold. Index runs alternate which side goes
first. Extra columns: ours in dense-only mode, and LangChain's own hybrid (EnsembleRetriever over BM25Retriever
and the Chroma retriever), the like-for-like comparison for our default hybrid search.
Writes bench/results/peer.json (--out NAME: NAME.json).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from pathlib import Path

import common
import peers
from peers import index_lc, index_li, lc_embeddings


def index_ours(corpus: Path, home: str, model, sentence_vectors: bool = True):
    from rag.factory import build_index
    from rag.settings import load_settings

    settings = load_settings(env={}, home=home, llm="extractive", sentence_vectors=sentence_vectors)
    t = time.perf_counter()
    build_index(settings, [corpus], embedder=model)
    seconds = time.perf_counter() - t
    return seconds, settings, _our_chunks(corpus, settings)


def _default_pass() -> str:
    from rag.settings import load_settings

    return load_settings(env={}).index.sentence_pass


def _our_chunks(corpus: Path, settings) -> dict[str, str]:
    """What our index embeds for each chunk (title + chunk), to check the peers get the same."""
    from rag.corpus import read_papers
    from rag.index.chunking import chunk_paper, embed_text

    return {
        c.id: embed_text(p, c.text)
        for p in read_papers([corpus])
        for c in chunk_paper(p, settings.index.chunk_tokens, settings.index.chunk_overlap)
    }


def _top_papers(ids: list[str], k: int = 5) -> list[str]:
    return list(dict.fromkeys(ids))[:k]


def compare(corpus: Path, tmp: Path, model, runs: int, tag: str, ours_home: str | None = None,
            rows: list[dict] | None = None, k: int = 5, plain: bool = True) -> dict:  # fmt: skip
    """`ours_home`: an index of `corpus` built earlier (bench_answer_scale.py --keep): ours is not built again,
    so only the peers' index times are measured, and the queries. `rows`: the questions (default: the bundled
    dev questions); `k`: results per search on every side (10 for nDCG@10); `plain`: also build ours without
    sentence vectors."""
    from rag.factory import open_retriever
    from rag.settings import load_settings

    settings = load_settings(env={})
    embeddings = lc_embeddings(model, settings.index.embed_batch_size)
    ours_s, plain_s, lc_s, li_s = [], [], [], []
    if ours_home:
        ours_settings = load_settings(env={}, home=ours_home, llm="extractive")
        ours_chunks = _our_chunks(corpus, ours_settings)
    sides = ("lc", "li") if ours_home else ("ours", "lc", "li", "plain") if plain else ("ours", "lc", "li")
    for run in range(runs):
        order = sides[run % len(sides) :] + sides[: run % len(sides)]
        for side in order:
            if side == "ours":
                s, ours_settings, ours_chunks = index_ours(corpus, str(tmp / f"{tag}-ours-{run}"), model)
                ours_s.append(s)
            elif side == "plain":  # without the sentence vectors the answers use: the search's own work only
                plain_s.append(index_ours(corpus, str(tmp / f"{tag}-plain-{run}"), model, False)[0])
            elif side == "lc":
                s, lc_store, lc_chunks = index_lc(corpus, str(tmp / f"{tag}-lc-{run}"), embeddings, settings)
                lc_s.append(s)
            else:
                s, li_retriever, li_chunks = index_li(corpus, str(tmp / f"{tag}-li-{run}"), model, settings, k)
                li_s.append(s)
    retriever = open_retriever(ours_settings, embedder=model)
    rows = rows if rows is not None else common.questions()
    lc_hybrid, lc_bm25_s = peers.lc_hybrid(corpus, settings, lc_store, k)
    sides = ("ours", "lc", "ours_dense", "lc_hybrid", "li")
    lat: dict[str, list[float]] = {side: [] for side in sides}
    hits_by: dict[str, dict] = {side: {} for side in sides}
    retriever.search("warm up", k)
    lc_store.similarity_search_with_score("warm up", k=k)
    lc_hybrid.invoke("warm up")
    li_retriever.retrieve("warm up")
    for r in rows:
        q = r["question"]
        for side in sides:
            t = time.perf_counter()
            if side == "lc":
                docs = lc_store.similarity_search_with_score(q, k=k)
                papers = _top_papers([d.metadata["paper_id"] for d, _ in docs], k)
            elif side == "lc_hybrid":
                papers = _top_papers([d.metadata["paper_id"] for d in lc_hybrid.invoke(q)], k)
            elif side == "li":
                papers = _top_papers([n.node.metadata["paper_id"] for n in li_retriever.retrieve(q)], k)
            else:
                retriever.forget_queries()  # no query vector kept from the other mode: each search embeds
                mode = "dense" if side == "ours_dense" else "hybrid"
                papers = _top_papers([h.paper.id for h in retriever.search(q, k, mode=mode)], k)
            lat[side].append(1000 * (time.perf_counter() - t))
            hits_by[side][r["id"]] = papers
    gold = [r for r in rows if r.get("gold")]
    if peers.PEER_CHUNKS == "ours" and not ours_chunks == lc_chunks == li_chunks:
        raise SystemExit(f"bench_peer: the sides embedded different texts on {tag} although --peer-chunks ours "
                         "promises the same chunks: the comparison would not be like for like")  # fmt: skip

    def recall(side: str) -> float:
        return sum(len(set(r["gold"]) & set(hits_by[side][r["id"]][:5])) / len(r["gold"]) for r in gold) / len(gold)

    def ndcg10(side: str) -> float:  # binary relevance: the claim's cited papers
        def one(r: dict) -> float:
            found = sum(1 / math.log2(i + 2) for i, p in enumerate(hits_by[side][r["id"]][:10]) if p in r["gold"])
            return found / sum(1 / math.log2(i + 2) for i in range(min(len(r["gold"]), 10)))

        return sum(one(r) for r in gold) / len(gold)

    # were the modes really different? questions whose top 5 differ between each pair of sides
    differ = {f"{a}_vs_{b}": sum(hits_by[a][r["id"]] != hits_by[b][r["id"]] for r in rows)
              for a, b in (("ours", "ours_dense"), ("ours", "lc"), ("ours_dense", "lc"), ("ours", "li"))}  # fmt: skip
    batch = settings.index.embed_batch_size
    out = {
        "papers": sum(1 for _ in corpus.open()),
        # the tokens the encoder runs over, padding included, as each side batches (section 9e of BENCHMARKS.md)
        "encoder_tokens": {
            "ours": _padded(model, list(ours_chunks.values()), 1000, True, batch),
            "langchain": _padded(model, list(lc_chunks.values()), 5000, peers.PEERS_BY_TOKENS, batch),
            "llamaindex": _padded(model, list(li_chunks.values()), 1000, peers.PEERS_BY_TOKENS, batch),
        },
        "peers_batch_order": "tokens" if peers.PEERS_BY_TOKENS else "characters (as sentence-transformers)",
        "index_s_each_run": {"ours": ours_s, "plain": plain_s, "langchain": lc_s, "llamaindex": li_s},
        "same_chunks": ours_chunks == lc_chunks == li_chunks,
        "peer_chunks": peers.PEER_CHUNKS,
        "index_llamaindex_s": common.median(li_s),
        "top5_differs_on_questions": differ,
        "index_runs": runs,
        "ours_reused_from": ours_home,
        "index_ours_s": common.median(ours_s) if ours_s else float("nan"),
        "ours_sentence_pass": _default_pass(),  # where our sentence vectors come from
        "index_ours_without_sentence_vectors_s": common.median(plain_s) if plain_s else float("nan"),
        "index_langchain_s": common.median(lc_s),
        "langchain_bm25_build_s": lc_bm25_s,  # in memory only: rebuilt at every process start
        "query_questions": len(rows),
        "recall_questions": len(gold),
    }
    for side in lat:
        out[f"query_{side}_p50_ms"] = common.pct(lat[side], 50)
        out[f"query_{side}_p95_ms"] = common.pct(lat[side], 95)
        out[f"recall5_{side}"] = recall(side)
        if k >= 10:
            out[f"ndcg10_{side}"] = ndcg10(side)
    out["index_ratio_ours_over_lc"] = out["index_ours_s"] / out["index_langchain_s"]
    out["index_ratio_ours_without_sentence_vectors_over_lc"] = out["index_ours_without_sentence_vectors_s"] / out[
        "index_langchain_s"
    ]
    out["query_ratio_ours_over_lc"] = out["query_ours_p50_ms"] / out["query_lc_p50_ms"]
    out["query_ratio_ours_over_lc_hybrid"] = out["query_ours_p50_ms"] / out["query_lc_hybrid_p50_ms"]
    out["query_ratio_ours_dense_over_lc"] = out["query_ours_dense_p50_ms"] / out["query_lc_p50_ms"]
    out["index_ratio_ours_over_li"] = out["index_ours_s"] / out["index_llamaindex_s"]
    out["query_ratio_ours_over_li"] = out["query_ours_p50_ms"] / out["query_li_p50_ms"]
    return out


def _padded(model, texts: list[str], window: int, by_tokens: bool, batch: int) -> dict[str, int]:
    """Tokens in `texts` and tokens the encoder runs over when each `window` of them (in order) is sorted by token
    count or by characters and cut into batches of `batch`, each padded to its longest."""
    counts = model.token_counts(texts)
    padded = 0
    for start in range(0, len(texts), window):
        part = range(start, min(start + window, len(texts)))
        ordered = sorted(part, key=counts.__getitem__ if by_tokens else lambda i: len(texts[i]))
        for b in range(0, len(ordered), batch):
            group = ordered[b : b + batch]
            padded += max(counts[i] for i in group) * len(group)
    return {"texts": len(texts), "tokens": sum(counts), "with_padding": padded}


def _scifact(tmp: Path, n: int) -> tuple[Path, list[dict], int]:
    """The first `n` SciFact abstracts (to a temporary file only: CC BY-NC) and the train claims answerable in them."""
    external = os.environ.get("RAG_EVAL_EXTERNAL")  # as eval/suites.py: a git worktree is not beside ../shared
    candidates = [Path(external)] if external else []
    candidates += [common.ROOT.parent / "shared" / "external", common.ROOT.parent.parent / "shared" / "external"]
    folder = next((c / "scifact" for c in candidates if (c / "scifact").exists()), candidates[0] / "scifact")
    corpus = tmp / "scifact.jsonl"
    ids: set[str] = set()
    with (folder / "corpus.jsonl").open(encoding="utf-8") as f, corpus.open("w", encoding="utf-8") as out:
        for line in list(f)[:n]:
            record = json.loads(line)
            ids.add(record["id"])
            out.write(json.dumps({key: record[key] for key in ("id", "title", "abstract", "year") if key in record}))
            out.write("\n")
    claims = [json.loads(x) for x in (folder / "queries_train.jsonl").read_text(encoding="utf-8").splitlines() if x]
    rows = [c for c in claims if c.get("gold") and set(c["gold"]) <= ids]
    return corpus, [{"id": c["id"], "question": c["question"], "gold": c["gold"]} for c in rows], 10


def _print_scifact(r: dict) -> None:
    rows = [("index s", r["index_ours_s"], r["index_langchain_s"], r["index_llamaindex_s"], "", "",
             r["index_ours_without_sentence_vectors_s"])]  # fmt: skip
    for metric, key in (("query p50 ms", "query_{}_p50_ms"), ("nDCG@10", "ndcg10_{}"), ("recall@5", "recall5_{}")):
        rows.append((metric, r[key.format("ours")], r[key.format("lc")], r[key.format("li")],
                     r[key.format("ours_dense")], r[key.format("lc_hybrid")], ""))  # fmt: skip
    cols = ["metric", "ours", "LangChain", "LlamaIndex", "ours dense-only", "LC hybrid", "ours w/o sentence vectors"]
    print(common.table(cols, rows))
    print(f"\n{r['papers']} papers, {r['query_questions']} claims, same chunks: {r['same_chunks']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--synthetic", default="2000,10000", help="sizes of the synthetic corpora, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="index runs per side on the bundled corpus")
    parser.add_argument("--synthetic-runs", type=int, default=1, help="index runs per side on the synthetic corpora")
    parser.add_argument("--out", default="peer", help="results name: bench/results/OUT.json (keep earlier runs)")
    parser.add_argument("--scifact", type=int, default=0, metavar="N",
                        help="also the first N SciFact abstracts (../shared/external, CC BY-NC, read at run time) with "
                             "the train claims whose cited papers are all among them; nDCG@10")  # fmt: skip
    parser.add_argument("--scifact-only", action="store_true", help="only the SciFact comparison (needs --scifact)")
    parser.add_argument("--no-plain", action="store_true", help="on SciFact, skip ours without sentence vectors")
    parser.add_argument("--scifact-runs", type=int, default=1, help="index runs per side on SciFact (median)")
    parser.add_argument("--peers-by-tokens", action="store_true",
                        help="batch the peers' texts by token count as ours are (default: by characters, as "
                             "sentence-transformers, through which their users run this model)")  # fmt: skip
    reuse = "use this index of the largest synthetic corpus as ours (bench_answer_scale.py --keep: same corpus)"
    parser.add_argument("--ours-home", metavar="DIR", help=reuse)
    parser.add_argument("--peer-chunks", choices=["ours", "splitter"], default="ours",
                        help="the peers embed our chunks (default), or cut the text with LangChain's splitter as "
                             "their users would (not checked equal: the result says how far they differ)")  # fmt: skip
    args = parser.parse_args()
    common.check_quiet()
    peers.PEERS_BY_TOKENS = args.peers_by_tokens
    peers.PEER_CHUNKS = args.peer_chunks

    import langchain_chroma
    import langchain_core

    from rag.adapters.embedding import MiniLMEmbedder
    from rag.index.tokens import count_tokens

    model = MiniLMEmbedder()
    model.embed_batch(["warm up"])
    count_tokens("warm up")  # tiktoken's table loads once (0.25 s): outside the timings, like the model
    result: dict = {
        "machine": common.machine(),
        "langchain_core": langchain_core.__version__,
        "langchain_chroma": getattr(langchain_chroma, "__version__", "?"),
    }
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        if args.scifact:
            corpus, claims, k = _scifact(tmp, args.scifact)
            runs = args.scifact_runs
            result["scifact"] = compare(corpus, tmp, model, runs, "scifact", rows=claims, k=k, plain=not args.no_plain)
            result["scifact"]["load_avg_at_end"] = os.getloadavg()[0]
            common.save(args.out, result)
            if args.scifact_only:
                _print_scifact(result["scifact"])
                return
        result["bundled"] = compare(common.ROOT / "data" / "icml2025.jsonl", tmp, model, args.runs, "bundled")
        sizes = [int(s) for s in str(args.synthetic).split(",") if s.strip() and int(s) > 0]
        if sizes:
            full = common.write_corpus(tmp / "synthetic.jsonl", max(sizes))
            for n in sizes:
                corpus = common.write_prefix(full, tmp / f"synthetic-{n}.jsonl", n)
                reuse = args.ours_home if n == max(sizes) else None
                result[f"synthetic_{n}"] = compare(corpus, tmp, model, args.synthetic_runs, f"synthetic{n}", reuse)
    b = result["bundled"]
    timing = result.get(f"synthetic_{max(sizes)}" if sizes else "bundled", b)
    result["goals_met"] = {
        "ours_faster_index": timing["index_ratio_ours_over_lc"] < 1 and b["index_ratio_ours_over_lc"] < 1,
        "ours_faster_query": timing["query_ratio_ours_over_lc"] < 1 and b["query_ratio_ours_over_lc"] < 1,
        "ours_faster_query_than_lc_hybrid": all(
            r["query_ratio_ours_over_lc_hybrid"] < 1 for r in (b, timing)
        ),
        "ours_dense_faster_query_than_lc_dense": all(r["query_ratio_ours_dense_over_lc"] < 1 for r in (b, timing)),
        "recall_at_least_lc": b["recall5_ours"] >= b["recall5_lc"],
    }
    common.save(args.out, result)
    rows = []
    for name in [k for k in result if k == "bundled" or k.startswith("synthetic_")]:
        r = result[name]
        label = f"{name} ({r['papers']} papers)"
        rows.append((label, "index s", r["index_ours_s"], r["index_langchain_s"], r["index_ratio_ours_over_lc"], "", "",
                     "", r["index_llamaindex_s"], r["index_ratio_ours_over_li"]))  # fmt: skip
        for metric, key in (("query p50 ms", "query_{}_p50_ms"), ("recall@5", "recall5_{}")):
            ours, lc, li = r[key.format("ours")], r[key.format("lc")], r[key.format("li")]
            dense, hybrid = r[key.format("ours_dense")], r[key.format("lc_hybrid")]
            rows.append(("", metric, ours, lc, ours / lc, dense, hybrid, ours / hybrid, li, ours / li))
    cols = ["corpus", "metric", "ours", "LangChain", "ours/LC", "ours dense-only", "LC hybrid", "ours/LC hybrid",
            "LlamaIndex", "ours/LI"]  # fmt: skip
    print(common.table(cols, rows))
    print(f"\nsame chunks: bundled {b['same_chunks']}, largest synthetic {timing['same_chunks']}")
    print(f"goals met: {result['goals_met']}")


if __name__ == "__main__":
    main()
