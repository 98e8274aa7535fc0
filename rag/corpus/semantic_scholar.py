"""Semantic Scholar Graph API papers: one paper (`/paper/{id}`), a JSON array (`/paper/batch`), a search or bulk
search response `{"total": ..., "offset"/"token": ..., "data": [paper, ...]}`, or JSON Lines of papers.

Fields as requested with `fields=title,abstract,year,venue,authors,externalIds,url,publicationDate`: the
paper id is `paperId`, names come from `authors[].name`, `externalIds.ArXiv` and `.DOI` fill the arXiv id and
DOI, and `url` (the paper's Semantic Scholar page) is kept. Search results often lack an abstract (the
publisher withholds it); such records are reported, and `--skip-bad` skips them.
"""

from __future__ import annotations

from rag.corpus.text_io import Fields


def s2_fields(paper: dict[str, object]) -> Fields | str:
    ids = paper.get("externalIds")
    ids = ids if isinstance(ids, dict) else {}
    authors = paper.get("authors")
    venue = paper.get("venue")
    if not venue:
        journal = paper.get("journal")
        venue = journal.get("name") if isinstance(journal, dict) else None
    fields_of_study = paper.get("fieldsOfStudy")
    return {
        "id": paper.get("paperId"),
        "title": paper.get("title"),
        "abstract": paper.get("abstract"),
        "authors": [a.get("name") for a in authors if isinstance(a, dict)] if isinstance(authors, list) else [],
        "year": paper.get("year"),
        "date": paper.get("publicationDate"),
        "venue": venue,
        "url": paper.get("url"),
        "arxiv_id": ids.get("ArXiv"),
        "doi": ids.get("DOI"),
        "fieldsofstudy": fields_of_study if isinstance(fields_of_study, list) else [],
        "publicationtypes": paper.get("publicationTypes"),
    }


def looks_like_paper(keys: set[str], sample: dict[str, object]) -> bool:
    return "paperId" in keys or "corpusId" in keys
