"""BibTeX files (parsed by rag.corpus.bibtex): the entry key is the paper id."""

from __future__ import annotations

from collections.abc import Iterator

from rag.corpus.bibtex import BibProblem, parse_bibtex
from rag.corpus.source_file import Source
from rag.corpus.text_io import Fields, Record


def read_bibtex(source: Source) -> Iterator[Record]:
    for entry in parse_bibtex(source.text()):
        if isinstance(entry, BibProblem):
            yield entry.line, entry.reason
            continue
        fields: Fields = {k: v for k, v in entry.fields.items() if k not in ("id", "paper_id", "arxiv_id")}
        fields["id"], fields["authors"] = entry.key, list(entry.authors)
        if entry.fields.get("archiveprefix", "arxiv").lower() == "arxiv":
            fields["arxiv_id"] = entry.fields.get("eprint") or entry.fields.get("arxiv_id")
        yield entry.line, fields
