"""The corpus formats rag reads: each is a label (named in the "reading FILE as ..." line) and a reader,
`Source -> Iterator[Record]`, from its own module. Which one a file is gets decided by rag.corpus.detect,
from the suffix and the first bytes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rag.corpus.arxiv import read_arxiv_snapshot
from rag.corpus.bib import read_bibtex
from rag.corpus.csl_json import csl_fields
from rag.corpus.csv_table import read_csv
from rag.corpus.json_array import read_array_as, read_json_array, read_object_as, read_page_as
from rag.corpus.jsonl import read_jsonl, read_lines_as
from rag.corpus.openalex import openalex_fields
from rag.corpus.pdf import read_pdf
from rag.corpus.plaintext import read_text_file
from rag.corpus.ris import read_ris
from rag.corpus.semantic_scholar import s2_fields
from rag.corpus.source_file import Source
from rag.corpus.text_io import Record

Reader = Callable[[Source], Iterator[Record]]


@dataclass(frozen=True)
class Format:
    label: str
    read: Reader


SUPPORTED_SUFFIXES = (".jsonl", ".json", ".csv", ".bib", ".txt", ".ris", ".pdf")

RECORDS_JSONL = Format("JSON Lines (rag records)", read_jsonl)
RECORDS_JSON = Format("JSON array (rag records)", read_json_array)
ARXIV = Format("arXiv metadata snapshot (JSON Lines)", read_arxiv_snapshot)
OPENALEX_PAGE = Format("OpenAlex API page", lambda s: read_page_as(s, "results", openalex_fields))
OPENALEX_ARRAY = Format("OpenAlex works (JSON array)", lambda s: read_array_as(s, openalex_fields))
OPENALEX_LINES = Format("OpenAlex works (JSON Lines)", lambda s: read_lines_as(s, openalex_fields))
OPENALEX_WORK = Format("OpenAlex work", lambda s: read_object_as(s, openalex_fields))
S2_RESPONSE = Format("Semantic Scholar Graph API response", lambda s: read_page_as(s, "data", s2_fields))
S2_ARRAY = Format("Semantic Scholar papers (JSON array)", lambda s: read_array_as(s, s2_fields))
S2_LINES = Format("Semantic Scholar papers (JSON Lines)", lambda s: read_lines_as(s, s2_fields))
S2_PAPER = Format("Semantic Scholar paper", lambda s: read_object_as(s, s2_fields))
RIS = Format("RIS", read_ris)
BIBTEX = Format("BibTeX", read_bibtex)
CSV = Format("CSV", read_csv)
TEXT = Format("plain text (one abstract per paragraph)", read_text_file)
PDF = Format("PDF", read_pdf)


def csl(label: str, lines: bool = False) -> Format:
    if lines:
        return Format(label + " (JSON Lines)", lambda s: read_lines_as(s, csl_fields))
    return Format(label, lambda s: read_array_as(s, csl_fields))
