"""The learned sentence-support judge (issue 34): a MiniLM cross-encoder fine-tuned on generated and NLI pairs
(train/judge/), int8 ONNX, built into rag/models by `make train-judge`, run on onnxruntime. (claim, evidence) ->
probabilities of supported / contradicted / not_found. rag.verify.learned.Judge turns them into verdicts.

onnxruntime and tokenizers are the local model runtime; they are imported only here and in embedding.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

MODELS = Path(__file__).resolve().parent.parent / "models"
JUDGE_PATH = MODELS / "judge-minilm-l6-int8.onnx"
TOKENIZER_PATH = MODELS / "minilm-tokenizer.json"  # the judge's tokenizer is all-MiniLM-L6-v2's, byte for byte
LABELS = ("supported", "contradicted", "not_found")
MAX_LEN = 128
_CLS, _SEP = 101, 102


class OnnxJudge:
    """Batched: pairs are sorted by length and each batch is padded to its longest pair. The evidence is
    truncated first (the claim is what is judged), then the claim if it alone exceeds the room. `quick_start`
    skips onnxruntime's graph optimisations, as MiniLMEmbedder's option does."""

    labels = LABELS

    def __init__(
        self, model_path: Path | str = JUDGE_PATH, threads: int = 0, batch_size: int = 32, *, quick_start: bool = False
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.log_severity_level = 3
        if quick_start:  # as MiniLMEmbedder: skip graph optimisation (faster start, slower batches)
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        self._session = ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])
        self._batch = batch_size

    def encode(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[list[int], int]]:
        """(ids, claim segment length incl. [CLS] and [SEP]) per pair: [CLS] claim [SEP] evidence [SEP]."""
        claims = self._tokenizer.encode_batch([c for c, _ in pairs], add_special_tokens=False)
        evidence = self._tokenizer.encode_batch([e for _, e in pairs], add_special_tokens=False)
        out = []
        room = MAX_LEN - 3
        for c, e in zip(claims, evidence, strict=True):
            c_ids = c.ids[: max(room - len(e.ids), min(len(c.ids), room // 2))]
            e_ids = e.ids[: room - len(c_ids)]
            out.append(([_CLS, *c_ids, _SEP, *e_ids, _SEP], len(c_ids) + 2))
        return out

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float, float]]:
        """(supported, contradicted, not_found) per (claim, evidence) pair, in the order given."""
        if not pairs:
            return []
        encoded = self.encode(pairs)
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
        result = np.zeros((len(encoded), len(LABELS)), dtype=np.float32)
        for start in range(0, len(order), self._batch):
            idx = order[start: start + self._batch]
            width = max(len(encoded[i][0]) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)  # [PAD] is id 0
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for row, i in enumerate(idx):
                seq, claim_len = encoded[i]
                ids[row, : len(seq)] = seq
                mask[row, : len(seq)] = 1
                types[row, claim_len: len(seq)] = 1
            logits = self._session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
            exp = np.exp(logits - logits.max(axis=1, keepdims=True))
            result[idx] = exp / exp.sum(axis=1, keepdims=True)
        return [(float(p[0]), float(p[1]), float(p[2])) for p in result]

    def judge(self, claim: str, evidence: str) -> str:
        """The most probable label of one pair."""
        probs = self.probabilities([(claim, evidence)])[0]
        return LABELS[int(np.argmax(probs))]
