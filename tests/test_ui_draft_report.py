"""The "Check a draft" tab's report, without a browser (issue 37 item 9; the page:
tests/test_ui_browser_draft_report.py): the Markdown `rag check --format markdown` writes
(rag.check.render.markdown_report), in a file only its owner reads.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rag.settings import Settings
from tests.test_ui_draft_bib import DRAFT, REFS, _bib
from tests.test_ui_draft_view import _labels, _Live
from ui.draft_view import DraftChecks, report_file


@pytest.fixture
def checks(assistant: object, bundled_settings: Settings) -> DraftChecks:
    return DraftChecks(_Live(assistant), bundled_settings)


def test_the_report_is_the_clis_markdown_with_each_sentences_label(checks: DraftChecks, tmp_path: Path) -> None:
    html, text = checks.report(DRAFT, None, False, None, [_bib(tmp_path, REFS)])
    labels = _labels(html)
    assert text.startswith("# Manuscript check: draft\n")
    for n, label in enumerate(labels, 1):
        assert f"\n{n}. " in text and f"**{label}**" in text.split(f"\n{n}. ", 1)[1].split("\n", 1)[0]
    assert checks.check(DRAFT, None, False, None, [_bib(tmp_path, REFS)]) == html  # the page is as before


def test_no_report_when_there_is_only_a_message(checks: DraftChecks) -> None:
    html, text = checks.report("", None)
    assert "dc-message" in html and text == ""


def test_the_report_file_is_the_owners_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))
    path = Path(report_file("# Manuscript check: draft\n"))
    assert path.name == "draft-check.md" and path.read_text(encoding="utf-8") == "# Manuscript check: draft\n"
    assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0
