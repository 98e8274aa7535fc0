"""The VectorStore contract, run over every implementation: embedded Chroma, a live `chroma run` server and the
in-memory store (parametrized like ragna's source-storage tests)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from rag.adapters.chroma_store import ChromaStore
from rag.adapters.memory_store import MemoryStore
from rag.errors import IndexMissingError, StoreUnavailableError
from rag.factory import open_store
from rag.filters import Filters
from rag.ports import VectorStore
from rag.settings import Settings

IMPLEMENTATIONS = ["embedded", pytest.param("server", marks=pytest.mark.server), "memory"]


@pytest.fixture(params=IMPLEMENTATIONS)
def store(request: pytest.FixtureRequest, settings: Settings) -> Iterator[VectorStore]:
    """A fresh, not yet created collection in one implementation; dropped afterwards."""
    name = f"test-{uuid.uuid4().hex[:8]}"
    made: VectorStore
    if request.param == "server":
        made = ChromaStore(name, url=request.getfixturevalue("chroma_url"))
    elif request.param == "embedded":
        made = ChromaStore(name, path=settings.index_dir / "chroma")
    else:
        made = MemoryStore(name)
    yield made
    made.drop()


def _vec(*xs: float) -> list[float]:
    return list(xs)


def test_open_without_index_is_a_clear_error(store: VectorStore):
    assert not store.exists()
    with pytest.raises(IndexMissingError, match="rag index"):
        store.open()


def test_create_records_embedder_and_round_trips_chunks(store: VectorStore):
    store.create("emb-x", 3, {"chunk_tokens": 320})
    assert store.exists()
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
    assert [cid for cid, _ in store.nearest(_vec(1, 0, 0), 3, filters=Filters(year_min=2025))] == ["p2:0", "p3:0"]
    assert [cid for cid, _ in store.nearest(_vec(0, 0, 1), 3, filters=Filters(year_max=2024))] == ["p1:0"]
    both = Filters(year_min=2024, year_max=2024, venue="not a store filter")
    assert [cid for cid, _ in store.nearest(_vec(0, 1, 0), 3, filters=both)] == ["p1:0"]
    assert len(store.nearest(_vec(1, 0, 0), 50)) == 3  # more asked than stored: all of them, no error
    got = store.get(["p3:0", "missing", "p1:0"], with_embeddings=True)
    assert [c.id for c in got] == ["p3:0", "p1:0"]
    assert got[1].embedding is not None and tuple(got[1].embedding) == pytest.approx((1.0, 0.0, 0.0))
    assert store.get(["p1:0"])[0].embedding is None
    assert [c.text for c in store.chunks_of_paper("p2")] == ["second text"]
    assert store.chunks_of_paper("nobody") == []
    ids = sorted(cid for cid, _ in store.iter_metadata(page=2))
    assert ids == ["p1:0", "p2:0", "p3:0"]
    store.update_metadata(["p1:0"], [{"paper_id": "p1", "year": 2023}])
    assert store.get(["p1:0"])[0].metadata["year"] == 2023
    store.upsert(["p1:0"], [_vec(0, 1, 0)], ["first text v2"], [{"paper_id": "p1", "year": 2023}])
    assert store.count() == 3 and store.get(["p1:0"])[0].text == "first text v2"
    store.delete(["p2:0"])
    assert store.count() == 2
    store.drop()
    assert not store.exists()


def test_collection_info_can_be_extended(store: VectorStore):
    store.create("emb-x", 2)
    store.update_info(lexical_fingerprint="abc")
    assert store.info["lexical_fingerprint"] == "abc" and store.info["embedder"] == "emb-x"
    assert store.fresh_info()["lexical_fingerprint"] == "abc"


def test_rename_swaps_a_rebuilt_collection_in(store: VectorStore):
    next_ = store.sibling(store.name + "-next").create("e", 2)
    next_.upsert(["a:0"], [_vec(1, 0)], ["t"], [{"paper_id": "a"}])
    next_.rename(store.name)
    assert next_.name == store.name
    assert store.open().count() == 1
    assert not store.sibling(store.name + "-next").exists()


def test_close_keeps_the_data_and_a_siblings_close_leaves_its_parent_working(store: VectorStore):
    store.create("e", 2).upsert(["a:0"], [_vec(1, 0)], ["t"], [{"paper_id": "a"}])
    other = store.sibling(store.name + "-other").create("e", 2)
    other.close()  # borrowed connection: the parent keeps it
    assert store.count() == 1
    store.close()
    store.close()  # twice is harmless
    assert store.open().count() == 1  # reopens on demand: nothing was lost
    store.sibling(store.name + "-other").drop()


def test_closing_embedded_chroma_releases_its_system(settings: Settings):
    """A closed embedded store must not leave chromadb's per-path system cached: the next store at that path in
    this process starts a fresh one (after a full disk the old one could block a re-run for minutes)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    path = settings.index_dir / "chroma"
    store = ChromaStore(f"test-{uuid.uuid4().hex[:8]}", path=path).create("e", 2)
    assert str(path) in SharedSystemClient._identifier_to_system
    store.close()
    assert str(path) not in SharedSystemClient._identifier_to_system
    assert ChromaStore(store.name, path=path).open().count() == 0


@pytest.mark.parametrize("kind", ["embedded", pytest.param("server", marks=pytest.mark.server)])
def test_chroma_batches_respect_the_client_batch_limit(
    kind: str, settings: Settings, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
):
    name = f"test-{uuid.uuid4().hex[:8]}"
    if kind == "server":
        settings = settings.replace(chroma_url=request.getfixturevalue("chroma_url"))
    store = open_store(settings, name).create("e", 2)
    try:
        assert isinstance(store, ChromaStore)
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
        open_store(settings.replace(chroma_url=f"http://127.0.0.1:{free_port()}")).open()
