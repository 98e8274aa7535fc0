"""Read papers from corpus files: JSONL, JSON arrays, CSV, BibTeX and plain text (readers in rag.readers).

Each format has a reader, `Path -> Iterator[Record]`, that turns a file into raw records (a line number
and a dict of fields, or the reason the record is unreadable). `iter_papers` dispatches on the suffix,
validates each record into a `Paper` and checks ids are unique across all sources. Whatever the
bytes, the only exception that escapes is `CorpusError`, with a one-line `file:line: reason` message.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.errors import CorpusError
from rag.readers import READERS, Fields, corpus_error, json_kind, one_line, slugify
from rag.types import Paper

SUPPORTED_SUFFIXES = (".jsonl", ".json", ".csv", ".bib", ".txt")

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff]")  # whitespace controls are collapsed later
_YEAR_RE = re.compile(r"\s*([0-9]{1,4})\s*")
_SENTENCE_RE = re.compile(r"(.{3,}?[.!?])(?:\s+(?![a-z])|\s*$)")  # "e.g. the" does not end a sentence
_log = logging.getLogger(__name__)


class _Bad(Exception):
    """A record that cannot become a Paper; the message is the reason."""


@dataclass(frozen=True)
class _Options:
    on_error: str
    max_abstract_chars: int
    warn: Callable[[str], None]

    def bad(self, message: str) -> None:
        if self.on_error == "stop":
            raise corpus_error(message)
        self.warn(one_line(message))


# ---- record -> Paper


def _clean(text: str) -> str:
    return " ".join(_CONTROL_RE.sub("", text).split())


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
        return f"{slugify(path.stem)}-{hashlib.sha1(abstract.encode('utf-8')).hexdigest()[:10]}"
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _Bad(f"invalid id: expected a string, found {json_kind(value)}")
    paper_id = value.strip() if isinstance(value, str) else str(value)
    if not _ID_RE.fullmatch(paper_id):
        raise _Bad(
            f"invalid id {_short(paper_id)}: use up to 128 letters, digits and . _ : / - "
            "starting with a letter or digit"
        )
    return paper_id


def _build(fields: Fields, path: Path, opts: _Options) -> Paper:
    f: Fields = {}
    for name, value in fields.items():
        f.setdefault(str(name).strip().lower(), value)
    raw = _first(f, "abstract", "summary")
    if raw is not None and not isinstance(raw, str):
        raise _Bad(f"the abstract is {json_kind(raw)}, not text")
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
            p
            for p in path.rglob("*")
            if p.suffix.lower() in SUPPORTED_SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
            and p.is_file()
        )
        if not files:
            raise corpus_error(
                f"{path}: no corpus files in this directory (looked for {', '.join(SUPPORTED_SUFFIXES)})"
            )
        return files
    if not path.exists():
        raise corpus_error(f"{path}: no such file")
    if path.suffix.lower() not in READERS:
        raise corpus_error(
            f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
            f"use one of {', '.join(SUPPORTED_SUFFIXES)}"
        )
    return [path]


def _read_file(path: Path, opts: _Options, seen: dict[str, str]) -> Iterator[Paper]:
    records = 0
    for line, record in READERS[path.suffix.lower()](path):
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
        raise corpus_error(f"{path}: empty file; it has no papers")


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
        raise corpus_error(f"{getattr(e, 'filename', None) or where}: cannot read ({e.strerror or e})") from e
    except Exception as e:  # a bug, but callers are promised CorpusError only
        raise corpus_error(f"{where}: unexpected error reading the corpus ({type(e).__name__}: {e})") from e


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
