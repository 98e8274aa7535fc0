"""Questions about who wrote what, answered from the papers' author fields.

A question naming an author ("Zilberg's paper", "papers by Kornblith", "Starace et al.", "Junxian He") is about
that author's papers: their numbers among the sources (`authored`, closest match only: "Junxian He" before every
other He) restrict what the answer quotes. A question about the authorship itself ("which papers did X write",
"how many papers are by X", "who worked with X", "what is it called") is answered with each such paper's title,
venue and authors, from the metadata, one cited sentence each (`authorship_answer`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer.question import Question
from rag.retrieve.fields import author_match, mentioned
from rag.types import Hit, Paper

# the question asks about authorship or titles, not about the content of the papers
_AUTHORSHIP = re.compile(
    r"\b(wr[io]te|writ(?:ten|es|ing)|authored|(?:co-?)?authors?|co-?authored|co-?wr[io]te|publish\w*|contribut\w*"
    r"|work(?:ed|s)? (?:with|together)|collaborat\w*|involved|(?:is|was|are|were) (?:it|they) (?:called|titled)"
    r"|titles?|called|named)\b|\babout\W*$",  # "what is X's paper about?": its title says
    re.IGNORECASE,
)
_ASKS_PAPERS = re.compile(
    r"\b(which|what|list|name|how many|any|who|whose)\b.*\b(papers?|works?|publications?|articles?|stud(?:y|ies)"
    r"|titles?|called|named|with)\b|\bwho\b",
    re.IGNORECASE,
)

# "which papers (...) are by X", "list all papers by X": the papers themselves are asked for ("the paper by X" is
# not: "what does the paper by X show" asks about its content)
_PAPERS_BY = re.compile(
    r"\b(?:which|what|how many|list(?: the| all)?|name(?: the| all)?|any|all(?: the)?)\s+(?:other\s+)?"
    r"(?:papers?|works?|publications?|articles?)(?:\s+(?:in|of|from|the|this|my|our|library|collection|index|are|were"
    r"|is|was|written|authored|published))*\s+by\b",
    re.IGNORECASE,
)


def authored(question: Question, hits: Sequence[Hit]) -> list[int]:
    """The numbers ([n], from 1) of the sources one of whose authors the question names, closest match only. A
    name a source's text mentions is a cited work's author, not taken for an author of the library's papers."""
    cited = {w for h in hits for w in question.names if mentioned(w, h.text)}
    names = [w for w in question.names if w not in cited]  # "Huang et al., 2024" in an abstract: a cited work
    scores = [author_match(names, h.paper.authors) for h in hits]
    best = max(scores, default=0)
    return [n for n, score in enumerate(scores, 1) if best and score == best]


_AT_VENUE = re.compile(r"\b(?:at|in|from|to)\s+(?:the\s+)?([A-Z][\w-]*[A-Z][\w-]*|[A-Z]{2,}[\w-]*)")


def at_venue(question: Question, hits: Sequence[Hit]) -> list[int]:
    """The numbers of the sources published at the venue the question names ("at ICML", "in NeurIPS"): a venue
    field that holds the word. Empty when no source's venue does (then the word was not a venue)."""
    found = []
    for m in _AT_VENUE.finditer(question.asked):
        word = re.compile(rf"\b{re.escape(m.group(1))}\b", re.IGNORECASE)
        found += [n for n, h in enumerate(hits, 1) if h.paper.venue and word.search(h.paper.venue)]
    return sorted(set(found))


def restricted(question: Question, hits: Sequence[Hit]) -> list[int]:
    """The sources the question limits itself to by their fields (author, venue), or [] when it names none."""
    by, at = authored(question, hits), at_venue(question, hits)
    return sorted(set(by) & set(at)) or by or at if by and at else by or at


def asks_authorship(question: Question) -> bool:
    clause = question.asked
    return bool(_AUTHORSHIP.search(clause) and _ASKS_PAPERS.search(clause) or _PAPERS_BY.search(clause))


def _described(paper: Paper) -> str:
    year = str(paper.year) if paper.year and str(paper.year) not in (paper.venue or "") else ""
    where = ", ".join(x for x in (paper.venue or "", year) if x)
    return f"{paper.title}{f' ({where})' if where else ''}"


def authorship_answer(question: Question, hits: Sequence[Hit]) -> str | None:
    """Each paper by the named author: its title, venue and year, and authors, cited (None: no author named or the
    question asks about the papers' content)."""
    numbers = authored(question, hits)
    if not numbers or not asks_authorship(question):
        return None
    lines = [f"{_described(hits[n - 1].paper)} is by {', '.join(hits[n - 1].paper.authors)} [{n}]." for n in numbers]
    return " ".join(lines)
