"""Issue 33 item 6: a JSON Lines record whose bytes are not UTF-8 (a lone surrogate written with surrogatepass, as a
property test found in a DOI) is one bad record: `--skip-bad` skips it and keeps the rest; without it, the error
names the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.corpus import read_papers
from rag.errors import CorpusError

GOOD = {"id": "a", "title": "Lakes", "abstract": "We survey lakes and rivers over many years in the north."}
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
