"""CSV with a header row; `abstract` (or `summary`) is the one required column."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from rag.corpus.text_io import Fields, Record, corpus_error, read_text


def _csv_rows(text: str) -> list[tuple[int, list[str] | str]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)  # an unclosed quote is an error, not one huge field
    rows: list[tuple[int, list[str] | str]] = []
    old_limit = csv.field_size_limit()
    csv.field_size_limit(max(old_limit, len(text) + 1))  # long abstracts are judged by max_abstract_chars
    try:
        while True:
            start = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                return rows
            except csv.Error as e:
                rows.append((start, f"malformed CSV ({e})"))
                return rows
            if any(cell.strip() for cell in row):
                rows.append((start, row))
    finally:
        csv.field_size_limit(old_limit)


def read_csv(path: Path) -> Iterator[Record]:
    rows = _csv_rows(read_text(path))
    if not rows:
        return
    line, header = rows[0]
    if isinstance(header, str):
        raise corpus_error(f"{path}:{line}: {header}")
    names = [name.strip().lower() for name in header]
    if "abstract" not in names and "summary" not in names:
        raise corpus_error(f"{path}:{line}: the header has no 'abstract' column (it has: {', '.join(names)[:200]})")
    for line, row in rows[1:]:
        if isinstance(row, str) or len(row) != len(names):
            yield line, row if isinstance(row, str) else f"row has {len(row)} fields; the header has {len(names)}"
        else:
            fields: Fields = {}
            for name, cell in zip(names, row, strict=True):
                fields.setdefault(name, cell)
            yield line, fields
