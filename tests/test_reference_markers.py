"""Issue 35: a paper's own reference markers ("[4][5]", "[2, 3]") are text, not our citations. They are
rewritten in indexed body text at index time, so no backend reads them as source numbers."""

from __future__ import annotations

from pathlib import Path

from rag.index.chunking import chunk_paper
from rag.index.reference_markers import neutral_markers
from rag.types import Paper, Section
from tests import pdf_fixtures as pdfs
from tests import pdf_layouts as layouts

FACT = "The router sends 93 percent of crevasse columns to expert five, as earlier routers did [2][3]."


def test_bracketed_numbers_become_plain_reference_text() -> None:
    assert neutral_markers("as shown before [4][5], and in [2, 3] and [6–8].") == \
        "as shown before (ref. 4, 5), and in (ref. 2, 3) and (ref. 6–8)."  # fmt: skip
    kept = "a vector [x, y], an interval [0.5, 1.0], the set [a]; (Smith et al., 2020) and Eq. (4)"
    assert neutral_markers(kept) == kept


def test_body_chunks_carry_no_bracketed_reference_markers() -> None:
    paper = Paper(id="p", title="T", abstract="An abstract.", body=(Section(2, "2 Method", FACT),))
    body = [c for c in chunk_paper(paper) if c.section]
    assert body and "[2]" not in body[0].text and "(ref. 2, 3)" in body[0].text


def test_a_quoted_body_sentence_cites_only_its_own_paper(rag_cli, tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    layouts.arxiv_paper(folder / "glacier.pdf", body=FACT + " Columns over bare ice go to expert two.")
    pdfs.two_column(folder / "bus.pdf")
    pdfs.one_column(folder / "other.pdf")
    code, _, err = rag_cli("index", str(folder), "--full-text")
    assert code == 0, err
    record = rag_cli.ask_json("What percent of crevasse columns does the router send to expert five?")
    assert "93 percent" in record["answer"]
    assert {c["paper_id"] for c in record["citations"]} == {"glacier"}  # was: [2] and [3], two other papers
    assert "[2]" not in record["answer"] and "[3]" not in record["answer"]
