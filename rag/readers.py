"""One reader per corpus file format: JSONL, JSON arrays, CSV, BibTeX (parsed by rag.bibtex) and plain text.

A reader, `Path -> Iterator[Record]`, turns a file into raw records: a line number and a dict of fields, or the
reason the record is unreadable. Problems with the whole file (binary, not UTF-8, broken JSON array, CSV without
an abstract column) raise CorpusError. rag.corpus turns records into Papers.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from rag.bibtex import BibProblem, parse_bibtex
from rag.errors import CorpusError

Fields = dict[str, object]
Record = tuple[int, Fields | str]  # (line number, fields) or (line number, why the record is bad)

_UNPRINTABLE_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_JSON_SPACE_RE = re.compile(r"[ \t\n\r]*")
_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}


def one_line(message: str) -> str:
    """Escape control characters and line separators so a message stays on one line."""
    return _UNPRINTABLE_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), message)


def corpus_error(message: str) -> CorpusError:
    return CorpusError(one_line(message))


def json_kind(value: object) -> str:
    """How a JSON value is named in messages: "a string", "an array", "null"..."""
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


def slugify(text: str) -> str:
    """File stem -> id prefix: lower case, other characters than a-z 0-9 _ become "-"."""
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-_")[:80].strip("-_") or "paper"


# ---- bytes -> text


def _check_bytes(path: Path, data: bytes, offset: int) -> None:
    if offset == 0 and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise corpus_error(f"{path}: UTF-16 text; convert it to UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        raise corpus_error(f"{path}: looks like a binary file (NUL byte at offset {offset + nul})")


def _decode(path: Path, data: bytes, offset: int) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise corpus_error(
            f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {offset + e.start}); convert it to UTF-8"
        ) from None
    return text.removeprefix("\ufeff") if offset == 0 else text


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    _check_bytes(path, data, 0)
    return _decode(path, data, 0)


# ---- one reader per format


def _object(value: object) -> Fields | str:
    return value if isinstance(value, dict) else f"expected a JSON object, found {json_kind(value)}"


def _jsonl_records(path: Path) -> Iterator[Record]:
    with path.open("rb") as f:  # line by line: a JSONL corpus may be large
        offset = 0
        for number, raw in enumerate(f, 1):
            _check_bytes(path, raw, offset)
            line = _decode(path, raw, offset)
            offset += len(raw)
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as e:
                yield number, f"invalid JSON ({e.msg})"
            except RecursionError:
                yield number, "invalid JSON (nested too deeply)"
            except ValueError as e:
                yield number, f"invalid JSON ({e})"
            else:
                yield number, _object(value)


def _json_records(path: Path) -> Iterator[Record]:
    """A JSON array of objects, decoded element by element so each one has a line number."""
    text = _read_text(path)
    decoder = json.JSONDecoder()
    line, counted = 1, 0

    def skip(i: int) -> int:
        return _JSON_SPACE_RE.match(text, i).end()  # type: ignore[union-attr]  # always matches

    def where(i: int) -> str:
        nonlocal line, counted
        line, counted = line + text.count("\n", counted, i), i
        return f"{path}:{line}"

    i = skip(0)
    if i == len(text):
        return
    if text[i] != "[":
        raise corpus_error(f"{where(i)}: expected a JSON array of objects")
    i = skip(i + 1)
    while i < len(text) and text[i] != "]":
        start = where(i)
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise corpus_error(f"{path}:{e.lineno}: invalid JSON ({e.msg})") from None
        except (ValueError, RecursionError) as e:
            raise corpus_error(f"{start}: invalid JSON ({e or 'nested too deeply'})") from None
        yield line, _object(value)
        i = skip(end)
        if i < len(text) and text[i] == ",":
            i = skip(i + 1)
            if i < len(text) and text[i] == "]":
                raise corpus_error(f"{where(i)}: invalid JSON (trailing comma)")
        elif i < len(text) and text[i] != "]":
            raise corpus_error(f"{where(i)}: invalid JSON (expected ',' or ']')")
    if i >= len(text):
        raise corpus_error(f"{where(i)}: invalid JSON (unclosed array)")
    if skip(i + 1) != len(text):
        raise corpus_error(f"{where(i)}: invalid JSON (extra data)")


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


def _csv_records(path: Path) -> Iterator[Record]:
    rows = _csv_rows(_read_text(path))
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


def _bib_records(path: Path) -> Iterator[Record]:
    for entry in parse_bibtex(_read_text(path)):
        if isinstance(entry, BibProblem):
            yield entry.line, entry.reason
            continue
        fields: Fields = {k: v for k, v in entry.fields.items() if k not in ("id", "paper_id", "arxiv_id")}
        fields["id"], fields["authors"] = entry.key, list(entry.authors)
        if entry.fields.get("archiveprefix", "arxiv").lower() == "arxiv":
            fields["arxiv_id"] = entry.fields.get("eprint") or entry.fields.get("arxiv_id")
        yield entry.line, fields


def _looks_like_title(lines: list[str]) -> bool:
    """A paragraph "Title\\nabstract...": a short first line that ends no sentence, then a new sentence."""
    first = lines[0]
    return (
        len(lines) > 1
        and len(first) < 150
        and not first.endswith((".", ",", ";", ":", "-"))
        and (lines[1][:1].isupper() or lines[1][:1].isdigit())
    )


def _txt_records(path: Path) -> Iterator[Record]:
    """Blank-line-separated paragraphs; an optional first one-line paragraph names the collection."""
    paragraphs: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    for number, line in enumerate(_read_text(path).replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        if not line.strip():
            current = None
        elif current is None:
            current = [line.strip()]
            paragraphs.append((number, current))
        else:
            current.append(line.strip())
    venue = None
    if len(paragraphs) > 1 and len(paragraphs[0][1]) == 1:
        first = paragraphs[0][1][0]
        if len(first) < 120 and not first.endswith("."):
            venue, paragraphs = first, paragraphs[1:]
    slug = slugify(path.stem)
    for index, (number, lines) in enumerate(paragraphs):
        fields: Fields = {"id": f"{slug}-{index:02d}", "venue": venue, "abstract": "\n".join(lines)}
        if _looks_like_title(lines):
            fields["title"], fields["abstract"] = lines[0], "\n".join(lines[1:])
        yield number, fields


READERS: dict[str, Callable[[Path], Iterator[Record]]] = {
    ".jsonl": _jsonl_records,
    ".json": _json_records,
    ".csv": _csv_records,
    ".bib": _bib_records,
    ".txt": _txt_records,
}
