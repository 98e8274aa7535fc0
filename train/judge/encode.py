"""Pair encoding shared by data caching, training and the ONNX check: [CLS] claim [SEP] evidence [SEP] with
token_type_ids 0/1, the evidence truncated first (the claim is what is judged), then the claim if still too long.
rag/adapters/judge_onnx.py encodes the same way; evaluate.py checks that both give the same ids."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tokenizers import Tokenizer

TOKENIZER = Path(__file__).resolve().parents[2] / "rag" / "models" / "minilm-tokenizer.json"
MAX_LEN = 128
CLS, SEP = 101, 102


def tokenizer() -> Tokenizer:
    tok = Tokenizer.from_file(str(TOKENIZER))
    tok.no_truncation()
    tok.no_padding()
    return tok


def encode_pairs(
    tok: Tokenizer, pairs: Sequence[tuple[str, str]], max_len: int = MAX_LEN
) -> list[tuple[list[int], int]]:
    """(ids, length of the claim segment incl. [CLS] and its [SEP]) per pair; no padding."""
    claims = tok.encode_batch([c for c, _ in pairs], add_special_tokens=False)
    evidence = tok.encode_batch([e for _, e in pairs], add_special_tokens=False)
    out = []
    for c, e in zip(claims, evidence, strict=True):
        c_ids, e_ids = c.ids, e.ids
        room = max_len - 3
        c_ids = c_ids[: max(room - len(e_ids), min(len(c_ids), room // 2))]
        e_ids = e_ids[: room - len(c_ids)]
        out.append(([CLS, *c_ids, SEP, *e_ids, SEP], len(c_ids) + 2))
    return out
