"""Questions in another language, placed in the index's own vector space.

The index's embedder (all-MiniLM-L6-v2) reads English: "¿Cuántos pozos contiene el Alberta Wells Dataset?" lands
near the right abstract only through its names. A multilingual encoder (multilingual-e5-small, rag.adapters.
multilingual) places a question near its English wording whatever its language; a linear map fitted on English text
(`make fit-crosslingual`, eval/crosslingual_fit.py: e5's vector of a text -> MiniLM's vector of the same text) carries
that vector into MiniLM's space. So a question the language check (rag.answer.language) finds foreign is searched,
scored against sentences and measured against the calibrated floors with

    normalise(BLEND * map(e5(question)) + (1 - BLEND) * minilm(question))

(its own MiniLM vector keeps the names and numbers it matched already). Nothing else changes: documents, stored
vectors and floors stay MiniLM's. `CrossLingualEmbedder` wraps the query-side embedder, so every search and every
sentence score of the question gets the mapped vector; English text passes straight through.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from rag.ports import Embedder

MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
MAP_JSON = MODEL_DIR / "crosslingual_map.json"  # the manifest, the settings and the dev figures
MAP_WEIGHTS = MODEL_DIR / "crosslingual_map.npy"  # (385, 384) float16: e5 vector and a bias term -> MiniLM vector


class QueryEncoder(Protocol):
    name: str

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Mapping:
    weights: np.ndarray  # (source dim + 1, target dim)
    target: str  # the embedder whose space it maps into
    source: str  # the encoder it maps from
    blend: float

    def __call__(self, source_vectors: np.ndarray, own: np.ndarray) -> np.ndarray:
        x = np.hstack([source_vectors, np.ones((len(source_vectors), 1), dtype=np.float32)])
        mapped = _unit(x @ self.weights.astype(np.float32))
        return _unit(self.blend * mapped + (1.0 - self.blend) * own)


def load_mapping(json_path: Path = MAP_JSON, weights_path: Path = MAP_WEIGHTS) -> Mapping | None:
    """The fitted map, or None when it is not built here."""
    if not json_path.exists() or not weights_path.exists():
        return None
    meta = json.loads(json_path.read_text(encoding="utf-8"))
    return Mapping(np.load(weights_path), str(meta["target"]), str(meta["source"]), float(meta["blend"]))


class CrossLingualEmbedder:
    """The index's embedder for queries: a foreign question gets the blended, mapped vector (module docstring)."""

    def __init__(
        self, embedder: Embedder, encoder: QueryEncoder, mapping: Mapping, is_foreign: Callable[[str], bool]
    ) -> None:
        if mapping.target != embedder.name:
            raise ValueError(f"the cross-lingual map targets {mapping.target}, not {embedder.name}")
        self.inner = embedder
        self.encoder = encoder
        self.mapping = mapping
        self.is_foreign = is_foreign
        self.mapped = 0  # questions given a mapped vector so far: for tests and benchmarks

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def __getattr__(self, attr: str) -> Any:  # token_counts, embed_spans, ... of the wrapped embedder
        return getattr(self.inner, attr)

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        own = np.asarray(self.inner.embed_batch(texts), dtype=np.float32)
        foreign = [i for i, t in enumerate(texts) if self.is_foreign(t)]
        if foreign:
            source = self.encoder.embed_queries([texts[i] for i in foreign])
            own[foreign] = self.mapping(source, own[foreign])
            self.mapped += len(foreign)
        return own.tolist()


def _unit(a: np.ndarray) -> np.ndarray:
    return (a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)).astype(np.float32)
