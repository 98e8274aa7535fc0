"""Read papers from corpus files: JSONL, JSON arrays, CSV, BibTeX (see rag.bibtex) and plain text.

Each format has a reader, `Path -> Iterator[Record]`, that turns a file into raw records (a line number
and a dict of fields, or the reason the record is unreadable). `iter_papers` dispatches on the suffix,
validates each record into a `Paper` and checks ids are unique across all sources. Whatever the
bytes, the only exception that escapes is `CorpusError`, with a one-line `file:line: reason` message.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.bibtex import BibProblem, parse_bibtex
from rag.errors import CorpusError
from rag.types import Paper

SUPPORTED_SUFFIXES = (".jsonl", ".json", ".csv", ".bib", ".txt")

Fields = dict[str, object]
Record = tuple[int, Fields | str]  # (line number, fields) or (line number, why the record is bad)

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff]")  # whitespace controls are collapsed later
_UNPRINTABLE_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_YEAR_RE = re.compile(r"\s*([0-9]{1,4})\s*")
_SENTENCE_RE = re.compile(r"(.{3,}?[.!?])(?:\s+(?![a-z])|\s*$)")  # "e.g. the" does not end a sentence
_JSON_SPACE_RE = re.compile(r"[ \t\n\r]*")
_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
_log = logging.getLogger(__name__)


class _Bad(Exception):
    """A record that cannot become a Paper; the message is the reason."""


def _one_line(message: str) -> str:
    return _UNPRINTABLE_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), message)


def _error(message: str) -> CorpusError:
    return CorpusError(_one_line(message))


@dataclass(frozen=True)
class _Options:
    on_error: str
    max_abstract_chars: int
    warn: Callable[[str], None]

    def bad(self, message: str) -> None:
        if self.on_error == "stop":
            raise _error(message)
        self.warn(_one_line(message))


# ---- bytes -> text


def _check_bytes(path: Path, data: bytes, offset: int) -> None:
    if offset == 0 and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise _error(f"{path}: UTF-16 text; convert it to UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        raise _error(f"{path}: looks like a binary file (NUL byte at offset {offset + nul})")


def _decode(path: Path, data: bytes, offset: int) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _error(f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {offset + e.start}); "
                     "convert it to UTF-8") from None
    return text.removeprefix("\ufeff") if offset == 0 else text


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    _check_bytes(path, data, 0)
    return _decode(path, data, 0)


# ---- one reader per format


def _json_kind(value: object) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


def _object(value: object) -> Fields | str:
    return value if isinstance(value, dict) else f"expected a JSON object, found {_json_kind(value)}"


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
        raise _error(f"{where(i)}: expected a JSON array of objects")
    i = skip(i + 1)
    while i < len(text) and text[i] != "]":
        start = where(i)
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise _error(f"{path}:{e.lineno}: invalid JSON ({e.msg})") from None
        except (ValueError, RecursionError) as e:
            raise _error(f"{start}: invalid JSON ({e or 'nested too deeply'})") from None
        yield line, _object(value)
        i = skip(end)
        if i < len(text) and text[i] == ",":
            i = skip(i + 1)
            if i < len(text) and text[i] == "]":
                raise _error(f"{where(i)}: invalid JSON (trailing comma)")
        elif i < len(text) and text[i] != "]":
            raise _error(f"{where(i)}: invalid JSON (expected ',' or ']')")
    if i >= len(text):
        raise _error(f"{where(i)}: invalid JSON (unclosed array)")
    if skip(i + 1) != len(text):
        raise _error(f"{where(i)}: invalid JSON (extra data)")


def _csv_rows(text: str) -> list[tuple[int, list[str] | str]]:
    reader = csv.reader(io.StringIO(text, newline=""))
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
        raise _error(f"{path}:{line}: {header}")
    names = [name.strip().lower() for name in header]
    if "abstract" not in names and "summary" not in names:
        raise _error(f"{path}:{line}: the header has no 'abstract' column (it has: {', '.join(names)[:200]})")
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
    return (len(lines) > 1 and len(first) < 150 and not first.endswith((".", ",", ";", ":", "-"))
            and (lines[1][:1].isupper() or lines[1][:1].isdigit()))


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
    slug = _slug(path.stem)
    for index, (number, lines) in enumerate(paragraphs):
        fields: Fields = {"id": f"{slug}-{index:02d}", "venue": venue, "abstract": "\n".join(lines)}
        if _looks_like_title(lines):
            fields["title"], fields["abstract"] = lines[0], "\n".join(lines[1:])
        yield number, fields


_READERS: dict[str, Callable[[Path], Iterator[Record]]] = {
    ".jsonl": _jsonl_records, ".json": _json_records, ".csv": _csv_records, ".bib": _bib_records,
    ".txt": _txt_records,
}


# ---- record -> Paper


def _clean(text: str) -> str:
    return " ".join(_CONTROL_RE.sub("", text).split())


def _slug(text: str) -> str:
    """File stem -> id prefix: lower case, other characters than a-z 0-9 _ become "-"."""
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-_")[:80].strip("-_") or "paper"


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _first(fields: Fields, *names: str) -> object:
    """The first of `names` with a value: None and blank strings mean unknown."""
    for name in names:
        value = fields.get(name)
        if value is not None and not (isinstance(value, str) and not value.strip()):
            return value
    return None


def _text(value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**100:
        return str(value)
    return (_clean(value) or None) if isinstance(value, str) else None


def _year(value: object) -> int | None:
    if isinstance(value, str) and (m := _YEAR_RE.fullmatch(value)):
        value = int(m.group(1))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10_000:
        return value
    return None  # "n.d.", "2020a", 1e9...: unknown rather than an error


def _authors(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        sep = ";" if ";" in value else " and " if " and " in value else ","
        value = value.split(sep)
    if not isinstance(value, list):
        return ()
    return tuple(name for name in map(_text, value) if name)


def derive_title(abstract: str) -> str:
    """The abstract's first sentence, cut to about 80 characters at a word boundary."""
    m = _SENTENCE_RE.match(abstract[:1000])
    sentence = (m.group(1) if m else abstract[:1000]).rstrip(".") or abstract[:80]
    if len(sentence) <= 80:
        return sentence
    cut = sentence[:81]  # a space just after the 80th character keeps the last word whole
    space = cut.rfind(" ")
    return ((cut[:space] if space >= 40 else cut[:80]).rstrip(" ,;:-") or cut[:80]) + "…"


def _paper_id(value: object, path: Path, abstract: str) -> str:
    if value is None:
        return f"{_slug(path.stem)}-{hashlib.sha1(abstract.encode('utf-8')).hexdigest()[:10]}"
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _Bad(f"invalid id: expected a string, found {_json_kind(value)}")
    paper_id = value.strip() if isinstance(value, str) else str(value)
    if not _ID_RE.fullmatch(paper_id):
        raise _Bad(f"invalid id {_short(paper_id)}: use up to 128 letters, digits and . _ : / - "
                   "starting with a letter or digit")
    return paper_id


def _build(fields: Fields, path: Path, opts: _Options) -> Paper:
    f: Fields = {}
    for name, value in fields.items():
        f.setdefault(str(name).strip().lower(), value)
    raw = _first(f, "abstract", "summary")
    if raw is not None and not isinstance(raw, str):
        raise _Bad(f"the abstract is {_json_kind(raw)}, not text")
    abstract = _clean(raw or "")
    if not abstract:
        raise _Bad("no abstract")
    if len(abstract) > opts.max_abstract_chars:
        raise _Bad(f"abstract is {len(abstract):,} characters; the limit is {opts.max_abstract_chars:,}")
    arxiv_id = _text(_first(f, "arxiv_id", "eprint"))
    arxiv_id = re.sub(r"(?i)^arxiv:\s*", "", arxiv_id) if arxiv_id else None
    doi = _text(f.get("doi"))
    url = _text(f.get("url"))
    if url is None and arxiv_id:
        url = f"https://arxiv.org/abs/{arxiv_id}"
    elif url is None and doi:
        doi = re.sub(r"(?i)^(doi:\s*|https?://(dx\.)?doi\.org/)", "", doi)
        url = f"https://doi.org/{doi}"
    return Paper(
        id=_paper_id(_first(f, "id", "paper_id"), path, abstract),
        title=_text(f.get("title")) or derive_title(abstract),
        abstract=abstract,
        authors=_authors(_first(f, "authors", "author")),
        year=_year(f.get("year")),
        venue=_text(_first(f, "venue", "journal", "booktitle")),
        url=url,
        code_url=_text(f.get("code_url")),
        arxiv_id=arxiv_id or None,
        source=str(path),
    )


# ---- dispatch


def _files(source: Path | str) -> list[Path]:
    path = Path(source)
    if path.is_dir():
        files = sorted(
            p for p in path.rglob("*")
            if p.suffix.lower() in SUPPORTED_SUFFIXES and not any(part.startswith(".") for part in
                                                                   p.relative_to(path).parts) and p.is_file()
        )
        if not files:
            raise _error(f"{path}: no corpus files in this directory (looked for {', '.join(SUPPORTED_SUFFIXES)})")
        return files
    if not path.exists():
        raise _error(f"{path}: no such file")
    if path.suffix.lower() not in _READERS:
        raise _error(f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
                     f"use one of {', '.join(SUPPORTED_SUFFIXES)}")
    return [path]


def _read_file(path: Path, opts: _Options, seen: dict[str, str]) -> Iterator[Paper]:
    records = 0
    for line, record in _READERS[path.suffix.lower()](path):
        records += 1
        where = f"{path}:{line}"
        try:
            if isinstance(record, str):
                raise _Bad(record)
            paper = _build(record, path, opts)
        except _Bad as e:
            opts.bad(f"{where}: {e}")
            continue
        if paper.id in seen:
            opts.bad(f"{seen[paper.id]} and {where} both define id {paper.id!r}")
            continue
        seen[paper.id] = where
        yield paper
    if records == 0:
        raise _error(f"{path}: empty file; it has no papers")


def _iter(sources: Sequence[Path | str], opts: _Options) -> Iterator[Paper]:
    seen: dict[str, str] = {}
    done: set[Path] = set()
    where = "corpus"
    try:
        for source in sources:
            where = str(source)
            for path in _files(source):
                where = str(path)
                try:
                    key = path.resolve()
                except (OSError, RuntimeError):
                    key = path.absolute()
                if key not in done:  # the same file named twice, or a file inside a directory also named
                    done.add(key)
                    yield from _read_file(path, opts, seen)
    except CorpusError:
        raise
    except OSError as e:
        raise _error(f"{getattr(e, 'filename', None) or where}: cannot read ({e.strerror or e})") from e
    except Exception as e:  # a bug, but callers are promised CorpusError only
        raise _error(f"{where}: unexpected error reading the corpus ({type(e).__name__}: {e})") from e


def iter_papers(
    sources: Sequence[Path | str] | Path | str,
    *,
    on_error: str = "stop",
    max_abstract_chars: int = 100_000,
    warn: Callable[[str], None] | None = None,
) -> Iterator[Paper]:
    """Stream the papers in `sources` (files or directories), in order. See `read_papers`."""
    if on_error not in ("stop", "skip"):
        raise ValueError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
    if isinstance(sources, str | Path):
        sources = [sources]
    return _iter(sources, _Options(on_error, max_abstract_chars, warn or _log.warning))


def read_papers(
    sources: Sequence[Path | str] | Path | str,
    *,
    on_error: str = "stop",
    max_abstract_chars: int = 100_000,
    warn: Callable[[str], None] | None = None,
) -> list[Paper]:
    """All papers in `sources`. A bad record raises CorpusError ("stop") or is skipped with `warn(message)`
    ("skip"); problems with a whole file (missing, binary, not UTF-8, empty, unsupported) always raise."""
    return list(iter_papers(sources, on_error=on_error, max_abstract_chars=max_abstract_chars, warn=warn))
