"""This machine's BM25 index and docstore for a collection: loaded when they match the store's fingerprint,
else rebuilt from the store's chunks (a UI worker in front of a Chroma server that another machine re-indexed)."""

from __future__ import annotations

from rag.errors import IndexMissingError
from rag.index.docstore import DocStore, DocStoreBuilder
from rag.index.layout import Layout
from rag.index.lexical import LexicalBuilder, LexicalIndex
from rag.index.records import lexical_text
from rag.ports import VectorStore

PAGE = 1000  # chunks per store read while rebuilding


def load_local(layout: Layout, store: VectorStore, wanted: str | None) -> tuple[LexicalIndex, DocStore | None]:
    """BM25 and the docstore from this machine's files when they match the store's fingerprint `wanted`, else
    rebuilt from the store. A docstore that does not match BM25 is left out (text then comes from the store)."""
    lexical = LexicalIndex.load(layout.lexical_dir)
    if lexical is None or (wanted and lexical.fingerprint != wanted):
        return rebuild_local(layout, store, str(wanted or "rebuilt-from-store"))
    docs = DocStore.load(layout.docs_dir)
    return lexical, docs if docs is not None and docs.fingerprint == lexical.fingerprint else None


def local_only(layout: Layout) -> tuple[LexicalIndex, DocStore] | None:
    """BM25 and the docstore from this machine's files alone, when they are a matching pair that records the
    collection's embedder (written by `rag index` here); None when the store must be asked."""
    lexical = LexicalIndex.load(layout.lexical_dir)
    docs = DocStore.load(layout.docs_dir) if lexical is not None else None
    if lexical is None or docs is None or docs.fingerprint != lexical.fingerprint or not docs.info.get("embedder"):
        return None
    return lexical, docs


def rebuild_local(layout: Layout, store: VectorStore, fingerprint: str) -> tuple[LexicalIndex, DocStore]:
    """Rebuild BM25 and the docstore from the store's chunks and save them under the layout."""
    metas = list(store.iter_metadata())
    lexical = LexicalBuilder()
    docs = DocStoreBuilder(layout.docs_dir, len(metas), int(store.info.get("dim") or 0))
    try:
        for start in range(0, len(metas), PAGE):
            for chunk in store.get([cid for cid, _ in metas[start : start + PAGE]], with_embeddings=True):
                lexical.add(chunk.id, lexical_text(chunk.metadata, chunk.text))
                docs.add(chunk.id, chunk.text, chunk.metadata)
                if chunk.embedding is not None:
                    docs.set_vector(chunk.id, chunk.embedding)
        index = lexical.finish(fingerprint)
        index.save(layout.lexical_dir)
        docs.finish(fingerprint)
    except BaseException:
        docs.abort()
        raise
    loaded = DocStore.load(layout.docs_dir)
    if loaded is None:
        raise IndexMissingError(f"cannot read the docstore just written under {layout.index_dir}")
    return index, loaded
