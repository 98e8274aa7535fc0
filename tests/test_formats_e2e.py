"""Every outside format end to end: `rag index FILE` (the format named on stderr) and `rag ask` citing the right
paper with the fact from its abstract, through the real CLI code and the local MiniLM embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

FORMATS = Path(__file__).resolve().parent / "data" / "formats"

CASES = [
    # (fixture, extra index args, label on stderr, question, cited paper id, fact in the answer)
    ("arxiv-metadata-oai-snapshot.json", ["--where", "categories=cs.LG", "--since", "2024-01-01"],
     "arXiv metadata snapshot (JSON Lines)", "By how much does the mixture-of-experts router reduce bed-picking error?",
     "2401.01234", "41 percent"),
    ("openalex-works-page.json", ["--skip-bad"], "OpenAlex API page",
     "How much of the variance in soil organic carbon does the model explain?", "W4391234567", "78 percent"),
    ("openalex-works.jsonl", [], "OpenAlex works (JSON Lines)", "How many days earlier does thrush migration peak?",
     "W4387654321", "6 days earlier"),
    ("s2-paper-search.json", ["--skip-bad"], "Semantic Scholar Graph API response",
     "What intersection over union does the burn scar U-Net reach?", "0f1e2d3c4b5a69788796a5b4c3d2e1f001122334",
     "0.91"),
    ("zotero-better-csl.json", [], "CSL-JSON (Zotero, Better BibTeX)",
     "How much do salt bridges add to protein fold stability?", "nguyen2024protein", "2.5 kcal/mol"),
    ("zotero.ris", [], "RIS", "How much yield variance does the phenology model explain before harvest?", None,
     "71 percent"),
    ("endnote-export.txt", ["--skip-bad"], "RIS", "How much more bleached area does the 3D method find?",
     "osei2020", "19 percent"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "extra", "label", "question", "paper", "fact"), CASES, ids=[c[0] for c in CASES])
def test_index_then_ask(rag_cli, name: str, extra: list[str], label: str, question: str, paper: str | None,
                        fact: str) -> None:  # fmt: skip
    path = FORMATS / name
    code, out, err = rag_cli("index", str(path), *extra)
    assert code == 0, err
    assert f"reading {path} as {label}" in err.splitlines()
    assert out.startswith("indexed ")
    record = rag_cli.ask_json(question)
    assert not record["abstained"] and record["unsupported"] == []
    cited = record["citations"][0]
    if paper is not None:
        assert cited["paper_id"] == paper
    assert fact in record["answer"]


def test_the_arxiv_filters_are_in_the_report_line(rag_cli) -> None:
    code, out, err = rag_cli("index", str(FORMATS / "arxiv-metadata-oai-snapshot.json"), "--where", "categories=cs.LG",
                             "--since", "2024-01-01")  # fmt: skip
    assert code == 0, err
    assert out.strip().startswith("indexed 2 papers: 2 chunks")
    assert out.strip().endswith("; records 3 filtered out")
    code, out, _ = rag_cli("export", "--format", "jsonl")
    assert [line.split('"')[3] for line in out.splitlines()] == ["2401.01234", "2402.05555"]
