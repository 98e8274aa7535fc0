"""The corpus formats rag reads, by file suffix: one reader module per format."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from rag.corpus.bib import read_bibtex
from rag.corpus.csv_table import read_csv
from rag.corpus.json_array import read_json_array
from rag.corpus.jsonl import read_jsonl
from rag.corpus.plaintext import read_text_file
from rag.corpus.text_io import Record

READERS: dict[str, Callable[[Path], Iterator[Record]]] = {
    ".jsonl": read_jsonl,
    ".json": read_json_array,
    ".csv": read_csv,
    ".bib": read_bibtex,
    ".txt": read_text_file,
}
SUPPORTED_SUFFIXES = tuple(READERS)
