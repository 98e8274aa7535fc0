"""The "Check a draft" tab and the draft's bibliography, without a browser (issue 37 item 4; the page itself:
tests/test_ui_browser_draft_bib.py). A pasted draft whose keys resolve through `bibliography: refs.bib` showed
every sentence as "not in library" and never said why: the tab now takes the .bib files, reads them as `rag check`
does (rag.check.bibfiles), and says on the page why keys did not resolve."""

from __future__ import annotations

import html as html_module
import re
from pathlib import Path

import pytest

from rag.settings import Settings
from tests.test_ui_draft_view import _labels, _Live
from ui.draft_view import DraftChecks

# the bundled corpus's papers under ids icml2025-NN: these keys resolve only through the draft's .bib
DRAFT = """---
title: Notes on datasets
bibliography: refs.bib
---

Our curated dataset comprises over 213,000 wells from Alberta [@seth2025wells].
PaperBench contains 8,316 individually gradable tasks [@starace2025bench].
Under an equal parameter constraint, deeper networks exhibit better plasticity, while wider networks are \
characterized by superior stability [@lu2025arch].
The best-performing tested agent achieves an average replication score of 21.0% [@starace2025bench].
"""
REFS = """@inproceedings{seth2025wells, title = {Alberta Wells Dataset: Pinpointing Oil and Gas Wells from Satellite
  Imagery}, doi = {10.48550/arXiv.2410.09032}}
@inproceedings{starace2025bench, title = {PaperBench: Evaluating AI's Ability to Replicate AI Research},
  eprint = {2504.01848}, archivePrefix = {arXiv}}
@inproceedings{lu2025arch, title = {Rethinking the Stability-Plasticity Trade-off in Continual Learning from an
  Architectural Perspective}}
"""
NOT_UPLOADED = ("This draft names a bibliography (refs.bib) that was not uploaded: 3 keys could not be looked up. "
                "Add the .bib file above.")  # fmt: skip


@pytest.fixture
def checks(assistant: object, bundled_settings: Settings) -> DraftChecks:
    return DraftChecks(_Live(assistant), bundled_settings)


def _why(html: str) -> str | None:
    m = re.search(r'<p class="dc-why" role="note">(.*?)</p>', html)
    return html_module.unescape(m.group(1)) if m else None


def _bib(tmp_path: Path, text: str | bytes, name: str = "refs.bib") -> str:
    folder = tmp_path / str(len(list(tmp_path.iterdir())))  # gradio keeps the name, in a folder of its own
    folder.mkdir()
    path = folder / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return str(path)


def test_a_draft_whose_bibliography_was_not_uploaded_says_why_its_keys_did_not_resolve(checks: DraftChecks):
    html = checks.check(DRAFT, None)
    assert _labels(html) == ["not in library"] * 4
    assert _why(html) == NOT_UPLOADED  # said on the page, not left to guess (before: nothing)


def test_the_uploaded_bib_resolves_the_drafts_keys(checks: DraftChecks, tmp_path: Path):
    html = checks.check(DRAFT, None, False, None, [_bib(tmp_path, REFS)])
    assert "not in library" not in _labels(html) and len(_labels(html)) == 4
    assert _labels(html)[:2] == ["supported", "supported"]
    assert re.findall(r'class="dc-how">by (\w+)', html) == ["arxiv", "arxiv", "title", "arxiv"]  # the DOI's arXiv id
    assert _why(html) is None and "Not in the library" not in html
    # an uploaded draft names its bibliography too; its upload is found by file name
    draft = tmp_path / "notes.md"
    draft.write_text(DRAFT, encoding="utf-8")
    assert _why(checks.check(None, str(draft))) == NOT_UPLOADED
    assert "not in library" not in _labels(checks.check(None, str(draft), False, None, [_bib(tmp_path, REFS)]))


def test_a_pasted_latex_draft_names_its_bibliography_the_latex_way(checks: DraftChecks, tmp_path: Path):
    tex = ("\\documentclass{article}\n\\begin{document}\nOur curated dataset comprises over 213,000 wells from "
           "Alberta \\cite{seth2025wells}.\n\\bibliography{refs}\n\\end{document}\n")  # fmt: skip
    assert _why(checks.check(tex, None)) == ("This draft names a bibliography (refs.bib) that was not uploaded: 1 key "
                                             "could not be looked up. Add the .bib file above.")  # fmt: skip
    assert _labels(checks.check(tex, None, False, None, [_bib(tmp_path, REFS)])) == ["supported"]


def test_every_other_reason_a_key_did_not_resolve_is_said(checks: DraftChecks, tmp_path: Path):
    plain = "Our curated dataset comprises over 213,000 wells from Alberta [@seth2025wells].\n"
    assert _why(checks.check(plain, None)) == (
        "1 key could not be looked up: it is not an id in the library, and no .bib file was uploaded to look it up "
        "by DOI, arXiv id or title. Add the draft's .bib file above.")  # fmt: skip
    other = _bib(tmp_path, "@article{x, title={Something else entirely, not in the library}}\n", "other.bib")
    assert _why(checks.check(DRAFT, None, False, None, [other])) == NOT_UPLOADED  # the wrong file
    extra = ("Integrating auxiliary classifiers yields an average 10% relative gain [@nobody2020].\n"
             "Zebra stripes reduce giraffe decoherence [@x].\n")  # fmt: skip
    html = checks.check(DRAFT + extra, None, False, None, [_bib(tmp_path, REFS), other])
    assert _why(html) == ("1 key could not be looked up: nobody2020 is not an id in the library nor an entry of the "
                          "uploaded refs.bib, other.bib. x is in other.bib, but no library paper has its DOI, arXiv "
                          "id or title.")  # fmt: skip
    assert _why(checks.check("Alberta has many wells with methane leaks [1].\n", None)) is None  # no list: its reason


def test_a_bib_file_that_cannot_be_read_is_one_line_on_the_page(checks: DraftChecks, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    html = checks.check(DRAFT, None, False, None, [_bib(tmp_path, b"@article{a, title={Caf\xe9}}\n")])
    assert html == ('<div class="draft-check"><p class="dc-message" role="status">refs.bib: not UTF-8 text (byte '
                    "0xe9 at offset 22); save the .bib file as UTF-8, or remove it to check the draft without it."
                    "</p></div>")  # fmt: skip
    broken = _bib(tmp_path, "@article{k, title = }\n" + REFS)
    html = checks.check(DRAFT, None, False, None, [broken])
    assert "not in library" not in _labels(html)  # the entries that could be read are used ...
    assert ("<li>refs.bib: 1 entry could not be read and was skipped (line 1: malformed @article entry: field "
            "&#x27;title&#x27; has no value); the other 3 were used</li>") in html  # ... and the others said
    monkeypatch.setattr("rag.check.bibfiles.MAX_BIB_BYTES", 100)
    html = checks.check(DRAFT, None, False, None, [_bib(tmp_path, REFS)])
    assert "refs.bib: larger than 0.0001 MB; not read as a .bib file" in html and "dc-list" not in html
    monkeypatch.setattr("ui.draft_bib.MAX_BIB_FILES", 2)
    many = [_bib(tmp_path, REFS, f"r{i}.bib") for i in range(3)]
    assert "At most 2 .bib files can be uploaded" in checks.check(DRAFT, None, False, None, many)
    assert "Traceback" not in html
