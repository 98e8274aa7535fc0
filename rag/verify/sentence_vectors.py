"""Sentence embeddings with an LRU cache: sources recur across questions in a session.

Vectors known already (the query vector search computed, the sentence vectors the docstore stored at index time)
are `remember`ed, so an answer embeds only what nobody embedded before. What is left is embedded in length-sorted
batches of `batch_size` (one padded batch of 40 texts cost 1.3-1.8x the CPU and more memory).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

import numpy as np

from rag.ports import Embedder, embed_in_batches


class SentenceVectors:
    """Embeds sentences with an LRU cache (thread-safe)."""

    def __init__(self, embedder: Embedder, size: int = 20_000, batch_size: int = 8) -> None:
        self.embedder = embedder
        self.batch_size = batch_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()  # the UI answers several sessions at once
        self.embedded = 0  # texts embedded so far (the rest came from the cache): for tests and benchmarks

    def remember(self, pairs: Iterable[tuple[str, np.ndarray]]) -> None:
        """Vectors computed elsewhere (the same embedder), so they are never embedded again."""
        with self._lock:
            for text, vector in pairs:
                self._cache[text] = np.asarray(vector, dtype=np.float32)
                self._cache.move_to_end(text)
            self._trim()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, getattr(self.embedder, "dim", 1)), dtype=np.float32)
        with self._lock:
            todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        fresh = dict(zip(todo, embed_in_batches(self.embedder, todo, self.batch_size), strict=True)) if todo else {}
        with self._lock:
            self.embedded += len(fresh)
            for t, v in fresh.items():
                self._cache[t] = np.asarray(v, dtype=np.float32)
            out = np.stack([self._cache[t] if t in self._cache else np.asarray(fresh[t]) for t in texts])
            for t in texts:
                if t in self._cache:
                    self._cache.move_to_end(t)
            self._trim()
        return out.astype(np.float32)

    def _trim(self) -> None:
        while len(self._cache) > self._size:
            self._cache.popitem(last=False)
