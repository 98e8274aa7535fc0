"""The PDFs of a corpus read ahead in worker processes, handed back in the corpus's order.

Extracting a PDF's text is CPU-bound and single-threaded (pypdf and PDFium, rag.corpus.pdf), so a folder of PDFs is
read on every core: up to `workers` processes each read a PDF from a short queue ahead of the file the caller is at,
and `records(path)` returns that file's records when it gets there. Only PDFs go to the workers; a text format is
streamed in the caller's process as before. The workers are started with "spawn" (the caller may hold threads: an
encoder, a Chroma client) and ignore Ctrl-C, which the caller handles. A worker that dies on a file (a crash inside
PDFium) costs that file only: the file is read again alone in a fresh worker, and if that one dies too the file is a
bad record ("the PDF reader crashed on it"); the files queued behind it are sent to a new pool.

A spawned worker first runs the top level of the caller's main script again (Python's rule for "spawn"): a script
that calls rag.build_index without an `if __name__ == "__main__":` guard would index again in every worker, waiting
on the index lock. So workers are used only when the main module is safe to re-run (`main_is_guarded`): the `rag`
command, `python -m` of a guarded module, an interactive session; otherwise the PDFs are read in the caller's process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from rag.corpus.formats import Format
from rag.corpus.source_file import ReadOptions, Source
from rag.corpus.text_io import Record

AHEAD_PER_WORKER = 2  # files queued per worker: enough to keep each busy, few enough to hold little in memory
CRASHED = "the PDF reader crashed on it (the file may be damaged); open and re-save it, or skip it with --skip-bad"


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def main_is_guarded() -> bool:
    """Whether spawned workers may start here: the main module is an interactive session (spawn does not re-run
    it) or a file whose top level is guarded by `if __name__ == "__main__":` (read, not run)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    path = getattr(spec, "origin", None) or getattr(main, "__file__", None)
    if not path:
        return True
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "__name__" in text and "__main__" in text


def worker_count(setting: int, files: int) -> int:
    """How many workers read `files` PDFs: `setting` (0: one per core), never more than the files; 1 or less means
    no workers (the caller reads them itself), as when the main script would run again in each worker."""
    wanted = min(setting if setting > 0 else cores(), files)
    return wanted if wanted <= 1 or main_is_guarded() else 1


def _quiet() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle; a worker prints nothing


def _read(path: str, fmt: Format, options: ReadOptions) -> list[Record]:
    with Source(Path(path), options) as source:
        return list(fmt.read(source))


class ReadAhead:
    """Reads the PDFs of `plan` ahead; `records(path)` for each of them, in the plan's order."""

    def __init__(self, plan: Sequence[tuple[Path, Format]], options: ReadOptions, workers: int) -> None:
        self._queue = [(path, fmt) for path, fmt in plan if fmt.label == "PDF"]
        self._options = options
        self._workers = worker_count(workers, len(self._queue))
        self._next = 0  # the first file of the queue not yet submitted
        self._pending: OrderedDict[Path, tuple[Format, Future[list[Record]]]] = OrderedDict()
        self._pool: ProcessPoolExecutor | None = None

    @property
    def active(self) -> bool:
        return self._workers > 1

    def handles(self, fmt: Format) -> bool:
        return self.active and fmt.label == "PDF"

    def _start(self, workers: int = 0) -> ProcessPoolExecutor:
        """A pool of `workers` processes (0: the reader's own count)."""
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(workers or self._workers, mp_context=context, initializer=_quiet)

    def _fill(self) -> None:
        if self._pool is None:
            self._pool = self._start()
        while self._next < len(self._queue) and len(self._pending) < self._workers * AHEAD_PER_WORKER:
            path, fmt = self._queue[self._next]
            try:
                future = self._pool.submit(_read, str(path), fmt, self._options)
            except BrokenProcessPool:
                if self._pending:
                    return  # a queued file's worker died: found out when that file's turn comes (_after_crash)
                self._shutdown()  # a worker died between files
                self._pool = self._start()
                continue
            self._next += 1
            self._pending[path] = (fmt, future)

    def records(self, path: Path) -> list[Record]:
        """The records of the PDF at `path` (the next one in the plan's order); an OSError reading it is raised
        here, as if it had been read in this process."""
        self._fill()
        fmt, future = self._pending.pop(path)
        try:
            out = future.result()
        except BrokenProcessPool:
            out = self._after_crash(path, fmt)
        self._fill()
        return out

    def _after_crash(self, path: Path, fmt: Format) -> list[Record]:
        """A worker died: this file again on its own, then a fresh pool for the files queued behind it."""
        self._shutdown()
        requeue = list(self._pending.items())
        self._pending.clear()
        try:
            with self._start(1) as alone:
                out = alone.submit(_read, str(path), fmt, self._options).result()
        except BrokenProcessPool:
            out = [(0, CRASHED)]
        self._pool = self._start()
        for queued, (queued_fmt, _) in requeue:
            self._pending[queued] = (queued_fmt, self._pool.submit(_read, str(queued), queued_fmt, self._options))
        return out

    def _shutdown(self, wait: bool = False) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None

    def close(self, wait: bool = True) -> None:
        """Stop the workers: waited for after a complete read (they are idle), not after an error or Ctrl-C."""
        self._pending.clear()
        self._shutdown(wait)
