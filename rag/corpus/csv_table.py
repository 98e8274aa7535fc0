"""CSV with a header row; `abstract` (or `summary`) is the one required column. Read record by record (memory
stays flat in the number of rows); a broken record costs that record only: rag.corpus.csv_records resumes on the
line after it, and stops the read when no line is a safe place to resume. A cell `'=...` (`'` before = + - @,
how `rag export --format csv` keeps spreadsheets from running a cell as a formula) is read without the `'`."""

from __future__ import annotations

import csv
from collections.abc import Iterator

from rag.corpus.csv_records import RECORD_CHARS, CsvRecords, Unrecoverable
from rag.corpus.source_file import Source
from rag.corpus.text_io import Fields, Record, corpus_error

FORMULA_GUARDED = ("'=", "'+", "'-", "'@", "'\t", "'\r")
FREE_TEXT = ("abstract", "summary", "title", "authors", "author", "venue", "journal", "keywords")


def read_csv(source: Source) -> Iterator[Record]:
    old_limit = csv.field_size_limit()
    csv.field_size_limit(RECORD_CHARS)  # a field is never larger than a record may be
    try:
        yield from _read(source)
    except Unrecoverable as e:
        raise corpus_error(f"{source.path}:{e.line}: {e}") from None
    finally:
        csv.field_size_limit(old_limit)


def _read(source: Source) -> Iterator[Record]:
    records = CsvRecords(source.text_lines(), FREE_TEXT)
    first = records.header()
    if first is None:
        return
    line, header = first
    if isinstance(header, str):
        raise corpus_error(f"{source.path}:{line}: {header}")
    names = [name.strip().lower() for name in header]
    if "abstract" not in names and "summary" not in names:
        raise corpus_error(
            f"{source.path}:{line}: the header has no 'abstract' column (it has: {', '.join(names)[:200]})"
        )
    for line, row in records:
        if isinstance(row, str):
            yield line, row
        else:
            fields: Fields = {}
            for name, cell in zip(names, row, strict=True):
                fields.setdefault(name, cell[1:] if cell.startswith(FORMULA_GUARDED) else cell)
            yield line, fields
