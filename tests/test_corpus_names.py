"""Issue 24 item 3: odd names and links in an indexed folder.

- A file name holding a byte that is not UTF-8 (`caf\\xe9.jsonl`, as a Latin-1 system writes it) is read like any
  other file and named in messages and in the index as `caf\\xe9.jsonl`; the index is never half-written by it and
  the next run finds everything unchanged (before: a traceback from the docstore after the store was written, and
  every later run failed the same way until the file was renamed).
- A symbolic link to a folder of papers is followed (before: passed over in silence; one that leads out of the
  indexed folder only with --follow-links since round 4: tests/test_corpus_links.py); a link that leads back into
  a folder already read (a loop, or the same folder twice) is not followed again, with one warning.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rag.corpus import read_papers
from rag.errors import CorpusError
from tests.conftest import CLI

LATIN1_NAME = b"caf\xe9"  # "café" in Latin-1: not UTF-8


def _write(path: Path | bytes, *ids: str) -> None:
    lines = "".join(json.dumps({"id": i, "title": f"Paper {i}", "abstract": f"Glaciers in study {i} melt fast."}) + "\n"
                    for i in ids)  # fmt: skip
    with open(path, "w", encoding="utf-8") as f:
        f.write(lines)


def _latin1_folder(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "papers"
    folder.mkdir()
    _write(folder / "good.jsonl", "good-1", "good-2")
    odd = os.fsencode(folder) + b"/" + LATIN1_NAME + b".jsonl"
    _write(odd, "odd-1")
    return folder, Path(os.fsdecode(odd))


def test_a_file_name_that_is_not_utf8_is_read_and_named_cleanly(tmp_path: Path) -> None:
    folder, odd = _latin1_folder(tmp_path)
    papers = read_papers([folder])
    assert sorted(p.id for p in papers) == ["good-1", "good-2", "odd-1"]
    source = next(p.source for p in papers if p.id == "odd-1")
    assert source == f"{folder}/caf\\xe9.jsonl"  # the byte, named; text any tool can print and store
    source.encode("utf-8")

    with open(odd, "a", encoding="utf-8") as f:  # a bad record in it: the message names the file the same way
        f.write("{not json\n")
    with pytest.raises(CorpusError) as info:
        read_papers([folder])
    assert str(info.value).startswith(f"{folder}/caf\\xe9.jsonl:2: invalid JSON")


def test_rag_index_of_a_folder_with_such_a_name_indexes_it_and_the_next_run_is_unchanged(
    tmp_path: Path, rag_cli: CLI
) -> None:
    folder, _ = _latin1_folder(tmp_path)
    code, out, err = rag_cli("index", str(folder))
    assert code == 0, err
    assert "Traceback" not in err
    assert f"reading {folder}/caf\\xe9.jsonl as JSON Lines" in err
    assert out.startswith("indexed 3 papers: 3 chunks, 3 embedded")
    code, out, err = rag_cli("index", str(folder))
    assert code == 0, err
    assert out.startswith("indexed 3 papers: 3 chunks, 0 embedded, 3 unchanged, 0 removed"), out
    code, out, err = rag_cli("search", "glaciers in study odd-1", "--json")
    assert code == 0 and "odd-1" in out, err
    code, out, err = rag_cli("index", "--verify")
    assert code == 0 and "agree" in out, (out, err)


def test_a_linked_folder_of_papers_is_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "2024"
    elsewhere.mkdir(parents=True)
    _write(elsewhere / "more.jsonl", "linked-1")
    lib = tmp_path / "lib"
    lib.mkdir()
    _write(lib / "own.jsonl", "own-1")
    (lib / "shared").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    warnings: list[str] = []
    # it leads out of lib: followed when asked (round 4 item 1: tests/test_corpus_links.py has the rest)
    papers = read_papers([lib], warn=warnings.append, follow_links=True)
    assert sorted(p.id for p in papers) == ["linked-1", "own-1"]
    assert next(p.source for p in papers if p.id == "linked-1") == str(lib / "shared" / "2024" / "more.jsonl")
    assert warnings == []


def test_a_link_loop_or_a_folder_linked_twice_is_read_once_with_a_warning(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    (lib / "sub").mkdir(parents=True)
    _write(lib / "a.jsonl", "a-1")
    _write(lib / "sub" / "b.jsonl", "b-1")
    (lib / "sub" / "up").symlink_to(lib, target_is_directory=True)  # a loop
    (lib / "again").symlink_to(lib / "sub", target_is_directory=True)  # the same folder a second time
    warnings: list[str] = []
    papers = read_papers([lib], warn=warnings.append)  # "stop" mode: a loop is no error, nothing is lost
    assert sorted(p.id for p in papers) == ["a-1", "b-1"]
    assert sorted(warnings) == [
        f"{lib / 'again'}: a link to {lib / 'sub'}, which is read already; not followed",
        f"{lib / 'sub' / 'up'}: a link to {lib}, which is read already; not followed",
    ]


def test_a_pdf_heading_with_an_undecodable_character_is_cleaned() -> None:
    from rag.corpus.paper_fields import build_paper
    from rag.types import Section

    body = [Section(2, "3 Method\udce9\x07", "We train the model."), Section(3, None, "Results follow.")]
    paper = build_paper({"id": "p1", "abstract": "An abstract.", "body": body}, Path("p.pdf"), 10_000)
    assert [s.heading for s in paper.body] == ["3 Method", None]


def test_text_that_cannot_be_stored_stops_the_run_before_anything_is_written(
    tmp_path: Path, rag_cli: CLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The indexer's error path: whatever a reader lets through, a chunk whose text or metadata cannot be written
    as UTF-8 is found in the first pass (nothing written yet), named in one line; before, the docstore raised
    UnicodeEncodeError in the second pass, after the store had been written."""
    import rag.index.indexer as indexer

    folder = tmp_path / "papers"
    folder.mkdir()
    _write(folder / "a.jsonl", "good-1", "bad-1")
    real = indexer.chunk_metadata

    def leaky(paper, chunk, **kwargs):  # type: ignore[no-untyped-def]
        meta = real(paper, chunk, **kwargs)
        return {**meta, "section": "Intro\udce9"} if paper.id == "bad-1" else meta

    monkeypatch.setattr(indexer, "chunk_metadata", leaky)
    code, out, err = rag_cli("index", str(folder))
    assert code == 2 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == (
        f"error: {folder}/a.jsonl: paper 'bad-1' holds text that cannot be stored as UTF-8 (section: 'Intro\\udce9'); "
        "nothing was written"
    )
    assert not (rag_cli.home / "index" / "docs-papers").exists()
    assert not (rag_cli.home / "index" / "papers.updating").exists()
