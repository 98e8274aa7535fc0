"""A local copy of every chunk's text, metadata and vector, saved beside BM25 (`docs-<collection>/`).

With it a search makes one store call, the nearest-neighbour query: the fused candidates' text and metadata,
and the vectors of the ones only BM25 found, are read from memory-mapped files instead of a second `get`
(one round trip fewer against a Chroma server). It is derived data, stamped with the same fingerprint as
BM25 and swapped in whole; when it is missing, stale or lacks an id, the retriever asks the store instead.

Files: docs.jsonl (one `[text, metadata]` per line), offsets.npy (int64 line starts), vectors.npy
(float32 rows, L2-normalised as stored), sentences.f16 + sentence_index.npy (each chunk's sentence vectors, float16:
half the disk, and ranking sentences needs no more precision; in
`split_sentences` order: an extractive answer then embeds only the question), ids.json (fingerprint, ids in row
order, and the collection's info: embedder and dimension, so a search needs no store call to check them),
author_table.json (each paper's authors, for a question naming one: rag.index.author_table).
Sentence vectors pooled from the chunk's pass (late chunking) are stored already mapped toward standalone
encodings (rag.index.sentence_map); the map itself is kept as sentence_map.npy, for the next update's new rows.
"""

from __future__ import annotations

import json
import mmap
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.index.atomic import swap_dir
from rag.index.author_table import AuthorTable, AuthorTableBuilder
from rag.index.integrity import write_manifest
from rag.ports import StoredChunk

SENTENCES = "sentences.f16"  # float16 rows, no header: the sentence vectors of every chunk, in arrival order
SENTENCE_MAP = "sentence_map.npy"  # float32 (dim, dim): pooled sentence vectors -> their standalone encodings
FitMap = Callable[["DocStore"], np.ndarray | None]
SentenceMap = np.ndarray | FitMap | None  # a map for pooled sentence vectors, or a function fitting one


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
        self.dim = dim
        self._sentences = (self.tmp / SENTENCES).open("wb")
        self._sentence_index = np.full((max(count, 1), 2), -1, dtype=np.int64)  # (first row, rows) per chunk
        self._sentence_rows = 0
        self._pooled: list[tuple[int, int]] = []  # (first row, rows) written as pooled, still to be mapped
        self._authors = AuthorTableBuilder()

    def add(self, chunk_id: str, text: str, metadata: Mapping[str, Any]) -> None:
        line = json.dumps([text, dict(metadata)], ensure_ascii=False).encode("utf-8") + b"\n"
        self._docs.write(line)
        self._offsets.append(self._offsets[-1] + len(line))
        self.rows[chunk_id] = len(self.ids)
        self.ids.append(chunk_id)
        self._authors.add(chunk_id, text, metadata)

    def set_vector(self, chunk_id: str, vector: Sequence[float]) -> None:
        row = self.rows[chunk_id]
        self._vectors[row] = np.asarray(vector, dtype=np.float32)
        self._have[row] = True

    def set_sentence_vectors(
        self, chunk_id: str, matrix: Sequence[Sequence[float]] | np.ndarray, *, pooled: bool = False
    ) -> None:
        """The vectors of the chunk's sentences (split_sentences order); chunks without them are embedded on demand.
        `pooled`: pooled from the chunk's pass, to be mapped when the docstore is finished."""
        rows = np.asarray(matrix, dtype=np.float16).reshape(-1, self.dim)
        self._sentences.write(rows.tobytes())
        if pooled and len(rows):
            self._pooled.append((self._sentence_rows, len(rows)))
        self._sentence_index[self.rows[chunk_id]] = (self._sentence_rows, len(rows))
        self._sentence_rows += len(rows)

    def missing_vectors(self) -> list[str]:
        return [self.ids[int(row)] for row in np.flatnonzero(~self._have[: len(self.ids)])]

    def finish(
        self,
        fingerprint: str,
        info: Mapping[str, Any] | None = None,
        sentence_map: SentenceMap = None,
    ) -> None:
        """Write the index files and swap the directory in; every row added must have its vector (`count` is an
        upper bound: a store read while another process deletes chunks may return fewer). Pooled sentence vectors
        are mapped by `sentence_map`: the previous docstore's map, or a function fitting one from this docstore
        as written so far (rag.index.sentence_map)."""
        missing = self.missing_vectors()
        if len(self.ids) > self.count or missing:
            raise ValueError(f"docstore incomplete: {len(self.ids)} rows, {len(missing)} without vectors")
        self._docs.close()
        self._sentences.close()
        self._vectors.flush()
        del self._vectors
        np.save(self.tmp / "offsets.npy", np.asarray(self._offsets, dtype=np.int64))
        np.save(self.tmp / "sentence_index.npy", self._sentence_index[: max(len(self.ids), 1)])
        stored_info = dict(info or {})
        meta = {"fingerprint": fingerprint, "ids": self.ids, "info": stored_info, "dim": self.dim}
        (self.tmp / "ids.json").write_text(json.dumps(meta))
        if self._pooled and sentence_map is not None:
            found = DocStore.load(self.tmp) if callable(sentence_map) else None
            matrix = sentence_map(found) if callable(sentence_map) and found is not None else sentence_map
            del found  # its memory maps
            if isinstance(matrix, np.ndarray):
                self._map_pooled(matrix.astype(np.float32))
                np.save(self.tmp / SENTENCE_MAP, matrix.astype(np.float32))
                stored_info["sentence_map"] = True
                (self.tmp / "ids.json").write_text(json.dumps(meta))
        self._authors.write(self.tmp)
        write_manifest(self.tmp, fingerprint)  # checked when it is opened (rag.index.integrity)
        swap_dir(self.tmp, self.directory)

    def _map_pooled(self, matrix: np.ndarray) -> None:
        """Rewrite the pooled sentence rows in place through `matrix`, re-normalised, a block at a time."""
        if not self._sentence_rows:
            return
        rows = np.memmap(self.tmp / SENTENCES, dtype=np.float16, mode="r+", shape=(self._sentence_rows, self.dim))
        for start, count in self._pooled:
            for a in range(start, start + count, 8192):
                b = min(start + count, a + 8192)
                mapped = np.asarray(rows[a:b], dtype=np.float32) @ matrix
                mapped /= np.clip(np.linalg.norm(mapped, axis=1, keepdims=True), 1e-12, None)
                rows[a:b] = mapped.astype(np.float16)
        rows.flush()
        del rows

    def abort(self) -> None:
        self._docs.close()
        self._sentences.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class DocStore:
    def __init__(
        self, directory: Path, fingerprint: str, ids: list[str], info: Mapping[str, Any] | None = None
    ) -> None:
        self._directory = directory
        self.fingerprint = fingerprint
        self.ids = ids
        self.info = dict(info or {})  # the collection's embedder and dim when it was written
        self._rows = {cid: n for n, cid in enumerate(ids)}
        self._offsets = np.load(directory / "offsets.npy", mmap_mode="r")
        self._vectors = np.load(directory / "vectors.npy", mmap_mode="r")
        with (directory / "docs.jsonl").open("rb") as f:
            self._docs = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if ids else b""
        self._sentence_index: np.ndarray | None = None
        self._sentences: np.ndarray | None = None
        sentences, index = directory / SENTENCES, directory / "sentence_index.npy"
        dim = self._vectors.shape[1] if self._vectors.ndim == 2 else 0
        if index.exists() and sentences.exists() and dim and sentences.stat().st_size % (2 * dim) == 0:
            self._sentence_index = np.load(index, mmap_mode="r")
            rows = sentences.stat().st_size // (2 * dim)
            if rows:
                self._sentences = np.memmap(sentences, dtype=np.float16, mode="r", shape=(rows, dim))
        self._author_table: AuthorTable | None | bool = False  # read at the first search naming someone

    @classmethod
    def load(cls, directory: Path) -> DocStore | None:
        """The saved copy, or None when there is none or it is unreadable (the caller uses the store)."""
        try:
            meta = json.loads((directory / "ids.json").read_text())
            store = cls(directory, str(meta["fingerprint"]), list(meta["ids"]), meta.get("info"))
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

    @property
    def vectors(self) -> np.ndarray:
        """Every chunk's vector, in row order (memory-mapped)."""
        return self._vectors[: len(self.ids)]

    @property
    def author_table(self) -> AuthorTable | None:
        """Each first chunk's authors and the names its text mentions (rag.index.author_table); None when this
        docstore was written without it."""
        if self._author_table is False:
            self._author_table = AuthorTable.load(self._directory)
        return self._author_table if isinstance(self._author_table, AuthorTable) else None

    @property
    def sentence_map(self) -> np.ndarray | None:
        """The map its pooled sentence vectors went through (None: none was fitted, or they are standalone)."""
        try:
            matrix = np.load(self._directory / SENTENCE_MAP) if self.info.get("sentence_map") else None
        except (OSError, ValueError):
            return None
        dim = self._vectors.shape[1] if self._vectors.ndim == 2 else 0
        return matrix if matrix is not None and matrix.shape == (dim, dim) else None

    @property
    def has_sentence_vectors(self) -> bool:
        """Sentence vectors were stored (for every chunk the index embedded)."""
        return self._sentence_index is not None and (len(self.ids) == 0 or self._sentences is not None)

    def sentence_vectors(self, chunk_id: str) -> np.ndarray | None:
        """The chunk's sentence vectors, as stored at index time (None when they were not)."""
        row = self._rows.get(chunk_id)
        if row is None or self._sentence_index is None or self._sentences is None or row >= len(self._sentence_index):
            return None
        start, count = (int(x) for x in self._sentence_index[row])
        if start < 0 or start + count > len(self._sentences):
            return None
        return np.asarray(self._sentences[start : start + count], dtype=np.float32)

    def best_sentence_cosines(self, chunk_ids: Sequence[str], query: np.ndarray) -> np.ndarray | None:
        """Each chunk's highest cosine between `query` and one of its stored sentence vectors, in order; None when
        any of them has none. One gather and one matrix-vector product for all of them (the retriever's evidence
        stage: 30 chunks in ~0.1 ms, where 30 `sentence_vectors` calls took ~1 ms)."""
        index, sentences = self._sentence_index, self._sentences
        found = [self._rows.get(cid) for cid in chunk_ids]
        rows = [r for r in found if r is not None]
        if index is None or sentences is None or not rows or len(rows) < len(found) or max(rows) >= len(index):
            return None
        spans = np.asarray(index)[rows]
        starts, counts = spans[:, 0], spans[:, 1]
        if (starts < 0).any() or (counts <= 0).any() or (starts + counts > len(sentences)).any():
            return None
        firsts = np.cumsum(counts) - counts  # where each chunk's rows begin in the gathered block
        take = np.repeat(starts - firsts, counts) + np.arange(int(counts.sum()))
        # einsum, not `@`: see `nearest` (OpenBLAS threads left spinning slow the next query embedding)
        gathered = np.asarray(sentences)[take].astype(np.float32)
        cosines = np.einsum("ij,j->i", gathered, np.asarray(query, dtype=np.float32))
        return np.maximum.reduceat(cosines, firsts)

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

    def cosines_of(self, chunk_ids: Sequence[str], query: np.ndarray) -> np.ndarray:
        """The query's cosine with each of these chunks' stored vectors, in order (every id must be here)."""
        rows = np.fromiter((self._rows[cid] for cid in chunk_ids), np.int64, len(chunk_ids))
        vectors = np.asarray(self._vectors[rows], dtype=np.float32)
        return np.einsum("ij,j->i", vectors, np.asarray(query, dtype=np.float32))  # one thread: see `nearest`

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._rows

    def __len__(self) -> int:
        return len(self.ids)
