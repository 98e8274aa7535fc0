"""This machine's BM25 index and docstore for a collection: loaded when they match the store's fingerprint and
pass their checksums, else rebuilt from the store's chunks (a UI worker in front of a Chroma server that another
machine re-indexed; a copy that was edited, zeroed or truncated). A BM25 index written with an older word recipe
or other BM25 parameters (rag.index.lexical.RECIPE) is rebuilt from the docstore's chunks: nothing is embedded again."""

from __future__ import annotations

import logging
from collections.abc import Callable

from rag.errors import IndexMissingError, WriterBusyError
from rag.index.docstore import DocStore, DocStoreBuilder
from rag.index.integrity import trusted
from rag.index.layout import Layout
from rag.index.lexical import RECIPE, LexicalBuilder, LexicalIndex
from rag.index.lock import FileLock
from rag.index.records import lexical_text
from rag.ports import VectorStore

PAGE = 1000  # chunks per store read while rebuilding
_log = logging.getLogger(__name__)


def load_local(
    layout: Layout, store: VectorStore, wanted: str | None, warn: Callable[[str], None] | None = None
) -> tuple[LexicalIndex, DocStore | None]:
    """BM25 and the docstore from this machine's files when they match the store's fingerprint `wanted` and pass
    the quick checksum check, else rebuilt from the store (a failed check is one line through `warn`, by default
    a logged warning). A docstore that does not match BM25 is left out (text then comes from the store)."""
    warn = warn or _log.warning
    loaded = LexicalIndex.load(layout.lexical_dir)
    if loaded is None and layout.lexical_dir.is_dir():
        warn(f"the BM25 index under {layout.lexical_dir} cannot be read; rebuilding it")
    lexical = trusted(loaded, layout.lexical_dir, "BM25 index", warn, full=False)
    if lexical is None or (wanted and lexical.fingerprint != wanted):
        return rebuild_local(layout, store, str(wanted or "rebuilt-from-store"))
    docs = DocStore.load(layout.docs_dir)
    if docs is None and layout.docs_dir.is_dir():
        warn(f"the docstore under {layout.docs_dir} cannot be read; rebuilding it")
        return rebuild_local(layout, store, lexical.fingerprint)
    if docs is None or docs.fingerprint != lexical.fingerprint:
        return lexical, None  # outdated: text comes from the store until `rag index` writes a new one
    if trusted(docs, layout.docs_dir, "docstore", warn, full=False) is None:
        return rebuild_local(layout, store, lexical.fingerprint)
    return current_terms(layout, lexical, docs, warn, shared=store.shared), docs


def local_only(layout: Layout) -> tuple[LexicalIndex, DocStore] | None:
    """BM25 and the docstore from this machine's files alone, when they are a matching pair that records the
    collection's embedder (written by `rag index` here) and pass their checksums; None when the store must be
    asked."""
    lexical = LexicalIndex.load(layout.lexical_dir)
    docs = DocStore.load(layout.docs_dir) if lexical is not None else None
    if lexical is None or docs is None or docs.fingerprint != lexical.fingerprint or not docs.info.get("embedder"):
        return None
    # a copy that fails its quick checksum check is not used: the store path then rebuilds it, with a note
    if trusted(lexical, layout.lexical_dir, "BM25 index", None, full=False) is None:
        return None
    if trusted(docs, layout.docs_dir, "docstore", None, full=False) is None:
        return None
    return current_terms(layout, lexical, docs, _log.warning, shared=False), docs


def current_terms(layout: Layout, lexical: LexicalIndex, docs: DocStore, warn: Callable[[str], None], *,
                  shared: bool) -> LexicalIndex:  # fmt: skip
    """`lexical` when it was built with today's words and parameters; else BM25 rebuilt from the docstore's chunks (same
    fingerprint, no store call, nothing embedded), saved when no `rag index` holds the writer lock (else used from
    memory: that run writes a new one), with a one-line note. Searching an old index with today's words would
    silently miss every stemmed or split word."""
    if lexical.recipe == RECIPE:
        return lexical
    builder = LexicalBuilder()
    for cid in docs.ids:
        chunk = docs.get(cid)
        if chunk is not None:
            builder.add(cid, lexical_text(chunk.metadata, chunk.text))
    index = builder.finish(lexical.fingerprint)
    lock = FileLock(layout.index_dir / (f"{layout.collection}.lock" if shared else "writer.lock"))
    saved = "rebuilt"
    try:
        lock.acquire(0.0, None, layout.collection)
        try:
            index.save(layout.lexical_dir)
        finally:
            lock.release()
    except (OSError, WriterBusyError):
        saved = "rebuilt in memory (not saved: the directory is busy or read-only)"
    warn(f"the BM25 index under {layout.lexical_dir} was built as '{lexical.recipe}'; {saved} as '{RECIPE}' from "
         f"the docstore ({len(docs):,} chunks, nothing re-embedded)")
    return index


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
