"""Read papers from corpus files and directories, in any format rag.corpus.detect recognises.

`iter_papers` finds the files (rag.corpus.folders: what lies under a folder, its unreadable entries reported and
its links out of it not followed unless asked), names each file's format, reads it with that format's reader,
keeps the records `--where`/`--since` select, validates each into a `Paper` (rag.corpus.paper_fields) and checks
ids are unique across all sources, counting bytes read for progress. Whatever the bytes, the only exception that
escapes is `CorpusError`, with a one-line message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from rag.corpus.detect import detect
from rag.corpus.folders import folder_files, not_regular
from rag.corpus.formats import SUPPORTED_SUFFIXES, Format
from rag.corpus.paper_fields import BadRecord, build_paper
from rag.corpus.read_ahead import ReadAhead
from rag.corpus.select import Selection
from rag.corpus.source_file import ReadOptions, Source, file_size
from rag.corpus.text_io import FILTERED_OUT, corpus_error, one_line, shown
from rag.errors import CorpusError
from rag.types import Paper

_log = logging.getLogger(__name__)
# (bytes read, bytes in all files, papers so far, the file being read: "3/16 fpn.pdf")
Progress = Callable[[int, int, int, str], None]


@dataclass
class CorpusStats:
    """What a read found, filled in as it goes (the indexer reports it and refuses an empty result)."""

    files: int = 0
    bytes: int = 0
    records: int = 0
    papers: int = 0
    skipped: int = 0  # bad records and unreadable files passed over with on_error="skip"
    # PDFs of a folder that could not be read ("x.pdf: no text layer ..."): skipped whatever on_error says
    unreadable: list[str] = field(default_factory=list)
    filtered: int = 0  # records --where/--since did not select
    links_out: list[str] = field(default_factory=list)  # links out of a named folder, not followed
    formats: dict[str, str] = field(default_factory=dict)  # file -> format label


@dataclass(frozen=True)
class _Options:
    on_error: str
    max_abstract_chars: int
    warn: Callable[[str], None]
    info: Callable[[str], None] | None
    selection: Selection
    read: ReadOptions
    progress: Progress | None
    follow_links: bool = False  # follow links whose target lies outside the named folder
    workers: int = 1  # processes reading PDFs ahead (rag.corpus.read_ahead; 0: one per core, 1: none)

    def bad(self, message: str, stats: CorpusStats) -> None:
        if self.on_error == "stop":
            raise corpus_error(message)
        stats.skipped += 1
        self.warn(one_line(message))

    def unreadable(self, message: str, stats: CorpusStats) -> None:
        """A PDF found in a folder that cannot be read: a folder of PDFs always holds a scan or an odd file,
        and it costs that file only (named in the run's report). A PDF named on its own still stops the run."""
        stats.skipped += 1
        stats.unreadable.append(one_line(message))
        self.warn(one_line(message))


def _walk(root: Path, opts: _Options, stats: CorpusStats) -> list[Path]:
    """The corpus files under `root` (rag.corpus.folders); entries that cannot be read are bad, links out of it
    are counted."""
    walked = folder_files(root, follow_links=opts.follow_links, warn=opts.warn)
    stats.links_out.extend(walked.links_out)
    for problem in walked.problems:
        opts.bad(problem, stats)
    if not walked.files and not walked.problems:
        out = len(walked.links_out)
        raise corpus_error(
            f"{root}: no corpus files in this directory (looked for {', '.join(SUPPORTED_SUFFIXES)})"
            + (f"; {out} link{'s' if out > 1 else ''} out of it not followed (named above)" if out else "")
        )
    return walked.files


def _files(source: Path | str, opts: _Options, stats: CorpusStats) -> list[Path]:
    path = Path(source)
    if path.is_dir():
        return _walk(path, opts, stats)
    if not path.exists():
        raise corpus_error(f"{path}: no such file" + (" (a broken symbolic link)" if path.is_symlink() else ""))
    if (reason := not_regular(path)) is not None:
        raise corpus_error(reason)
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise corpus_error(
            f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
            f"use one of {', '.join(SUPPORTED_SUFFIXES)}"
        )
    return [path]


class _Meter:
    def __init__(self, total: int, opts: _Options, stats: CorpusStats) -> None:
        self.total, self.done, self.opts, self.stats = total, 0, opts, stats
        self.files = 0  # files started
        self.current = ""

    def start(self, path: Path) -> None:
        """A new file: named on the bar before it is read (a PDF's extraction takes a while)."""
        self.files += 1
        self.current = f"{self.files}/{self.stats.files} {shown(path.name)}"
        self.at(0)

    def at(self, position: int) -> None:
        if self.opts.progress is not None:
            self.opts.progress(min(self.done + position, self.total), self.total, self.stats.papers, self.current)


class _Seen:
    """Ids read so far and where each was first defined, packed as one int (file number, line): a million
    papers cost the ids and ~30 bytes each, not a "file:line" string each."""

    def __init__(self) -> None:
        self.files: list[Path] = []
        self.where: dict[str, int] = {}

    def first(self, paper_id: str) -> str | None:
        packed = self.where.get(paper_id)
        if packed is None:
            return None
        path, line = self.files[packed >> 32], packed & 0xFFFFFFFF
        return f"{path}:{line}" if line else str(path)

    def add(self, paper_id: str, line: int) -> None:
        self.where[paper_id] = (len(self.files) - 1) << 32 | min(line, 0xFFFFFFFF)


def _read_file(path: Path, fmt: Format, opts: _Options, seen: _Seen, stats: CorpusStats,
               meter: _Meter, ahead: ReadAhead, in_folder: bool = False) -> Iterator[Paper]:  # fmt: skip
    records = 0
    seen.files.append(path)
    meter.start(path)
    with nullcontext() if ahead.handles(fmt) else Source(path, opts.read, meter.at) as source:
        if source is not None and fmt.label != "PDF":
            source.check_head()
        for line, record in fmt.read(source) if source is not None else ahead.records(path):
            records += 1
            if record is FILTERED_OUT or (not isinstance(record, str) and not opts.selection.accepts(record)):
                stats.filtered += 1
                continue
            stats.records += 1
            where = f"{path}:{line}" if line else str(path)
            try:
                if isinstance(record, str):
                    raise BadRecord(record)
                paper = build_paper(record, path, opts.max_abstract_chars)
            except BadRecord as e:
                if in_folder and fmt.label == "PDF" and isinstance(record, str):
                    opts.unreadable(f"{where}: {e}", stats)
                    continue
                opts.bad(f"{where}: {e}", stats)
                continue
            if (first := seen.first(paper.id)) is not None:
                opts.bad(f"{first} and {where} both define id {paper.id!r}", stats)
                continue
            seen.add(paper.id, line)
            stats.papers += 1
            yield paper
    meter.done += file_size(path)
    meter.at(0)
    if records == 0:
        raise corpus_error(f"{path}: empty file; it has no papers")


def _iter(sources: Sequence[Path | str], opts: _Options, stats: CorpusStats) -> Iterator[Paper]:
    seen = _Seen()
    where = "corpus"
    try:
        plan: list[tuple[Path, Format]] = []
        done: set[Path] = set()
        from_folder: set[Path] = set()
        for source in sources:
            where = str(source)
            folder = Path(source).is_dir()
            for path in _files(source, opts, stats):
                if folder:
                    from_folder.add(path)
                try:
                    key = path.resolve()
                except (OSError, RuntimeError):
                    key = path.absolute()
                if key not in done:  # the same file named twice, or a file inside a directory also named
                    done.add(key)
                    where = str(path)
                    plan.append((path, detect(path)))
        stats.files = len(plan)
        stats.bytes = sum(file_size(path) for path, _ in plan)
        _announce(plan, opts, stats)
        meter = _Meter(stats.bytes, opts, stats)
        ahead = ReadAhead(plan, opts.read, opts.workers)
        try:
            for path, fmt in plan:
                where = str(path)
                yield from _read_file(path, fmt, opts, seen, stats, meter, ahead, path in from_folder)
        except BaseException:
            ahead.close(wait=False)
            raise
        ahead.close()
    except CorpusError:
        raise
    except OSError as e:
        raise corpus_error(f"{getattr(e, 'filename', None) or where}: cannot read ({e.strerror or e})") from e
    except Exception as e:  # a bug, but callers are promised CorpusError only
        raise corpus_error(f"{where}: unexpected error reading the corpus ({type(e).__name__}: {e})") from e


def _announce(plan: list[tuple[Path, Format]], opts: _Options, stats: CorpusStats) -> None:
    """One line per file naming its format; a directory of many files of one format gets one line."""
    for path, fmt in plan:
        stats.formats[str(path)] = fmt.label
    if opts.info is None:
        return
    labels = [fmt.label + (" (full text)" if fmt.label == "PDF" and opts.read.full_text else "") for _, fmt in plan]
    if len(plan) > 10:
        counts: dict[str, int] = {}
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
        opts.info(f"reading {len(plan)} files: " + ", ".join(f"{n} {label}" for label, n in counts.items()))
        return
    for (path, _), label in zip(plan, labels, strict=True):
        opts.info(f"reading {shown(path)} as {label}")


def iter_papers(
    sources: Sequence[Path | str] | Path | str,
    *,
    on_error: str = "stop",
    max_abstract_chars: int = 100_000,
    warn: Callable[[str], None] | None = None,
    info: Callable[[str], None] | None = None,
    selection: Selection | None = None,
    full_text: bool = False,
    progress: Progress | None = None,
    stats: CorpusStats | None = None,
    follow_links: bool = False,
    workers: int = 1,
) -> Iterator[Paper]:
    """Stream the papers in `sources` (files or directories), in order. See `read_papers`. `info` hears the
    "reading FILE as FORMAT" lines, `progress` the bytes read, and `stats` is filled in as the read goes. A
    directory's links that lead out of it are not followed unless `follow_links` (files named in `sources` are
    read wherever they are). `workers` processes read a folder's PDFs ahead (rag.corpus.read_ahead; 0: one per
    core); 1 reads everything in this process."""
    if on_error not in ("stop", "skip"):
        raise ValueError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
    if isinstance(sources, str | Path):
        sources = [sources]
    selection = selection or Selection()
    opts = _Options(on_error, max_abstract_chars, warn or _log.warning, info, selection,
                    ReadOptions(full_text=full_text, needles=selection.needles()), progress, follow_links,
                    workers)  # fmt: skip
    return _iter(sources, opts, stats if stats is not None else CorpusStats())


def read_papers(
    sources: Sequence[Path | str] | Path | str,
    *,
    on_error: str = "stop",
    max_abstract_chars: int = 100_000,
    warn: Callable[[str], None] | None = None,
    **options: object,
) -> list[Paper]:
    """All papers in `sources`. A bad record raises CorpusError ("stop") or is skipped with `warn(message)`
    ("skip"); problems with a whole file (missing, binary, not UTF-8, empty, unsupported, not a regular file)
    always raise. Options as for `iter_papers`."""
    return list(
        iter_papers(sources, on_error=on_error, max_abstract_chars=max_abstract_chars, warn=warn, **options)  # type: ignore[arg-type]
    )
