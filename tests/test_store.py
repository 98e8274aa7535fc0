"""The same store contract against embedded Chroma and a live `chroma run` server."""

from __future__ import annotations

import uuid

import pytest

from rag.errors import IndexMissingError, StoreUnavailableError
from rag.settings import Settings
from rag.store import VectorStore


@pytest.fixture(params=["embedded", pytest.param("server", marks=pytest.mark.server)])
def store_settings(request: pytest.FixtureRequest, settings: Settings) -> Settings:
    name = f"test-{uuid.uuid4().hex[:8]}"
    if request.param == "server":
        return settings.replace(chroma_url=request.getfixturevalue("chroma_url"), collection=name)
    return settings.replace(collection=name)


def _vec(*xs: float) -> list[float]:
    return list(xs)


def test_open_without_index_is_a_clear_error(store_settings: Settings):
    with pytest.raises(IndexMissingError, match="rag index"):
        VectorStore(store_settings).open()


def test_create_records_embedder_and_round_trips_chunks(store_settings: Settings):
    store = VectorStore(store_settings).create("emb-x", 3, {"chunk_tokens": 320})
    try:
        assert store.info["embedder"] == "emb-x" and store.info["dim"] == 3
        store.upsert(
            ["p1:0", "p2:0", "p3:0"],
            [_vec(1, 0, 0), _vec(0, 1, 0), _vec(0, 0, 1)],
            ["first text", "second text", "third text"],
            [{"paper_id": "p1", "year": 2024}, {"paper_id": "p2", "year": 2025}, {"paper_id": "p3", "year": 2025}],
        )
        assert store.count() == 3
        hits = store.nearest(_vec(0.9, 0.1, 0), 2)
        assert [cid for cid, _ in hits] == ["p1:0", "p2:0"]
        assert 0 <= hits[0][1] < hits[1][1]
        assert [cid for cid, _ in store.nearest(_vec(1, 0, 0), 3, where={"year": {"$gte": 2025}})] == ["p2:0", "p3:0"]
        assert len(store.nearest(_vec(1, 0, 0), 50)) == 3  # more asked than stored: all of them, no error
        got = store.get(["p3:0", "missing", "p1:0"], with_embeddings=True)
        assert [c.id for c in got] == ["p3:0", "p1:0"]
        assert got[1].embedding is not None and tuple(got[1].embedding) == pytest.approx((1.0, 0.0, 0.0))
        assert [c.text for c in store.get_where({"paper_id": "p2"})] == ["second text"]
        ids = sorted(cid for cid, _ in store.iter_metadata(page=2))
        assert ids == ["p1:0", "p2:0", "p3:0"]
        store.update_metadata(["p1:0"], [{"paper_id": "p1", "year": 2023}])
        assert store.get(["p1:0"])[0].metadata["year"] == 2023
        store.upsert(["p1:0"], [_vec(0, 1, 0)], ["first text v2"], [{"paper_id": "p1", "year": 2023}])
        assert store.count() == 3 and store.get(["p1:0"])[0].text == "first text v2"
        store.delete(["p2:0"])
        assert store.count() == 2
    finally:
        store.drop()
    assert not store.exists()


def test_rename_swaps_a_rebuilt_collection_in(store_settings: Settings):
    next_ = VectorStore(store_settings, name=store_settings.collection + "-next").create("e", 2)
    next_.upsert(["a:0"], [_vec(1, 0)], ["t"], [{"paper_id": "a"}])
    next_.rename(store_settings.collection)
    try:
        assert VectorStore(store_settings).open().count() == 1
    finally:
        VectorStore(store_settings).drop()


def test_batches_respect_the_client_batch_limit(store_settings: Settings, monkeypatch: pytest.MonkeyPatch):
    store = VectorStore(store_settings).create("e", 2)
    try:
        monkeypatch.setattr(store, "max_batch_size", lambda: 7)
        n = 30
        store.upsert(
            [f"p{i}:0" for i in range(n)],
            [_vec(1, i) for i in range(n)],
            ["t"] * n,
            [{"paper_id": f"p{i}"} for i in range(n)],
        )
        assert store.count() == n
        store.delete([f"p{i}:0" for i in range(n)])
        assert store.count() == 0
    finally:
        store.drop()


def test_unreachable_server_is_a_clear_error(settings: Settings):
    from tests.chroma_server import free_port

    with pytest.raises(StoreUnavailableError, match="127.0.0.1"):
        VectorStore(settings.replace(chroma_url=f"http://127.0.0.1:{free_port()}")).open()
