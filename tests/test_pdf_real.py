"""Issue 35: PDFs as real papers lay them out (tests/pdf_layouts.py): text inside Form XObjects, arXiv's rotated
stamp, running headers, two-line titles, junk metadata titles, DOIs across lines, compound words at line ends,
the paper's own reference markers, and a thesis without an abstract."""

from __future__ import annotations

from pathlib import Path

from rag.corpus import read_papers
from tests import pdf_layouts as layouts
from tests.pdf_fixtures import GLACIER_ABSTRACT


def test_a_page_drawn_from_a_form_xobject_is_read_in_plain_mode(tmp_path: Path) -> None:
    path = layouts.in_form_xobject(layouts.arxiv_paper(tmp_path / "form.pdf"))
    (paper,) = read_papers([path], full_text=True)  # was: "no text layer (a scanned PDF?)"
    assert paper.abstract == GLACIER_ABSTRACT
    assert paper.body and paper.body[0].heading == "1 Introduction" and "Ice sheets lose mass" in paper.body[0].text


def test_the_rotated_arxiv_stamp_gives_the_id_and_the_year(tmp_path: Path) -> None:
    (paper,) = read_papers([layouts.arxiv_paper(tmp_path / "stamped.pdf")])
    assert (paper.arxiv_id, paper.year) == ("2401.01234", 2024)  # was (None, None): --year-min hid every PDF
    (paper,) = read_papers([layouts.in_form_xobject(layouts.arxiv_paper(tmp_path / "form.pdf"))])
    assert (paper.arxiv_id, paper.year) == ("2401.01234", 2024)
