"""Answers and the library out again: the pure functions in rag/export/ and `rag export` / `rag ask --format`,
with round trips through our own readers."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from rag.corpus import read_papers
from rag.export import (
    answer_markdown,
    bibtex_entry,
    cited_papers,
    conversation_markdown,
    sources_table,
    write_csv,
    write_jsonl,
)
from rag.settings import BUNDLED_CORPUS
from rag.types import Answer, Citation, Hit, Paper
from tests.conftest import CLI, cli_index, copy_home

FORMATS = Path(__file__).resolve().parent / "data" / "formats"
KEPT = ("id", "title", "abstract", "authors", "year", "venue", "url", "code_url", "arxiv_id", "doi")

TRICKY = Paper(
    id="lee2024:x/1", title="BERT & ImageNet: 50% of {Everything}_now ~ costs $5^2 #1", authors=(
        "Ann Lee", "Müller, Jr., Kai", "Barnes and Noble Team", "Zoë O'Brien"),
    # math the reader keeps as it is (it cannot read \frac), so the export must carry $ \ { } through
    abstract=r"We use $\frac{n}{2}$ memory \ and C:\path\to\x; 100% of {cases} & ~more_text #tag^2.",
    year=2024, venue="Proceedings of ICML 2024", url="https://example.org/a_b%20c#frag&x=1", code_url="https://git.example/x_y",
    arxiv_id="2401.01234", doi="10.1000/ab_c(12)",
)  # fmt: skip


def kept(paper: Paper) -> tuple:
    return tuple(getattr(paper, name) for name in KEPT)


def test_bibtex_entry_reads_back_unchanged(tmp_path: Path) -> None:
    entry = bibtex_entry(TRICKY)
    assert entry.startswith("@inproceedings{lee2024:x/1,\n  title = {{BERT} \\& {ImageNet:} 50\\% of ")
    assert "  author = {Ann Lee and {Müller, Jr., Kai} and {Barnes and Noble Team} and Zoë O'Brien},\n" in entry
    assert "  eprint = {2401.01234},\n  archiveprefix = {arXiv},\n" in entry
    plain = dataclasses.replace(TRICKY, id="plain", venue="Nature Physics")
    misc = dataclasses.replace(TRICKY, id="misc", venue=None)
    path = tmp_path / "out.bib"
    path.write_text(entry + "\n" + bibtex_entry(plain) + "\n" + bibtex_entry(misc), encoding="utf-8")
    assert bibtex_entry(plain).startswith("@article{plain,") and bibtex_entry(misc).startswith("@misc{misc,")
    back = read_papers([path])
    assert [kept(p) for p in back] == [kept(TRICKY), kept(plain), kept(misc)]


def test_bibtex_of_the_bundled_and_outside_papers_reads_back(tmp_path: Path) -> None:
    papers = read_papers([BUNDLED_CORPUS, FORMATS / "zotero-better-csl.json", FORMATS / "zotero.ris"])
    path = tmp_path / "all.bib"
    path.write_text("\n".join(bibtex_entry(p) for p in papers), encoding="utf-8")
    assert [kept(p) for p in read_papers([path])] == [kept(p) for p in papers]


def test_a_local_pdf_url_is_not_put_in_bibtex() -> None:
    local = dataclasses.replace(TRICKY, url="file:///home/me/papers/x.pdf")
    assert "file:" not in bibtex_entry(local)


@pytest.mark.parametrize("write", [write_jsonl, write_csv], ids=["jsonl", "csv"])
def test_jsonl_and_csv_read_back_unchanged(tmp_path: Path, write) -> None:
    lone = dataclasses.replace(TRICKY, id="lone", authors=("Lee, Ann",))  # one "Last, First" author
    none = Paper(id="bare", title="Bare", abstract="Only an abstract.")
    papers = [TRICKY, lone, none, *read_papers([BUNDLED_CORPUS])]
    out = io.StringIO()
    assert write(papers, out) == len(papers)
    path = tmp_path / ("lib.jsonl" if write is write_jsonl else "lib.csv")
    path.write_text(out.getvalue(), encoding="utf-8")
    assert [kept(p) for p in read_papers([path])] == [kept(p) for p in papers]


def _answer() -> Answer:
    glacier = Paper(id="glacier", title="Sparse *Routing* for Glacier [Radar]", abstract="abstract text",
                    authors=("Ingrid Sørensen", "Tomás Ruiz"), year=2024, venue="ICML 2024",
                    url="https://arxiv.org/abs/2401.01234")  # fmt: skip
    bus = Paper(id="bus", title="Bus Bunching", abstract="bus abstract", url=None)
    hits = (Hit(glacier, "glacier:3", "The router sends 93 percent.", 0.9, page=2, page_end=3, section="2.1 Routing"),
            Hit(bus, "bus:0", "bus abstract", 0.5))  # fmt: skip
    return Answer(
        question="Where do crevasse columns go?", standalone_question="Where do crevasse columns go?",
        text="The router sends 93 percent of crevasse columns to expert five [1].",
        citations=(Citation(1, "glacier", glacier.title, glacier.url, page=2, page_end=3),), sources=hits,
        abstained=False, unsupported=("Expert five never fails [1].",), backend="extractive", model="extractive",
        prompt="p@1",
    )  # fmt: skip


def test_answer_markdown_with_references_and_pages() -> None:
    assert answer_markdown(_answer()) == (
        "## Where do crevasse columns go?\n\n"
        "The router sends 93 percent of crevasse columns to expert five [1].\n\n"
        "**Not supported by the cited sources:**\n\n"
        "- Expert five never fails \\[1\\].\n\n"
        "**References**\n\n"
        "- [1] Ingrid Sørensen, Tomás Ruiz (2024). Sparse \\*Routing\\* for Glacier \\[Radar\\]. *ICML 2024*, "
        "pp. 2–3. [arxiv.org](https://arxiv.org/abs/2401.01234)\n"
    )


def test_abstention_lists_the_closest_papers_and_a_conversation_keeps_every_turn() -> None:
    refusal = dataclasses.replace(_answer(), text="The indexed papers do not answer this question.", citations=(),
                                  abstained=True, unsupported=(), question="What is FID?")  # fmt: skip
    md = answer_markdown(refusal)
    assert "**Closest papers**" in md and "- [2] Bus Bunching." in md and "References" not in md
    conv = conversation_markdown([_answer(), refusal], title="Glacier notes")
    assert conv.startswith("# Glacier notes\n\n## Where do crevasse columns go?")
    assert conv.index("## What is FID?") > conv.index("**References**")


def test_cited_papers_once_each_with_a_lookup_for_the_whole_abstract() -> None:
    answer = dataclasses.replace(_answer(), citations=_answer().citations * 2)
    assert [p.id for p in cited_papers(answer)] == ["glacier"]
    whole = Paper(id="glacier", title="T", abstract="The whole abstract.")
    assert cited_papers(answer, lambda pid: whole)[0].abstract == "The whole abstract."
    table = sources_table(_answer())
    assert "| 1 | Sparse \\*Routing\\* for Glacier \\[Radar\\] | 2024 | pp. 2–3 |" in table  # titles are text
    assert "| 2 | Bus Bunching |  | abstract |" in table


LIBRARY = [BUNDLED_CORPUS, *(FORMATS / n for n in ("zotero-better-csl.json", "zotero.ris", "openalex-works.jsonl"))]


@pytest.fixture(scope="module")
def library_home(tmp_path_factory: pytest.TempPathFactory, minilm: object) -> Path:
    """The bundled corpus and three outside formats indexed once for the module by `rag index`."""
    home = tmp_path_factory.mktemp("export-library") / "home"
    cli_index(home, minilm, *map(str, LIBRARY))
    return home


def _library(rag_cli: CLI, library_home: Path) -> list[Paper]:
    """`rag_cli` now holds a copy of the indexed library; returns the papers it was indexed from."""
    copy_home(library_home, rag_cli)
    return read_papers(LIBRARY)


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "bibtex"])
def test_rag_export_then_rag_index_gives_the_same_papers(rag_cli, library_home: Path, tmp_path: Path,
                                                         fmt: str) -> None:  # fmt: skip
    original = _library(rag_cli, library_home)
    out = tmp_path / f"lib.{ {'jsonl': 'jsonl', 'csv': 'csv', 'bibtex': 'bib'}[fmt] }"
    code, stdout, err = rag_cli("export", "--format", fmt, "--out", str(out))
    assert code == 0 and err.strip() == f"wrote {len(original)} papers to {out} ({fmt})"
    assert [kept(p) for p in read_papers([out])] == [kept(p) for p in original]
    code, stdout, err = rag_cli("index", str(out))  # the same collection: nothing to embed, nothing removed
    assert code == 0, err
    assert f"indexed {len(original)} papers: " in stdout and " 0 embedded, " in stdout and " 0 removed " in stdout


def test_rag_export_to_stdout_with_filters(rag_cli, library_home: Path) -> None:
    _library(rag_cli, library_home)
    code, out, _ = rag_cli("export", "--year-max", "2023")
    assert code == 0
    assert sorted(json.loads(line)["id"] for line in out.splitlines()) == ["W4387654321", "haddad2023traffic",
                                                                             "ris-9b59505b85c6", "ris-f26e3fa1603c"]


def test_rag_ask_markdown_and_bibtex(rag_cli, library_home: Path, tmp_path: Path) -> None:
    _library(rag_cli, library_home)
    question = "How much do salt bridges add to protein fold stability?"
    code, out, err = rag_cli("ask", question, "--format", "markdown", "--llm", "extractive")
    assert code == 0, err
    assert out.startswith(f"## {question}\n\n") and "2.5 kcal/mol" in out
    assert "- [1] Linh Nguyen, Pieter van der Berg, The FoldSim Consortium (2024). Molecular Dynamics of Protein " \
           "Fold Stability. *Journal of Chemical Physics*. [doi.org](https://doi.org/10.1063/5.0190001)" \
           in out  # fmt: skip
    code, out, err = rag_cli("ask", question, "--format", "bibtex", "--llm", "extractive")
    assert code == 0 and out.startswith("@article{nguyen2024protein,\n"), err
    (back,) = read_papers([_write(tmp_path / "cited.bib", out)])[:1]
    original = next(p for p in read_papers([FORMATS / "zotero-better-csl.json"]) if p.id == "nguyen2024protein")
    assert kept(back) == kept(original)
    code, out, err = rag_cli("ask", "What is the FID of the diffusion model?", "--format", "bibtex", "--llm",
                             "extractive")  # fmt: skip
    assert code == 0 and out == "" and "cites no paper" in err


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_export_without_an_index_is_a_clear_error(rag_cli) -> None:
    code, out, err = rag_cli("export")
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1 and out == ""
