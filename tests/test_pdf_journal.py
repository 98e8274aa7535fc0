"""Issue 35: biomedical journal first pages. A narrow sidebar (affiliations, dates, licence) beside a two-column
body, a sidebar pypdf's layout mode writes into the abstract's lines, a licence notice above an abstract without
a heading, a structured abstract whose last part ("Conclusions") the body follows without a heading, the
journal's label of the article type above the title, and the year a journal prints (not arXiv's stamp)."""

from __future__ import annotations

from rag.corpus.pdf import _page_text
from rag.corpus.pdf_abstract import find_abstract
from rag.corpus.pdf_layout import reading_order
from rag.corpus.pdf_meta import Run, identifiers, title_from_runs
from rag.corpus.pdf_words import glued_words

SIDEBAR = ["1Department of Surgery,", "City Hospital, Leeds", "", "Received 4 May 2009", "Accepted 9 June 2010"]
ABSTRACT = [
    "ABSTRACT",
    "Background Bed nets treated with a new insecticide",
    "were compared against standard nets in two",
    "districts over two rainy seasons of follow-up.",
    "Conclusions The new nets cut malaria episodes by",
    "a third; households liked them.",  # a paragraph's last line stops short
    "Malaria is a leading cause of death in children",
    "under five in many countries of the region.",
]
RIGHT = ["in rural districts the burden is highest and", "access to care is poorest of all regions", "", "METHODS"]


def _three_columns() -> str:
    """A sidebar 24 characters wide, then two body columns, as pypdf's layout mode sets them side by side."""
    rows = []
    for i in range(len(ABSTRACT)):
        side = SIDEBAR[i] if i < len(SIDEBAR) else ""
        right = RIGHT[i] if i < len(RIGHT) else "the study of bed nets goes on in the next years"
        rows.append(f"{side:<26}{ABSTRACT[i]:<58}{right}")
    return "\n".join(rows)


def test_a_narrow_sidebar_beside_two_columns_is_read_apart_from_the_abstract() -> None:
    lines = reading_order(_three_columns(), sidebars=True)
    assert lines.index("Accepted 9 June 2010") < lines.index("ABSTRACT")  # the sidebar is read first, on its own
    assert lines[lines.index("ABSTRACT") + 1] == ABSTRACT[1]  # not "Received 4 May 2009 Background ..."
    abstract, _ = find_abstract(lines) or ("", 0)
    assert abstract.startswith("Background: Bed nets") and "Leeds" not in abstract and "Received" not in abstract


def test_a_structured_abstract_ends_with_its_conclusions_paragraph() -> None:
    abstract, end = find_abstract(ABSTRACT) or ("", 0)
    assert abstract.endswith("households liked them.")  # not "... in many countries of the region."
    assert ABSTRACT[end] == "Malaria is a leading cause of death in children"


def test_a_licence_notice_above_a_bare_abstract_is_left_out_to_its_sentence_end() -> None:
    lines = [
        "Copyright © 2010 A. Author et al. This is an open access article distributed under the terms of the Creative",
        "Commons Attribution License, which permits unrestricted use, provided the original work is properly cited.",
        "Objectives. We asked patients how a rehabilitation programme for heart failure met their needs and what",
        "they missed once it ended. Methods. Focus groups with fifteen participants were analysed. Results. The",
        "programme met most needs but the motivation to exercise lapsed after it ended in most of the participants.",
        "",
        "1. Introduction",
    ]
    abstract, _ = find_abstract(lines) or ("", 0)
    assert abstract.startswith("Objectives. We asked") and "Commons" not in abstract


class _Page:
    def __init__(self, layout: str, plain: str) -> None:
        self.texts = {"layout": layout, "plain": plain}

    def extract_text(self, extraction_mode: str = "plain") -> str:
        return self.texts[extraction_mode]


def test_a_sidebar_glued_into_the_layout_lines_sends_the_page_to_plain_mode() -> None:
    body = [f"the analyses of protein sequences line {i} run in parallel over many genomes" for i in range(12)]
    side = ["Corresponding author", "Academic editor", "Creative Commons", "Published June"]
    layout = "\n".join(f"{line}{side[i % 4]}" for i, line in enumerate(body))  # "genomesCorresponding author"
    plain = "\n".join(side + body)
    assert glued_words(layout) >= 10 and glued_words(plain) == 0
    assert _page_text(_Page(layout, plain)) == plain
    clean = "\n".join(body)  # a page without glued words keeps its layout text
    assert _page_text(_Page(clean, plain)) == clean


def test_the_article_type_label_above_the_title_is_not_part_of_it() -> None:
    title = [Run(14, 720, "Research Article"), Run(14, 700, "Patient Experiences of Structured Heart"),
             Run(14, 684, "Failure Programmes")]  # fmt: skip
    runs = title + [Run(9, 600 - 12 * i, "body text line") for i in range(20)]
    assert title_from_runs(runs, 800) == "Patient Experiences of Structured Heart Failure Programmes"


def test_the_year_a_journal_prints_on_page_one() -> None:
    assert identifiers("Postgrad Med J 2010;86:272e278. doi:10.1136/pgmj.2009.089987")["year"] == "2010"
    assert identifiers("Received 24 August 2009\nAccepted 13 February 2010")["year"] == "2010"
    assert identifiers("Clinical Science (2014) 126, 305–313\n© 2013 The Authors")["year"] == "2014"
    assert identifiers("Submitted 25 March 2016\nPublished 5 June 2017\nCopyright 2017 Webb et al.")["year"] == "2017"
    stamped = "arXiv:1804.06872v3 [cs.LG] 30 Oct 2018\nCopyright 2017"
    assert identifiers(stamped)["year"] == "2018"  # arXiv's stamp comes first
    assert "year" not in identifiers("We trained on 2010 images for 30 epochs.")
