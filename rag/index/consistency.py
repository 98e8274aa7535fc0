"""`rag index --verify`: the vector store, BM25 and the docstore checked against each other, every byte, and the
derived files rebuilt from the store when any of them disagrees with it.

- The store against itself: the fingerprint recorded on the collection must be the fingerprint of the chunks it
  holds (every id with its metadata hash); every chunk must carry its hashes; no update may be half done (the
  "updating" marker of a killed run).
- BM25 and the docstore: their checksums in full, built for that fingerprint, the same chunk ids as the store;
  and every docstore row the same text, metadata and vector as the store's chunk.

The derived files are repaired from the store; a half-done update of the store itself needs the sources (`rag
index SOURCES` completes it), so it is reported, not repaired.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rag.index.docstore import DocStore
from rag.index.integrity import fingerprint, problem
from rag.index.layout import Layout
from rag.index.lexical import LexicalIndex
from rag.index.local_copies import rebuild_local
from rag.ports import VectorStore

PAGE = 500


@dataclass
class Verified:
    chunks: int
    problems: list[str] = field(default_factory=list)  # what was wrong
    repaired: list[str] = field(default_factory=list)  # what was done about it
    remaining: list[str] = field(default_factory=list)  # what needs `rag index SOURCES`

    def lines(self) -> list[str]:
        if not self.problems and not self.remaining:
            return [f"verified: the store, BM25 and the docstore agree ({self.chunks:,} chunks)"]
        return [f"found: {p}" for p in self.problems] + [f"repaired: {r}" for r in self.repaired]


def _rows_differ(docs: DocStore, store: VectorStore, ids: Sequence[str]) -> tuple[int, str | None]:
    """How many docstore rows differ from the store's chunks (text, metadata, vector), and the first of them."""
    bad, first = 0, None
    for start in range(0, len(ids), PAGE):
        for chunk in store.get(ids[start : start + PAGE], with_embeddings=True):
            row = docs.get(chunk.id)
            same = row is not None and row.text == chunk.text and dict(row.metadata) == dict(chunk.metadata)
            if same and row is not None and chunk.embedding is not None and row.embedding is not None:
                same = bool(np.allclose(np.asarray(row.embedding), np.asarray(chunk.embedding), atol=1e-5))
            if not same:
                bad, first = bad + 1, first or chunk.id
    return bad, first


def _copy_problem(copy: LexicalIndex | DocStore | None, directory: Path, ids: list[str], wanted: str) -> str | None:
    """What is wrong with a local copy (BM25 or the docstore) against the store: checksum, fingerprint, ids."""
    if copy is None:
        return "missing or unreadable"
    why = problem(directory, copy.fingerprint, full=True)
    if why is None and copy.fingerprint != wanted:
        why = "built for another state of the store"
    if why is None and sorted(copy.ids) != ids:
        why = "its chunk ids differ from the store's"
    return why


def _lexical_problem(layout: Layout, ids: list[str], wanted: str) -> str | None:
    why = _copy_problem(LexicalIndex.load(layout.lexical_dir), layout.lexical_dir, ids, wanted)
    return f"BM25 index: {why}" if why else None


def _docs_problem(layout: Layout, store: VectorStore, ids: list[str], wanted: str) -> str | None:
    docs = DocStore.load(layout.docs_dir)
    why = _copy_problem(docs, layout.docs_dir, ids, wanted)
    if why is None and docs is not None:
        bad, first = _rows_differ(docs, store, ids)
        why = f"{bad:,} rows differ from the store (e.g. {first})" if bad else None
    return f"docstore: {why}" if why else None


def verify_index(store: VectorStore, layout: Layout) -> Verified:
    """Check the index as described above and repair the derived files (IndexMissingError: there is none)."""
    store = store.open()
    info = store.fresh_info()
    metas = list(store.iter_metadata())
    ids = sorted(cid for cid, _ in metas)
    wanted = fingerprint((cid, str(m.get("meta_hash"))) for cid, m in metas)
    out = Verified(len(ids))
    if layout.dirty_marker.exists():
        out.remaining.append("an index update did not finish, so the store may hold part of it: run `rag index` "
                             "with your sources to complete it")  # fmt: skip
    unhashed = [cid for cid, m in metas if not m.get("hash") or not m.get("meta_hash") or not m.get("paper_id")]
    if unhashed:
        out.remaining.append(f"{len(unhashed):,} chunks in the store lack their metadata (e.g. {unhashed[0]}): run "
                             "`rag index --rebuild` with your sources")  # fmt: skip
    recorded = info.get("lexical_fingerprint")
    if recorded != wanted:
        out.problems.append(f"store: the fingerprint recorded on the collection ({recorded or 'none'}) is not its "
                            f"chunks' ({wanted})")  # fmt: skip
    out.problems += [p for p in (_lexical_problem(layout, ids, wanted), _docs_problem(layout, store, ids, wanted)) if p]
    if out.problems:
        rebuild_local(layout, store, wanted)
        out.repaired.append(f"rebuilt BM25 and the docstore from the store's {len(ids):,} chunks")
        if recorded != wanted:
            store.update_info(lexical_fingerprint=wanted)
            out.repaired.append("recorded the chunks' fingerprint on the collection")
    return out
