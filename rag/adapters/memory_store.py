"""An in-memory rag.ports.VectorStore: exact cosine search with numpy, no files, no server.

For tests (the store contract runs over it beside embedded Chroma and a `chroma run` server) and for users who
want to try the pipeline without Chroma. Collections created from one MemoryStore (and its siblings) share one
space, as collections in one Chroma directory do.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rag.errors import IndexMissingError
from rag.filters import Filters
from rag.ports import Metadata, StoredChunk


@dataclass
class _Collection:
    info: dict[str, Any]
    rows: dict[str, tuple[np.ndarray, str, dict[str, Any]]] = field(default_factory=dict)  # insertion-ordered


class MemoryStore:
    def __init__(self, name: str, space: dict[str, _Collection] | None = None) -> None:
        self.name = name
        self.where = "memory"
        self.shared = False
        self._space: dict[str, _Collection] = {} if space is None else space
        self._lock = threading.Lock()

    def sibling(self, name: str) -> MemoryStore:
        return MemoryStore(name, self._space)

    def close(self) -> None:  # nothing held: the collections live as long as the space
        pass

    def _col(self) -> _Collection:
        col = self._space.get(self.name)
        if col is None:
            raise IndexMissingError(f"no index '{self.name}' in memory; run `rag index` first")
        return col

    def exists(self) -> bool:
        return self.name in self._space

    def open(self) -> MemoryStore:
        self._col()
        return self

    def create(self, embedder_name: str, dim: int, extra: Mapping[str, Any] | None = None) -> MemoryStore:
        if self.name not in self._space:
            self._space[self.name] = _Collection({"embedder": embedder_name, "dim": dim, **(extra or {})})
        return self

    @property
    def info(self) -> dict[str, Any]:
        return dict(self._col().info)

    def fresh_info(self) -> dict[str, Any]:
        return self.info

    def update_info(self, **values: Any) -> None:
        self._col().info.update(values)

    def drop(self) -> None:
        self._space.pop(self.name, None)

    def rename(self, new_name: str) -> None:
        self._space[new_name] = self._space.pop(self.name)
        self.name = new_name

    def upsert(
        self,
        ids: Sequence[str],
        embeddings: Sequence[Sequence[float]],
        texts: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        col = self._col()
        with self._lock:
            for cid, vector, text, meta in zip(ids, embeddings, texts, metadatas, strict=True):
                col.rows[cid] = (np.asarray(vector, dtype=np.float32), text, dict(meta))

    def update_metadata(self, ids: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        col = self._col()
        with self._lock:
            for cid, meta in zip(ids, metadatas, strict=True):
                if cid in col.rows:
                    vector, text, _ = col.rows[cid]
                    col.rows[cid] = (vector, text, dict(meta))

    def delete(self, ids: Sequence[str]) -> None:
        col = self._col()
        with self._lock:
            for cid in ids:
                col.rows.pop(cid, None)

    def count(self) -> int:
        return len(self._col().rows)

    def iter_metadata(self, page: int = 5000) -> Iterator[tuple[str, Metadata]]:
        for cid, (_, _, meta) in list(self._col().rows.items()):
            yield cid, dict(meta)

    def get(self, ids: Sequence[str], with_embeddings: bool = False) -> list[StoredChunk]:
        rows = self._col().rows
        out = []
        for cid in ids:
            if cid in rows:
                vector, text, meta = rows[cid]
                out.append(StoredChunk(cid, text, dict(meta), vector.tolist() if with_embeddings else None))
        return out

    def chunks_of_paper(self, paper_id: str, limit: int = 100) -> list[StoredChunk]:
        rows = self._col().rows
        found = [cid for cid, (_, _, meta) in rows.items() if meta.get("paper_id") == paper_id]
        return self.get(found[:limit])

    def nearest(self, vector: Sequence[float], n: int, filters: Filters | None = None) -> list[tuple[str, float]]:
        rows = self._col().rows
        ids = [cid for cid, (_, _, meta) in rows.items() if _year_ok(meta, filters)]
        if not ids or n < 1:
            return []
        matrix = np.stack([rows[cid][0] for cid in ids]).astype(np.float64)
        matrix /= np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
        query = np.asarray(vector, dtype=np.float64)
        query /= max(float(np.linalg.norm(query)), 1e-12)
        distances = 1.0 - matrix @ query
        order = np.lexsort((np.arange(len(ids)), distances))[:n]
        return [(ids[int(i)], float(distances[i])) for i in order]


def _year_ok(meta: Mapping[str, Any], filters: Filters | None) -> bool:
    if filters is None or not filters.has_year_range:
        return True
    year = meta.get("year")
    if not isinstance(year, int | float):
        return False
    return (filters.year_min is None or year >= filters.year_min) and (
        filters.year_max is None or year <= filters.year_max
    )
