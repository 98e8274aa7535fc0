"""Issue 35, the third dev PDF set (bench/pdf_dev3): what the reader got wrong on preprints, cover pages and theses.
A medRxiv preprint numbers its lines, repeats a licence header on every page, and sets its abstract on page 3
after a graphical abstract; a journal's "Article in Press" cover page opens with a notice in prose; a thesis has a
title page and a copyright page before its "Abstract"; a structured abstract labels its parts on lines of their own
("Background", "Methods") or in the line without a colon; a year printed as "this version posted December 12,
2024" or a title page's "March 2018"; a DOI whose page number the layout text glues on; a chapter's number before
its title."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from rag.corpus import read_papers
from rag.corpus.pdf_abstract import find_abstract
from rag.corpus.pdf_layout import without_line_numbers
from rag.corpus.pdf_meta import choose_title, identifiers

HEADER = ("medRxiv preprint doi: https://doi.org/10.1101/2024.12.11.24318873; this version posted December 12, 2024. "
          "The copyright holder for this preprint (which was not certified by peer review) is the author/funder, who "
          "has granted medRxiv a license to display the preprint in perpetuity. It is made available under a "
          "CC-BY-NC-ND 4.0 International license.")  # fmt: skip
PARTS = (
    ("Background", "Reduced inhibitory control is associated with obesity, and the hypothalamus regulates energy "
                   "homeostasis together with the frontal areas of the brain."),
    ("Methods", "Forty-four adults with overweight received active or sham stimulation of the appetite network on "
                "three consecutive days while performing a stop-signal task."),
    ("Conclusions", "Network-targeted stimulation may improve food choice and inhibitory control."),
)  # fmt: skip


def _numbered(pdf: FPDF, lines: list[str], start: int) -> int:
    pdf.set_font("Helvetica", "", 10)
    for n, line in enumerate(lines, start):
        pdf.cell(12, 5, str(n))
        pdf.cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
    return start + len(lines)


def _preprint(path: Path) -> Path:
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    n = 1
    for page in range(3):
        pdf.add_page()
        pdf.set_font("Helvetica", "", 7)
        pdf.multi_cell(0, 3, HEADER, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
        if page == 0:
            pdf.set_font("Helvetica", "B", 16)
            pdf.multi_cell(0, 8, "Repeated stimulation of the appetite-control network reduces sweet food intake",
                           new_x="LMARGIN", new_y="NEXT")  # fmt: skip
            n = _numbered(pdf, ["Theresa Ester1, Ralf Veit1, Julia Thomanek2",
                                "1Institute for Diabetes Research, University of Tubingen, Germany",
                                "2German Center for Mental Health, Tubingen, Germany",
                                "* Corresponding author: Institute for Diabetes Research, Tubingen."], n)  # fmt: skip
        elif page == 1:
            n = _numbered(pdf, ["Graphical Abstract"], n)
        else:
            lines = ["Abstract"]
            for label, text in PARTS:
                lines += [label, *(text[i : i + 90] for i in range(0, len(text), 90))]
            n = _numbered(pdf, [*lines, "Keywords: obesity, tDCS, inhibitory control", "Introduction"], n)
    pdf.output(str(path))
    return path


def test_a_numbered_preprint_with_its_abstract_on_page_3_reads_it_with_its_labels_and_its_posted_year(
    tmp_path: Path,
) -> None:
    (paper,) = read_papers([_preprint(tmp_path / "preprint.pdf")])
    assert paper.abstract.startswith("Background: Reduced inhibitory control is associated")
    assert "Methods: Forty-four adults" in paper.abstract
    assert paper.abstract.endswith("may improve food choice and inhibitory control.")
    assert "copyright holder" not in paper.abstract and "Keywords" not in paper.abstract
    assert paper.year == 2024 and paper.doi == "10.1101/2024.12.11.24318873"


def test_line_numbers_are_left_out_only_when_they_rise_down_most_of_the_page() -> None:
    numbered = [f"{n}   line {n} of the text" for n in range(36, 48)]
    assert without_line_numbers(numbered)[0].strip() == "line 36 of the text"
    counted = [f"{n} apples were counted" for n in (3, 12, 7, 40, 5, 9, 21, 2, 8, 30)]  # numbers in prose
    assert without_line_numbers(counted) == counted


def test_an_abstract_heading_on_page_3_wins_over_a_cover_pages_notice_in_prose() -> None:
    cover = ["Article in Press", "",
             "We are providing an unedited version of this manuscript to give early access to its findings. Before",
             "final publication, the manuscript will undergo further editing. Please note there may be errors present",
             "which affect the content, and all legal disclaimers apply to this version of the article.",
             ""]  # fmt: skip
    assert find_abstract(cover) is not None  # a paragraph of prose: the fallback would take it
    assert find_abstract(cover, headed=True) is None  # so headings are looked for on the first three pages first


def test_a_structured_abstracts_inline_labels_get_their_colon() -> None:
    lines = ["Abstract", "Background Reduced inhibitory control is associated with obesity in adults.",
             "Objectives We tested stimulation of the appetite network on three days in a row.",
             "Methods Forty-four adults took part in a randomised, double-blind parallel design.", "",
             "1 Introduction"]  # fmt: skip
    abstract, _ = find_abstract(lines) or ("", 0)
    assert abstract.startswith("Background: Reduced") and "obesity in adults. Objectives: We tested" in abstract


def test_years_a_preprint_or_a_title_page_prints() -> None:
    assert identifiers("medRxiv preprint doi: x; this version posted December 12, 2024.")["year"] == "2024"
    assert identifiers("a thesis presented by\nDaniel Fu\nHarvard University\n   March 2018\n")["year"] == "2018"
    assert "year" not in identifiers("We trained for March 2018 to May of the next year.")


def test_a_page_number_the_layout_glued_onto_a_doi_is_left_off() -> None:
    page = "Vol. xx http://dx.doi.org/10.1016/j.tics.2017.03.0111\n...\nhttp://dx.doi.org/10.1016/j.tics.2017.03.011 1"
    assert identifiers(page)["doi"] == "10.1016/j.tics.2017.03.011"


def test_a_chapters_number_is_not_part_of_its_title() -> None:
    assert choose_title(None, "7 Active Inference in Discrete Time", "") == "Active Inference in Discrete Time"
    assert choose_title(None, "3D Shape Priors for Grasping", "") == "3D Shape Priors for Grasping"


def test_a_sidebar_of_affiliations_between_two_lines_of_the_abstracts_sentence_is_read_past() -> None:
    lines = ["Abstract | A study with low statistical power has a reduced chance of detecting a true effect, but it",
             "is less well appreciated that low power also reduces the likelihood that a significant result reflects",
             "a true effect. Here we show that the average statistical power of studies in the neurosciences is low.",
             "Improving reproducibility in neuroscience requires attention to well-established but often ignored",
             "1School of Experimental", "Psychology, University of", "Bristol, Bristol, BS8 1TU, UK.", "",
             "Correspondence to M.R.M.", "doi:10.1038/nrn3475", "", "methodological principles.", "",
             "It has been claimed that many conclusions drawn from biomedical research are false."]  # fmt: skip
    abstract, _ = find_abstract(lines) or ("", 0)
    assert abstract.startswith("A study with low statistical power")
    assert abstract.endswith("but often ignored methodological principles.") and "Bristol" not in abstract
    own = ["Abstract", "We recruited two hundred patients with heart failure from the",
           "University Hospital of Zurich and measured their walking distance over six minutes before and after",
           "twelve weeks of training at home, and found that the distance grew by a fifth on average.", "",
           "1 Introduction"]  # fmt: skip
    abstract, _ = find_abstract(own) or ("", 0)  # an abstract's own line naming a university is not a sidebar
    assert "from the University Hospital of Zurich and measured" in abstract


def test_after_page_1_only_a_heading_on_a_line_of_its_own_wins_over_page_1s_paragraph() -> None:
    line = ["Summary statistics are given in Table 2 for every site we sampled in both seasons of the study."]
    assert find_abstract(line, headed=True) is not None  # on page 1 a run-in "Summary ..." heading is read
    assert find_abstract(line, headed=True, own_line=True) is None  # on pages 2-3 it is a sentence, not a heading
    assert find_abstract(["Abstract", *line], headed=True, own_line=True) is not None
