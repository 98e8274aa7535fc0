"""Questions about a paper's bibliographic facts (authors, code, links, venue, year) are answered from the index
metadata of the best-matching paper, never from abstract text."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.citations import REFUSAL
from rag.safe_text import safe_url
from rag.types import Hit

_AUTHORS = re.compile(
    r"\bwho\b.*\b(wrote|write|authored|authors?|behind|created)\b|\b(list|name|names of) the authors\b|\bwritten by\b"
    r"|\bwho are the authors\b|\bauthor list\b",
    re.IGNORECASE,
)
_CODE = re.compile(
    r"\b(github|source code|code (repository|repo|link|url|release))\b|\brepository for\b"
    r"|\b(where|is there|link|url|available|released?|find)\b.*\bcode\b|\bcode\b.*\b(available|released?|public)\b",
    re.IGNORECASE,
)
_LINK = re.compile(
    r"\barxiv (id|link|number|identifier)\b|\b(link|url) (to|of|for) (the|this|that)\b|\bwhere can i (read|find)\b"
    r"|\bwhat (link|url)\b|\b(link|url) (is|are) (available|there)\b",
    re.IGNORECASE,
)

_VENUE = re.compile(
    r"\b(?:which|what) (?:venue|conference|journal|proceedings)\b(?!['\u2019]s)"
    r"|\b(?:venue|conference|journal) (?:of|for|did)\b"
    r"|\bwhere (?:was|were|did|is)\b.*\b(?:published|appear\w*|presented)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(
    r"\b(?:what|which) year\b.*\b(?:published|appear\w*|released|presented|come out|written)\b"
    r"|\bwhen (?:was|were|did|is)\b.*\b(?:published|appear\w*|released|presented|come out)\b"
    r"|\byear of publication\b|\bpublication year\b",
    re.IGNORECASE,
)
_KINDS = (("authors", _AUTHORS), ("code", _CODE), ("link", _LINK), ("venue", _VENUE), ("year", _YEAR))


def metadata_intent(question: str) -> list[str]:
    """Which bibliographic facts the question asks for: "authors", "code", "link", "venue", "year" (or none)."""
    return [kind for kind, rx in _KINDS if rx.search(question)]


def metadata_answer(wants: Sequence[str], hits: Sequence[Hit]) -> str | None:
    """Authors, code and links (`wants`: what metadata_intent found) come from the index metadata of the
    best-matching paper."""
    if not wants:
        return None
    p = hits[0].paper
    parts = []
    if "authors" in wants and p.authors:
        year = str(p.year) if p.year and str(p.year) not in (p.venue or "") else ""
        where = ", ".join(x for x in (p.venue or "", year) if x)
        parts.append(f"{p.title}{f' ({where})' if where else ''} is by {', '.join(p.authors)} [1].")
    code, url = safe_url(p.code_url), safe_url(p.url)  # a javascript: or data: URL is no place to send anyone
    if "code" in wants and code:
        parts.append(f"The code for {p.title} is at {code} [1].")
    if "link" in wants and (url or p.arxiv_id):
        arxiv = f"arXiv {p.arxiv_id}, " if p.arxiv_id else ""
        parts.append(f"{p.title} is available at {arxiv}{url or ''} [1].".replace(", [1]", " [1]"))
    if "venue" in wants and p.venue and not ("authors" in wants and p.authors):  # the authors' sentence says it
        parts.append(f"{p.title} appeared at {p.venue} [1].")
    if "year" in wants and p.year and not any(str(p.year) in x for x in parts):  # said with venue or authors
        parts.append(f"{p.title} was published in {p.year} [1].")
    return " ".join(parts) if parts else REFUSAL
