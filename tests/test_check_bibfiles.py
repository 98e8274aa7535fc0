"""A draft's .bib files (rag.check.bibfiles): read the same way by `rag check` and the UI's upload field, bounded,
and a file that cannot be read is one line, never a traceback (issue 37 item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.check import bibfiles
from rag.check.bibfiles import BibError, not_given, read_bib
from tests.conftest import CLI, copy_home

REFS = ("@article{wells, title={Alberta Wells Dataset}, doi={10.48550/arXiv.2410.09032}}\n"
        "@misc{bench, title={PaperBench}, eprint={2504.01848}, archivePrefix={arXiv}}\n")  # fmt: skip


def test_a_bib_file_gives_reference_text_for_its_keys(tmp_path: Path):
    path = tmp_path / "refs.bib"
    path.write_text("\ufeff" + REFS, encoding="utf-8")
    bib = read_bib(path, "refs.bib")
    assert bib.name == "refs.bib" and bib.note is None
    assert bib.references == {"wells": "Alberta Wells Dataset doi:10.48550/arXiv.2410.09032",
                              "bench": "PaperBench arXiv:2504.01848"}  # fmt: skip


def test_a_bib_file_that_cannot_be_read_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    latin = tmp_path / "latin.bib"
    latin.write_bytes(b"@article{x, title={Caf\xe9}}\n")
    with pytest.raises(BibError, match=r"^latin.bib: not UTF-8 text \(byte 0xe9 at offset 22\); save the .bib file "
                       r"as UTF-8$"):  # fmt: skip
        read_bib(latin, "latin.bib")
    with pytest.raises(BibError, match=r"gone.bib: cannot read this .bib file \(No such file or directory\)$"):
        read_bib(tmp_path / "gone.bib", "gone.bib")
    monkeypatch.setattr(bibfiles, "MAX_BIB_BYTES", 100)
    big = tmp_path / "big.bib"
    big.write_text(REFS * 3, encoding="utf-8")
    with pytest.raises(BibError, match=r"^big.bib: larger than 0.0001 MB; not read as a .bib file$"):
        read_bib(big, "big.bib")


def test_malformed_entries_are_skipped_and_said_in_one_line(tmp_path: Path):
    path = tmp_path / "refs.bib"
    path.write_text("@article{broken, title={Unclosed\n\n" + REFS, encoding="utf-8")
    bib = read_bib(path, "refs.bib")
    assert bib.note is not None and bib.note.startswith("refs.bib: ")
    assert "\n" not in bib.note
    nothing = tmp_path / "notes.bib"
    nothing.write_text("This is not BibTeX at all.\n", encoding="utf-8")
    bib = read_bib(nothing, "notes.bib")
    assert bib.references == {} and bib.note == "notes.bib: no BibTeX entry could be read; its keys were not looked up"
    bad = tmp_path / "bad.bib"
    bad.write_text("@article{k, title = }\n" + REFS, encoding="utf-8")
    bib = read_bib(bad, "bad.bib")
    assert set(bib.references) == {"wells", "bench"}
    assert bib.note == ("bad.bib: 1 entry could not be read and was skipped (line 1: malformed @article entry: "
                        "field 'title' has no value); the other 2 were used")  # fmt: skip


def test_the_bib_files_a_draft_names_and_were_not_given_are_found_by_file_name():
    assert not_given(["refs.bib", "bib/more.bib"], ["/tmp/gradio/abc/refs.bib"]) == ["bib/more.bib"]
    assert not_given(["refs.bib"], ["/x/REFS.bib"]) == []
    assert not_given(["refs.bib", "refs.bib"], []) == ["refs.bib"]


def test_rag_check_says_a_bib_files_skipped_entries_and_refuses_one_it_cannot_read(
    rag_cli: CLI, check_library_home: Path, tmp_path: Path
):
    """`rag check --bib`: the same reader as the UI's upload. Skipped entries were dropped in silence before."""
    copy_home(check_library_home, rag_cli)  # tests/data/check/library.bib, indexed
    draft = tmp_path / "draft.md"
    draft.write_text("Our curated dataset comprises over 213,000 wells from Alberta [@wells].\n", encoding="utf-8")
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{k, title = }\n" + REFS, encoding="utf-8")
    code, out, err = rag_cli("check", str(draft), "--bib", str(bib), "--json")
    record = json.loads(out)
    assert code == 0, out + err
    assert [c["matched_by"] for s in record["sentences"] for c in s["cites"]] == ["doi"]
    assert record["notes"] == [f"{bib}: 1 entry could not be read and was skipped (line 1: malformed @article "
                               "entry: field 'title' has no value); the other 2 were used"]  # fmt: skip
    bib.write_bytes(b"@article{wells, title={Caf\xe9}}\n")
    code, out, err = rag_cli("check", str(draft), "--bib", str(bib))
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [f"error: {bib}: not UTF-8 text (byte 0xe9 at offset 26); save the .bib file "
                                        "as UTF-8"]  # fmt: skip
