"""Answers and papers out again: Markdown, BibTeX, JSONL and CSV. Pure formatting functions with no outside
library (the CLI and the UI both call them); see each module's docstring for the signatures."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from rag.export.bibtex import bibtex_entries, bibtex_entry, cited_bibtex, cited_papers
from rag.export.markdown import answer_markdown, conversation_markdown, reference_line
from rag.export.tables import PAPER_FIELDS, paper_record, sources_table, write_csv, write_jsonl
from rag.types import Paper

FORMATS = ("jsonl", "bibtex", "csv")


def write_papers(papers: Iterable[Paper], fmt: str, out: TextIO) -> int:
    """Write `papers` to `out` as jsonl, bibtex or csv; returns how many were written."""
    if fmt == "jsonl":
        return write_jsonl(papers, out)
    if fmt == "csv":
        return write_csv(papers, out)
    if fmt == "bibtex":
        count = 0
        for paper in papers:
            out.write(("\n" if count else "") + bibtex_entry(paper))
            count += 1
        return count
    raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "PAPER_FIELDS", "answer_markdown", "bibtex_entries", "bibtex_entry", "cited_bibtex",
           "cited_papers", "conversation_markdown", "paper_record", "reference_line", "sources_table",
           "write_csv", "write_jsonl", "write_papers"]  # fmt: skip
