"""Issue 35: PDFs as real papers lay them out (tests/pdf_layouts.py): text inside Form XObjects, arXiv's rotated
stamp, running headers, two-line titles, junk metadata titles, DOIs across lines, compound words at line ends,
the paper's own reference markers, and a thesis without an abstract."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.corpus import read_papers
from rag.errors import CorpusError
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


FULL_TITLE = " ".join(layouts.TITLE_LINES)


def test_a_running_header_is_never_the_title_and_both_title_lines_are_kept(tmp_path: Path) -> None:
    (paper,) = read_papers([layouts.arxiv_paper(tmp_path / "iclr.pdf")])
    assert paper.title == FULL_TITLE  # was "Published as a conference paper at ICLR 2024", or the first line only
    (paper,) = read_papers([layouts.arxiv_paper(tmp_path / "plain.pdf", header=None, stamp=None)])
    assert paper.title == FULL_TITLE


def test_a_metadata_title_is_taken_only_when_page_one_shows_it(tmp_path: Path) -> None:
    (paper,) = read_papers([layouts.arxiv_paper(tmp_path / "junk.pdf", meta_title="JCB_201805123 1..12")])
    assert paper.title == FULL_TITLE  # a journal's internal file code is no title
    (paper,) = read_papers([layouts.arxiv_paper(tmp_path / "good.pdf", meta_title=FULL_TITLE.upper())])
    assert paper.title == FULL_TITLE.upper()  # it agrees with page 1: the producer's own text is kept


@pytest.mark.parametrize("heading", [True, False], ids=["under-heading", "bare-paragraph"])
def test_a_journal_abstract_leaves_out_authors_dates_and_licence(tmp_path: Path, heading: bool) -> None:
    (paper,) = read_papers([layouts.journal_article(tmp_path / "malaria.pdf", heading=heading)])
    assert paper.abstract == layouts.BIO_ABSTRACT  # "well-tolerated" keeps its hyphen across the line break
    assert paper.title == "Treated Bed Nets and Childhood Malaria in Two Districts: a Cohort Study"


def test_a_doi_broken_across_lines_is_whole(tmp_path: Path) -> None:
    (paper,) = read_papers([layouts.journal_article(tmp_path / "malaria.pdf", heading=True)])
    assert paper.doi == "10.1371/journal.pone.0254321"  # was "10.1371/journal": a broken link under every hit


def test_ligatures_are_unfolded_and_line_end_hyphens_undone_only_where_they_split_a_word(tmp_path: Path) -> None:
    from rag.corpus.pdf_abstract import find_abstract
    from rag.corpus.pdf_layout import reading_order

    lines = reading_order("Abstract\nWe ﬁnd that well-\ntrained repre-\nsentations of ﬂow are self-\nsupervised.")
    found = find_abstract(lines)
    assert found and found[0] == "We find that well-trained representations of flow are self-supervised."


def test_a_thesis_indexes_with_full_text_using_its_first_section_and_says_how_otherwise(tmp_path: Path) -> None:
    path = layouts.thesis(tmp_path / "thesis.pdf")
    (paper,) = read_papers([path], full_text=True)  # was: "no abstract found on the first pages", exit 2
    assert paper.title == "Carbon Loss from Drained Coastal Wetlands"
    assert paper.abstract == layouts.THESIS_OPENING
    assert [s.heading for s in paper.body][:1] == ["1 Introduction"] and paper.body[0].page == 4
    with pytest.raises(CorpusError) as info:
        read_papers([path])
    assert "no abstract found on the first pages" in str(info.value) and "--full-text" in str(info.value)


def test_full_text_leaves_out_running_headers_and_footers(tmp_path: Path) -> None:
    (paper,) = read_papers([layouts.with_running_lines(tmp_path / "running.pdf")], full_text=True)
    assert [(s.page, s.heading) for s in paper.body] == [(n, f"{n} {layouts.SECTIONS[n - 1]}") for n in range(1, 5)]
    text = " ".join(s.text for s in paper.body)
    assert "conference paper" not in text and "Journal of Glaciology" not in text
    assert text.startswith("The introduction says one thing")


def test_an_algorithm_line_is_no_section_heading() -> None:
    from rag.corpus.pdf_layout import heading_title

    assert heading_title("26 L =LX +λuLU +λrLreg //total loss") is None
    assert heading_title("4 W(2) = GMM(X,Y,θ(1))") is None
    assert heading_title("3.1 CO-DIVIDE BY LOSS MODELING") == "CO-DIVIDE BY LOSS MODELING"


def test_a_table_keeps_its_rows_apart_instead_of_a_soup_of_numbers(tmp_path: Path) -> None:
    from rag.text import split_sentences

    (paper,) = read_papers([layouts.with_table(tmp_path / "table.pdf")], full_text=True)
    (results,) = [s for s in paper.body if s.heading == "4 Results"]
    sentences = split_sentences(results.text)
    assert "ResNet-50 | Top-1 76.1 | Params 25.6." in sentences
    assert "DenseNet-121 | Top-1 74.9 | Params 8.0." in sentences
    assert "ResNet-50 76.1 25.6 DenseNet-121" not in results.text  # was the whole table as one run of numbers
    assert sentences[0] == "Table 1 compares the backbones on the survey lines."


def test_columns_that_layout_mode_ran_together_are_read_from_plain_mode() -> None:
    from rag.corpus.pdf_layout import columns_run_together

    left = [f"left column line {i:02} of the paper's text, set in the usual" for i in range(12)]
    right = [f"right column line {i:02} that layout mode glued onto the left" for i in range(12)]
    layout = "\n".join(a + b for a, b in zip(left, right, strict=True))  # no gutter: "...in theright column..."
    plain = "\n".join(left + right)
    assert columns_run_together(layout, plain)  # chubby.pdf page 3: lines of 113 characters, 55 in plain mode
    one_column = "\n".join(a + " " + b for a, b in zip(left, right, strict=True))
    assert not columns_run_together(one_column, one_column)
