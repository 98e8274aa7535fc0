"""Every page after the first comes from PDFium (rag.corpus.pdf_pdfium), laid out as pypdf's layout mode lays it
out: the same sections, columns read one after the other, table rows kept apart, line-end hyphens undone, rotated
labels and figures left out; pypdf reads them when PDFium is not there."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rag.corpus import pdf_pdfium, read_papers
from rag.text import split_sentences
from tests import pdf_layouts as layouts
from tests.pdf_fixtures import full_paper


def _body(path: Path) -> list[tuple[int, str | None, str]]:
    (paper,) = read_papers([path], full_text=True)
    return [(s.page, s.heading, s.text) for s in paper.body]


def test_a_two_column_body_page_reads_column_by_column_with_rows_hyphens_and_no_rotated_label(tmp_path: Path) -> None:
    calls: list[int] = []
    layout_text = pdf_pdfium.layout_text

    def counted(page: object) -> str:
        calls.append(1)
        return layout_text(page)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pdf_pdfium, "layout_text", counted)
        body = _body(layouts.body_pages(tmp_path / "body.pdf"))
    assert len(calls) == 3  # pages 2 to 4: the first (title by type size, arXiv stamp, sidebar) stays with pypdf
    (results,) = [text for page, heading, text in body if heading == "2 Results"]
    (errors,) = [text for page, heading, text in body if heading == "3 Errors"]
    left, right = " ".join(layouts.LEFT_BODY), " ".join(layouts.RIGHT_BODY)
    left = left.replace("well- trained", "well-trained").replace("repre- sentation", "representation")
    assert left + " " + right in results  # was line by line across the columns when the file is read in order
    sentences = split_sentences(errors)
    # each row under its column's name (rag.corpus.pdf_tables)
    assert "ResNet-50 | Top-1 76.1 | Params 25.6." in sentences
    assert "DenseNet-121 | Top-1 74.9 | Params 8.0." in sentences
    assert "bed error" not in errors


@pytest.mark.parametrize("make", [layouts.body_pages, layouts.with_running_lines, layouts.thesis, full_paper])
def test_pdfium_and_pypdf_read_the_same_sections_and_text(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path / "paper.pdf")
    fast = _body(path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "pypdfium2", None)  # not installed: every page is read with pypdf
        slow = _body(path)
    assert [(p, h) for p, h, _ in fast] == [(p, h) for p, h, _ in slow]
    assert [t for _, _, t in fast] == [t for _, _, t in slow]


def test_a_figure_drawn_as_a_form_xobject_is_left_out_of_the_body(tmp_path: Path) -> None:
    body = _body(layouts.with_figure(tmp_path / "figure.pdf"))
    assert [h for _, h, _ in body] == ["1 Introduction", "2 Results", "3 Errors"]  # was "4 validation loss ..."
    (errors,) = [text for _, heading, text in body if heading == "3 Errors"]
    assert "DenseNet-121 | Top-1 74.9 | Params 8.0." in split_sentences(errors)
    assert layouts.FIGURE_WORDS not in errors and "0.8" not in errors


def test_body_pages_drawn_whole_from_a_form_xobject_are_read_in_the_files_order(tmp_path: Path) -> None:
    body = _body(layouts.in_form_xobject(layouts.body_pages(tmp_path / "form.pdf")))
    text = " ".join(t for _, _, t in body)
    assert [h for _, h, _ in body][:1] == ["1 Introduction"]
    assert "twelve survey lines" in text and "DenseNet-121" in text and "74.9" in text
