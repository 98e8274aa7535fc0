"""Paper <-> chunk metadata as stored in the vector store (flat str/int values: Chroma has no null)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from rag.corpus.abbreviations import abbreviations
from rag.corpus.latex_in_abstracts import undo_latex_markup
from rag.types import Chunk, Paper

AUTHOR_SEP = "; "


def paper_metadata(paper: Paper) -> dict[str, str | int]:
    meta: dict[str, str | int] = {"paper_id": paper.id, "title": paper.title}
    if paper.authors:
        meta["authors"] = AUTHOR_SEP.join(paper.authors)
    if paper.year is not None:
        meta["year"] = paper.year
    for key in ("venue", "url", "code_url", "arxiv_id", "source", "doi"):
        value = getattr(paper, key)
        if value:
            meta[key] = value
    meta["abbreviations"] = json.dumps([[a.short, a.long] for a in abbreviations(paper.abstract)], ensure_ascii=False)
    return meta


def _abbreviations(meta: Mapping[str, Any]) -> tuple[tuple[str, str], ...] | None:
    """The stored (short, long) pairs; None when this index did not store them (or they are unreadable)."""
    try:
        pairs = json.loads(str(meta["abbreviations"]))
        return tuple((str(short), str(long)) for short, long in pairs)
    except (KeyError, ValueError, TypeError):
        return None


def meta_hash(meta: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()[:16]


def chunk_metadata(
    paper: Paper, chunk: Chunk, whole_abstract: str | bool | None = None, roles: str = ""
) -> dict[str, str | int]:
    """Metadata of one chunk. The first chunk of a multi-chunk paper (`whole_abstract` given: True, or the whole
    abstract's sentence roles) also carries the whole abstract and its roles, so a paper page or an answer can
    show it without stitching overlapping windows. `roles`: the chunk's sentences' roles, one letter each
    (rag.corpus.roles.encode_roles)."""
    meta = paper_metadata(paper)
    if whole_abstract and chunk.position == 0:
        meta["abstract"] = paper.abstract
        if isinstance(whole_abstract, str):
            meta["abstract_roles"] = whole_abstract
    if roles:
        meta["roles"] = roles
    meta.update(position=chunk.position, num_tokens=chunk.num_tokens, hash=chunk.content_hash)
    if chunk.page is not None:
        meta["page"] = chunk.page
        meta["page_end"] = chunk.page_end if chunk.page_end is not None else chunk.page
    if chunk.section:
        meta["section"] = chunk.section
    meta["meta_hash"] = meta_hash(meta)
    return meta


def stored_text(text: str) -> str:
    """Text as an index stores it, read as the corpus reader now reads it: an index built before LaTeX markup was
    undone (rag.corpus.latex_in_abstracts) still holds `10\\%`; plain text comes back unchanged."""
    return undo_latex_markup(text)


def paper_from_metadata(meta: Mapping[str, Any], abstract: str) -> Paper:
    authors = str(meta.get("authors") or "")
    year = meta.get("year")
    return Paper(
        id=str(meta["paper_id"]),
        title=stored_text(str(meta.get("title") or meta["paper_id"])),
        abstract=stored_text(abstract),
        authors=tuple(a for a in authors.split(AUTHOR_SEP) if a),
        year=int(year) if isinstance(year, int | float) else None,
        venue=meta.get("venue") or None,
        url=meta.get("url") or None,
        code_url=meta.get("code_url") or None,
        arxiv_id=meta.get("arxiv_id") or None,
        source=str(meta.get("source") or ""),
        doi=meta.get("doi") or None,
        abbreviations=_abbreviations(meta),
    )


def page_of(meta: Mapping[str, Any]) -> tuple[int | None, int | None, str | None]:
    """A chunk's (first page, last page, section heading) from its metadata: all None for abstract chunks."""
    page, end, section = meta.get("page"), meta.get("page_end"), meta.get("section")
    first = int(page) if isinstance(page, int | float) and not isinstance(page, bool) else None
    last = int(end) if isinstance(end, int | float) and not isinstance(end, bool) else first
    return first, last, str(section) if section else None


def lexical_text(meta: Mapping[str, Any], text: str) -> str:
    """What BM25 indexes for a chunk: title, authors and venue are searchable too."""
    return " ".join(str(meta.get(k, "")) for k in ("title", "authors", "venue", "arxiv_id")) + " " + text
