"""Read papers from corpus files and directories: JSONL, JSON arrays, CSV, BibTeX and plain text.

`iter_papers` finds the files, reads each with the reader for its format (rag.corpus.formats), validates each
record into a `Paper` (rag.corpus.paper_fields) and checks ids are unique across all sources. Whatever the
bytes, the only exception that escapes is `CorpusError`, with a one-line `file:line: reason` message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.corpus.formats import READERS, SUPPORTED_SUFFIXES
from rag.corpus.paper_fields import BadRecord, build_paper
from rag.corpus.text_io import corpus_error, one_line
from rag.errors import CorpusError
from rag.types import Paper

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Options:
    on_error: str
    max_abstract_chars: int
    warn: Callable[[str], None]

    def bad(self, message: str) -> None:
        if self.on_error == "stop":
            raise corpus_error(message)
        self.warn(one_line(message))


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
                raise BadRecord(record)
            paper = build_paper(record, path, opts.max_abstract_chars)
        except BadRecord as e:
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
