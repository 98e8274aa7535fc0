"""CSV with a header row; `abstract` (or `summary`) is the one required column. Read row by row: memory stays
flat in the number of rows, and a field is never larger than FIELD_LIMIT (an unclosed quote is reported at its
line instead of swallowing the rest of the file)."""

from __future__ import annotations

import csv
from collections.abc import Iterator

from rag.corpus.source_file import Source
from rag.corpus.text_io import Fields, Record, corpus_error

FIELD_LIMIT = 16 << 20  # characters; long abstracts are judged by max_abstract_chars, far below this


def _rows(source: Source) -> Iterator[tuple[int, list[str] | str]]:
    reader = csv.reader(source.text_lines(), strict=True)  # an unclosed quote is an error, not one huge field
    old_limit = csv.field_size_limit()
    csv.field_size_limit(FIELD_LIMIT)
    try:
        while True:
            start = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                yield start, f"malformed CSV ({e})"
                return
            if any(cell.strip() for cell in row):
                yield start, row
    finally:
        csv.field_size_limit(old_limit)


def read_csv(source: Source) -> Iterator[Record]:
    rows = _rows(source)
    first = next(rows, None)
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
    for line, row in rows:
        if isinstance(row, str) or len(row) != len(names):
            yield line, row if isinstance(row, str) else f"row has {len(row)} fields; the header has {len(names)}"
        else:
            fields: Fields = {}
            for name, cell in zip(names, row, strict=True):
                fields.setdefault(name, cell)
            yield line, fields
