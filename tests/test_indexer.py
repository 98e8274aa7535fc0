"""Incremental indexing: unchanged text is never re-embedded; changes and removals are applied exactly."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from rag.adapters.chroma_store import ChromaStore
from rag.adapters.fakes import HashEmbedder
from rag.errors import CorpusError, IndexMissingError
from rag.factory import build_index, layout_of, open_retriever, open_store
from rag.settings import BUNDLED_CORPUS, Settings


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=64)
        self.texts: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return super().embed_batch(texts)


def _corpus(path: Path, papers: list[dict]) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in papers))
    return path


def _bundled() -> list[dict]:
    return [json.loads(line) for line in BUNDLED_CORPUS.read_text().splitlines()]


def test_reindex_of_unchanged_corpus_embeds_nothing(settings: Settings):
    emb = CountingEmbedder()
    first = build_index(settings, embedder=emb)
    assert (first.papers, first.chunks, first.embedded, first.skipped, first.removed) == (19, 19, 19, 0, 0)
    chunk_texts = [t for t in emb.texts if "\n" in t]  # title + chunk; the rest are the chunks' sentences
    assert len(chunk_texts) == 19 and len(emb.texts) > 19
    before = len(emb.texts)
    again = build_index(settings, embedder=emb)
    assert (again.embedded, again.skipped, again.removed) == (0, 19, 0)
    assert len(emb.texts) == before  # no chunk and no sentence embedded again
    assert "19 papers" in again.line() and "0 embedded" in again.line()


def test_changed_abstract_is_reembedded_alone_and_removed_paper_leaves(settings: Settings, tmp_path: Path):
    emb = CountingEmbedder()
    papers = _bundled()
    build_index(settings, [_corpus(tmp_path / "c.jsonl", papers)], embedder=emb)
    before = len(emb.texts)
    papers[4]["abstract"] += " A new closing sentence about sparse autoencoders."
    papers[7]["url"] = "https://example.org/new-url"  # metadata only: no embedding
    del papers[18]
    report = build_index(settings, [_corpus(tmp_path / "c.jsonl", papers)], embedder=emb)
    assert (report.papers, report.embedded, report.removed, report.metadata_updated) == (18, 1, 1, 1)
    new = emb.texts[before:]
    assert [t for t in new if "\n" in t][-1].endswith("sparse autoencoders.")  # the one changed chunk
    assert "A new closing sentence about sparse autoencoders." in new  # and its sentences, none of the others'
    assert len(new) == 1 + len([s for s in new if "\n" not in s]) <= 1 + 20
    store = open_store(settings).open()
    assert store.count() == 18
    assert store.get(["icml2025-07:0"])[0].metadata["url"] == "https://example.org/new-url"
    assert store.get(["icml2025-18:0"]) == []
    retriever = open_retriever(settings, embedder=emb)
    assert "icml2025-18:0" not in retriever.lexical.ids and len(retriever.lexical.ids) == 18


def test_bad_corpus_stops_before_anything_is_written(settings: Settings, tmp_path: Path):
    emb = CountingEmbedder()
    build_index(settings, embedder=emb)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(_bundled()[0]) + "\n{broken\n")
    with pytest.raises(CorpusError, match=r"bad.jsonl:2"):
        build_index(settings, [bad], embedder=emb)
    assert open_store(settings).open().count() == 19
    assert not layout_of(settings).dirty_marker.exists()


def test_skip_mode_indexes_the_good_records(settings: Settings, tmp_path: Path):
    bad = tmp_path / "mixed.jsonl"
    bad.write_text(json.dumps(_bundled()[0]) + "\n{broken\n" + json.dumps(_bundled()[1]) + "\n")
    warnings: list[str] = []
    report = build_index(settings, [bad], embedder=CountingEmbedder(), on_error="skip", warn=warnings.append)
    assert report.papers == 2 and any("mixed.jsonl:2" in w for w in warnings)


def test_other_embedder_is_refused_until_rebuild(settings: Settings):
    build_index(settings, embedder=CountingEmbedder())
    with pytest.raises(IndexMissingError, match="--rebuild"):
        build_index(settings, embedder=HashEmbedder(dim=32))
    with pytest.raises(IndexMissingError, match="hash-64"):
        open_retriever(settings, embedder=HashEmbedder(dim=32))
    report = build_index(settings, embedder=HashEmbedder(dim=32), rebuild=True)
    assert report.embedded == 19
    assert open_store(settings).open().info["embedder"] == "hash-32"
    names = [c.name for c in open_store(settings)._client.list_collections()]  # type: ignore[attr-defined]
    assert names == [settings.collection]


def test_interrupted_run_keeps_previous_index_and_rerun_completes(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import rag.index.writer

    monkeypatch.setattr(rag.index.writer, "WRITE_CHUNKS", 5)  # a write per embedding batch, so the crash is midway
    emb = CountingEmbedder()
    papers = _bundled()
    build_index(settings, [_corpus(tmp_path / "c.jsonl", papers)], embedder=emb)
    for p in papers:
        p["abstract"] += " Revised."

    class Crash(Exception):
        pass

    def crash_after_first_batch(done: int, total: int) -> None:
        if done > 0:
            raise Crash

    with pytest.raises(Crash):
        build_index(
            settings.replace(embed_batch_size=5),
            [_corpus(tmp_path / "c.jsonl", papers)],
            embedder=emb,
            progress=crash_after_first_batch,
        )
    assert layout_of(settings).dirty_marker.exists()
    retriever = open_retriever(settings, embedder=emb)
    assert retriever.stale
    assert retriever.search("Alberta oil and gas wells satellite", 1)[0].paper.id == "icml2025-00"
    assert open_store(settings).open().count() == 19
    report = build_index(settings, [_corpus(tmp_path / "c.jsonl", papers)], embedder=emb)
    # what was embedded before the crash was written and is not redone
    assert report.skipped >= 5 and report.embedded >= 5 and report.embedded + report.skipped == 19
    assert not layout_of(settings).dirty_marker.exists()
    assert open_store(settings).open().count() == 19
    assert (layout_of(settings).lexical_dir / "ids.json").exists()


@pytest.mark.server
def test_ui_worker_in_front_of_a_chroma_server_picks_up_a_reindex(settings: Settings, tmp_path: Path, chroma_url: str):
    """Two processes' worth of settings: an indexer and a UI worker with their own homes share a Chroma server.
    The worker builds BM25 from the store, then notices the indexer's update and rebuilds it."""
    emb = CountingEmbedder()
    papers = _bundled()
    shared = settings.replace(chroma_url=chroma_url, collection=f"team-{tmp_path.name[-8:]}")
    indexer = shared.replace(home=tmp_path / "indexer-home")
    worker = shared.replace(home=tmp_path / "worker-home")
    try:
        build_index(indexer, [_corpus(tmp_path / "c.jsonl", papers[:10])], embedder=emb)
        reader = open_retriever(worker, embedder=emb)
        assert len(reader.lexical.ids) == 10  # rebuilt from the server: the worker had no BM25 files
        assert reader.docs is not None and len(reader.docs) == 10  # nor a docstore
        build_index(indexer, [_corpus(tmp_path / "c.jsonl", papers)], embedder=emb)
        reader.refresh_if_reindexed(every_s=0)
        assert reader.docs is None  # outdated: text comes from the server until the new copy is built
        deadline = time.monotonic() + 10
        while (reader.docs is None or len(reader.lexical.ids) != 19) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(reader.lexical.ids) == 19 and reader.docs is not None and len(reader.docs) == 19
        assert reader.search("PaperBench replication", 1, mode="lexical")[0].paper.id == "icml2025-03"
    finally:
        open_store(indexer).drop()


def test_corpus_edited_during_indexing_is_a_clear_error_and_the_old_index_stays(settings: Settings, tmp_path: Path):
    """The build reads the files twice (plan, then embed); a file that changes in between is not mixed in."""
    emb = CountingEmbedder()
    papers = _bundled()
    corpus = _corpus(tmp_path / "c.jsonl", papers)
    build_index(settings, [corpus], embedder=emb)
    papers[3]["abstract"] += " Edited."
    edited = [dict(p, abstract=p["abstract"] + " Edited again.") if i == 3 else p for i, p in enumerate(papers)]

    def edit_between_passes(done: int, total: int) -> None:
        if done == 0:  # the plan is made; the second pass has not read the file yet
            _corpus(corpus, edited)

    with pytest.raises(CorpusError, match="changed while they were being indexed"):
        build_index(settings, [_corpus(corpus, papers)], embedder=emb, progress=edit_between_passes)
    assert layout_of(settings).dirty_marker.exists()
    assert open_retriever(settings, embedder=emb).search("Alberta oil and gas wells satellite", 1)[0].paper.id == (
        "icml2025-00"
    )
    report = build_index(settings, [corpus], embedder=emb)
    assert (report.embedded, report.skipped) == (1, 18) and not layout_of(settings).dirty_marker.exists()


def test_store_writes_are_batched_across_embedding_batches(settings: Settings, monkeypatch: pytest.MonkeyPatch):
    """One Chroma write per embedding batch made writes most of a fast build's time: here all ten batches go in
    one write (WRITE_EVERY_S raised so the count does not depend on the machine's speed)."""
    import rag.index.writer

    monkeypatch.setattr(rag.index.writer, "WRITE_EVERY_S", 3600.0)
    calls: list[int] = []
    upsert = ChromaStore.upsert

    def counting_upsert(self: ChromaStore, ids: Sequence[str], *args: object) -> None:
        calls.append(len(ids))
        upsert(self, ids, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ChromaStore, "upsert", counting_upsert)
    seen: list[int] = []
    report = build_index(
        settings.replace(embed_batch_size=2), embedder=CountingEmbedder(), progress=lambda d, t: seen.append(d)
    )
    assert report.embedded == 19 and calls == [19]
    assert seen == [0, 19]  # progress counts written papers only
    assert open_store(settings).open().count() == 19
