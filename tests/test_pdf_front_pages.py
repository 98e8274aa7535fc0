"""Issue 35, the second dev PDF set (bench/pdf_dev2): first pages the reader got wrong. A narrow sidebar at a fifth
of the width beside a one-column body; author and affiliation lines with no blank line before an abstract without a
heading; a sidebar's gap in the middle of the abstract's sentence; "Author Keywords", "*Correspondence:" and
"Author for correspondence" ending an abstract; a journal's name set above the title in larger type, and a figure's
label set larger below it; an author line a size below the title; the year a conference line or a cover page
prints."""

from __future__ import annotations

from rag.corpus.pdf_abstract import find_abstract
from rag.corpus.pdf_layout import reading_order
from rag.corpus.pdf_meta import Run, identifiers, title_from_runs

ABSTRACT = [
    "Cells in vivo live in a complex microenvironment composed of the extracellular matrix and",
    "other cells. Growing evidence suggests that the mechanical interaction between the cells and",
    "their microenvironment is of critical importance to their behaviours, and mechanical stresses",
    "were first measured for cells cultured on",
]
AFTER_GAP = ["two-dimensional surfaces with well-defined mechanical properties. In this review we",
             "summarize recent developments in optical and magnetic approaches at the microscale.",
             "Keywords: extracellular matrix, traction stress"]  # fmt: skip
SIDEBAR = ["Edited by:", "Jangwook Jung,", "State University", "", "Reviewed by:", "Sarah Calve,", "Purdue University"]


def _sidebar_page() -> str:
    """A sidebar 40 characters wide starting where the abstract's sentence breaks, as pypdf's layout mode sets it."""
    rows = [f"{'':<44}{line}" for line in ["Microscale Interrogation of 3D", "Tissue Mechanics", "", *ABSTRACT, ""]]
    for i, right in enumerate([*AFTER_GAP, "", "INTRODUCTION", "Tissues are composed of a large collection of ECM"]):
        side = SIDEBAR[i] if i < len(SIDEBAR) else ""
        rows.append(f"{side:>40}    {right}")
    return "\n".join(rows)


def test_a_narrow_sidebar_beside_a_one_column_body_is_read_apart_and_the_abstract_goes_on_past_its_gap() -> None:
    lines = reading_order(_sidebar_page(), sidebars=True)
    assert "Edited by: two-dimensional" not in " ".join(lines)
    abstract, _ = find_abstract(lines) or ("", 0)
    assert abstract.startswith("Cells in vivo") and abstract.endswith("approaches at the microscale.")
    assert "Edited" not in abstract and "Keywords" not in abstract


def test_author_and_affiliation_lines_above_a_bare_abstract_are_left_out() -> None:
    lines = [
        "Author for correspondence:", "Dan Stowell", "e-mail: dan.stowell@qmul.ac.uk", "Electronic supplementary",
        "material is available online.", "Detailed temporal structure of", "communication networks", "",
        "Dan Stowell1, Lisa Gill3 and David Clayton2",
        "1Machine Listening Lab, Centre for Digital Music, and 2School of Biological Sciences,",
        "3Max Planck Institute for Ornithology, Seewiesen, Germany",
        "Animals in groups often exchange calls, in patterns whose temporal structure may be",
        "influenced by contextual factors such as physical location and the social network structure",
        "of the group. We introduce a model-based analysis for temporal patterns of animal call timing.",
        "1. Introduction",
    ]  # fmt: skip
    abstract, _ = find_abstract(lines) or ("", 0)
    assert abstract.startswith("Animals in groups") and abstract.endswith("animal call timing.")


def test_front_matter_is_not_cut_when_too_little_of_the_paragraph_would_be_left() -> None:
    lines = ["Research Institute for Ornithology, Seewiesen, Germany, and the Centre for Digital Music,",
             "zebra finches in groups exchange calls in patterns that we model with a point process of",
             "calls, fitted for each bird.", ""]  # fmt: skip
    abstract, _ = find_abstract(lines) or ("", 0)
    assert abstract.startswith("Research Institute")  # 16 words would be left: the paragraph is kept whole


def test_author_keywords_and_a_starred_correspondence_line_end_an_abstract() -> None:
    body = ["ABSTRACT", "Audio stories are an engaging form of communication that combine speech and music into",
            "narratives, and our tools facilitate editing raw footage into a final story."]  # fmt: skip
    for stop in ("Author Keywords", "ACM Classification Keywords", "*Correspondence:"):
        abstract, _ = find_abstract([*body, stop, "Audio editing, storytelling"]) or ("", 0)
        assert abstract.endswith("into a final story."), stop


def _body(n: int = 20) -> list[Run]:
    return [Run(9.7, 560 - 12 * i, "body text of the paper in its usual type") for i in range(n)]


def test_a_journal_name_in_larger_type_above_the_title_is_not_the_title() -> None:
    runs = [Run(24, 739, "BMC Bioinformatics"), Run(16, 676, "GAPscreener: An automatic tool for screening"),
            Run(16, 658, "human genetic association literature"), Run(15, 623, "Wei Yu*, Melinda Clyne, Anja Wulf"),
            *_body()]  # fmt: skip
    title = "GAPscreener: An automatic tool for screening human genetic association literature"
    assert title_from_runs(runs, 792) == title


def test_a_short_title_in_the_largest_type_stays_the_title() -> None:
    runs = [Run(20, 685, "Deep Learning"), Run(12, 640, "1,038"), Run(10, 600, "Article in Nature · May 2015"),
            *_body()]  # fmt: skip
    assert title_from_runs(runs, 842) == "Deep Learning"


def test_an_author_line_a_size_below_the_title_is_not_part_of_it_but_small_capitals_are() -> None:
    runs = [Run(14.3, 753, "Vision-and-Language Navigation:"), Run(14.3, 737, "A Survey of Tasks and Methods"),
            Run(12, 710, "Jing Gu Eliana Stefani Qi Wu"), *_body()]  # fmt: skip
    assert title_from_runs(runs, 792) == "Vision-and-Language Navigation: A Survey of Tasks and Methods"
    caps = [Run(14, 753, "R"), Run(11.5, 753, "ETHINKING THE"), Run(11.5, 737, "INCEPTION ARCHITECTURE"), *_body()]
    assert title_from_runs(caps, 792) == "RETHINKING THE INCEPTION ARCHITECTURE"


def test_a_figure_label_on_page_one_set_larger_than_the_title_below_it_is_not_the_title() -> None:
    runs = [Run(14.3, 753, "Vision-and-Language Navigation:"), Run(14.3, 737, "A Survey of Tasks and Methods"),
            Run(33, 643, "Environment"), *_body()]  # fmt: skip
    assert title_from_runs(runs, 842) == "Vision-and-Language Navigation: A Survey of Tasks and Methods"


def test_the_year_a_conference_line_or_a_cover_page_prints() -> None:
    assert identifiers("35th Conference on Neural Information Processing Systems (NeurIPS 2021).")["year"] == "2021"
    assert identifiers("UIST ’13, October 8–11, 2013, St. Andrews, United Kingdom.")["year"] == "2013"
    assert identifiers("Deep Learning\nArticle in Nature · May 2015\nDOI: 10.1038/nature14539")["year"] == "2015"
    assert "year" not in identifiers("We compare against the 2019 winner and 300 baselines from May.")
