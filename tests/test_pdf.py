"""PDF papers (pypdf, generated here with fpdf2): title, abstract and reading order, --full-text sections and
pages, the three kinds of unreadable PDF, the missing-extra message, and page citations end to end."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rag.corpus import read_papers
from rag.errors import CorpusError
from tests import pdf_fixtures as pdfs


def _skip(path: Path, **options: object) -> tuple[list, list[str]]:
    warnings: list[str] = []
    return read_papers([path], on_error="skip", warn=warnings.append, **options), warnings  # type: ignore[arg-type]


def test_title_abstract_and_ids_from_metadata_and_first_page(tmp_path: Path) -> None:
    (paper,) = read_papers([pdfs.one_column(tmp_path / "Glacier Routing.pdf")])
    assert paper.id == "glacier-routing"  # from the file name
    assert paper.title == "Sparse Mixture Routing for Glacier Radar Sounding"
    assert paper.authors == ("Ingrid Sorensen", "Tomas Ruiz")
    assert paper.abstract == pdfs.GLACIER_ABSTRACT
    assert (paper.arxiv_id, paper.year, paper.url) == ("2401.01234", 2024, "https://arxiv.org/abs/2401.01234")
    assert paper.body == ()  # no --full-text


def test_two_columns_written_row_by_row_are_read_column_by_column(tmp_path: Path) -> None:
    (paper,) = read_papers([pdfs.two_column(tmp_path / "bus.pdf")], full_text=True)
    assert paper.title == "Graph Recurrent Networks for Bus Bunching"  # no metadata: the largest type
    assert paper.abstract == pdfs.BUS_ABSTRACT
    assert paper.url == (tmp_path / "bus.pdf").resolve().as_uri()  # no arXiv id or DOI: the file itself
    assert [(s.heading, s.page) for s in paper.body] == [
        ("1 Introduction", 1), ("2 Related Work", 1), ("3 Method", 1), ("4 Results", 1)
    ]
    intro = paper.body[0].text
    assert intro == "Bus bunching is an old problem of transit operations. Holding a bus at a stop restores the " \
                    "headway but delays its riders."  # fmt: skip
    assert paper.body[2].text.startswith("Each stop is a node of a graph and each segment between stops")


def test_full_text_sections_pages_without_references(tmp_path: Path) -> None:
    (paper,) = read_papers([pdfs.full_paper(tmp_path / "full.pdf")], full_text=True)
    headings = [(s.page, s.heading) for s in paper.body]
    assert headings == [(1, "1 Introduction"), (2, "2 Method"), (2, "2.1 Routing crevasses"), (3, "3 Results"),
                        (3, "Appendix A")]  # fmt: skip
    text = " ".join(s.text for s in paper.body)
    assert pdfs.BODY_FACT in text
    assert "zebra quokka" not in text  # the references section is dropped
    assert "Ice sheets lose mass" in paper.body[0].text and " 1 " not in paper.body[0].text + " "  # page number


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (pdfs.scanned, "no text layer (a scanned PDF?); run OCR on it first"),
        (pdfs.encrypted, "encrypted PDF: it needs a password"),
        (pdfs.broken, "not a readable PDF (PdfStreamError"),
    ],
    ids=["scanned", "encrypted", "broken"],
)
def test_an_unreadable_pdf_in_a_folder_is_skipped_and_named_but_alone_it_stops(tmp_path: Path, make,
                                                                             reason: str) -> None:  # fmt: skip
    bad = make(tmp_path / "bad.pdf")
    good = pdfs.one_column(tmp_path / "good.pdf")
    with pytest.raises(CorpusError) as info:  # the file named on its own: the user meant that one
        read_papers([bad])
    assert str(info.value).startswith(f"{bad}: {reason}") and "\n" not in str(info.value)
    for mode in ("stop", "skip"):  # in a folder, with or without --skip-bad: one file lost, with one warning
        warnings: list[str] = []
        papers = read_papers([tmp_path], on_error=mode, warn=warnings.append)
        assert [p.source for p in papers] == [str(good)]
        assert len(warnings) == 1 and warnings[0].startswith(f"{bad}: {reason}")


def test_a_short_abstract_under_an_abstract_heading_is_accepted(tmp_path: Path) -> None:
    assert len(pdfs.SHORT_ABSTRACT.split()) < 25  # the minimum for a paragraph found without a heading
    (paper,) = read_papers([pdfs.one_column(tmp_path / "short.pdf", abstract=pdfs.SHORT_ABSTRACT)])
    assert paper.abstract == pdfs.SHORT_ABSTRACT


def test_a_folder_of_pdfs_with_one_scan_indexes_the_rest_and_names_it(rag_cli, tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    pdfs.one_column(folder / "glacier.pdf")
    pdfs.two_column(folder / "bus.pdf")
    pdfs.one_column(folder / "short.pdf", abstract=pdfs.SHORT_ABSTRACT)
    pdfs.scanned(folder / "scan.pdf")
    code, out, err = rag_cli("index", str(folder))
    assert code == 0, err
    assert "indexed 3 papers" in out
    assert f"skipped 1 unreadable file: {folder / 'scan.pdf'}: no text layer" in out
    code, _, err = rag_cli("index", str(folder / "scan.pdf"))
    assert code == 2 and "no text layer" in err


def test_a_pdf_with_only_an_owner_password_opens(tmp_path: Path) -> None:
    (paper,) = read_papers([pdfs.encrypted(tmp_path / "owner.pdf", user_password="")])
    assert paper.abstract == pdfs.GLACIER_ABSTRACT


def test_without_pypdf_the_error_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = pdfs.one_column(tmp_path / "p.pdf")
    monkeypatch.setitem(sys.modules, "pypdf", None)  # what `import pypdf` sees when it is not installed
    for mode in ("stop", "skip"):  # a missing extra is no bad record: --skip-bad must not hide every PDF
        with pytest.raises(CorpusError) as info:
            read_papers([path], on_error=mode)
        assert str(info.value) == f"{path}: reading PDFs needs the optional pypdf package: pip install -e '.[pdf]' " \
                                  "(or: pip install pypdf)"  # fmt: skip


def test_full_text_answer_cites_the_page(rag_cli, tmp_path: Path) -> None:
    papers = tmp_path / "papers"
    papers.mkdir()
    pdfs.full_paper(papers / "glacier.pdf")
    pdfs.two_column(papers / "bus.pdf")
    code, out, err = rag_cli("index", str(papers), "--full-text")
    assert code == 0, err
    assert "reading " + str(papers / "bus.pdf") + " as PDF (full text)" in err
    record = rag_cli.ask_json("What percent of crevasse columns does the router send to expert five?")
    cited = record["citations"][0]
    assert (cited["paper_id"], cited["page"], cited["page_end"]) == ("glacier", 2, 2)
    assert "93 percent" in record["answer"] and record["unsupported"] == []
    source = record["sources"][0]
    assert (source["page"], source["section"]) == (2, "2.1 Routing crevasses")
    code, out, _ = rag_cli("ask", "What percent of crevasse columns does the router send to expert five?",
                           "--llm", "extractive")  # fmt: skip
    assert code == 0 and "Sparse Mixture Routing for Glacier Radar Sounding, p. 2" in out
    # the abstract is still a chunk of its own, without a page
    record = rag_cli.ask_json("How much does the router reduce bed picking error?")
    assert record["citations"][0]["paper_id"] == "glacier" and record["citations"][0]["page"] is None


def test_pdfs_without_full_text_index_their_abstract_only(rag_cli, tmp_path: Path) -> None:
    pdfs.full_paper(tmp_path / "glacier.pdf")
    code, out, err = rag_cli("index", str(tmp_path / "glacier.pdf"))
    assert code == 0 and "indexed 1 papers: 1 chunks" in out, err
    record = rag_cli.ask_json("How much does the router reduce bed picking error?")
    assert record["citations"][0]["paper_id"] == "glacier" and "41 percent" in record["answer"]
