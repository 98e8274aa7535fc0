"""RIS, the tagged format of EndNote ("RefMan (RIS) Export"), Mendeley, Zotero, Web of Science and Scopus exports:

    TY  - JOUR
    TI  - Attention Is All You Need
    AU  - Vaswani, Ashish
    PY  - 2017
    AB  - The dominant sequence transduction models ...
    DO  - 10.48550/arXiv.1706.03762
    ER  -

Tags are parsed by rispy (TI/T1 title, AU/A1 authors, PY/Y1/DA date, AB/N2 abstract, JO/JF/T2 venue, DO, UR, ID);
this module only cuts the file into entries at TY and ER lines, so each entry keeps its line number and a
large export streams. The paper id is the entry's ID tag when it can be one, else derived from DOI or title.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import rispy

from rag.corpus.paper_fields import last_first, stable_id, valid_id
from rag.corpus.source_file import Source
from rag.corpus.text_io import Fields, Record

_TAG_RE = re.compile(r"^([A-Z][A-Z0-9])  -(?: |$)")
_DATE_RE = re.compile(r"(\d{4})(?:[/-](\d{1,2}))?(?:[/-](\d{1,2}))?")
_ARXIV_RE = re.compile(r"(?:10\.48550/arxiv\.|arxiv\.org/(?:abs|pdf)/)(\d{4}\.\d{4,5})", re.IGNORECASE)


def is_ris(first_line: str) -> bool:
    return _TAG_RE.match(first_line.lstrip("\ufeff")) is not None and first_line.lstrip("\ufeff").startswith("TY")


def _entries(source: Source) -> Iterator[tuple[int, list[str] | str]]:
    """(line of the TY tag, the entry's lines) for each entry; (line, reason) for one that never ends."""
    start, lines = 0, []  # type: tuple[int, list[str]]
    number = 0
    for number, line in enumerate(source.text_lines(), 1):
        text = line.rstrip("\r\n").lstrip("\ufeff")
        m = _TAG_RE.match(text)
        tag = m.group(1) if m else None
        if tag == "TY":
            if lines:
                yield start, f"entry has no 'ER  -' line before the next 'TY  -' (line {number})"
            start, lines = number, [text]
        elif lines:
            lines.append(text)
            if tag == "ER":
                yield start, lines
                lines = []
    if lines:
        yield start, "entry has no 'ER  -' line; the file ends inside it"


def _first(entry: dict[str, object], *keys: str) -> str | None:
    for key in keys:
        value = entry.get(key)
        if isinstance(value, list):
            value = next((v for v in value if isinstance(v, str) and v.strip()), None)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def ris_fields(entry: dict[str, object]) -> Fields:
    title = _first(entry, "title", "primary_title")
    raw_date = _first(entry, "year", "publication_year", "date") or ""
    d = _DATE_RE.search(raw_date)
    date = "-".join([d.group(1), *(f"{int(g):02d}" for g in d.groups()[1:] if g)]) if d else None
    year = d.group(1) if d else None
    names = [*(entry.get("authors") or []), *(entry.get("first_authors") or [])]  # type: ignore[misc]
    authors = [last_first(n) for n in names if isinstance(n, str) and n.strip()]
    doi = _first(entry, "doi")
    urls = [u for u in entry.get("urls") or [] if isinstance(u, str) and u]  # type: ignore[attr-defined]
    arxiv = next((a.group(1) for v in [doi or "", *urls] if (a := _ARXIV_RE.search(v))), None)
    return {
        "id": valid_id(_first(entry, "id")) or stable_id("ris", doi or "", title or "", year or ""),
        "title": title,
        "abstract": _first(entry, "abstract", "notes_abstract"),
        "authors": authors,
        "year": year,
        "date": date,
        "venue": _first(entry, "journal_name", "alternate_title3", "secondary_title", "alternate_title1"),
        "doi": doi,
        "url": urls[0] if urls else None,
        "arxiv_id": arxiv,
        "type": _first(entry, "type_of_reference"),
        "keywords": [k for k in entry.get("keywords") or [] if isinstance(k, str)],  # type: ignore[attr-defined]
    }


def read_ris(source: Source) -> Iterator[Record]:
    parser = rispy.RisParser(skip_unknown_tags=True)
    for line, lines in _entries(source):
        if isinstance(lines, str):
            yield line, lines
            continue
        parsed = parser.parse_lines(iter(lines))
        yield line, ris_fields(parsed[0]) if parsed else "entry without tags"
