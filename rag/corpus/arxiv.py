"""The arXiv metadata snapshot (Kaggle's "arxiv" dataset, `arxiv-metadata-oai-snapshot.json`): JSON Lines of
`id, submitter, authors, title, comments, journal-ref, doi, report-no, categories, license, abstract,
versions, update_date, authors_parsed`, 1.7M+ lines. Read line by line, never whole; with `--where` a line
without the wanted text is not even decoded.

The paper id is the arXiv id, the url is its abstract page, the date is the first version's (`versions[0]`),
names come from `authors_parsed` with their LaTeX accents resolved, and the venue is the journal reference
when there is one, else "arXiv". `categories` (a list) and the other snapshot fields can be filtered on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.utils import parsedate_to_datetime

from rag.corpus.bibtex import latex_to_text, split_names
from rag.corpus.jsonl import read_lines_as
from rag.corpus.paper_fields import person
from rag.corpus.source_file import Source
from rag.corpus.text_io import Fields, Record

_ARXIV_ID_RE = re.compile(r"(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?/\d{7})(v\d+)?")
_PASSED_ON = ("submitter", "comments", "journal-ref", "report-no", "license", "update_date")


def _first_version_date(versions: object) -> str | None:
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        created = versions[0].get("created")
        if isinstance(created, str):
            try:
                return parsedate_to_datetime(created).date().isoformat()
            except (TypeError, ValueError, IndexError):
                return None
    return None


def _authors(record: dict[str, object]) -> list[str]:
    parsed = record.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        names = []
        for entry in parsed:
            if isinstance(entry, list) and entry:
                last, given, suffix = (list(entry) + ["", "", ""])[:3]
                name = person(*(latex_to_text(x) if isinstance(x, str) else x for x in (given, last, suffix)))
                if name:
                    names.append(" ".join(name.split()))
        return names
    authors = record.get("authors")
    return list(split_names(authors.replace(", ", " and "))) if isinstance(authors, str) else []


def arxiv_fields(record: dict[str, object]) -> Fields | str:
    arxiv_id = record.get("id")
    if not isinstance(arxiv_id, str) or not _ARXIV_ID_RE.fullmatch(arxiv_id.strip()):
        return f"not an arXiv id: {str(arxiv_id)[:40]!r}"
    arxiv_id = arxiv_id.strip()
    day = _first_version_date(record.get("versions"))
    update = record.get("update_date")
    day = day or (update if isinstance(update, str) else None)
    categories = record.get("categories")
    journal = record.get("journal-ref")
    fields: Fields = {
        "id": arxiv_id,
        "arxiv_id": arxiv_id,
        "url": f"https://arxiv.org/abs/{arxiv_id}",
        "title": record.get("title"),
        "abstract": record.get("abstract"),
        "authors": _authors(record),
        "date": day,
        "year": day[:4] if day else None,
        "venue": journal if isinstance(journal, str) and journal.strip() else "arXiv",
        "doi": record.get("doi"),
        "categories": categories.split() if isinstance(categories, str) else [],
    }
    for key in _PASSED_ON:
        fields.setdefault(key, record.get(key))
    return fields


def read_arxiv_snapshot(source: Source) -> Iterator[Record]:
    return read_lines_as(source, arxiv_fields)
