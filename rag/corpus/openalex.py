"""OpenAlex works as the API returns them: a page `{"meta": ..., "results": [work, ...]}` from `/works?filter=`,
one work from `/works/W...`, or JSON Lines of works (the snapshot's files, or pages flattened with jq).

A work has no abstract text, only `abstract_inverted_index` (word -> positions); the abstract is rebuilt from
it. The paper id is the short work id (`W2741809807`), names come from `authorships[].author.display_name`,
the venue from `primary_location.source.display_name`, and the url is the DOI's (else the landing page).
"""

from __future__ import annotations

import re

from rag.corpus.text_io import Fields

MAX_POSITION = 200_000  # an abstract of 100,000 characters has ~20,000 words: more is a broken index
_ARXIV_URL_RE = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+?)(?:v\d+)?(?:\.pdf)?$", re.IGNORECASE)


def rebuild_abstract(index: object) -> str | None:
    """{"Deep": [0], "learning": [1, 4], ...} -> "Deep learning ... learning"; None when there is none.
    Raises ValueError for an index that is not word -> list of positions."""
    if index is None:
        return None
    if not isinstance(index, dict):
        raise ValueError("abstract_inverted_index is not an object")
    words: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(positions, list):
            raise ValueError(f"abstract_inverted_index[{str(word)[:30]!r}] is not a list of positions")
        for pos in positions:
            if not isinstance(pos, int) or isinstance(pos, bool) or not 0 <= pos <= MAX_POSITION:
                raise ValueError(f"abstract_inverted_index has a bad position {str(pos)[:20]}")
            words[pos] = str(word)
    return " ".join(words[p] for p in sorted(words)) or None


def _name(value: object, *path: str) -> object:
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def openalex_fields(work: dict[str, object]) -> Fields | str:
    try:
        abstract = rebuild_abstract(work.get("abstract_inverted_index"))
    except ValueError as e:
        return str(e)
    work_id = work.get("id")
    short = work_id.rstrip("/").rsplit("/", 1)[-1] if isinstance(work_id, str) else None
    authorships = work.get("authorships")
    authors = [
        name
        for a in (authorships if isinstance(authorships, list) else [])
        if isinstance(name := _name(a, "author", "display_name"), str)
    ]
    landing = _name(work, "primary_location", "landing_page_url")
    doi = work.get("doi")
    arxiv = None
    locations = work.get("locations")
    for loc in [work.get("primary_location"), *(locations if isinstance(locations, list) else [])]:
        url = _name(loc, "landing_page_url")
        if isinstance(url, str) and (m := _ARXIV_URL_RE.search(url)):
            arxiv = m.group(1)
            break
    keywords = work.get("keywords")
    return {
        "id": short,
        "title": work.get("title") or work.get("display_name"),
        "abstract": abstract,
        "authors": authors,
        "year": work.get("publication_year"),
        "date": work.get("publication_date"),
        "venue": _name(work, "primary_location", "source", "display_name"),
        "doi": doi,
        "url": doi if isinstance(doi, str) and doi.startswith("http") else landing if isinstance(landing, str)
        else work_id,
        "arxiv_id": arxiv,
        "type": work.get("type"),
        "language": work.get("language"),
        "keywords": [k.get("display_name") for k in keywords if isinstance(k, dict)]
        if isinstance(keywords, list) else [],
    }  # fmt: skip


def looks_like_work(keys: set[str], sample: dict[str, object]) -> bool:
    work_id = sample.get("id")
    return "abstract_inverted_index" in keys or (isinstance(work_id, str) and "openalex.org/W" in work_id)
