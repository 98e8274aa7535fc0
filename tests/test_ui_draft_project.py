"""The "Check a draft" tab and a LaTeX project uploaded as several files (issue 37 item 4): its \\input's are read
the way `rag check main.tex` reads them (rag.check.includes, with the same bounds), from the uploaded files placed
where the main file names them; nothing outside the upload is read, and what cannot be used is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.settings import Settings
from tests.test_ui_draft_bib import REFS, _bib, _why
from tests.test_ui_draft_view import _labels, _Live
from ui.draft_view import DraftChecks

MAIN = ("\\documentclass{article}\n\\begin{document}\n\\input{sections/intro}\n\\input{results.tex}\n"
        "% \\input{old}\n\\bibliography{refs}\n\\end{document}\n")  # fmt: skip
INTRO = ("\\section{Introduction}\n\nOur curated dataset comprises over 213,000 wells from Alberta "
         "\\cite{seth2025wells}.\n")  # fmt: skip
RESULTS = "PaperBench contains 8,316 individually gradable tasks \\cite{starace2025bench}.\n"


@pytest.fixture
def checks(assistant: object, bundled_settings: Settings) -> DraftChecks:
    return DraftChecks(_Live(assistant), bundled_settings)


def _upload(tmp_path: Path, files: dict[str, str | bytes]) -> list[str]:
    """Each file as gradio stores an upload: its name kept, in a folder of its own."""
    out = []
    for n, (name, text) in enumerate(files.items()):
        path = tmp_path / "upload" / str(n) / name
        path.parent.mkdir(parents=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        out.append(str(path))
    return out


def test_an_uploaded_latex_project_is_checked_with_its_inputs(checks: DraftChecks, tmp_path: Path):
    files = _upload(tmp_path, {"intro.tex": INTRO, "main.tex": MAIN, "results.tex": RESULTS})
    html = checks.check(None, files, False, None, [_bib(tmp_path, REFS)])
    assert _labels(html) == ["supported", "supported"]
    assert "sections/intro.tex:3" in html and "results.tex:1" in html  # each sentence where it is in the project
    assert str(tmp_path) not in html and "/tmp" not in html  # no server path on the page
    assert "included files are not read" not in html and _why(html) is None
    without_bib = checks.check(None, files)
    assert _why(without_bib) == ("This draft names a bibliography (refs.bib) that was not uploaded: 2 keys could not "
                                 "be looked up. Add the .bib file above.")  # fmt: skip


def test_a_project_file_missing_from_the_upload_is_a_note(checks: DraftChecks, tmp_path: Path):
    html = checks.check(None, _upload(tmp_path, {"main.tex": MAIN, "results.tex": RESULTS}))
    assert _labels(html) == ["not in library"]
    assert "sections/intro.tex: not found, not checked" in html
    # one .tex alone is a draft without its folder, as before: its inputs are not read, and the note says what to do
    one = checks.check(None, _upload(tmp_path / "one", {"main.tex": MAIN + RESULTS.replace("\n", "")}))
    assert "included files are not read from a pasted or uploaded draft" in one
    assert "upload the main .tex file together with the files it includes" in one


def test_nothing_outside_the_upload_is_read(checks: DraftChecks, tmp_path: Path):
    secret = tmp_path / "etc" / "passwd.tex"
    secret.parent.mkdir()
    secret.write_text("Alberta wells leak methane into the groundwater at a large scale \\cite{x}.\n")
    main = MAIN.replace("\\input{results.tex}", "\\input{../../etc/passwd}\\input{/etc/hostname}")
    html = checks.check(None, _upload(tmp_path, {"main.tex": main, "intro.tex": INTRO, "passwd.tex": "A b c."}))
    assert "Alberta wells leak methane" not in html
    assert "\\input{../../etc/passwd}: outside the draft&#x27;s folder, not read" in html
    assert _labels(html) == ["not in library"]  # the intro only


def test_an_upload_that_is_no_project_is_one_line(checks: DraftChecks, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    def said(files: dict[str, str | bytes]) -> str:
        html = checks.check(None, _upload(tmp_path / str(len(list(tmp_path.iterdir()))), files))
        assert html.startswith('<div class="draft-check"><p class="dc-message" role="status">'), html
        return html

    assert "none of them has \\begin{document}" in said({"a.tex": INTRO, "b.tex": RESULTS})
    assert "more than one of them has \\begin{document}: a.tex, b.tex" in said({"a.tex": MAIN, "b.tex": MAIN})
    assert "notes.md: several files are a LaTeX project" in said({"main.tex": MAIN, "notes.md": "Text."})
    assert "intro.tex: not UTF-8 text" in said({"main.tex": MAIN, "intro.tex": b"caf\xe9"})
    assert "Two uploaded files are named intro.tex" in said({"main.tex": MAIN, "intro.tex": INTRO, "x/intro.tex": ""})
    monkeypatch.setattr("rag.check.includes.MAX_BYTES", 100)
    assert "larger than 0.0001 MB together" in said({"main.tex": MAIN, "intro.tex": INTRO})
    monkeypatch.setattr("rag.check.includes.MAX_FILES", 1)
    assert "more than 1 included files" in said({"main.tex": "x", "intro.tex": "y", "results.tex": "z"})
