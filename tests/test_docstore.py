"""The local docstore: a copy of each chunk's text, metadata and vector beside BM25, so a search makes one store
call. Results must be the same as reading from the store, and a missing or outdated copy must never be used."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from rag.adapters.chroma_store import ChromaStore
from rag.adapters.fakes import HashEmbedder
from rag.factory import build_index, layout_of, open_retriever, open_store
from rag.filters import Filters
from rag.index.docstore import DocStore, DocStoreBuilder
from rag.retrieve.retriever import Retriever
from rag.settings import BUNDLED_CORPUS, Settings

QUESTIONS = [
    "How many oil and gas wells were mapped from satellite images in Alberta?",
    "Which paper evaluates AI agents replicating ICML papers?",
    "stability plasticity continual learning",
    "mixed-curvature decision trees",
]


def test_round_trip_swap_and_unreadable_copies(tmp_path: Path):
    target = tmp_path / "docs-x"
    for fingerprint in ("one", "two"):  # the second build replaces the first whole
        builder = DocStoreBuilder(target, 2, 3)
        builder.add("a:0", "alpha text", {"paper_id": "a", "year": 2024})
        builder.add("b:0", "beta text ü", {"paper_id": "b"})
        assert builder.missing_vectors() == ["a:0", "b:0"]
        builder.set_vector("b:0", [0.0, 1.0, 0.0])
        with pytest.raises(ValueError, match="without vectors"):
            builder.finish(fingerprint)  # a row without its vector is never saved
        builder.set_vector("a:0", [1.0, 0.0, 0.0])
        builder.finish(fingerprint)
    docs = DocStore.load(target)
    assert docs is not None and docs.fingerprint == "two" and len(docs) == 2 and "b:0" in docs
    chunk = docs.get("b:0")
    assert chunk is not None and chunk.text == "beta text ü" and chunk.metadata == {"paper_id": "b"}
    assert chunk.embedding is not None and list(chunk.embedding) == [0.0, 1.0, 0.0]
    assert docs.get("missing:0") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs-x"]  # no .tmp or .old left behind

    aborted = DocStoreBuilder(target, 1, 3)
    aborted.add("c:0", "gamma", {})
    aborted.abort()
    assert DocStore.load(target) is not None and not (tmp_path / "docs-x.tmp").exists()
    assert DocStore.load(tmp_path / "nope") is None
    (target / "offsets.npy").write_bytes(b"garbage")
    assert DocStore.load(target) is None


@pytest.fixture()
def built(settings: Settings) -> Settings:
    build_index(settings, embedder=HashEmbedder(384))
    return settings


def _hits(retriever: Retriever, query: str, **kwargs: object) -> list[tuple]:
    return [
        (h.chunk_id, h.score, h.dense_score, h.text, h.paper, h.num_tokens)
        for h in retriever.search(query, 5, **kwargs)  # type: ignore[arg-type]
    ]


def _same(a: list[tuple], b: list[tuple]) -> bool:
    """The same hits in the same order; scores to 1e-5 (fused scores follow the cosines, which the docstore and
    Chroma compute in different precisions)."""
    close = lambda x, y: (x is None) == (y is None) and (x is None or abs(x - y) < 1e-5)  # noqa: E731
    return len(a) == len(b) and all(
        x[0] == y[0] and x[3:] == y[3:] and close(x[1], y[1]) and close(x[2], y[2]) for x, y in zip(a, b, strict=True)
    )


def test_search_reads_the_docstore_only_and_matches_the_store(built: Settings, monkeypatch: pytest.MonkeyPatch):
    retriever = open_retriever(built, embedder=HashEmbedder(384))
    assert retriever.docs is not None and len(retriever.docs) == 19
    # sentence vectors live in the docstore only: without it the evidence stage is skipped (rag.retrieve.evidence),
    # so the two paths are compared with the stage off; everything the store holds must give the same hits
    monkeypatch.setattr(retriever, "_best_sentences", lambda ids, qvec: None)
    variants: list[dict[str, object]] = [{}, {"filters": Filters(year_min=2025)}, {"token_budget": 300},
                                         {"mode": "lexical"}, {"mode": "dense"}]  # fmt: skip
    with_docs = {(q, i): _hits(retriever, q, **kw) for q in QUESTIONS for i, kw in enumerate(variants)}
    docs, retriever.docs = retriever.docs, None
    from_store = {(q, i): _hits(retriever, q, **kw) for q in QUESTIONS for i, kw in enumerate(variants)}
    assert with_docs.keys() == from_store.keys() and all(with_docs.values())
    assert all(_same(with_docs[key], from_store[key]) for key in with_docs)

    retriever.docs = docs
    gets: list[Sequence[str]] = []
    monkeypatch.setattr(ChromaStore, "get", lambda self, ids, with_embeddings=False: gets.append(ids) or [])
    assert retriever.search(QUESTIONS[0], 5, filters=Filters(year_min=2025))
    assert gets == []  # a filtered search makes one store call: the nearest-neighbour query


def test_docstore_nearest_is_exact_with_ties_in_row_order(tmp_path: Path):
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((40, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[7] = vectors[30]  # a tie: row order decides
    builder = DocStoreBuilder(tmp_path / "d", 40, 8)
    for row, vector in enumerate(vectors):
        builder.add(f"c{row}", "", {})
        builder.set_vector(f"c{row}", vector)
    builder.finish("f")
    docs = DocStore.load(tmp_path / "d")
    assert docs is not None
    query = vectors[30] + 0.1 * vectors[2]
    query /= np.linalg.norm(query)
    brute = sorted(range(40), key=lambda r: (-float(vectors[r] @ query), r))
    got = docs.nearest(query, 10)
    assert [cid for cid, _ in got] == [f"c{r}" for r in brute[:10]] and got[0][0] == "c7" and got[1][0] == "c30"
    assert np.allclose([d for _, d in got], [1.0 - float(vectors[r] @ query) for r in brute[:10]], atol=1e-6)
    assert [cid for cid, _ in docs.nearest(query, 100)] == [f"c{r}" for r in brute]  # n above the count: all
    assert docs.nearest(query, 0) == []


def test_best_sentence_cosines_gather_every_chunks_rows_at_once(tmp_path: Path):
    """The evidence stage's one-shot read equals the best of each chunk's own sentence vectors; a chunk without
    stored sentences makes it None (the stage is then skipped, never half applied)."""
    rng = np.random.default_rng(5)
    builder = DocStoreBuilder(tmp_path / "d", 6, 8)
    for row in range(6):
        builder.add(f"c{row}", "", {})
        builder.set_vector(f"c{row}", np.ones(8, np.float32))
        if row != 4:  # c4 has no sentence vectors
            builder.set_sentence_vectors(f"c{row}", rng.standard_normal((row % 3 + 1, 8)))
    builder.finish("f")
    docs = DocStore.load(tmp_path / "d")
    assert docs is not None
    query = rng.standard_normal(8).astype(np.float32)
    ids = ["c5", "c0", "c3", "c1"]
    expected = [float((docs.sentence_vectors(cid) @ query).max()) for cid in ids]  # type: ignore[operator]
    assert np.allclose(docs.best_sentence_cosines(ids, query), expected, atol=1e-5)
    assert docs.best_sentence_cosines(["c0", "c4"], query) is None
    assert docs.best_sentence_cosines(["c0", "nope"], query) is None


def test_small_unfiltered_index_is_searched_exactly_without_the_store(built: Settings, monkeypatch: pytest.MonkeyPatch):
    exact = open_retriever(built, embedder=HashEmbedder(384))
    approx = open_retriever(built.replace(exact_search_max_chunks=0), embedder=HashEmbedder(384))
    assert exact.docs is not None
    for q in QUESTIONS:  # at 19 chunks HNSW is exact too: same candidates, same distances
        qvec = np.asarray(HashEmbedder(384).embed_batch([q])[0], dtype=np.float32)
        scanned, queried = exact.docs.nearest(qvec, 50), exact.store.nearest(qvec.tolist(), 50)
        assert [c for c, _ in scanned] == [c for c, _ in queried]
        assert np.allclose([d for _, d in scanned], [d for _, d in queried], atol=1e-5)
        assert _same(_hits(exact, q), _hits(approx, q))

    calls: list[str] = []
    nearest, get = ChromaStore.nearest, ChromaStore.get
    monkeypatch.setattr(
        ChromaStore, "nearest", lambda self, *a, **kw: calls.append("nearest") or nearest(self, *a, **kw)
    )
    monkeypatch.setattr(ChromaStore, "get", lambda self, *a, **kw: calls.append("get") or get(self, *a, **kw))
    assert exact.search(QUESTIONS[0], 5) and calls == []  # no store call at all
    assert exact.search(QUESTIONS[0], 5, filters=Filters(year_min=2025)) and calls == ["nearest"]  # Chroma filters
    assert approx.search(QUESTIONS[0], 5) and calls == ["nearest", "nearest"]  # the setting turns it off
    exact.stale = True  # an interrupted `rag index` may have written chunks the docstore lacks: ask the store
    assert exact.search(QUESTIONS[0], 5) and calls == ["nearest"] * 3


def test_outdated_docstore_is_not_used(built: Settings):
    meta = json.loads((layout_of(built).docs_dir / "ids.json").read_text())
    meta["fingerprint"] = "from-another-corpus"
    (layout_of(built).docs_dir / "ids.json").write_text(json.dumps(meta))
    retriever = open_retriever(built, embedder=HashEmbedder(384))
    assert retriever.docs is None and retriever.search(QUESTIONS[1], 1)[0].paper.id == "icml2025-03"
    build_index(built, embedder=HashEmbedder(384))  # an unchanged re-index repairs it
    assert open_retriever(built, embedder=HashEmbedder(384)).docs is not None


def test_incremental_build_reuses_vectors_of_unchanged_chunks(
    built: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    papers = [json.loads(line) for line in BUNDLED_CORPUS.read_text().splitlines()]
    papers[2]["abstract"] += " One more sentence."
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(p) + "\n" for p in papers))
    fetched: list[str] = []
    get = ChromaStore.get

    def counting_get(self: ChromaStore, ids: Sequence[str], with_embeddings: bool = False) -> list:
        fetched.extend(ids)
        return get(self, ids, with_embeddings)

    monkeypatch.setattr(ChromaStore, "get", counting_get)
    report = build_index(built, [corpus], embedder=HashEmbedder(384))
    assert report.embedded == 1 and fetched == []  # 18 vectors came from the previous docstore
    docs = DocStore.load(layout_of(built).docs_dir)
    assert docs is not None and len(docs) == 19
    changed = docs.get(f"{papers[2]['id']}:0")
    assert changed is not None and changed.text.endswith("One more sentence.")
    stored = get(open_store(built).open(), [changed.id], with_embeddings=True)[0]
    assert stored.embedding is not None and changed.embedding is not None
    assert np.allclose(np.asarray(changed.embedding), np.asarray(stored.embedding), atol=1e-6)


def test_without_a_previous_docstore_vectors_come_from_the_store(built: Settings):
    import shutil

    shutil.rmtree(layout_of(built).docs_dir)
    shutil.rmtree(layout_of(built).lexical_dir)
    report = build_index(built, embedder=HashEmbedder(384))
    assert report.embedded == 0
    retriever = open_retriever(built, embedder=HashEmbedder(384))
    assert retriever.docs is not None and len(retriever.docs) == 19
    assert retriever.search(QUESTIONS[0], 1)[0].paper.id == "icml2025-00"
