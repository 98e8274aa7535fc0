"""CSL-JSON, the Citation Style Language's data format: Zotero's "CSL JSON" and Better BibTeX's "Better CSL
JSON" exports, citation.js and pandoc output. A JSON array of items:

    {"id": "vaswani2017", "type": "paper-conference", "title": "...", "author": [{"family": "Vaswani",
     "given": "Ashish"}], "issued": {"date-parts": [[2017, 12]]}, "abstract": "...",
     "container-title": "...", "DOI": "10.48550/arXiv.1706.03762", "URL": "...", "citation-key": "..."}

The paper id is the citation key (`citation-key`, else `id` when it can be one, else one derived from the DOI
or title and year). The arXiv id comes from an arXiv DOI (`10.48550/arXiv.X`), `number` ("arXiv:X") or the URL.
"""

from __future__ import annotations

import re

from rag.corpus.paper_fields import person, stable_id, valid_id
from rag.corpus.text_io import Fields

_ARXIV_RE = re.compile(
    r"(?:10\.48550/arxiv\.|arxiv:\s*|arxiv\.org/(?:abs|pdf)/)(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})",
    re.IGNORECASE,
)


def _name(creator: object) -> str | None:
    if not isinstance(creator, dict):
        return None
    if isinstance(creator.get("literal"), str):
        return " ".join(creator["literal"].split()) or None
    family = " ".join(
        p for p in (creator.get("non-dropping-particle"), creator.get("family")) if isinstance(p, str) and p
    )
    given = " ".join(p for p in (creator.get("given"), creator.get("dropping-particle")) if isinstance(p, str) and p)
    return person(given, family, creator.get("suffix"))


def _issued(value: object) -> tuple[str | None, str | None]:
    """CSL date -> (ISO date as precise as given, year)."""
    if not isinstance(value, dict):
        return None, None
    parts = value.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        try:
            nums = [int(str(p)) for p in parts[0][:3]]
        except ValueError:
            nums = []
        if nums:
            return "-".join([f"{nums[0]:04d}", *(f"{n:02d}" for n in nums[1:])]), str(nums[0])
    for key in ("raw", "literal"):
        raw = value.get(key)
        if isinstance(raw, str) and (m := re.search(r"\b(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", raw)):
            return "-".join(g for g in m.groups() if g), m.group(1)
    return None, None


_MARKUP_RE = re.compile(r"</?(?:i|b|sup|sub|span)(?:\s[^<>]*)?>", re.IGNORECASE)  # CSL's rich-text tags


def _text(value: object) -> str | None:
    if isinstance(value, list):  # some exporters give container-title as a list
        value = next((v for v in value if isinstance(v, str)), None)
    return _MARKUP_RE.sub("", value) if isinstance(value, str) else None


def csl_fields(item: dict[str, object]) -> Fields | str:
    date, year = _issued(item.get("issued"))
    doi, url, title = _text(item.get("DOI")), _text(item.get("URL")), _text(item.get("title"))
    arxiv = None
    for value in (doi, _text(item.get("number")), url, _text(item.get("note"))):
        if value and (m := _ARXIV_RE.search(value)):
            arxiv = m.group(1)
            break
    raw_id = item.get("citation-key") or item.get("id")
    paper_id = valid_id(str(raw_id)) if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else None
    authors = item.get("author")
    keywords = item.get("keyword")
    return {
        "id": paper_id or stable_id("csl", doi or "", title or "", year or ""),
        "title": title,
        "abstract": _text(item.get("abstract")),
        "authors": [n for n in map(_name, authors) if n] if isinstance(authors, list) else [],
        "year": year,
        "date": date,
        "venue": _text(item.get("container-title")) or _text(item.get("event-title")),
        "doi": doi,
        "url": url,
        "arxiv_id": arxiv,
        "type": item.get("type"),
        "keywords": [k.strip() for k in re.split(r"[,;]", keywords)] if isinstance(keywords, str) else [],
    }


def looks_like_csl(keys: set[str], sample: dict[str, object]) -> bool:
    if keys & {"issued", "container-title", "citation-key", "DOI", "URL"}:
        return True
    authors = sample.get("author")
    return isinstance(authors, list) and any(isinstance(a, dict) and ("family" in a or "literal" in a) for a in authors)


def csl_flavour(sample: dict[str, object]) -> str:
    """How the format is named in the "reading ... as" line."""
    if "citation-key" in sample:
        return "CSL-JSON (Zotero, Better BibTeX)"
    if str(sample.get("id", "")).startswith(("http://zotero.org/", "https://zotero.org/")):
        return "CSL-JSON (Zotero)"
    return "CSL-JSON"
