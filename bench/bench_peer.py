"""Side by side with LangChain (langchain-chroma) and LlamaIndex: index time, query latency, recall@5.

    .venv/bin/pip install -e '.[bench]'      # langchain-chroma/-core/-text-splitters/-community/-classic, rank-bm25,
                                             # llama-index-core, llama-index-vector-stores-chroma
    .venv/bin/python bench/bench_peer.py [--synthetic 2000,10000] [--runs 3] [--synthetic-runs 1]

Both sides get the same chunks (LangChain's RecursiveCharacterTextSplitter with our tiktoken length function at
320/32 tokens; checked equal to ours), the same embedded text (title + chunk), the same embedding model instance
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
Writes bench/results/peer.json.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import common

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"
os.environ["ANONYMIZED_TELEMETRY"] = "False"


def _lc_embeddings(model, batch: int):
    from langchain_core.embeddings import Embeddings

    from rag.ports import embed_in_batches

    class MiniLMEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embed_in_batches(model, texts, batch)

        def embed_query(self, text: str) -> list[float]:
            return model.embed_batch([text])[0]

    return MiniLMEmbeddings()


def _lc_chunks(corpus: Path, settings) -> tuple[list[str], list[str], list[dict]]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from rag.index.tokens import count_tokens

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=settings.index.chunk_tokens, chunk_overlap=settings.index.chunk_overlap, length_function=count_tokens
    )
    ids, texts, metas = [], [], []
    for line in corpus.read_text().splitlines():
        paper = json.loads(line)
        for i, chunk in enumerate(splitter.split_text(paper["abstract"])):
            ids.append(f"{paper['id']}:{i}")
            texts.append(f"{paper['title']}\n{chunk}")
            metas.append({"paper_id": paper["id"], "title": paper["title"]})
    return ids, texts, metas


def index_lc(corpus: Path, path: str, embeddings, settings):
    import chromadb
    from chromadb.config import Settings as ChromaSettings
    from langchain_chroma import Chroma

    t = time.perf_counter()
    ids, texts, metas = _lc_chunks(corpus, settings)
    client = chromadb.PersistentClient(path=path, settings=ChromaSettings(anonymized_telemetry=False))
    store = Chroma(
        client=client,
        collection_name="papers",
        embedding_function=embeddings,
        collection_configuration={"hnsw": {"space": "cosine"}},
    )
    step = 5000  # add_texts fails above Chroma's max batch (5,461 here): hand it slices
    for i in range(0, len(ids), step):
        store.add_texts(texts[i : i + step], metadatas=metas[i : i + step], ids=ids[i : i + step])
    return time.perf_counter() - t, store, dict(zip(ids, texts, strict=True))


def index_li(corpus: Path, path: str, model, settings):
    """LlamaIndex: TextNodes with the same text, our embedder behind its BaseEmbedding, Chroma as the store."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings
    from llama_index.core import Settings as LISettings
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.schema import TextNode
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from rag.index.tokens import encoding
    from rag.ports import embed_in_batches

    batch = settings.index.embed_batch_size

    class MiniLMEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return model.embed_batch([query])[0]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return model.embed_batch([text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return embed_in_batches(model, texts, batch)

    LISettings.llm = None
    LISettings.tokenizer = encoding().encode  # not its own tiktoken download
    embed = MiniLMEmbedding(embed_batch_size=1000)
    t = time.perf_counter()
    ids, texts, metas = _lc_chunks(corpus, settings)
    nodes = [
        TextNode(id_=i, text=x, metadata=m, excluded_embed_metadata_keys=list(m), excluded_llm_metadata_keys=list(m))
        for i, x, m in zip(ids, texts, metas, strict=True)
    ]
    client = chromadb.PersistentClient(path=path, settings=ChromaSettings(anonymized_telemetry=False))
    collection = client.get_or_create_collection("papers", configuration={"hnsw": {"space": "cosine"}})
    storage = StorageContext.from_defaults(vector_store=ChromaVectorStore(chroma_collection=collection))
    index = VectorStoreIndex(nodes, storage_context=storage, embed_model=embed, insert_batch_size=5000)
    seconds = time.perf_counter() - t
    embedded = {n.id_: n.get_content(metadata_mode="embed") for n in nodes}  # type: ignore[arg-type]
    return seconds, index.as_retriever(similarity_top_k=5), embedded


def _lc_hybrid(corpus: Path, settings, lc_store):
    """What a LangChain user assembles for hybrid search: BM25Retriever (rank_bm25, default whitespace
    tokenizer) and the Chroma retriever, fused by EnsembleRetriever's weighted reciprocal rank, 5 from each."""
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever

    t = time.perf_counter()
    _, texts, metas = _lc_chunks(corpus, settings)
    bm25 = BM25Retriever.from_texts(texts, metadatas=metas, k=5)
    seconds = time.perf_counter() - t
    dense = lc_store.as_retriever(search_kwargs={"k": 5})
    return EnsembleRetriever(retrievers=[bm25, dense], weights=[0.5, 0.5]), seconds


def index_ours(corpus: Path, home: str, model, sentence_vectors: bool = True):
    from rag.corpus import read_papers
    from rag.factory import build_index
    from rag.index.chunking import chunk_paper, embed_text
    from rag.settings import load_settings

    settings = load_settings(env={}, home=home, llm="extractive", sentence_vectors=sentence_vectors)
    t = time.perf_counter()
    build_index(settings, [corpus], embedder=model)
    seconds = time.perf_counter() - t
    chunks = {
        c.id: embed_text(p, c.text)
        for p in read_papers([corpus])
        for c in chunk_paper(p, settings.index.chunk_tokens, settings.index.chunk_overlap)
    }
    return seconds, settings, chunks


def _top_papers(ids: list[str], k: int = 5) -> list[str]:
    return list(dict.fromkeys(ids))[:k]


def compare(corpus: Path, tmp: Path, model, runs: int, tag: str) -> dict:
    from rag.factory import open_retriever
    from rag.settings import load_settings

    settings = load_settings(env={})
    embeddings = _lc_embeddings(model, settings.index.embed_batch_size)
    ours_s, plain_s, lc_s, li_s = [], [], [], []
    for run in range(runs):
        order = ("ours", "lc", "li", "plain")[run % 4 :] + ("ours", "lc", "li", "plain")[: run % 4]
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
                s, li_retriever, li_chunks = index_li(corpus, str(tmp / f"{tag}-li-{run}"), model, settings)
                li_s.append(s)
    retriever = open_retriever(ours_settings, embedder=model)
    rows = common.questions()
    lc_hybrid, lc_bm25_s = _lc_hybrid(corpus, settings, lc_store)
    sides = ("ours", "lc", "ours_dense", "lc_hybrid", "li")
    lat: dict[str, list[float]] = {side: [] for side in sides}
    hits_by: dict[str, dict] = {side: {} for side in sides}
    retriever.search("warm up", 5)
    lc_store.similarity_search_with_score("warm up", k=5)
    lc_hybrid.invoke("warm up")
    li_retriever.retrieve("warm up")
    for r in rows:
        q = r["question"]
        for side in sides:
            t = time.perf_counter()
            if side == "lc":
                docs = lc_store.similarity_search_with_score(q, k=5)
                papers = _top_papers([d.metadata["paper_id"] for d, _ in docs])
            elif side == "lc_hybrid":
                papers = _top_papers([d.metadata["paper_id"] for d in lc_hybrid.invoke(q)])
            elif side == "li":
                papers = _top_papers([n.node.metadata["paper_id"] for n in li_retriever.retrieve(q)])
            else:
                retriever.forget_queries()  # no query vector kept from the other mode: each search embeds
                mode = "dense" if side == "ours_dense" else "hybrid"
                papers = _top_papers([h.paper.id for h in retriever.search(q, 5, mode=mode)])
            lat[side].append(1000 * (time.perf_counter() - t))
            hits_by[side][r["id"]] = papers
    gold = [r for r in rows if r.get("gold")]

    def recall(side: str) -> float:
        return sum(len(set(r["gold"]) & set(hits_by[side][r["id"]])) / len(r["gold"]) for r in gold) / len(gold)

    # were the modes really different? questions whose top 5 differ between each pair of sides
    differ = {f"{a}_vs_{b}": sum(hits_by[a][r["id"]] != hits_by[b][r["id"]] for r in rows)
              for a, b in (("ours", "ours_dense"), ("ours", "lc"), ("ours_dense", "lc"), ("ours", "li"))}  # fmt: skip
    out = {
        "papers": sum(1 for _ in corpus.open()),
        "same_chunks": ours_chunks == lc_chunks == li_chunks,
        "index_llamaindex_s": common.median(li_s),
        "top5_differs_on_questions": differ,
        "index_runs": runs,
        "index_ours_s": common.median(ours_s),
        "index_ours_without_sentence_vectors_s": common.median(plain_s),
        "index_langchain_s": common.median(lc_s),
        "langchain_bm25_build_s": lc_bm25_s,  # in memory only: rebuilt at every process start
        "query_questions": len(rows),
        "recall_questions": len(gold),
    }
    for side in lat:
        out[f"query_{side}_p50_ms"] = common.pct(lat[side], 50)
        out[f"query_{side}_p95_ms"] = common.pct(lat[side], 95)
        out[f"recall5_{side}"] = recall(side)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--synthetic", default="2000,10000", help="sizes of the synthetic corpora, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="index runs per side on the bundled corpus")
    parser.add_argument("--synthetic-runs", type=int, default=1, help="index runs per side on the synthetic corpora")
    args = parser.parse_args()
    common.check_quiet()

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
        result["bundled"] = compare(common.ROOT / "data" / "icml2025.jsonl", tmp, model, args.runs, "bundled")
        sizes = [int(s) for s in str(args.synthetic).split(",") if s.strip() and int(s) > 0]
        if sizes:
            full = common.write_corpus(tmp / "synthetic.jsonl", max(sizes))
            for n in sizes:
                corpus = common.write_prefix(full, tmp / f"synthetic-{n}.jsonl", n)
                result[f"synthetic_{n}"] = compare(corpus, tmp, model, args.synthetic_runs, f"synthetic{n}")
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
    common.save("peer", result)
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
