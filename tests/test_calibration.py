"""The relevance floor derived from the collection itself (rag.index.calibration): measured from the library's own
sentences, saved with what it was derived from, reported by `rag index`, overridden by min_relevance, and used to
refuse questions about papers the library does not have."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from rag.adapters.fakes import HashEmbedder
from rag.answer.citations import REFUSAL
from rag.factory import build_index, layout_of, open_assistant
from rag.index.calibration import (
    MAX_PAPERS_EMBEDDED,
    MIN_PAPERS,
    PER_PAPER_EMBEDDED,
    calibrate,
    ensure,
    from_json,
    stored,
    to_json,
)
from rag.index.docstore import DocStore, DocStoreBuilder
from rag.index.layout import Layout
from rag.settings import DEFAULT_MIN_RELEVANCE, Settings, load_settings
from rag.text import split_sentences

DIM = 32


def _library(
    directory: Path, papers: int, spread: float, seed: int = 1, sentence_pass: str = "own", mapped: bool = False
) -> DocStore:
    """A docstore of `papers` one-chunk papers of six sentences each. Each paper's vectors scatter around its own
    centre; the centres scatter around one common direction by `spread` (small: a crowded field)."""
    rng = np.random.default_rng(seed)
    unit = lambda v: v / np.linalg.norm(v, axis=-1, keepdims=True)  # noqa: E731
    common = unit(rng.normal(size=DIM))
    builder = DocStoreBuilder(directory, papers, DIM)
    for p in range(papers):
        centre = unit(common + spread * unit(rng.normal(size=DIM)))
        sentences = [f"Paper {p} sentence {i} says something about its own topic." for i in range(6)]
        cid = f"paper-{p}:0"
        builder.add(cid, " ".join(sentences), {"paper_id": f"paper-{p}"})
        builder.set_vector(cid, unit(centre + 0.3 * unit(rng.normal(size=DIM))))
        builder.set_sentence_vectors(cid, unit(centre + 0.9 * unit(rng.normal(size=(6, DIM)))))
    info = {"embedder": "test", "dim": DIM, "sentence_pass": sentence_pass}
    if mapped:
        info["sentence_map"] = True
    builder.finish("fp-1", info)
    docs = DocStore.load(directory)
    assert docs is not None
    return docs


def test_a_crowded_library_gets_higher_floors_than_a_spread_out_one(tmp_path: Path):
    crowded = calibrate(_library(tmp_path / "crowded", 80, spread=0.6), "fp-1")
    spread = calibrate(_library(tmp_path / "spread", 80, spread=2.0), "fp-1")
    assert crowded is not None and spread is not None
    assert crowded.floor > spread.floor + 0.05
    assert crowded.sentence_floor is not None and spread.sentence_floor is not None
    assert crowded.sentence_floor > spread.sentence_floor
    assert crowded.papers == 80 and crowded.questions == 80 * 4 and crowded.fingerprint == "fp-1"


def test_sentence_vectors_pooled_from_the_chunk_pass_are_not_used_as_questions(tmp_path: Path):
    """Pooled vectors carry their chunk's context (rag.index.late_chunking); a question is encoded alone, so the
    pseudo-questions are embedded instead, as for an index without sentence vectors."""
    embedded: list[str] = []

    def embed(texts: list[str]) -> np.ndarray:
        embedded.extend(texts)
        return np.random.default_rng(3).normal(size=(len(texts), DIM)).astype(np.float32)

    calibrate(_library(tmp_path / "own", 80, spread=0.6), "fp-1", embed)
    assert embedded == []  # own-pass vectors stand in for questions
    calibrate(_library(tmp_path / "pooled", 80, spread=0.6, sentence_pass="chunk"), "fp-1", embed)
    assert embedded and all(t.startswith("Paper ") for t in embedded)


def test_mapped_pooled_vectors_give_a_sentence_floor_though_the_questions_are_embedded(tmp_path: Path):
    """Mapped toward standalone encodings (rag.index.sentence_map), pooled vectors are what an embedded
    pseudo-question is compared with at sentence level; unmapped ones give no sentence floor."""

    def embed_like(docs: DocStore):
        known = {}
        for cid in docs.ids:
            chunk = docs.get(cid)
            assert chunk is not None
            known.update(zip(split_sentences(chunk.text), docs.sentence_vectors(cid), strict=True))  # type: ignore[arg-type]
        return lambda texts: np.stack([known[t] for t in texts]).astype(np.float32)

    mapped = _library(tmp_path / "mapped", 80, spread=0.6, sentence_pass="chunk", mapped=True)
    found = calibrate(mapped, "fp-1", embed_like(mapped))
    assert found is not None and found.sentence_floor is not None
    unmapped = _library(tmp_path / "unmapped", 80, spread=0.6, sentence_pass="chunk")
    plain = calibrate(unmapped, "fp-1", embed_like(unmapped))
    assert plain is not None and plain.sentence_floor is None and plain.floor == found.floor


def test_embedded_pseudo_questions_are_capped_and_spread_over_the_whole_library(tmp_path: Path):
    """Embedding the pseudo-questions is nearly all an embedding calibration costs: a few from each of at most
    MAX_PAPERS_EMBEDDED papers, taken from the whole library (not its first papers)."""
    embedded: list[str] = []

    def embed(texts: list[str]) -> np.ndarray:
        embedded.extend(texts)
        return np.random.default_rng(3).normal(size=(len(texts), DIM)).astype(np.float32)

    calibrate(_library(tmp_path / "pooled", 400, spread=0.6, sentence_pass="chunk"), "fp-1", embed)
    asked = {int(t.split()[1]) for t in embedded}
    assert len(asked) == MAX_PAPERS_EMBEDDED and len(embedded) == MAX_PAPERS_EMBEDDED * PER_PAPER_EMBEDDED
    assert min(asked) < 400 // 10 and max(asked) > 400 - 400 // 10


def test_a_library_too_small_or_too_plain_to_measure_keeps_the_default(tmp_path: Path):
    assert calibrate(_library(tmp_path / "small", MIN_PAPERS - 1, spread=0.6), "fp-1") is None
    # papers so far apart that every sentence finds its own paper: there is no failure to measure a floor from
    assert calibrate(_library(tmp_path / "apart", 60, spread=6.0), "fp-1") is None


def test_the_floor_is_saved_with_the_fingerprint_it_was_derived_from(tmp_path: Path):
    layout = Layout(tmp_path, "lib")
    _library(layout.docs_dir, 60, spread=0.6)
    derived = ensure(layout, "fp-1")
    assert derived is not None and stored(layout, "fp-1") == derived and from_json(to_json(derived)) == derived
    assert stored(layout, "fp-2") is None and ensure(layout, "fp-2") is None  # the docstore is of fp-1
    saved = json.loads(layout.calibration_file.read_text())
    assert set(saved) == {"floor", "sentence_floor", "target", "sentence_target", "questions", "papers", "fingerprint"}
    assert from_json("{not json") is None and from_json({"floor": 1}) is None


# ---- through `rag index` and the Assistant, with a deterministic embedder ---------------------------------------
FIELD = "patients hospital treatment outcome study clinical risk".split()


def _abstracts(count: int) -> list[dict[str, str]]:
    """`count` papers of one field: each on its own made-up condition, with the field's common words."""
    rng = random.Random(3)
    out = []
    for p in range(count):
        topic = f"condition{p} marker{p}"
        field = lambda: " ".join(rng.sample(FIELD, 3))  # noqa: E731
        sentences = [f"We studied {topic} in {field()} settings.", f"The {field()} {field()} were reviewed.",
                     f"The {topic} {field()} improved with {field()} care.", f"Most {field()} {field()} followed.",
                     f"In conclusion, {topic} responds to early {rng.choice(FIELD)} treatment."]  # fmt: skip
        out.append({"id": f"p{p}", "title": f"Study of {topic}", "abstract": " ".join(sentences)})
    return out


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, HashEmbedder, object]:
    home = tmp_path_factory.mktemp("calibrated")
    corpus = home / "papers.jsonl"
    corpus.write_text("\n".join(json.dumps(a) for a in _abstracts(70)) + "\n")
    settings = load_settings(home=home / "rag", env={}).replace(llm="extractive")
    embedder = HashEmbedder(256)
    report = build_index(settings, [corpus], embedder=embedder)
    return settings, embedder, report


def test_rag_index_reports_the_floor_it_derived(calibrated: tuple[Settings, HashEmbedder, object]):
    settings, _, report = calibrated
    assert report.calibration is not None  # type: ignore[attr-defined]
    assert f"relevance floor {report.calibration.floor:.2f} (calibrated on" in report.line()  # type: ignore[attr-defined]
    assert stored(layout_of(settings)) == report.calibration  # type: ignore[attr-defined]


def test_the_floor_in_force_is_the_calibrated_one_unless_min_relevance_is_set(
    calibrated: tuple[Settings, HashEmbedder, object],
):
    settings, embedder, report = calibrated
    assistant = open_assistant(settings, embedder=embedder)
    floors = assistant.floors()
    assert floors.relevance == report.calibration.floor and floors.origin == "calibrated on the library"  # type: ignore[attr-defined]
    assert load_settings(env={"RAG_MIN_RELEVANCE": "auto"}).retrieval.min_relevance is None
    fixed = open_assistant(settings.replace(min_relevance=0.05), embedder=embedder).floors()
    assert fixed.relevance == 0.05 and fixed.origin == "the min_relevance setting"
    assert settings.public_dict()["min_relevance"] == "auto"


def test_a_question_about_a_paper_the_library_lacks_is_refused_with_the_closest_papers(
    calibrated: tuple[Settings, HashEmbedder, object],
):
    settings, embedder, _ = calibrated
    assistant = open_assistant(settings, embedder=embedder)
    answered = assistant.ask("Does condition7 marker7 respond to early treatment?")
    assert not answered.abstained and answered.citations[0].paper_id == "p7"
    refused = assistant.ask("Does the lunar cycle change clinical outcome of hospital patients?")
    assert refused.abstained and refused.text == REFUSAL and refused.sources, "closest papers are listed"
    assert refused.abstain_reason and "calibrated on the library" in refused.abstain_reason


def test_an_index_without_a_calibration_uses_the_default_floor(tmp_path: Path):
    corpus = tmp_path / "few.jsonl"
    corpus.write_text("\n".join(json.dumps(a) for a in _abstracts(6)) + "\n")
    settings = load_settings(home=tmp_path / "rag", env={}).replace(llm="extractive")
    embedder = HashEmbedder(256)
    report = build_index(settings, [corpus], embedder=embedder)
    assert report.calibration is None and "too few papers to calibrate" in report.line()
    floors = open_assistant(settings, embedder=embedder).floors()
    assert floors.relevance == DEFAULT_MIN_RELEVANCE and floors.sentence == 0.0 and floors.origin == "the default"
