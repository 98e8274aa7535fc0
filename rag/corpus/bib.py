"""BibTeX files (parsed by rag.corpus.bibtex): the entry key is the paper id.

A key that cannot be an id as written ("Vaswani+17", "Müller:2020") becomes one by `key_id` (accents folded, any
other character outside the id alphabet replaced by "_"): such a library indexes instead of stopping at its first
odd key, and `rag check` finds a draft's citation of the key through the same function. Keys that are valid ids
(nearly all) are unchanged, so an existing index keeps its ids.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from rag.corpus.bibtex import BibProblem, parse_bibtex
from rag.corpus.paper_fields import valid_id
from rag.corpus.source_file import Source
from rag.corpus.text_io import Fields, Record

_NOT_ID = re.compile(r"[^A-Za-z0-9._:/-]")


def key_id(key: str) -> str | None:
    """The paper id for a BibTeX key: the key itself when it is a valid id (or malformed), else its closest valid
    form (None: no letter or digit to make one of; the reader then derives an id from the abstract)."""
    if not key or valid_id(key) == key or any(c.isspace() for c in key):
        return key or None  # a key with a space is malformed BibTeX: reported as an invalid id
    folded = unicodedata.normalize("NFKD", key.strip()).encode("ascii", "ignore").decode("ascii")
    return valid_id(_NOT_ID.sub("_", folded).lstrip("._:/-")[:128])


def read_bibtex(source: Source) -> Iterator[Record]:
    for entry in parse_bibtex(source.text()):
        if isinstance(entry, BibProblem):
            yield entry.line, entry.reason
            continue
        fields: Fields = {k: v for k, v in entry.fields.items() if k not in ("id", "paper_id", "arxiv_id")}
        fields["id"], fields["authors"] = key_id(entry.key), list(entry.authors)
        if entry.fields.get("archiveprefix", "arxiv").lower() == "arxiv":
            fields["arxiv_id"] = entry.fields.get("eprint") or entry.fields.get("arxiv_id")
        yield entry.line, fields
