"""Papers as rows, pure functions (`rag export --format jsonl|csv`; reusable by the UI).

    paper_record(paper)        -> {"id": ..., "title": ..., "abstract": ..., "authors": [...], ...} (no nulls)
    write_jsonl(papers, out)   -> papers written, one JSON object a line
    write_csv(papers, out)     -> papers written, header row PAPER_FIELDS, authors joined with "; "
    sources_table(answer)      -> a Markdown table of the answer's retrieved sources

Both file formats read back into the same papers through rag's own readers (`rag index lib.jsonl`).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import Any, TextIO

from rag.text import pages_label
from rag.types import Answer, Paper

PAPER_FIELDS = ("id", "title", "abstract", "authors", "year", "venue", "url", "code_url", "arxiv_id", "doi")


def paper_record(paper: Paper) -> dict[str, Any]:
    """The paper in our JSONL field names; fields it does not have are left out."""
    record: dict[str, Any] = {}
    for name in PAPER_FIELDS:
        value = list(paper.authors) if name == "authors" else getattr(paper, name)
        if value not in (None, "", []):
            record[name] = value
    return record


def write_jsonl(papers: Iterable[Paper], out: TextIO) -> int:
    count = 0
    for paper in papers:
        out.write(json.dumps(paper_record(paper), ensure_ascii=False) + "\n")
        count += 1
    return count


def _authors_cell(authors: tuple[str, ...]) -> str:
    cell = "; ".join(authors)
    # our CSV reader splits a cell without ";" on " and " or ","; a lone "Lee, Ann" must not become two names
    return cell + ";" if len(authors) == 1 and ("," in cell or " and " in cell) else cell


def write_csv(papers: Iterable[Paper], out: TextIO) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(PAPER_FIELDS)
    count = 0
    for paper in papers:
        row = []
        for name in PAPER_FIELDS:
            value = _authors_cell(paper.authors) if name == "authors" else getattr(paper, name)
            row.append("" if value is None else str(value))
        writer.writerow(row)
        count += 1
    return count


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def sources_table(answer: Answer) -> str:
    """| n | paper | year | where | relevance | for the sources an answer was written from."""
    rows = ["| # | paper | year | where | relevance |", "| --- | --- | --- | --- | --- |"]
    for n, hit in enumerate(answer.sources, 1):
        where = pages_label(hit.page, hit.page_end) or "abstract"
        score = "" if hit.dense_score is None else f"{hit.dense_score:.2f}"
        rows.append(f"| {n} | {_cell(hit.paper.title)} | {hit.paper.year or ''} | {where} | {score} |")
    return "\n".join(rows) + "\n"
