"""The peers of bench_peer.py, set up as their users would: LangChain (langchain-chroma, with and without its
BM25 ensemble) and LlamaIndex (VectorStoreIndex over a ChromaVectorStore), fed our chunks, text and embedder."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"
os.environ["ANONYMIZED_TELEMETRY"] = "False"


# How the peers batch a call's texts. Their users reach the local MiniLM through sentence-transformers
# (LangChain's HuggingFaceEmbeddings, LlamaIndex's HuggingFaceEmbedding), whose `encode` sorts each call's texts by
# character length. bench_peer.py's `--peers-by-tokens` sets this: our token-count order instead.
PEERS_BY_TOKENS = False
# Which chunks the peers embed. "ours" (the default): exactly the chunks our index embeds, so a build-time or
# retrieval difference is not a chunking difference. "splitter": LangChain's RecursiveCharacterTextSplitter with our
# tiktoken length at our chunk size and overlap, as a peer's user would cut the text: on short abstracts it gives
# our chunks, on SciFact's longer ones about 2 % more tokens (bench_peer.py records both sides' token counts).
PEER_CHUNKS = "ours"


def peer_batches(model, texts: list[str], batch: int) -> list[list[float]]:
    """`texts` embedded in batches of `batch`, sorted as sentence-transformers sorts them (by characters), or by
    token count with PEERS_BY_TOKENS."""
    from rag.ports import batch_order, embed_in_batches

    order = batch_order(model, texts) if PEERS_BY_TOKENS else sorted(range(len(texts)), key=lambda i: len(texts[i]))
    return embed_in_batches(model, texts, batch, order)


def lc_embeddings(model, batch: int):
    from langchain_core.embeddings import Embeddings

    class MiniLMEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return peer_batches(model, texts, batch)

        def embed_query(self, text: str) -> list[float]:
            return model.embed_batch([text])[0]

    return MiniLMEmbeddings()


def lc_chunks(corpus: Path, settings) -> tuple[list[str], list[str], list[dict]]:
    """(ids, embedded texts "title\nchunk", metadata) of the chunks the peers embed, as PEER_CHUNKS says."""
    if PEER_CHUNKS == "ours":
        from rag.corpus import read_papers
        from rag.index.chunking import chunk_paper, embed_text

        size, overlap = settings.index.chunk_tokens, settings.index.chunk_overlap
        chunks = [(p, c) for p in read_papers([corpus]) for c in chunk_paper(p, size, overlap)]
        return ([c.id for _, c in chunks], [embed_text(p, c.text) for p, c in chunks],
                [{"paper_id": p.id, "title": p.title} for p, _ in chunks])  # fmt: skip
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
    ids, texts, metas = lc_chunks(corpus, settings)
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


def index_li(corpus: Path, path: str, model, settings, k: int = 5):
    """LlamaIndex: TextNodes with the same text, our embedder behind its BaseEmbedding, Chroma as the store."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings
    from llama_index.core import Settings as LISettings
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.schema import TextNode
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from rag.index.tokens import encoding

    batch = settings.index.embed_batch_size

    class MiniLMEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return model.embed_batch([query])[0]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return model.embed_batch([text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return peer_batches(model, texts, batch)

    LISettings.llm = None
    LISettings.tokenizer = encoding().encode  # not its own tiktoken download
    embed = MiniLMEmbedding(embed_batch_size=1000)
    t = time.perf_counter()
    ids, texts, metas = lc_chunks(corpus, settings)
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
    return seconds, index.as_retriever(similarity_top_k=k), embedded


def lc_hybrid(corpus: Path, settings, lc_store, k: int = 5):
    """What a LangChain user assembles for hybrid search: BM25Retriever (rank_bm25, default whitespace
    tokenizer) and the Chroma retriever, fused by EnsembleRetriever's weighted reciprocal rank, 5 from each."""
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever

    t = time.perf_counter()
    _, texts, metas = lc_chunks(corpus, settings)
    bm25 = BM25Retriever.from_texts(texts, metadatas=metas, k=k)
    seconds = time.perf_counter() - t
    dense = lc_store.as_retriever(search_kwargs={"k": k})
    return EnsembleRetriever(retrievers=[bm25, dense], weights=[0.5, 0.5]), seconds
