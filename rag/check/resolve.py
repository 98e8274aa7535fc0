"""Citation keys -> papers of the library.

A key is looked up, in this order, as: an indexed paper's id (a BibTeX or CSL-JSON library keeps each entry's
citation key as its id, rag.corpus.bib), the same case-insensitively, a DOI (`10.x/y`, `doi:`, `https://doi.org/`;
an arXiv DOI `10.48550/arXiv.X` also as the arXiv id X), an arXiv id (`arXiv:2410.09032v2`, `arxiv.org/abs/...`,
any version). A key that is none of those, or a numbered citation ("3"), is looked up through the draft's own
reference entry for it (its reference list, \\bibitem, or its .bib file): by the DOI or arXiv id in the entry, else
by a library paper's title found in the entry. What resolves to nothing is "not in the library".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rag.corpus.bib import key_id
from rag.types import Paper

_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>{}]+)", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV = re.compile(
    r"(?:arxiv\s*[:.]?\s*|arxiv\.org/(?:abs|pdf)/)((?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7}))(?:v\d+)?",
    re.IGNORECASE,
)
_BARE_ARXIV = re.compile(r"^(\d{4}\.\d{4,5})(?:v\d+)?$")
_VERSION = re.compile(r"v\d+$")
_WORDS = re.compile(r"[^\W_]+")
MIN_TITLE_CHARS = 16  # a title shorter than this could be found inside an unrelated reference by chance


def normal_doi(doi: str | None) -> str | None:
    """ "doi:10.1/X.", "https://doi.org/10.1/X" -> "10.1/x" (DOIs are case-insensitive)."""
    if not doi:
        return None
    doi = _DOI_PREFIX.sub("", doi.strip()).rstrip(".,;)]").lower()
    return doi if doi.startswith("10.") else None


def normal_arxiv(arxiv_id: str | None) -> str | None:
    """ "arXiv:2410.09032v2", "https://arxiv.org/abs/2410.09032" -> "2410.09032"."""
    if not arxiv_id:
        return None
    text = arxiv_id.strip()
    m = _ARXIV.search(text) or _BARE_ARXIV.match(text)
    found = m.group(1) if m else (text if "/" in text and not text.startswith("10.") else None)
    return _VERSION.sub("", found).lower() if found else None


def _title_key(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower()))


@dataclass(frozen=True)
class Resolved:
    key: str  # as written in the draft
    paper: Paper | None  # None: not in the library
    matched_by: str | None  # "id", "bibtex key", "doi", "arxiv", "title" (None: not found)
    reference: str | None = None  # the draft's reference entry for the key, when it has one


class Library:
    """The indexed papers, looked up by id, DOI, arXiv id and title."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self.papers = list(papers)
        self.by_id = {p.id: p for p in self.papers}
        self.by_lower_id: dict[str, Paper] = {}
        self.by_doi: dict[str, Paper] = {}
        self.by_arxiv: dict[str, Paper] = {}
        self.by_title: dict[str, Paper] = {}
        for p in self.papers:
            self.by_lower_id.setdefault(p.id.lower(), p)
            if doi := normal_doi(p.doi):
                self.by_doi.setdefault(doi, p)
                if m := _ARXIV_DOI.match(doi):
                    self.by_arxiv.setdefault(_VERSION.sub("", m.group(1)), p)
            if arxiv := normal_arxiv(p.arxiv_id):
                self.by_arxiv.setdefault(arxiv, p)
            title = _title_key(p.title)
            if len(title) >= MIN_TITLE_CHARS:
                self.by_title.setdefault(title, p)

    def __len__(self) -> int:
        return len(self.papers)

    def _how(self, paper: Paper) -> str:
        return "bibtex key" if paper.source.lower().endswith(".bib") else "id"

    def by_identifier(self, text: str) -> tuple[Paper, str] | None:
        """A DOI or arXiv id (with or without its prefix or URL), or None."""
        if (doi := normal_doi(text)) is not None:
            if doi in self.by_doi:
                return self.by_doi[doi], "doi"
            if (m := _ARXIV_DOI.match(doi)) and (p := self.by_arxiv.get(_VERSION.sub("", m.group(1)))):
                return p, "arxiv"
            return None
        arxiv = normal_arxiv(text)
        if arxiv is not None and arxiv in self.by_arxiv:
            return self.by_arxiv[arxiv], "arxiv"
        return None

    def in_reference(self, entry: str) -> tuple[Paper, str] | None:
        """The paper a reference entry names: by its DOI, its arXiv id, else a library title found in it."""
        for m in _DOI.finditer(entry):
            if (found := self.by_identifier(m.group(1))) is not None:
                return found
        for m in _ARXIV.finditer(entry):
            if (found := self.by_identifier(f"arXiv:{m.group(1)}")) is not None:
                return found
        text = f" {_title_key(entry)} "
        titled = [(len(t), p) for t, p in self.by_title.items() if f" {t} " in text]
        return (max(titled, key=lambda x: x[0])[1], "title") if titled else None

    def resolve(self, key: str, references: Mapping[str, str] | None = None) -> Resolved:
        """What `key` cites (see the module docstring)."""
        entry = (references or {}).get(key)
        if not key.isdigit():
            if key in self.by_id:
                return Resolved(key, self.by_id[key], self._how(self.by_id[key]), entry)
            if (p := self.by_lower_id.get(key.lower())) is not None:
                return Resolved(key, p, self._how(p), entry)
            if (as_id := key_id(key)) and (p := self.by_lower_id.get(as_id.lower())) is not None:
                return Resolved(key, p, self._how(p), entry)  # a BibTeX key that was not a valid id as written
            if (found := self.by_identifier(key)) is not None:
                return Resolved(key, found[0], found[1], entry)
        if entry and (found := self.in_reference(entry)) is not None:
            return Resolved(key, found[0], found[1], entry)
        return Resolved(key, None, None, entry)


def bib_references(entries: Iterable[object]) -> dict[str, str]:
    """The draft's own .bib entries (rag.corpus.bibtex.BibEntry) as reference text: key -> "title doi arXiv"."""
    out: dict[str, str] = {}
    for e in entries:
        key, fields = getattr(e, "key", ""), getattr(e, "fields", None)
        if not key or not isinstance(fields, dict):
            continue
        parts = [fields.get("title", ""), f"doi:{fields['doi']}" if fields.get("doi") else ""]
        if fields.get("eprint") and fields.get("archiveprefix", "arxiv").lower() == "arxiv":
            parts.append(f"arXiv:{fields['eprint']}")
        parts.append(fields.get("url", ""))
        out[key] = " ".join(p for p in parts if p)
    return out
