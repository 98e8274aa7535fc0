"""Sentence vectors from the chunk's own encoder pass (`sentence_pass = "chunk"`) with the real MiniLM: one
pass, the same chunk vectors, one vector per sentence, and an index built one way is never read the other way."""

from __future__ import annotations

import shutil

import numpy as np

from rag.factory import build_index, layout_of
from rag.index.docstore import DocStore
from rag.index.late_chunking import late_pass, sentence_spans
from rag.settings import Settings
from rag.text import split_sentences
from rag.types import Chunk

TEXT = "We map wells from satellites.  The dataset has 213,000 wells (e.g. active ones). It is public!"


def test_sentence_spans_cover_each_sentence_of_the_chunk_inside_the_embedded_text() -> None:
    embedded = "Alberta Wells\n" + TEXT
    spans = sentence_spans(embedded, TEXT)
    assert [embedded[a:b].strip() for a, b in spans] == split_sentences(TEXT)
    assert spans[-1][1] == len(embedded)


def test_one_pass_gives_the_chunk_vector_and_one_vector_per_sentence(minilm) -> None:
    chunk = Chunk(id="p:0", paper_id="p", position=0, text=TEXT, num_tokens=20, content_hash="h")
    embedded = "Alberta Wells\n" + TEXT
    vectors, sentences = late_pass(minilm, [embedded], [chunk])  # type: ignore[arg-type]
    own = np.array(minilm.embed_batch([embedded]))  # type: ignore[attr-defined]
    assert float(np.abs(np.array(vectors) - own).max()) < 1e-5  # the chunk vector does not change
    rows = np.array(sentences[0])
    assert rows.shape == (3, 384) and np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    alone = np.array(minilm.embed_batch(split_sentences(TEXT)))  # type: ignore[attr-defined]
    cosines = np.einsum("ij,ij->i", rows, alone)
    assert (cosines > 0.5).all()  # near each sentence's own encoding, not equal to it
    assert np.einsum("ij,kj->ik", rows, alone).argmax(axis=1).tolist() == [0, 1, 2]  # each nearest its own


def test_an_index_built_with_one_pass_is_re_derived_when_the_setting_changes(
    settings: Settings, chunk_pass_settings: Settings, minilm
) -> None:
    shutil.copytree(chunk_pass_settings.home, settings.home)  # built with sentence_pass = "chunk"; this test changes it
    docs = DocStore.load(layout_of(settings).docs_dir)
    assert docs is not None and docs.info["sentence_pass"] == "chunk"
    cid = docs.ids[0]
    from_chunk = docs.sentence_vectors(cid)
    assert from_chunk is not None and len(from_chunk) == len(split_sentences(docs.get(cid).text))  # type: ignore[union-attr]

    report = build_index(settings.replace(sentence_pass="own"), embedder=minilm)
    assert report.embedded == 0  # the chunks' vectors are the same either way: not re-embedded
    docs = DocStore.load(layout_of(settings).docs_dir)
    assert docs is not None and docs.info["sentence_pass"] == "own"
    alone = np.array(minilm.embed_batch(split_sentences(docs.get(cid).text)))  # type: ignore[attr-defined,union-attr]
    assert np.abs(docs.sentence_vectors(cid) - alone).max() < 2e-3  # float16 as stored
    assert np.abs(from_chunk - alone).max() > 0.05  # the chunk-pass vectors were not kept


def test_auto_takes_the_chunk_pass_from_a_library_size_on_and_only_with_an_embedder_that_pools(minilm) -> None:
    from rag.adapters.fakes import HashEmbedder
    from rag.index.late_chunking import AUTO_CHUNK_PAPERS, effective_pass

    assert effective_pass(minilm, "auto", AUTO_CHUNK_PAPERS - 1) == "own"  # type: ignore[arg-type]
    assert effective_pass(minilm, "auto", AUTO_CHUNK_PAPERS) == "chunk"  # type: ignore[arg-type]
    assert effective_pass(minilm, "chunk", 3) == "chunk" and effective_pass(minilm, "own", 10**6) == "own"  # type: ignore[arg-type]
    assert effective_pass(HashEmbedder(), "auto", 10**6) == "own"  # cannot pool token spans


def test_the_default_indexes_a_small_library_with_each_sentence_encoded_on_its_own(bundled_settings: Settings) -> None:
    docs = DocStore.load(layout_of(bundled_settings).docs_dir)  # the 19 bundled papers, the default "auto"
    assert docs is not None and docs.info["sentence_pass"] == "own" and docs.sentence_map is None
