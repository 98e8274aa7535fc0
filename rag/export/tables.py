"""Papers as rows, pure functions (`rag export --format jsonl|csv`; reusable by the UI).

    paper_record(paper)        -> {"id": ..., "title": ..., "abstract": ..., "authors": [...], ...} (no nulls)
    write_jsonl(papers, out)   -> papers written, one JSON object a line
    write_csv(papers, out)     -> papers written, header row PAPER_FIELDS, authors joined with "; "
    sources_table(answer)      -> a Markdown table of the answer's retrieved sources

Both file formats read back into the same papers through rag's own readers (`rag index lib.jsonl`).

Neither carries a link or markup a viewer could act on (rag.safe_text): `url` and `code_url` are written only
when they are http(s) (a local PDF's file: URL and a `javascript:` URL are left out). JSON Lines writes `<`, `>`
and `&` as `\\u003c`, `\\u003e`, `\\u0026` (the same strings to any JSON reader, but no tag in the bytes). CSV has
no escape, so tags that can load or run something are removed from its cells (`<i>` and `<sub>` stay), and a
cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'` so a spreadsheet reads it as
text, not a formula (rag's CSV reader takes that `'` off again).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import Any, TextIO

from rag.safe_text import md_escape, safe_url, strip_active_html
from rag.text import pages_label
from rag.types import Answer, Paper

PAPER_FIELDS = ("id", "title", "abstract", "authors", "year", "venue", "url", "code_url", "arxiv_id", "doi")
URL_FIELDS = ("url", "code_url")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet takes for a formula (OWASP's list)


def paper_record(paper: Paper) -> dict[str, Any]:
    """The paper in our JSONL field names; fields it does not have, and URLs that are not http(s), are left out."""
    record: dict[str, Any] = {}
    for name in PAPER_FIELDS:
        value = list(paper.authors) if name == "authors" else getattr(paper, name)
        if name in URL_FIELDS:
            value = safe_url(value)
        if value not in (None, "", []):
            record[name] = value
    return record


def json_line(value: Any) -> str:
    """One JSON value on one line, `<`, `>` and `&` escaped (they only ever occur inside strings)."""
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def write_jsonl(papers: Iterable[Paper], out: TextIO) -> int:
    count = 0
    for paper in papers:
        out.write(json_line(paper_record(paper)) + "\n")
        count += 1
    return count


def _authors_cell(authors: tuple[str, ...]) -> str:
    cell = "; ".join(authors)
    # our CSV reader splits a cell without ";" on " and " or ","; a lone "Lee, Ann" must not become two names
    return cell + ";" if len(authors) == 1 and ("," in cell or " and " in cell) else cell


def csv_cell(value: object) -> str:
    """A CSV cell no viewer acts on: no tag that loads or runs something, no formula."""
    text = strip_active_html("" if value is None else str(value))
    return "'" + text if text.startswith(FORMULA_START) else text


def write_csv(papers: Iterable[Paper], out: TextIO) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(PAPER_FIELDS)
    count = 0
    for paper in papers:
        row = []
        for name in PAPER_FIELDS:
            value = _authors_cell(paper.authors) if name == "authors" else getattr(paper, name)
            row.append(csv_cell(safe_url(value) if name in URL_FIELDS else value))
        writer.writerow(row)
        count += 1
    return count


def _cell(text: str) -> str:
    return md_escape(text)  # one line, "|" escaped with the rest


def sources_table(answer: Answer) -> str:
    """| n | paper | year | where | relevance | for the sources an answer was written from."""
    rows = ["| # | paper | year | where | relevance |", "| --- | --- | --- | --- | --- |"]
    for n, hit in enumerate(answer.sources, 1):
        where = pages_label(hit.page, hit.page_end) or "abstract"
        score = "" if hit.dense_score is None else f"{hit.dense_score:.2f}"
        rows.append(f"| {n} | {_cell(hit.paper.title)} | {hit.paper.year or ''} | {where} | {score} |")
    return "\n".join(rows) + "\n"
