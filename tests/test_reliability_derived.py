"""Derived files are checked, not trusted (issue 14 item 7): a docstore or BM25 file that was edited, zeroed or
truncated never gives a wrong answer or a traceback. Opening checks sizes and checksums (rag.index.integrity)
and rebuilds a failed copy from the vector store, with one note; `rag index` checks every byte and rebuilds what
fails instead of reporting it "unchanged"."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from rag.index.integrity import FULL_HASH_BYTES, problem, write_manifest
from tests.reliability_helpers import WELLS, run_rag

WRONG = "999,999"  # same length as 213,000: an edit that keeps every size


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "edit":
        assert b"213,000" in data
        path.write_bytes(data.replace(b"213,000", WRONG.encode()))
    elif how == "zero":
        path.write_bytes(b"\0" * len(data))
    elif how == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif how == "swap-ids":
        meta = json.loads(data)
        meta["ids"][0], meta["ids"][1] = meta["ids"][1], meta["ids"][0]  # rows now say the wrong paper
        path.write_text(json.dumps(meta))
    elif how == "delete":
        path.unlink()
    else:
        raise AssertionError(how)


DAMAGE = [
    ("docs", "docs.jsonl", "edit"), ("docs", "docs.jsonl", "zero"), ("docs", "docs.jsonl", "truncate"),
    ("docs", "vectors.npy", "zero"), ("docs", "vectors.npy", "truncate"), ("docs", "offsets.npy", "zero"),
    ("docs", "ids.json", "swap-ids"), ("docs", "integrity.json", "delete"),
    ("bm25", "vocab.index.json", "truncate"), ("bm25", "data.csc.index.npy", "zero"), ("bm25", "ids.json", "swap-ids"),
]  # fmt: skip


def _answer_is_right(indexed_cli) -> dict:
    record = indexed_cli.ask_json(WELLS)
    assert "213,000" in record["answer"] and WRONG not in record["answer"], record["answer"]
    assert record["citations"][0]["paper_id"] == "icml2025-00"
    code, out, err = indexed_cli("search", "Alberta oil and gas wells", "--json", "-k", "3")
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["hits"][0]["paper_id"] == "icml2025-00"
    return record


@pytest.mark.parametrize(("kind", "name", "how"), DAMAGE, ids=[f"{k}-{n}-{h}" for k, n, h in DAMAGE])
def test_a_damaged_derived_file_gives_no_wrong_answer_and_no_traceback(
    indexed_cli, caplog: pytest.LogCaptureFixture, kind: str, name: str, how: str
) -> None:
    directory = indexed_cli.home / "index" / f"{kind}-papers"
    _damage(directory / name, how)
    caplog.set_level(logging.WARNING)
    _answer_is_right(indexed_cli)
    notes = [r.getMessage() for r in caplog.records if "rebuilding it" in r.getMessage()]
    assert len(notes) == 1 and str(directory) in notes[0], notes  # one line says what failed and what it did
    assert problem(directory, None, full=True) is None  # rebuilt on disk, from the store
    caplog.clear()
    _answer_is_right(indexed_cli)
    assert not [r for r in caplog.records if "rebuilding it" in r.getMessage()]  # once, not at every start


@pytest.mark.parametrize("how", ["edit", "zero", "truncate"])
def test_rag_index_rebuilds_a_damaged_docstore_instead_of_keeping_it(indexed_cli, how: str) -> None:
    docs = indexed_cli.home / "index" / "docs-papers" / "docs.jsonl"
    _damage(docs, how)
    code, out, err = indexed_cli("index")
    assert code == 0, err
    assert "indexed 19 papers" in out and "0 embedded" in out  # nothing re-embedded: vectors come from the store
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "docstore" in warnings[0] and "failed its check" in warnings[0], err
    assert b"213,000" in docs.read_bytes() and WRONG.encode() not in docs.read_bytes()


@pytest.mark.slow
def test_the_note_reaches_the_terminal_of_a_real_rag_ask(tmp_path: Path, bundled_home: Path) -> None:
    home = shutil.copytree(bundled_home, tmp_path / "home")
    _damage(home / "index" / "docs-papers" / "docs.jsonl", "edit")
    proc = run_rag(["ask", WELLS, "--llm", "extractive"], home)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert "213,000" in proc.stdout and WRONG not in proc.stdout
    notes = [line for line in proc.stderr.splitlines() if "failed its check" in line]
    assert len(notes) == 1 and "docs.jsonl does not match its checksum" in notes[0], proc.stderr


def test_checksums_of_large_files_are_sampled_at_open_and_whole_when_asked(tmp_path: Path) -> None:
    directory = tmp_path / "d"
    directory.mkdir()
    big = directory / "big.bin"
    big.write_bytes(bytes(range(256)) * (FULL_HASH_BYTES // 256 + 4096))
    write_manifest(directory, "fp")
    assert problem(directory, "fp", full=False) is None and problem(directory, "other", full=False)
    with big.open("r+b") as f:  # one byte between the sampled blocks
        f.seek(FULL_HASH_BYTES // 2 + 12345)
        f.write(b"\xff")
    assert problem(directory, "fp", full=False) is None  # the quick check at open cannot see it...
    assert problem(directory, "fp", full=True) == "big.bin does not match its checksum"  # ...rag index does
    with big.open("r+b") as f:
        f.seek(0)
        f.write(b"\xff")
    assert problem(directory, "fp", full=False) == "big.bin does not match its checksum"


# --- rag index --verify ------------------------------------------------------------------------------------------
def test_verify_says_so_when_everything_agrees(indexed_cli) -> None:
    code, out, err = indexed_cli("index", "--verify")
    assert (code, out.strip(), err) == (0, "verified: the store, BM25 and the docstore agree (19 chunks)", "")


def test_verify_compares_rows_with_the_store_and_repairs_them(indexed_cli) -> None:
    """A docstore edited and given a fresh checksum passes the checksum: only the comparison with the store,
    row by row, can find it."""
    docs = indexed_cli.home / "index" / "docs-papers"
    fp = json.loads((docs / "ids.json").read_text())["fingerprint"]
    _damage(docs / "docs.jsonl", "edit")
    write_manifest(docs, fp)
    code, out, err = indexed_cli("index", "--verify")
    assert code == 0, err
    assert out.splitlines() == [
        "found: docstore: 1 rows differ from the store (e.g. icml2025-00:0)",
        "repaired: rebuilt BM25 and the docstore from the store's 19 chunks",
    ]
    _answer_is_right(indexed_cli)
    assert indexed_cli("index", "--verify")[1].startswith("verified:")


def test_verify_repairs_a_missing_bm25_and_a_wrong_fingerprint_record(indexed_cli) -> None:
    from rag.factory import open_store
    from rag.settings import load_settings

    shutil.rmtree(indexed_cli.home / "index" / "bm25-papers")
    open_store(load_settings(home=indexed_cli.home, env={})).open().update_info(lexical_fingerprint="bogus")
    code, out, err = indexed_cli("index", "--verify")
    assert code == 0, err
    assert "found: store: the fingerprint recorded on the collection (bogus) is not its chunks'" in out
    assert "found: BM25 index: missing or unreadable" in out
    assert "repaired: recorded the chunks' fingerprint on the collection" in out
    assert indexed_cli("index", "--verify")[1].startswith("verified:")
    _answer_is_right(indexed_cli)


def test_verify_reports_an_unfinished_update_it_cannot_repair(indexed_cli) -> None:
    (indexed_cli.home / "index" / "papers.updating").write_text("killed\n")
    code, out, err = indexed_cli("index", "--verify")
    assert code == 1
    assert "error: an index update did not finish" in err and "run `rag index` with your sources" in err
    code, _, err = indexed_cli("index", "--verify", "data.jsonl")
    assert code == 2 and "--verify checks the index as it is" in err
