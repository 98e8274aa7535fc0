"""A local copy of every chunk's text, metadata and vector, saved beside BM25 (`docs-<collection>/`).

With it a search makes one store call, the nearest-neighbour query: the fused candidates' text and metadata,
and the vectors of the ones only BM25 found, are read from memory-mapped files instead of a second `get`
(one round trip fewer against a Chroma server). It is derived data, stamped with the same fingerprint as
BM25 and swapped in whole; when it is missing, stale or lacks an id, the retriever asks the store instead.

Files: docs.jsonl (one `[text, metadata]` per line), offsets.npy (int64 line starts), vectors.npy
(float32 rows, L2-normalised as stored), ids.json (fingerprint and ids in row order).
"""

from __future__ import annotations

import json
import mmap
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.index.atomic import swap_dir
from rag.index.integrity import write_manifest
from rag.ports import StoredChunk


class DocStoreBuilder:
    """Rows are added in order (text and metadata); vectors may arrive later and in any order. Everything is
    written to disk as it comes, so building holds no corpus in memory."""

    def __init__(self, directory: Path, count: int, dim: int) -> None:
        self.directory = directory
        self.tmp = directory.with_name(directory.name + ".tmp")
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp.mkdir(parents=True)
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}
        self._docs = (self.tmp / "docs.jsonl").open("wb")
        self._offsets = [0]
        shape = (max(count, 1), dim)  # a zero-row .npy memmap is not allowed
        self._vectors = np.lib.format.open_memmap(self.tmp / "vectors.npy", mode="w+", dtype=np.float32, shape=shape)
        self._have = np.zeros(count, dtype=bool)
        self.count = count

    def add(self, chunk_id: str, text: str, metadata: Mapping[str, Any]) -> None:
        line = json.dumps([text, dict(metadata)], ensure_ascii=False).encode("utf-8") + b"\n"
        self._docs.write(line)
        self._offsets.append(self._offsets[-1] + len(line))
        self.rows[chunk_id] = len(self.ids)
        self.ids.append(chunk_id)

    def set_vector(self, chunk_id: str, vector: Sequence[float]) -> None:
        row = self.rows[chunk_id]
        self._vectors[row] = np.asarray(vector, dtype=np.float32)
        self._have[row] = True

    def missing_vectors(self) -> list[str]:
        return [self.ids[int(row)] for row in np.flatnonzero(~self._have[: len(self.ids)])]

    def finish(self, fingerprint: str) -> None:
        """Write the index files and swap the directory in; every row added must have its vector (`count` is an
        upper bound: a store read while another process deletes chunks may return fewer)."""
        missing = self.missing_vectors()
        if len(self.ids) > self.count or missing:
            raise ValueError(f"docstore incomplete: {len(self.ids)} rows, {len(missing)} without vectors")
        self._docs.close()
        self._vectors.flush()
        del self._vectors
        np.save(self.tmp / "offsets.npy", np.asarray(self._offsets, dtype=np.int64))
        (self.tmp / "ids.json").write_text(json.dumps({"fingerprint": fingerprint, "ids": self.ids}))
        write_manifest(self.tmp, fingerprint)  # checked when it is opened (rag.index.integrity)
        swap_dir(self.tmp, self.directory)

    def abort(self) -> None:
        self._docs.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class DocStore:
    def __init__(self, directory: Path, fingerprint: str, ids: list[str]) -> None:
        self.fingerprint = fingerprint
        self.ids = ids
        self._rows = {cid: n for n, cid in enumerate(ids)}
        self._offsets = np.load(directory / "offsets.npy", mmap_mode="r")
        self._vectors = np.load(directory / "vectors.npy", mmap_mode="r")
        with (directory / "docs.jsonl").open("rb") as f:
            self._docs = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if ids else b""

    @classmethod
    def load(cls, directory: Path) -> DocStore | None:
        """The saved copy, or None when there is none or it is unreadable (the caller uses the store)."""
        try:
            meta = json.loads((directory / "ids.json").read_text())
            store = cls(directory, str(meta["fingerprint"]), list(meta["ids"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if len(store._offsets) != len(store.ids) + 1 or len(store._vectors) < len(store.ids):
            return None
        return store

    def get(self, chunk_id: str) -> StoredChunk | None:
        row = self._rows.get(chunk_id)
        if row is None:
            return None
        text, metadata = json.loads(self._docs[int(self._offsets[row]) : int(self._offsets[row + 1])])
        return StoredChunk(chunk_id, text, metadata, self._vectors[row])

    def nearest(self, query: np.ndarray, n: int) -> list[tuple[str, float]]:
        """Exact nearest neighbours by cosine distance (1 - dot product of unit vectors), nearest first, ties in
        row order: the same contract as `VectorStore.nearest`. One matrix-vector product, so it beats an HNSW
        query on small collections (bench/bench_exact.py)."""
        count = len(self.ids)
        if count == 0 or n < 1:
            return []
        # einsum, not `@`: OpenBLAS runs a matrix-vector product this size on several threads that keep spinning
        # afterwards and slowed the next query embedding from ~3.7 to 5-9 ms on 2 cores; einsum stays on one thread
        scores = np.einsum("ij,j->i", self._vectors[:count], np.asarray(query, dtype=np.float32)).astype(np.float64)
        n = min(n, count)
        top = np.argpartition(-scores, n - 1)[:n] if n < count else np.arange(count)
        top = top[np.lexsort((top, -scores[top]))]
        return [(self.ids[int(row)], 1.0 - float(scores[row])) for row in top]

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._rows

    def __len__(self) -> int:
        return len(self.ids)
