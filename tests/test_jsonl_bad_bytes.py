"""Issue 33 item 6: a JSON Lines record whose bytes are not UTF-8 (a lone surrogate written with surrogatepass, as a
property test found in a DOI) is one bad record: `--skip-bad` skips it and keeps the rest; without it, the error
names the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.corpus import read_papers
from rag.errors import CorpusError
from tests.conftest import CLI

GOOD = {"id": "a", "title": "Lakes", "abstract": "We survey lakes and rivers over many years in the north."}
SURROGATE = "\ud800".encode("utf-8", "surrogatepass")
BAD = {"id": "b", "title": "Birds", "abstract": "Bird songs in forests.", "doi": "10.1234/abc\ud800"}


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "papers.jsonl"
    lines = [json.dumps(GOOD).encode(), json.dumps(BAD, ensure_ascii=False).encode("utf-8", "surrogatepass"),
             json.dumps({**GOOD, "id": "c"}).encode()]  # fmt: skip
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_skip_bad_skips_only_the_record_that_is_not_utf8(tmp_path: Path) -> None:
    skipped: list[str] = []
    papers = read_papers([_file(tmp_path)], on_error="skip", warn=skipped.append)
    assert [p.id for p in papers] == ["a", "c"]
    assert len(skipped) == 1 and ":2: not UTF-8 text (a lone surrogate" in skipped[0]


def test_without_skip_bad_the_error_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match=r"papers\.jsonl:2: not UTF-8 text"):
        read_papers([_file(tmp_path)])


def _corpus(tmp_path: Path, bad_at: int) -> Path:
    """Three records, the one at line `bad_at` holding the encoded lone surrogate."""
    records = [GOOD, {**GOOD, "id": "c", "abstract": "Rivers carry sediment to the sea in spring floods."}]
    records.insert(bad_at - 1, BAD)
    path = tmp_path / "papers.jsonl"
    path.write_bytes(b"".join(json.dumps(r, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
                              for r in records))  # fmt: skip
    return path


@pytest.mark.parametrize("bad_at", [1, 2, 3], ids=["first", "middle", "last"])
def test_rag_index_skip_bad_indexes_the_good_records_wherever_the_bad_one_is(
    rag_cli: CLI, tmp_path: Path, bad_at: int
) -> None:
    """The first record is also the one the format is recognised by: a bad one there used to refuse the whole file."""
    path = _corpus(tmp_path, bad_at)
    code, out, err = rag_cli("index", str(path), "--skip-bad")
    assert code == 0, err
    assert "Traceback" not in err and out.startswith("indexed 2 papers: ")
    offset = path.read_bytes().index(SURROGATE)
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert warnings == [f"warning: {path}:{bad_at}: not UTF-8 text (a lone surrogate at offset {offset})"]
    code, out, _ = rag_cli("export")
    assert code == 0 and sorted(json.loads(line)["id"] for line in out.splitlines()) == ["a", "c"]


@pytest.mark.parametrize("bad_at", [1, 3], ids=["first", "last"])
def test_rag_index_without_skip_bad_fails_in_one_line_naming_the_record(
    rag_cli: CLI, tmp_path: Path, bad_at: int
) -> None:
    path = _corpus(tmp_path, bad_at)
    code, out, err = rag_cli("index", str(path))
    assert code == 2 and out == "" and "Traceback" not in err
    lines = [line for line in err.splitlines() if not line.startswith("reading ")]
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}:{bad_at}: not UTF-8 text (a lone surrogate"), err
