"""Issue 35 items 6 and 3: a full-text build with the "mixed" sentence pass (the abstract's sentences encoded on their
own, body windows pooled from the chunk's pass), each file read once per build, and the reading bar naming each
file as it starts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.adapters.fakes import HashEmbedder
from rag.corpus import iter_papers
from rag.factory import layout_of
from rag.index.docstore import DocStore
from rag.index.late_chunking import AUTO_CHUNK_PAPERS, effective_pass, is_abstract, pooled_for
from rag.index.paper_spool import PaperSpool
from rag.settings import Settings
from rag.text import split_sentences
from rag.types import Chunk, Paper, Section
from tests import pdf_fixtures as pdfs


def test_auto_takes_the_mixed_pass_for_a_small_full_text_library_only(minilm: object) -> None:
    below = AUTO_CHUNK_PAPERS - 1
    assert effective_pass(minilm, "auto", below, full_text=True) == "mixed"  # type: ignore[arg-type]
    assert effective_pass(minilm, "auto", below, full_text=False) == "own"  # type: ignore[arg-type]
    assert effective_pass(minilm, "auto", AUTO_CHUNK_PAPERS, full_text=True) == "chunk"  # type: ignore[arg-type]
    assert effective_pass(HashEmbedder(), "mixed", 3, full_text=True) == "own"  # cannot pool token spans


def test_the_mixed_pass_pools_body_windows_only() -> None:
    abstract = Chunk("p:0", "p", 0, "An abstract.", 3, "h")
    body = Chunk("p:1", "p", 1, "A body window.", 4, "h2", page=3, page_end=3, section="2 Method")
    assert is_abstract(abstract) and not is_abstract(body)
    assert [pooled_for(c, "mixed") for c in (abstract, body)] == [False, True]
    assert [pooled_for(c, "chunk") for c in (abstract, body)] == [True, True]
    assert [pooled_for(c, "own") for c in (abstract, body)] == [False, False]


def test_a_full_text_build_keeps_the_abstracts_own_sentence_vectors_and_pools_the_body(
    settings: Settings, minilm: object, tmp_path: Path
) -> None:
    from rag.factory import build_index

    papers = tmp_path / "papers"
    papers.mkdir()
    pdfs.full_paper(papers / "glacier.pdf")
    full = settings.replace(full_text=True)
    build_index(full, [papers], embedder=minilm)  # type: ignore[arg-type]
    docs = DocStore.load(layout_of(full).docs_dir)
    assert docs is not None and docs.info["sentence_pass"] == "mixed"
    chunks = [docs.get(cid) for cid in docs.ids]
    abstract = [c for c in chunks if c is not None and c.metadata.get("page") is None]
    body = [c for c in chunks if c is not None and c.metadata.get("page")]
    assert len(abstract) == 1 and len(body) >= 2

    def own_cosines(chunk_id: str, text: str) -> np.ndarray:
        stored = docs.sentence_vectors(chunk_id)
        own = np.asarray(minilm.embed_batch(split_sentences(text)), dtype=np.float32)  # type: ignore[attr-defined]
        assert stored is not None and stored.shape == own.shape
        return np.sum(stored.astype(np.float32) * own, axis=1)

    assert own_cosines(abstract[0].id, abstract[0].text).min() > 0.99  # encoded on their own (stored as float16)
    pooled = np.concatenate([own_cosines(c.id, c.text) for c in body])
    assert pooled.min() < 0.99  # pooled from the window's pass: near their own encodings, not equal


def test_a_full_text_build_reads_the_files_once_and_an_abstract_build_twice(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rag.index.indexer as indexer
    from rag.factory import build_index

    papers = tmp_path / "papers"
    papers.mkdir()
    pdfs.full_paper(papers / "glacier.pdf")
    reads: list[object] = []

    def counted(*args: object, **kwargs: object) -> object:
        reads.append(args)
        return iter_papers(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(indexer, "iter_papers", counted)
    full = settings.replace(full_text=True)
    report = build_index(full, [papers], embedder=HashEmbedder())
    assert len(reads) == 1 and report.chunks >= 3
    stored = DocStore.load(layout_of(full).docs_dir)
    assert stored is not None and len(stored) == report.chunks
    reads.clear()
    build_index(settings.replace(home=tmp_path / "other"), [papers], embedder=HashEmbedder())
    assert len(reads) == 2  # abstract-only libraries stream their files in both passes, as before


def test_the_spool_gives_back_the_papers_it_kept_in_order() -> None:
    papers = [Paper(f"p{i}", f"Title {i}", f"Abstract {i}.", body=(Section(2, "1 Intro", f"Body {i}."),))
              for i in range(3)]  # fmt: skip
    spool = PaperSpool()
    try:
        assert list(spool.keep(iter(papers))) == papers and spool.kept
        assert list(spool.replay()) == papers
        assert list(spool.replay()) == papers  # a second replay starts from the top
    finally:
        spool.close()


def test_the_reading_progress_names_each_file_as_it_starts(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.jsonl").write_text(
            f'{{"id": "{name}", "title": "T {name}", "abstract": "An abstract."}}\n'
        )
    seen: list[str] = []
    list(iter_papers([tmp_path], progress=lambda done, total, papers, current: seen.append(current)))
    assert seen[0] == "1/2 a.jsonl" and "2/2 b.jsonl" in seen and seen.index("2/2 b.jsonl") > 0
