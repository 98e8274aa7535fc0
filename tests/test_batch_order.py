"""Batches are formed by the model's token count, not by characters: the encoder's padding is the waste that
character order leaves (BENCHMARKS.md section 9e). With the real MiniLM: counts, order, and vectors that do not
depend on which texts share a batch."""

from __future__ import annotations

import numpy as np

from rag.adapters.fakes import HashEmbedder
from rag.factory import LazyEmbedder
from rag.ports import batch_order, embed_in_batches

WORDY = "Representations of understanding"  # 32 characters, few tokens
DENSE = "IL-6 (2.3 ng/mL), TNF-α; p<0.001"  # 32 characters, many tokens


def test_token_counts_are_the_model_tokens_without_the_files_fixed_padding(minilm) -> None:
    counts = minilm.token_counts([WORDY, DENSE, "hello"])
    assert counts[2] == 3  # [CLS] hello [SEP]: the tokenizer file's fixed padding to 128 is switched off
    assert counts[0] < counts[1]  # the same length in characters


def test_order_follows_tokens_with_minilm_and_characters_without_token_counts(minilm) -> None:
    texts = [DENSE, "a somewhat longer sentence in plain words, longer than both", WORDY]
    assert minilm.token_counts(texts) == [24, 13, 5]
    assert batch_order(minilm, texts) == [2, 1, 0]  # the 59-character sentence before the 32-character dense one
    assert batch_order(HashEmbedder(), texts) == [0, 2, 1]  # characters: 32 (first), 32, 59


def test_a_lazy_embedder_counts_as_its_model_does(minilm) -> None:
    lazy = LazyEmbedder("minilm", lambda: minilm, 384, spans=True)
    assert lazy.token_counts([WORDY, DENSE]) == minilm.token_counts([WORDY, DENSE])
    plain = LazyEmbedder("hash", HashEmbedder)
    assert plain.token_counts([WORDY, "ab"]) == [32, 2]


def test_vectors_do_not_depend_on_the_batch_a_text_was_padded_in(minilm) -> None:
    texts = [DENSE, WORDY, "hello", "A longer abstract sentence about graph neural networks and their limits. " * 4]
    batched = np.array(embed_in_batches(minilm, texts, 4))
    alone = np.array([minilm.embed_batch([t])[0] for t in texts])
    assert np.abs(batched - alone).max() < 1e-5
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
