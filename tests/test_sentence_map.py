"""The sentence map (rag.index.sentence_map): pooled sentence vectors from the chunk's pass are stored mapped toward
the sentences' standalone encodings, the map is fitted on the calibration's own sentences (embedded once), kept with
the docstore, and reused for the papers an update adds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rag.factory import build_index, layout_of
from rag.index.calibration import spread_questions
from rag.index.chunking import embed_text
from rag.index.docstore import SENTENCE_MAP, DocStore, DocStoreBuilder
from rag.index.late_chunking import late_pass
from rag.index.sentence_map import fit_map, map_fitter, remembering
from rag.settings import Settings
from rag.text import split_sentences
from rag.types import Chunk, Paper

CORPUS = Path(__file__).resolve().parent.parent / "data" / "icml2025.jsonl"


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def test_the_fitted_map_undoes_most_of_a_linear_distortion_on_sentences_it_was_not_fitted_on() -> None:
    rng = np.random.default_rng(0)
    own = _unit(rng.normal(size=(800, 64)))
    distortion = np.eye(64) + 0.4 * rng.normal(size=(64, 64)) / 8
    pooled = _unit(own @ distortion + 0.01 * rng.normal(size=(800, 64)))
    matrix = fit_map(pooled[:300], own[:300])
    before = np.einsum("ij,ij->i", pooled[300:], own[300:]).mean()
    after = np.einsum("ij,ij->i", _unit(pooled[300:] @ matrix), own[300:]).mean()
    assert after > before + 0.05 and after > 0.95


def test_with_too_few_sentences_the_ridge_keeps_the_map_near_the_identity() -> None:
    rng = np.random.default_rng(1)
    few = _unit(rng.normal(size=(3, 64)))
    matrix = fit_map(few, _unit(rng.normal(size=(3, 64))))
    assert np.abs(matrix - np.eye(64)).max() < 0.5  # three pairs cannot rotate 64 dimensions away


def test_only_pooled_rows_are_mapped_and_the_map_is_kept_with_the_docstore(tmp_path: Path) -> None:
    builder = DocStoreBuilder(tmp_path / "docs", 2, 4)
    pooled, own = np.eye(4)[:2], np.eye(4)[2:]
    for cid, rows, is_pooled in (("a:0", pooled, True), ("b:0", own, False)):
        builder.add(cid, "One sentence here. Another one.", {"paper_id": cid[0]})
        builder.set_vector(cid, np.eye(4)[0])
        builder.set_sentence_vectors(cid, rows, pooled=is_pooled)
    swap = np.eye(4)[[1, 0, 3, 2]]  # a permutation: exactly representable in float16
    builder.finish("fp", {"sentence_pass": "chunk"}, swap)
    docs = DocStore.load(tmp_path / "docs")
    assert docs is not None and docs.info["sentence_map"] is True
    assert np.array_equal(docs.sentence_vectors("a:0"), pooled @ swap)
    assert np.array_equal(docs.sentence_vectors("b:0"), own)  # not pooled: left as it was
    assert docs.sentence_map is not None and np.array_equal(docs.sentence_map, swap)


def test_the_map_is_fitted_on_the_sentences_the_calibration_embeds_and_each_is_embedded_once(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    builder = DocStoreBuilder(tmp_path / "docs", 60, 8)
    for p in range(60):
        sentences = [f"Paper {p} sentence {i} says something about its own topic." for i in range(4)]
        builder.add(f"p{p}:0", " ".join(sentences), {"paper_id": f"p{p}"})
        builder.set_vector(f"p{p}:0", _unit(rng.normal(size=8)))
        builder.set_sentence_vectors(f"p{p}:0", _unit(rng.normal(size=(4, 8))), pooled=True)
    builder.finish("fp", {"sentence_pass": "chunk"})
    docs = DocStore.load(tmp_path / "docs")
    assert docs is not None
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return _unit(np.random.default_rng(len(texts)).normal(size=(len(texts), 8)))

    remembered = remembering(embed)
    matrix = map_fitter(remembered)(docs)
    questions = [text for _, _, text, _ in spread_questions(docs)]
    assert matrix is not None and matrix.shape == (8, 8) and len(calls) == 1 and calls[0] == questions
    remembered(questions)  # the calibration asks for the same sentences: nothing is embedded again
    assert len(calls) == 1


def _pooled(minilm: object, paper: Paper, text: str) -> np.ndarray:
    chunk = Chunk(id=f"{paper.id}:0", paper_id=paper.id, position=0, text=text, num_tokens=0, content_hash="")
    _, rows = late_pass(minilm, [embed_text(paper, text)], [chunk])  # type: ignore[arg-type]
    return np.array(rows[0], dtype=np.float32)


def test_a_chunk_pass_index_stores_mapped_vectors_closer_to_the_sentences_own_encodings(
    chunk_pass_settings: Settings, minilm: object
) -> None:
    docs = DocStore.load(layout_of(chunk_pass_settings).docs_dir)
    assert docs is not None and docs.info["sentence_map"] is True and docs.sentence_map is not None
    records = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    stored, pooled, alone = [], [], []
    for record in records:
        paper = Paper(id=record["id"], title=record["title"], abstract=record["abstract"])
        chunk = docs.get(f"{paper.id}:0")
        assert chunk is not None
        stored.append(docs.sentence_vectors(chunk.id))
        pooled.append(_pooled(minilm, paper, chunk.text))
        alone.append(np.array(minilm.embed_batch(split_sentences(chunk.text))))  # type: ignore[attr-defined]
    mapped_cos = np.einsum("ij,ij->i", np.vstack(stored), np.vstack(alone)).mean()
    pooled_cos = np.einsum("ij,ij->i", np.vstack(pooled), np.vstack(alone)).mean()
    assert mapped_cos > pooled_cos + 0.02


def test_an_update_maps_the_papers_it_adds_with_the_stored_map(
    settings: Settings, minilm: object, tmp_path: Path
) -> None:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    corpus = tmp_path / "papers.jsonl"
    corpus.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    chunked = settings.replace(sentence_pass="chunk")
    build_index(chunked, [corpus], embedder=minilm)  # type: ignore[arg-type]
    layout = layout_of(settings)
    first = (layout.docs_dir / SENTENCE_MAP).read_bytes()
    before = DocStore.load(layout.docs_dir)
    assert before is not None
    kept = {cid: before.sentence_vectors(cid) for cid in before.ids}
    del before

    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = build_index(chunked, [corpus], embedder=minilm)  # type: ignore[arg-type]
    assert report.embedded == 1
    assert (layout.docs_dir / SENTENCE_MAP).read_bytes() == first  # not refitted
    docs = DocStore.load(layout.docs_dir)
    assert docs is not None and docs.sentence_map is not None
    for cid, vectors in kept.items():
        assert np.array_equal(docs.sentence_vectors(cid), vectors)
    record = json.loads(lines[-1])
    paper = Paper(id=record["id"], title=record["title"], abstract=record["abstract"])
    chunk = docs.get(f"{paper.id}:0")
    assert chunk is not None
    expected = _unit(_pooled(minilm, paper, chunk.text) @ docs.sentence_map)
    assert np.abs(docs.sentence_vectors(chunk.id) - expected).max() < 2e-3  # float16 as stored
