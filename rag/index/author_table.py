"""The author -> papers table, written with the docstore (`author_table.json` in `docs-<collection>/`), so a search
whose question names someone reads no chunk from the docstore (rag.retrieve.fields.authored_papers).

For every paper's first chunk (id "<paper>:0") it keeps the paper's author list as stored, the papers of each
author surname (`fold`ed: case, accents and possessives dropped), and, inverted, every capitalised word of the
chunk's text that a question's name word could equal (`name_spans`): a name an abstract itself mentions is a cited
work's, and the author lookup leaves it out. An index written before the table is read
the old way (each chunk from the docstore) until `rag index` rewrites its docstore.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from rag.index.records import AUTHOR_SEP

TABLE = "author_table.json"
FORMAT = 1
_RUN = re.compile(r"\w+")
_JOINERS = frozenset("'\u2019-")  # the characters besides word characters a name word may hold ("Pe'er", "Li-Wei")
_POSSESSIVE = re.compile(r"['\u2019]s$")
_NAME_SPLIT = re.compile(r"[\s.]+")


@lru_cache(maxsize=1 << 16)  # the same authors come back on every search that names someone (latency at 10k)
def fold(word: str) -> str:
    """Lower case, accents and possessives dropped: "Pe'er" stays "pe'er", "Müller's" -> "muller"."""
    word = _POSSESSIVE.sub("", word.strip("'\u2019-"))
    plain = unicodedata.normalize("NFKD", word)
    return "".join(c for c in plain if not unicodedata.combining(c)).lower()


@lru_cache(maxsize=1 << 16)
def author_parts(author: str) -> tuple[str, ...]:
    """An author's names, folded, surname last: "Junxian He" -> ("junxian", "he")."""
    return tuple(fold(p) for p in _NAME_SPLIT.split(author) if p.strip("."))


def name_spans(text: str) -> set[str]:
    """Every part of the text that `\\bword\\b` matches for some name word (rag.retrieve.fields.name_words: a
    capitalised, not all-capital word of at least two characters, of word characters joined by apostrophes or
    hyphens): a maximal run of word characters, alone or with the runs that follow it through joiners only.
    `word in name_spans(text)` is then the same test as `mentioned(word, text)`."""
    runs = [(m.start(), m.end()) for m in _RUN.finditer(text)]
    spans: set[str] = set()
    for i, (start, end) in enumerate(runs):
        if not text[start].isupper():
            continue
        _keep(spans, text[start:end])
        j = i
        while j + 1 < len(runs) and all(c in _JOINERS for c in text[runs[j][1] : runs[j + 1][0]]):
            j += 1
            _keep(spans, text[start : runs[j][1]])
    return spans


def _keep(spans: set[str], span: str) -> None:
    if len(span) >= 2 and not span.isupper():
        spans.add(span)


class AuthorTableBuilder:
    """Fed every chunk as the docstore is written; keeps only first chunks."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.authors: list[str] = []
        self.folded: list[str] = []
        self.surnames: dict[str, list[int]] = {}
        self.mentions: dict[str, list[int]] = {}

    def add(self, chunk_id: str, text: str, metadata: Mapping[str, Any]) -> None:
        if not chunk_id.endswith(":0"):
            return
        row = len(self.ids)
        self.ids.append(chunk_id)
        authors = str(metadata.get("authors") or "")
        self.authors.append(authors)
        self.folded.append(fold(authors))
        for surname in dict.fromkeys(p[-1] for a in authors.split(AUTHOR_SEP) if (p := author_parts(a))):
            self.surnames.setdefault(surname, []).append(row)
        for span in name_spans(text):
            self.mentions.setdefault(span, []).append(row)

    def write(self, directory: Path) -> None:
        table = {"format": FORMAT, "ids": self.ids, "authors": self.authors, "folded": self.folded,
                 "surnames": self.surnames, "mentions": self.mentions}  # fmt: skip
        (directory / TABLE).write_text(json.dumps(table, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


class AuthorTable:
    """The table as written: each first chunk's authors, the first chunks of each surname, and which first chunks'
    texts mention a word."""

    def __init__(self, ids: list[str], authors: list[str], folded: list[str], surnames: dict[str, list[int]],
                 mentions: dict[str, list[int]]) -> None:  # fmt: skip
        self._rows = {cid: n for n, cid in enumerate(ids)}
        self._authors = authors
        self._folded = folded
        self._surnames = surnames
        self._mentions = mentions

    @classmethod
    def load(cls, directory: Path) -> AuthorTable | None:
        """The table in a docstore directory, or None when it has none (written before the table) or it is
        unreadable: the caller then reads the chunks."""
        try:
            raw = json.loads((directory / TABLE).read_text(encoding="utf-8"))
            ids, authors, folded = list(raw["ids"]), list(raw["authors"]), list(raw["folded"])
            if raw.get("format") != FORMAT or not len(ids) == len(authors) == len(folded):
                return None
            return cls(ids, authors, folded, dict(raw["surnames"]), dict(raw["mentions"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def authors(self, chunk_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Each first chunk's paper's authors, in the order asked (ids not in the table left out)."""
        rows = ((cid, self._rows.get(cid)) for cid in chunk_ids)
        return {cid: tuple(self._authors[row].split(AUTHOR_SEP)) for cid, row in rows if row is not None}

    def named(self, surnames: set[str], chunk_ids: Sequence[str]) -> dict[str, tuple[tuple[str, ...], str]]:
        """Of those first chunks, in the order asked, the ones one of whose authors has one of these (folded)
        surnames: each one's authors, and its author list folded whole."""
        held = {row for s in surnames for row in self._surnames.get(s, ())}
        if not held:
            return {}
        rows = ((cid, self._rows.get(cid, -1)) for cid in chunk_ids)
        return {cid: (tuple(self._authors[r].split(AUTHOR_SEP)), self._folded[r]) for cid, r in rows if r in held}

    def mentions(self, word: str, chunk_ids: Sequence[str]) -> bool:
        """Whether the text of one of these first chunks mentions the word (as `rag.retrieve.fields.mentioned`)."""
        rows = self._mentions.get(word)
        if not rows:
            return False
        wanted = {self._rows[c] for c in chunk_ids if c in self._rows}
        return any(r in wanted for r in rows)
