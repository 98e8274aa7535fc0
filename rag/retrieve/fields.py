"""A question matched against papers' metadata fields, not against the abstract's words: its authors.

An abstract never holds its authors' names, so "What did Zilberg's paper introduce?" is far from every abstract in
the embedding and "Zilberg" is one word among many for BM25. Here a capitalised word of the question is a name
candidate (`name_words`); it names a paper's author when it equals an author's surname, folded for case and
accents (`author_match`: a first name that precedes it in the question counts too, so "Junxian He" is a closer
match than "Run He"). At search time the candidates come from BM25's posting lists (its text holds the authors),
so no paper is scanned: only the first chunks of papers whose text holds the name are looked at, in the index's
author table (rag.index.author_table) or, for an index written before it, read from the docstore.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

from rag.index.author_table import author_parts, fold
from rag.index.records import AUTHOR_SEP

_NAME = re.compile(r"[^\W\d_][\w'\u2019-]*", re.UNICODE)
_POSSESSIVE = re.compile(r"['\u2019]s$")
# words a question starts with or leans on; never taken for a surname even when capitalised
_NOT_NAMES = frozenset(
    """a an and are as at be by can could did do does for from had has have her his how i if in is it its may
    might must not of on or our she should that the their them these they this those to was we were what when where
    which who whom whose why will with would you""".split()
)
FULL_NAME = 2  # a surname preceded by that author's first name
SURNAME = 1


def name_words(question: str) -> tuple[str, ...]:
    """The question's capitalised words (possessives dropped) that may be names, in order: "Zilberg's" ->
    "Zilberg". All-capital words are abbreviations, not names."""
    words = []
    for m in _NAME.finditer(question):
        word = _POSSESSIVE.sub("", m.group(0)).strip("'\u2019-")
        if len(word) < 2 or not word[0].isupper() or word.isupper() or fold(word) in _NOT_NAMES:
            continue
        words.append(word)
    return tuple(words)


def author_match(names: Sequence[str], authors: Sequence[str]) -> int:
    """How closely the question's name words name one of these authors: FULL_NAME per author named with a first
    name, SURNAME per author named by surname alone, 0 when none is named."""
    if not names or not authors:
        return 0
    folded = [fold(n) for n in names]
    return _match(folded, set(folded), authors)


def _match(folded: list[str], wanted: set[str], authors: Sequence[str]) -> int:
    """`author_match` of the folded name words (folded once for every paper a search looks at)."""
    score = 0
    for author in authors:
        parts = author_parts(author)
        if not parts or parts[-1] not in wanted:
            continue
        at = [i for i, w in enumerate(folded) if w == parts[-1]]
        first = len(parts) > 1 and any(i > 0 and folded[i - 1] == parts[0] for i in at)
        score += FULL_NAME if first else SURNAME
    return score


Authored = tuple[tuple[str, ...], str]  # a paper's authors, and a chunk's text
Named = tuple[tuple[str, ...], str]  # a paper's authors, and their list (joined by AUTHOR_SEP) folded
POSTING_LIMIT = 500  # a word in more chunks than this is a common word, not a name to look up (latency)


class AuthorLookup(Protocol):
    """First chunks' authors and texts: the index's author table (rag.index.author_table), or `ChunkLookup`."""

    def named(self, surnames: set[str], chunk_ids: Sequence[str]) -> dict[str, Named]:
        """Of these first chunks, in order, those with an author of one of these folded surnames."""
        ...

    def mentions(self, word: str, chunk_ids: Sequence[str]) -> bool: ...


class ChunkLookup:
    """The lookup for an index without the table: each chunk read whole. `read(chunk ids)`: each chunk's paper's
    authors and the chunk's text (from the docstore or the store)."""

    def __init__(self, read: Callable[[list[str]], dict[str, Authored]]) -> None:
        self._read = read
        self._texts: dict[str, str] = {}

    def named(self, surnames: set[str], chunk_ids: Sequence[str]) -> dict[str, Named]:
        found = self._read(list(chunk_ids))
        self._texts.update((cid, text) for cid, (_, text) in found.items())
        return {cid: (a, fold(AUTHOR_SEP.join(a))) for cid, (a, _) in found.items() if _surname_in(surnames, a)}

    def mentions(self, word: str, chunk_ids: Sequence[str]) -> bool:
        return any(mentioned(word, self._texts[c]) for c in chunk_ids if c in self._texts)


def authored_papers(query: str, postings: Callable[[str], Sequence[str]], lookup: AuthorLookup) -> list[str]:
    """The papers (ids) one of whose authors the query names, closest match first. `postings(word)`: the chunk ids
    whose BM25 text holds the word; `lookup`: the first chunks' authors and texts. A name some abstract mentions
    ("as Huang et al. showed") is a cited work's, and is left out."""
    names = name_words(query)
    if not names:
        return []
    firsts: dict[str, None] = {}
    for word in dict.fromkeys(names):
        chunks = postings(word)
        if len(chunks) <= POSTING_LIMIT:
            firsts.update((cid, None) for cid in chunks if cid.endswith(":0"))
    if not firsts:
        return []
    wanted, ids = {fold(w) for w in names}, list(firsts)
    # only a paper with an author of a wanted surname can score (author_match), so only those are looked at
    found = lookup.named(wanted, ids)
    # a quick test before the word-by-word match: some wanted name occurs in the folded author list
    candidates = {cid: authors for cid, (authors, folded) in found.items() if any(w in folded for w in wanted)}
    if not candidates:
        return []
    kept = [w for w in names if not lookup.mentions(w, ids)]
    folded = [fold(w) for w in kept]  # as author_match folds them, once for all the candidates
    known = set(folded)
    scored = [(_match(folded, known, authors), cid) for cid, authors in candidates.items()]
    best = sorted((s for s in scored if s[0] > 0), key=lambda s: -s[0])
    return [cid.rsplit(":", 1)[0] for _, cid in best]


def _surname_in(surnames: set[str], authors: Sequence[str]) -> bool:
    return any((parts := author_parts(a)) and parts[-1] in surnames for a in authors)


def mentioned(word: str, text: str) -> bool:
    """The word occurs in the text as a word (a substring test first: most texts do not hold it at all)."""
    return word in text and re.search(rf"\b{re.escape(word)}\b", text) is not None


def promote(order: list[str], fused: dict[str, float], papers: Sequence[str]) -> list[str]:
    """The named papers' best chunks first (their first chunk when the search left them out), then the rest."""
    if not papers:
        return order
    top = max(fused.values(), default=1.0)
    best: dict[str, str] = {}  # each paper's first chunk in the order (one pass: an author may have hundreds)
    for c in order:
        best.setdefault(c.rsplit(":", 1)[0], c)
    front = []
    for paper in papers:
        cid = best.get(paper, f"{paper}:0")
        fused.setdefault(cid, top)
        front.append(cid)
    moved = set(front)
    return front + [c for c in order if c not in moved]


_YEAR_AFTER_PAPERS = re.compile(
    r"\b(?:papers?|works?|stud(?:y|ies)|articles?|publications?|research|published|written|released|appeared)"
    r"(?:\s+(?:published|written|released|that appeared|appearing))?\s+"
    r"(from|in|during|since|after|before|between)\s+((?:19|20)\d\d)(?:\s+and\s+((?:19|20)\d\d))?\b",
    re.IGNORECASE,
)


def year_range(question: str) -> tuple[int | None, int | None]:
    """The publication years a question restricts itself to: "papers from 2024" (2024, 2024), "published since
    2020" (2020, None), "studies before 2019" (None, 2018), "papers between 2019 and 2021" (2019, 2021); (None, None)
    when it names none. Only a year that follows the papers or their publishing counts ("data from 2019" does not)."""
    m = _YEAR_AFTER_PAPERS.search(question)
    if not m:
        return None, None
    word, year, until = m.group(1).lower(), int(m.group(2)), m.group(3)
    if word == "between":
        return (year, int(until)) if until else (None, None)
    if word in ("since", "after"):
        return year + (word == "after"), None
    if word == "before":
        return None, year - 1
    return year, year
