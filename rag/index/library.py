"""The papers an index holds, read back from it (for `rag export`): each once, with its whole abstract and
its metadata as indexed, in corpus order when the local docstore is current, else by id."""

from __future__ import annotations

from collections.abc import Iterator

from rag.index.docstore import DocStore
from rag.index.integrity import trusted
from rag.index.layout import Layout
from rag.index.records import paper_from_metadata
from rag.ports import StoredChunk, VectorStore
from rag.types import Paper

PAGE = 500


def _paper(chunk: StoredChunk) -> Paper:
    return paper_from_metadata(chunk.metadata, str(chunk.metadata.get("abstract") or chunk.text))


def indexed_papers(store: VectorStore, layout: Layout) -> Iterator[Paper]:
    """Every paper in the collection (IndexMissingError when there is none). The first chunk of a paper holds
    its metadata, and its whole abstract when the abstract was cut into several chunks."""
    store = store.open()
    docs = trusted(DocStore.load(layout.docs_dir), layout.docs_dir, "docstore", None, full=False)
    if docs is not None and docs.fingerprint == store.info.get("lexical_fingerprint"):
        for cid in docs.ids:
            if cid.endswith(":0") and (chunk := docs.get(cid)) is not None:
                yield _paper(chunk)
        return
    firsts = sorted(cid for cid, meta in store.iter_metadata() if int(meta.get("position", 0) or 0) == 0)
    for start in range(0, len(firsts), PAGE):
        for chunk in store.get(firsts[start : start + PAGE]):
            yield _paper(chunk)
