"""Sentence embeddings with a small LRU cache: sources recur across questions in a session."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from rag.ports import Embedder


class SentenceVectors:
    """Embeds sentences with an LRU cache (thread-safe)."""

    def __init__(self, embedder: Embedder, size: int = 20_000) -> None:
        self.embedder = embedder
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()  # the UI answers several sessions at once

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, getattr(self.embedder, "dim", 1)), dtype=np.float32)
        with self._lock:
            todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        fresh = dict(zip(todo, self.embedder.embed_batch(todo), strict=True)) if todo else {}
        with self._lock:
            for t, v in fresh.items():
                self._cache[t] = np.asarray(v, dtype=np.float32)
            out = np.stack([self._cache[t] if t in self._cache else np.asarray(fresh[t]) for t in texts])
            for t in texts:
                if t in self._cache:
                    self._cache.move_to_end(t)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return out.astype(np.float32)
